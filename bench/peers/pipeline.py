"""The pipeline of bench/pipeline.ts in CuPy and PyTorch: 256 MiB of pinned host memory in 16 MiB
chunks goes H2D -> a kernel (x * 2 + 1) -> D2H over 1, 2 and 4 streams, each chunk timed with
events, then the 4-stream pipeline captured into a graph. Same rows, same units; one JSON object
per line. PyTorch's kernel is two (mul_, add_): it has no fused elementwise op for x * 2 + 1."""
import json
import statistics
import sys
import time

TOTAL, CHUNK, REPS = 256 << 20, 16 << 20, 7
CHUNKS = TOTAL // CHUNK


def emit(peer, key, value, unit):
    print(json.dumps({"peer": peer, "key": key, "value": value, "unit": unit}), flush=True)


def run(peer, lib):
    """lib: streams(k), device_buffers(k), pinned(), h2d(d, h, s), kernel(d, s), d2h(h, d, s),
    event(), record(e, s), elapsed(a, b), sync(s), capture(origin, side, body) -> launch()."""
    inputs = [lib["pinned"](1.0) for _ in range(CHUNKS)]
    outputs = [lib["pinned"](0.0) for _ in range(CHUNKS)]
    streams = lib["streams"](4)
    bufs = lib["device_buffers"](4)

    def one_pass(use, timed):
        marks = []
        for i in range(CHUNKS):
            k = i % len(use)
            s, d = use[k], bufs[k]
            e = [lib["event"]() for _ in range(4)] if timed else None
            if timed: lib["record"](e[0], s)
            lib["h2d"](d, inputs[i], s)
            if timed: lib["record"](e[1], s)
            lib["kernel"](d, s)
            if timed: lib["record"](e[2], s)
            lib["d2h"](outputs[i], d, s)
            if timed:
                lib["record"](e[3], s)
                marks.append(e)
        return lambda: sum(lib["elapsed"](e[0], e[1]) + lib["elapsed"](e[1], e[2]) + lib["elapsed"](e[2], e[3]) for e in marks)

    for width in (1, 2, 4):
        use = streams[:width]
        one_pass(use, False)
        for s in use: lib["sync"](s)
        gbs, overlap = [], []
        for _ in range(REPS):
            t0 = time.perf_counter()
            stages = one_pass(use, True)
            for s in use: lib["sync"](s)
            ms = (time.perf_counter() - t0) * 1e3
            gbs.append(TOTAL / (ms / 1e3) / 1e9)
            overlap.append(stages() / ms)
        emit(peer, f"pipeline_{width}", statistics.median(gbs), "GB/s")
        emit(peer, f"pipeline_{width}_overlap", statistics.median(overlap), "×")

    launch = lib["capture"](streams[0], streams[1:], lambda: one_pass(streams, False))
    launch(); lib["sync"](streams[0])
    gbs = []
    for _ in range(REPS):
        t0 = time.perf_counter(); launch(); lib["sync"](streams[0])
        gbs.append(TOTAL / (time.perf_counter() - t0) / 1e9)
    emit(peer, "pipeline_graph", statistics.median(gbs), "GB/s")


def cupy_lib():
    import cupy as cp
    import cupyx
    k = cp.RawKernel(r'extern "C" __global__ void scale(float* x, unsigned long long n) { unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 2.0f + 1.0f; }', "scale")
    n = CHUNK // 4

    def pinned(v):
        a = cupyx.empty_pinned((n,), dtype=cp.float32); a[:] = v; return a

    def capture(origin, side, body):
        with origin:
            origin.begin_capture()
            fork = cp.cuda.Event(disable_timing=True); fork.record(origin)
            for s in side: s.wait_event(fork)
            body()
            for s in side:
                j = cp.cuda.Event(disable_timing=True); j.record(s); origin.wait_event(j)
            g = origin.end_capture()
        g.upload(origin)
        return lambda: g.launch(origin)

    return {
        "streams": lambda c: [cp.cuda.Stream(non_blocking=True) for _ in range(c)],
        "device_buffers": lambda c: [cp.empty((n,), dtype=cp.float32) for _ in range(c)],
        "pinned": pinned,
        # The runtime's own async copies: CuPy's ndarray.set/get refuse H2D while capturing.
        "h2d": lambda d, h, s: cp.cuda.runtime.memcpyAsync(d.data.ptr, h.ctypes.data, CHUNK, cp.cuda.runtime.memcpyHostToDevice, s.ptr),
        "kernel": lambda d, s: k(((n + 255) // 256,), (256,), (d, cp.uint64(n)), stream=s),
        "d2h": lambda h, d, s: cp.cuda.runtime.memcpyAsync(h.ctypes.data, d.data.ptr, CHUNK, cp.cuda.runtime.memcpyDeviceToHost, s.ptr),
        "event": cp.cuda.Event,
        "record": lambda e, s: e.record(s),
        "elapsed": cp.cuda.get_elapsed_time,
        "sync": lambda s: s.synchronize(),
        "capture": capture,
    }


def torch_lib():
    import torch
    n = CHUNK // 4

    def pinned(v):
        return torch.full((n,), v, dtype=torch.float32).pin_memory()

    def kernel(d, s):
        with torch.cuda.stream(s):
            d.mul_(2).add_(1)

    def h2d(d, h, s):
        with torch.cuda.stream(s):
            d.copy_(h, non_blocking=True)

    def d2h(h, d, s):
        with torch.cuda.stream(s):
            h.copy_(d, non_blocking=True)

    def capture(origin, side, body):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=origin):
            for s in side: s.wait_stream(origin)
            body()
            for s in side: origin.wait_stream(s)

        def replay():
            with torch.cuda.stream(origin):  # replay() launches on the current stream
                g.replay()
        return replay

    return {
        "streams": lambda c: [torch.cuda.Stream() for _ in range(c)],
        "device_buffers": lambda c: [torch.empty((n,), dtype=torch.float32, device="cuda") for _ in range(c)],
        "pinned": pinned,
        "h2d": h2d,
        "kernel": kernel,
        "d2h": d2h,
        "event": lambda: torch.cuda.Event(enable_timing=True),
        "record": lambda e, s: e.record(s),
        "elapsed": lambda a, b: a.elapsed_time(b),
        "sync": lambda s: s.synchronize(),
        "capture": capture,
    }


if __name__ == "__main__":
    for peer, make in (("cupy", cupy_lib), ("torch", torch_lib)):
        try:
            run(peer, make())
        except Exception as e:  # a peer that is missing or fails is reported, not fatal
            print(json.dumps({"peer": peer, "key": "pipeline", "error": f"{type(e).__name__}: {e}"}), flush=True)
    sys.exit(0)
