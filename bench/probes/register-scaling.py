# Parallel page-locking: does cuMemHostRegister scale over threads? (#32.7 experiment)
import ctypes, time, threading, numpy as np, sys
cu = ctypes.CDLL('libcuda.so.1')
def ck(r, what):
    if r != 0: raise RuntimeError(f'{what}: {r}')
ck(cu.cuInit(0), 'init')
dev = ctypes.c_int(); ck(cu.cuDeviceGet(ctypes.byref(dev), 0), 'dev')
ctx = ctypes.c_void_p(); ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), 'retain'); ck(cu.cuCtxSetCurrent(ctx), 'set')
N = 256 << 20
dptr = ctypes.c_uint64(); ck(cu.cuMemAlloc_v2(ctypes.byref(dptr), ctypes.c_size_t(N)), 'alloc')
cu.cuMemHostRegister_v2.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
cu.cuMemHostUnregister.argtypes = [ctypes.c_void_p]
cu.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
cu.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
def run(threads, chunk, fresh):
    a = np.empty(N, dtype=np.uint8)
    if not fresh: a.fill(1)
    base = a.ctypes.data
    chunks = [(base + o, min(chunk, N - o)) for o in range(0, N, chunk)]
    t0 = time.perf_counter()
    def work(i):
        for j in range(i, len(chunks), threads):
            p, n = chunks[j]; ctypes_ctx = cu.cuCtxSetCurrent(ctx)
            ck(cu.cuMemHostRegister_v2(p, n, 0), 'register')
    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    [t.start() for t in ts]; [t.join() for t in ts]
    t1 = time.perf_counter()
    for p, n in chunks: ck(cu.cuMemcpyHtoD_v2(dptr.value + (p - base), p, n), 'h2d')
    t2 = time.perf_counter()
    for p, n in chunks: ck(cu.cuMemcpyHtoD_v2(dptr.value + (p - base), p, n), 'h2d2')
    t3 = time.perf_counter()
    for p, n in chunks: ck(cu.cuMemHostUnregister(p), 'unreg')
    t4 = time.perf_counter()
    # pageable baseline
    t5 = time.perf_counter(); ck(cu.cuMemcpyHtoD_v2(dptr.value, base, N), 'h2d-pageable'); t6 = time.perf_counter()
    gb = N / 1e9
    print(f'threads {threads:2d} chunk {chunk>>20:3d} MiB {"fresh" if fresh else "touched"}: register {gb/(t1-t0):6.1f} GB/s ({(t1-t0)*1e3:5.1f} ms)  copy after {gb/(t2-t1):5.1f}  again {gb/(t3-t2):5.1f}  unregister {(t4-t3)*1e3:5.1f} ms  pageable {gb/(t6-t5):5.1f} GB/s', flush=True)
for fresh in (False, True):
    for threads in (1, 2, 4, 8, 12):
        for chunk in (4 << 20, 32 << 20):
            run(threads, chunk, fresh)
