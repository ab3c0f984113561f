"""One rank of PyTorch's all_reduce under torchrun, for bench/nccl.ts's launcher mode: the same
sizes and iteration counts as bench/nccl-rank.ts; rank 0 prints one JSON object per size,
{"bytes", "us", "busbw"}, busbw as nccl-tests defines it."""
import json
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    sizes = [int(s) for s in sys.argv[1:]]
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    try:
        dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    except TypeError:  # torch before 2.3 has no device_id
        dist.init_process_group("nccl")
    n = dist.get_world_size()
    for nbytes in sizes:
        count = max(1, nbytes // 4)
        x = torch.ones(count, dtype=torch.float32, device="cuda")
        iters = 500 if nbytes <= 1 << 20 else (20 if nbytes >= 256 << 20 else 100)
        for _ in range(20):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        seconds = (time.perf_counter() - t0) / iters
        if dist.get_rank() == 0:
            size = count * 4
            print(json.dumps({"bytes": size, "us": seconds * 1e6, "busbw": size / seconds * 2 * (n - 1) / n / 1e9}), flush=True)
        del x
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
