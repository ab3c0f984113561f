"""The loop of bench/graph-loop.ts in CuPy and cuda.core: a small kernel counting to N on the GPU,
looped until the device-side flag it writes says stop, N = 10, 1,000 and 100,000; per-iteration
cost in microseconds. CuPy: the host loop (launch, copy the flag back, test). cuda.core: one
while-node graph whose kernel calls cudaGraphSetConditional. A peer that is not installed prints
that it is not. One JSON object per line, as bench/graph-loop.ts prints its rows."""
import json
import statistics
import time

NS = (10, 1000, 100000)
REPS = 3
STEP = r"""
typedef unsigned long long cudaGraphConditionalHandle;
extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
extern "C" __global__ void step(int *counter, int limit, int *flag) { int n = ++*counter; *flag = n < limit; }
extern "C" __global__ void step_set(int *counter, int limit, cudaGraphConditionalHandle h) { int n = ++*counter; cudaGraphSetConditional(h, n < limit); }
extern "C" __global__ void zero(int *counter) { *counter = 0; }
"""


def emit(peer, n, op, us):
    print(json.dumps({"peer": peer, "n": n, "op": op, "us": us}), flush=True)


def cupy_host_loop():
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001 - any failure to import means the peer is absent
        print(json.dumps({"peer": "cupy", "skipped": f"CuPy is not installed here ({e})"}))
        return
    step = cp.RawKernel(STEP, "step")
    counter = cp.zeros(1, dtype=cp.int32)
    flag = cp.zeros(1, dtype=cp.int32)
    s = cp.cuda.Stream(non_blocking=True)
    host = cp.cuda.alloc_pinned_memory(4)
    import numpy as np

    view = np.frombuffer(host, dtype=np.int32, count=1)
    for n in NS:
        times = []
        for _ in range(REPS):
            counter.fill(0)
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            with s:
                for _ in range(n):
                    step((1,), (1,), (counter, np.int32(n), flag))
                    flag.get(out=view, stream=s)
                    s.synchronize()
                    if view[0] == 0:
                        break
            times.append((time.perf_counter() - t0) * 1e6)
        emit("cupy", n, "host loop (launch, copy the flag back, test)", statistics.median(times) / n)


def cuda_core_while():
    try:
        from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions, launch
    except Exception:  # noqa: BLE001
        try:
            from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"peer": "cuda.core", "skipped": f"cuda.core is not installed here ({e})"}))
            return
    try:
        import numpy as np

        dev = Device()
        dev.set_current()
        s = dev.create_stream()
        arch = "".join(str(x) for x in dev.compute_capability)
        mod = Program(STEP, code_type="c++", options=ProgramOptions(arch=f"sm_{arch}")).compile("cubin", name_expressions=("step_set", "zero"))
        k = mod.get_kernel("step_set")
        zero_k = mod.get_kernel("zero")
        counter = dev.allocate(4, stream=s)
        cfg = LaunchConfig(grid=1, block=1)
        for n in NS:
            gb = s.create_graph_builder().begin_building()
            handle = gb.create_conditional_handle(default_value=1)
            body = gb.while_loop(handle)
            body = body[0] if isinstance(body, tuple) else body
            body.begin_building()
            launch(body, cfg, k, counter, np.int32(n), handle)
            body.end_building()
            graph = gb.end_building().complete()
            graph.upload(s)
            times = []
            for _ in range(REPS):
                launch(s, cfg, zero_k, counter)
                s.sync()
                t0 = time.perf_counter()
                graph.launch(s)
                s.sync()
                times.append((time.perf_counter() - t0) * 1e6)
            emit("cuda.core", n, "while node (cudaGraphSetConditional in the step)", statistics.median(times) / n)
    except Exception as e:  # noqa: BLE001 - an API this script does not match is reported, not hidden
        print(json.dumps({"peer": "cuda.core", "skipped": f"cuda.core's while node failed here: {type(e).__name__}: {e}"}))


if __name__ == "__main__":
    cupy_host_loop()
    cuda_core_while()
