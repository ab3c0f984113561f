"""CuPy's cuRAND for bench/curand.ts: 2^k float32 normals on a stream, through the raw
cupy.cuda.curand calls (a Philox and a XORWOW generator) and through cupy.random (its default
generator, which allocates its output each call). Prints one JSON object per row, {"op", "ms"},
then {"first": ...}: the first words, uniforms and normals of a Philox generator seeded 1234, for
the bench to compare with ours."""
import json
import sys
import time

import cupy
from cupy.cuda import curand

n = int(sys.argv[1])
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
stream = cupy.cuda.Stream(non_blocking=True)
out = cupy.empty(n, dtype=cupy.float32)


def timed(once):
    # The device is synchronized, not only `stream`: on an H200, stream.synchronize() after
    # cupy.cuda.curand calls returned as if 2^26 normals took 5 µs (54 TB/s, past the memory's
    # bandwidth), so their work was not all on `stream`.
    for _ in range(3):
        once()
    cupy.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        once()
    cupy.cuda.Device().synchronize()
    return (time.perf_counter() - t0) / reps * 1e3


for name, kind in (("philox", curand.CURAND_RNG_PSEUDO_PHILOX4_32_10), ("xorwow", curand.CURAND_RNG_PSEUDO_XORWOW)):
    gen = curand.createGenerator(kind)
    curand.setPseudoRandomGeneratorSeed(gen, 1234)
    curand.setStream(gen, stream.ptr)
    ms = timed(lambda: curand.generateNormal(gen, out.data.ptr, n, 0.0, 1.0))
    print(json.dumps({"op": f"cupy.cuda.curand.generateNormal ({name})", "ms": ms}), flush=True)
    curand.destroyGenerator(gen)

with stream:  # cupy.random binds its generator to the current stream at each call
    rs = cupy.random.RandomState(1234)
    ms = timed(lambda: rs.standard_normal(n, dtype=cupy.float32))
print(json.dumps({"op": "cupy.random.RandomState.standard_normal (xorwow, allocates)", "ms": ms}), flush=True)

gen = curand.createGenerator(curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)
curand.setPseudoRandomGeneratorSeed(gen, 1234)
w = cupy.empty(8, dtype=cupy.uint32)
u = cupy.empty(8, dtype=cupy.float32)
z = cupy.empty(8, dtype=cupy.float32)
curand.generate(gen, w.data.ptr, 8)
curand.setGeneratorOffset(gen, 0)
curand.generateUniform(gen, u.data.ptr, 8)
curand.setGeneratorOffset(gen, 0)
curand.generateNormal(gen, z.data.ptr, 8, 0.0, 1.0)
cupy.cuda.Device().synchronize()
print(json.dumps({"first": {"words": w.get().tolist(), "uniform": u.get().tolist(), "normal": z.get().tolist()}}), flush=True)
