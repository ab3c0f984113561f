# Run on the GPU machine: `python bench/probes/cufft-lto.py` (JIT=none|local|global: how nvJitLink is preloaded).
# Which planning call and NVRTC options let cuFFT take an LTO callback (cufftXtSetJITCallback)? (It was none
# of them: cuFFT keeps the name pointer it is given and reads it when the plan is made; the addon had freed it.)
import ctypes, os, sys
lib = '/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/'
if os.environ.get('JIT') == 'global': ctypes.CDLL(lib + 'libnvJitLink.so.13', mode=ctypes.RTLD_GLOBAL)
elif os.environ.get('JIT') == 'local': ctypes.CDLL(lib + 'libnvJitLink.so.13')
nvrtc = ctypes.CDLL(lib + 'libnvrtc.so.13')
cufft = ctypes.CDLL(lib + 'libcufft.so.12')
cuda = ctypes.CDLL('libcuda.so.1'); cuda.cuInit(0)
dev = ctypes.c_int(); cuda.cuDeviceGet(ctypes.byref(dev), 0)
ctx = ctypes.c_void_p(); cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev); cuda.cuCtxSetCurrent(ctx)
v = ctypes.c_int(); cufft.cufftGetVersion(ctypes.byref(v)); print('cufft version', v.value)
SRC = b'''
__device__ float2 times_two(void *dataIn, unsigned long long offset, void *callerInfo, void *sharedPtr) {
  float2 v = ((float2 *)dataIn)[offset]; float2 r; r.x = 2.0f * v.x; r.y = 2.0f * v.y; return r; }'''
SRC_XT = b'#include <cufftXt.h>\n' + SRC.replace(b'float2', b'cufftComplex')
def compile_(src, opts):
    prog = ctypes.c_void_p()
    assert nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src, b'cb.cu', 0, None, None) == 0
    arr = (ctypes.c_char_p * len(opts))(*opts)
    r = nvrtc.nvrtcCompileProgram(prog, len(opts), arr)
    n = ctypes.c_size_t(); nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(n)); log = ctypes.create_string_buffer(n.value); nvrtc.nvrtcGetProgramLog(prog, log)
    if r != 0: return None, log.value.decode()[:300]
    nvrtc.nvrtcGetLTOIRSize(prog, ctypes.byref(n)); buf = ctypes.create_string_buffer(n.value); nvrtc.nvrtcGetLTOIR(prog, buf)
    return buf, ''
cufft.cufftXtSetJITCallback.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
LL = ctypes.c_longlong
def plan(kind, lto, name=b'times_two'):
    h = ctypes.c_int(); cufft.cufftCreate(ctypes.byref(h))
    if lto is not None:
        r = cufft.cufftXtSetJITCallback(h, name, lto, len(lto.raw), 0, None)  # CUFFT_CB_LD_COMPLEX = 0
        if r != 0: return f'setJIT {r}'
    work = ctypes.c_size_t()
    if kind == 'plan1d':
        r = cufft.cufftMakePlan1d(h, 128, 0x29, 2, ctypes.byref(work))
    elif kind == 'many':
        n = (ctypes.c_int * 1)(128)
        r = cufft.cufftMakePlanMany(h, 1, n, None, 1, 0, None, 1, 0, 0x29, 2, ctypes.byref(work))
    elif kind == 'many64':
        n = (LL * 1)(128)
        r = cufft.cufftMakePlanMany64(h, 1, n, None, LL(1), LL(0), None, LL(1), LL(0), 0x29, LL(2), ctypes.byref(work))
    elif kind == 'many64-noauto':
        cufft.cufftSetAutoAllocation(h, 0)
        n = (LL * 1)(128)
        r = cufft.cufftMakePlanMany64(h, 1, n, None, LL(1), LL(0), None, LL(1), LL(0), 0x29, LL(2), ctypes.byref(work))
    cufft.cufftDestroy(h)
    return r
inc = '-I/usr/local/cuda/include'
variants = {
  'ours sm_90': [b'--gpu-architecture=sm_90', b'-dlto'],
  'ours compute_90': [b'--gpu-architecture=compute_90', b'-dlto'],
  'sample': [inc.encode(), b'-arch=compute_90', b'--std=c++11', b'--relocatable-device-code=true', b'-default-device', b'-dlto'],
  'rdc compute_90': [b'--gpu-architecture=compute_90', b'-dlto', b'--relocatable-device-code=true'],
  'rdc sm_90': [b'--gpu-architecture=sm_90', b'-dlto', b'--relocatable-device-code=true'],
}
print('no callback:', {k: plan(k, None) for k in ['plan1d', 'many', 'many64', 'many64-noauto']})
for name, opts in variants.items():
    for src in (SRC, SRC_XT):
        if src is SRC_XT and name != 'sample': continue
        lto, log = compile_(src, opts)
        if lto is None: print(name, 'compile failed', log); continue
        print(name, 'xt-src' if src is SRC_XT else '', len(lto.raw), {k: plan(k, lto) for k in ['plan1d', 'many', 'many64', 'many64-noauto']})
# auto-allocation off before the callback, as ours does
def plan_noauto_first(lto):
    h = ctypes.c_int(); cufft.cufftCreate(ctypes.byref(h)); cufft.cufftSetAutoAllocation(h, 0)
    r = cufft.cufftXtSetJITCallback(h, b'times_two', lto, len(lto.raw), 0, None)
    if r != 0: return f'setJIT {r}'
    work = ctypes.c_size_t(); n = (LL * 1)(128)
    r = cufft.cufftMakePlanMany64(h, 1, n, None, LL(1), LL(0), None, LL(1), LL(0), 0x29, LL(2), ctypes.byref(work))
    cufft.cufftDestroy(h); return r
lto, _ = compile_(SRC, variants['rdc compute_90'])
print('noauto first:', plan_noauto_first(lto))
if os.path.exists('/tmp/ours.ltoir'):
    b = open('/tmp/ours.ltoir', 'rb').read(); ours = ctypes.create_string_buffer(b, len(b))
    print('ours ltoir', len(b), 'same as python:', b == lto.raw, 'plan:', plan('many64', ours), plan_noauto_first(ours))
if os.path.exists('/tmp/plan.ltoir'):
    b = open('/tmp/plan.ltoir', 'rb').read(); pl = ctypes.create_string_buffer(b, len(b))
    print('plan ltoir', len(b), 'plan:', plan('many64', pl), plan_noauto_first(pl))
# Does a PTX module the driver JIT-compiles (as our built-in kernels are) change what cuFFT's JIT can do?
PTX = b'''.version 8.0
.target sm_90
.address_size 64
.visible .entry noop() { ret; }
'''
mod = ctypes.c_void_p()
r = cuda.cuModuleLoadData(ctypes.byref(mod), PTX)
print('ptx module loaded:', r)
lto, _ = compile_(SRC, variants['rdc compute_90'])
print('after a PTX module:', plan('many64', lto), plan_noauto_first(lto))
