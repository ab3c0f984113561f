"""The fragmentation workload of bench/fragmentation.ts, replayed in PyTorch's caching allocator
(with or without PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, set by the caller: one process
each) or CuPy's pool. Usage: fragmentation.py torch|cupy OPS.json GROW_BYTES. Prints one JSON
object: peakUsed, peakReserved, ratio (reserved / used) and growMs (the median ms to grow by
GROW_BYTES with a block already held)."""
import json
import statistics
import sys
import time


def torch_run(ops, grow):
    import torch
    torch.cuda.init()
    live = {}
    torch.cuda.reset_peak_memory_stats()
    for op in ops:
        if op[0] == "a":
            live[op[1]] = torch.empty(op[2], dtype=torch.uint8, device="cuda")
        else:
            del live[op[1]]
    used = torch.cuda.max_memory_allocated()
    reserved = torch.cuda.max_memory_reserved()
    live.clear()
    torch.cuda.empty_cache()
    times = []
    for _ in range(5):
        first = torch.empty(1 << 20, dtype=torch.uint8, device="cuda")
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        big = torch.empty(grow, dtype=torch.uint8, device="cuda")
        times.append((time.perf_counter() - t0) * 1e3)
        del big, first
        torch.cuda.empty_cache()
    return used, reserved, statistics.median(times)


def cupy_run(ops, grow):
    import cupy
    pool = cupy.cuda.MemoryPool()
    live = {}
    used = reserved = 0
    for op in ops:
        if op[0] == "a":
            live[op[1]] = pool.malloc(op[2])
            used = max(used, pool.used_bytes())
            reserved = max(reserved, pool.total_bytes())
        else:
            del live[op[1]]
    live.clear()
    pool.free_all_blocks()
    times = []
    for _ in range(5):
        first = pool.malloc(1 << 20)
        cupy.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        big = pool.malloc(grow)
        times.append((time.perf_counter() - t0) * 1e3)
        del big, first
        pool.free_all_blocks()
    return used, reserved, statistics.median(times)


if __name__ == "__main__":
    lib, path, grow = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path) as f:
        ops = json.load(f)
    used, reserved, grow_ms = (torch_run if lib == "torch" else cupy_run)(ops, grow)
    print(json.dumps({"peakUsed": used, "peakReserved": reserved, "ratio": reserved / used, "growMs": grow_ms}))
