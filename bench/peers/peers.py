"""The peers: the benchmark's operations in CuPy and PyTorch, timed as the JS bench times them
(median µs per operation over batches). Run by `npm run bench` where python3 has them; prints one
JSON object per line: {"peer": ..., "key": ..., "value": ..., "unit": ...}."""
import json
import statistics
import sys
import time


def emit(peer, key, value, unit="us"):
    print(json.dumps({"peer": peer, "key": key, "value": value, "unit": unit}), flush=True)


def timed(peer, key, n, f, batches=15, per_call=1):
    for _ in range(min(n, 1000)):
        f()
    per = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        per.append((time.perf_counter() - t0) * 1e6 / n)
    emit(peer, key, statistics.median(per) / per_call)


def bandwidth(peer, key, nbytes, copy, sync):
    copy(); sync()
    gbs = []
    for _ in range(7):
        t0 = time.perf_counter(); copy(); sync()
        gbs.append(nbytes / (time.perf_counter() - t0) / 1e9)
    emit(peer, key, statistics.median(gbs), "GB/s")


def cupy_bench():
    import cupy as cp
    s = cp.cuda.Stream(non_blocking=True)
    timed("cupy", "stream_create_destroy", 500, lambda: cp.cuda.Stream())  # destroyed as its last reference drops
    timed("cupy", "stream_create_use_destroy", 500, lambda: cp.cuda.Stream().done)
    timed("cupy", "event_create_destroy", 500, lambda: cp.cuda.Event())
    ev = cp.cuda.Event(disable_timing=True)
    timed("cupy", "event_record_query", 5000, lambda: (ev.record(s), ev.done))
    e1, e2 = cp.cuda.Event(), cp.cuda.Event()
    def pair():
        e1.record(s); e2.record(s); e2.synchronize(); cp.cuda.get_elapsed_time(e1, e2)
    timed("cupy", "event_pair_sync_elapsed", 2000, pair)
    timed("cupy", "idle_stream_sync", 5000, s.synchronize)
    timed("cupy", "malloc_free", 500, lambda: cp.cuda.runtime.free(cp.cuda.runtime.malloc(1 << 20)))
    pool = cp.cuda.MemoryPool()
    with s:
        timed("cupy", "pool_alloc_free", 2000, lambda: pool.malloc(1 << 20))  # freed as its last reference drops
        apool = cp.cuda.MemoryAsyncPool()
        timed("cupy", "pool_async_alloc_free", 2000, lambda: apool.malloc(1 << 20))
    k = cp.RawKernel('extern "C" __global__ void empty() {}', "empty")
    k((1,), (1,), (), stream=s); s.synchronize()
    def launches(count):
        for _ in range(count):
            k((1,), (1,), (), stream=s)
        s.synchronize()
    timed("cupy", "empty_kernel_launch", 1, lambda: launches(5000), batches=7, per_call=5000)
    timed("cupy", "eager_100", 1, lambda: launches(100), batches=31)
    s.begin_capture()
    for _ in range(100):
        k((1,), (1,), (), stream=s)
    g = s.end_capture()
    g.upload(s)
    timed("cupy", "graph_100", 1, lambda: (g.launch(s), s.synchronize()), batches=31)
    import threading
    done = threading.Event()
    def cb(arg):
        done.set()
    def roundtrip():
        done.clear(); s.launch_host_func(cb, None); done.wait()
    timed("cupy", "host_callback", 200, roundtrip)
    timed("cupy", "nvtx_push_pop", 100000, lambda: (cp.cuda.nvtx.RangePush("r"), cp.cuda.nvtx.RangePop()))
    n = 256 << 20
    d = cp.cuda.alloc(n)
    pinned = cp.cuda.alloc_pinned_memory(n)
    import numpy as np
    pageable = np.ones(n, dtype=np.uint8)
    bandwidth("cupy", "h2d_pinned", n, lambda: d.copy_from_host_async(pinned.ptr, n, s), s.synchronize)
    bandwidth("cupy", "d2h_pinned", n, lambda: d.copy_to_host_async(pinned.ptr, n, s), s.synchronize)
    bandwidth("cupy", "h2d_pageable", n, lambda: d.copy_from_host_async(pageable.ctypes.data, n, s), s.synchronize)
    bandwidth("cupy", "d2h_pageable", n, lambda: d.copy_to_host_async(pageable.ctypes.data, n, s), s.synchronize)


def torch_bench():
    import torch
    dev = torch.device("cuda")
    s = torch.cuda.Stream()
    timed("torch", "stream_create_destroy", 500, lambda: torch.cuda.Stream())
    timed("torch", "stream_create_use_destroy", 500, lambda: torch.cuda.Stream().query())
    timed("torch", "event_create_destroy", 500, lambda: torch.cuda.Event(enable_timing=True))
    ev = torch.cuda.Event()
    timed("torch", "event_record_query", 5000, lambda: (ev.record(s), ev.query()))
    e1, e2 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    def pair():
        e1.record(s); e2.record(s); e2.synchronize(); e1.elapsed_time(e2)
    timed("torch", "event_pair_sync_elapsed", 2000, pair)
    timed("torch", "idle_stream_sync", 5000, s.synchronize)
    with torch.cuda.stream(s):
        timed("torch", "pool_alloc_free", 2000, lambda: torch.empty(1 << 20, dtype=torch.uint8, device=dev))
        def launches(count):
            for _ in range(count):
                torch.cuda._sleep(0)
            s.synchronize()
        timed("torch", "empty_kernel_launch", 1, lambda: launches(5000), batches=7, per_call=5000)
        timed("torch", "eager_100", 1, lambda: launches(100), batches=31)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        for _ in range(100):
            torch.cuda._sleep(0)
    timed("torch", "graph_100", 1, lambda: (g.replay(), torch.cuda.current_stream().synchronize()), batches=31)
    timed("torch", "nvtx_push_pop", 100000, lambda: (torch.cuda.nvtx.range_push("r"), torch.cuda.nvtx.range_pop()))
    n = 256 << 20
    d = torch.empty(n, dtype=torch.uint8, device=dev)
    pinned = torch.ones(n, dtype=torch.uint8).pin_memory()
    pageable = torch.ones(n, dtype=torch.uint8)
    with torch.cuda.stream(s):
        bandwidth("torch", "h2d_pinned", n, lambda: d.copy_(pinned, non_blocking=True), s.synchronize)
        bandwidth("torch", "d2h_pinned", n, lambda: pinned.copy_(d, non_blocking=True), s.synchronize)
        bandwidth("torch", "h2d_pageable", n, lambda: d.copy_(pageable, non_blocking=True), s.synchronize)
        bandwidth("torch", "d2h_pageable", n, lambda: pageable.copy_(d, non_blocking=True), s.synchronize)


def cupy_nvtx():
    import cupy as cp
    timed("cupy", "nvtx_push_pop_tool", 100000, lambda: (cp.cuda.nvtx.RangePush("r"), cp.cuda.nvtx.RangePop()))


def torch_nvtx():
    import torch
    timed("torch", "nvtx_push_pop_tool", 100000, lambda: (torch.cuda.nvtx.range_push("r"), torch.cuda.nvtx.range_pop()))


if __name__ == "__main__":
    # `peers.py nvtx`: the NVTX row only, run by the bench with a tool attached (NVTX_INJECTION64_PATH).
    only_nvtx = sys.argv[1:] == ["nvtx"]
    for name, f in (("cupy", cupy_nvtx if only_nvtx else cupy_bench), ("torch", torch_nvtx if only_nvtx else torch_bench)):
        try:
            f()
        except Exception as e:  # a missing peer is reported, not fatal
            print(json.dumps({"peer": name, "error": repr(e)}), flush=True)
    sys.exit(0)
