"""PyTorch's all_reduce through NCCL, one process per device, for bench/nccl.ts: prints one JSON
object per size, {"bytes": ..., "busbw": GB/s}, with busbw as nccl-tests defines it."""
import json
import os
import sys
import time


def rank_main(rank, n, sizes, port):
    import torch
    import torch.distributed as dist
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", world_size=n, rank=rank)
    for nbytes in sizes:
        x = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda")
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        iters = 10 if nbytes >= 256 << 20 else 40
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        seconds = (time.perf_counter() - t0) / iters
        if rank == 0:
            print(json.dumps({"bytes": nbytes, "busbw": nbytes / seconds * 2 * (n - 1) / n / 1e9}), flush=True)
        del x
    dist.destroy_process_group()


if __name__ == "__main__":
    import torch.multiprocessing as mp
    n = int(sys.argv[1])
    sizes = [int(s) for s in sys.argv[2:]]
    mp.spawn(rank_main, args=(n, sizes, 29511), nprocs=n, join=True)
