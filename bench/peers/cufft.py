"""The FFT of bench/cufft.ts in CuPy: `cupy.fft.fft` of N complex64 points (its plan cached after
the first call, as CuPy caches plans), timed as the bench times ours: REPS transforms queued
back to back on the current stream, then a synchronize, median of ROUNDS rounds, ms per FFT.
The input is the bench's (integers, exact in both languages); a sample of the output comes back
so the bench can say how far apart the two results are. Usage: cufft.py N. One JSON line; CuPy
not installed prints that it is not."""
import json
import statistics
import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 24
REPS = 20
ROUNDS = 5
SAMPLES = 1024


def main():
    try:
        import cupy as cp
        import numpy as np
    except Exception as e:  # noqa: BLE001 - any failure to import means the peer is absent
        print(json.dumps({"peer": "cupy", "skipped": f"CuPy is not installed here ({e})"}))
        return
    j = np.arange(N, dtype=np.int64)
    host = ((j * 7919) % 1000 / 1000 - 0.5) + 1j * ((j * 104729) % 997 / 997 - 0.5)
    x = cp.asarray(host.astype(np.complex64))
    y = cp.fft.fft(x)  # plans, and caches the plan
    cp.cuda.Stream.null.synchronize()
    rounds = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(REPS):
            y = cp.fft.fft(x)
        cp.cuda.get_current_stream().synchronize()
        rounds.append((time.perf_counter() - t0) * 1e3 / REPS)
    step = max(1, N // SAMPLES)
    sample = cp.asnumpy(y[::step][:SAMPLES])
    print(
        json.dumps(
            {
                "peer": "cupy",
                "n": N,
                "ms": statistics.median(rounds),
                "cupy": cp.__version__,
                "cufft": cp.cuda.cufft.getVersion(),
                "sample": [[float(v.real), float(v.imag)] for v in sample],
            }
        ),
        flush=True,
    )


main()
