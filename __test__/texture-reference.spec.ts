// Texture references (CuPy's RawModule.get_texref and TextureReference; the driver's deprecated
// cuModuleGetTexRef and cuTexRefSet*): a module's `.texref`, bound to memory or an array.
import test from 'ava'
import { alloc, ChannelFormatDescriptor, CudaError, CUDAArray, getCurrentStream, i32, RawModule, TextureReference } from '..'
import { gpuTest, onGpu } from './helpers'

const float32 = () => new ChannelFormatDescriptor(32, 0, 0, 0, 'float')
const ramp = (n: number) => Float32Array.from({ length: n }, (_, i) => i + 0.5)

/** A module with a texture reference `tex` and a kernel reading element i of it into out[i], plus one (PTX: CUDA C++ has no `texture<>` since CUDA 12). */
const PTX = String.raw`
.version 7.0
.target sm_75
.address_size 64
.global .texref tex;
.visible .entry fetch(.param .u64 out, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.u32 %p, %r2, %r1;
  @%p bra DONE;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex, {%r2}];
  add.f32 %f5, %f1, 0f3F800000;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.f32 [%rd2], %f5;
DONE:
  ret;
}
.visible .entry fetchArray(.param .u64 out, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .f32 %f<7>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.u32 %p, %r2, %r1;
  @%p bra DONE;
  cvt.rn.f32.u32 %f6, %r2;
  add.f32 %f6, %f6, 0f3F000000;
  tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f6}];
  add.f32 %f5, %f1, 0f3F800000;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.f32 [%rd2], %f5;
DONE:
  ret;
}
`

test('bad input is a TypeError before any module is loaded', (t) => {
  const mem = alloc(64)
  const res = { type: 'linear' as const, memory: mem, format: float32(), sizeInBytes: 64 }
  t.throws(() => new TextureReference({} as any, 'tex', res), { instanceOf: TypeError, message: /RawModule/ })
  const mod = new RawModule({ ptx: PTX })
  t.throws(() => new TextureReference(mod, '' as any, res), { instanceOf: TypeError })
  t.throws(() => new TextureReference(mod, 'tex', { type: 'volume' } as any), { instanceOf: RangeError })
  t.throws(() => new TextureReference(mod, 'tex', res, { filterMode: 1 } as any), { instanceOf: TypeError })
})

test('on the simulator a texture reference is CUDA_ERROR_NOT_SUPPORTED: it loads no module', (t) => {
  if (onGpu) return t.pass('the GPU tests below bind one')
  const mem = alloc(64)
  const e = t.throws(() => new TextureReference(new RawModule({ ptx: PTX }), 'tex', { type: 'linear', memory: mem, format: float32(), sizeInBytes: 64 }), {
    instanceOf: CudaError,
  })
  t.is(e!.code, 'CUDA_ERROR_NOT_SUPPORTED')
})

gpuTest('a kernel reads linear memory through a texture reference bound to it', (t) => {
  const n = 300
  const src = alloc(n * 4)
  src.copyFromHost(ramp(n))
  const mod = new RawModule({ ptx: PTX })
  using ref = new TextureReference(mod, 'tex', { type: 'linear', memory: src, format: float32(), sizeInBytes: n * 4 })
  t.is(typeof ref.handle, 'bigint')
  t.not(ref.handle, 0n)
  const out = alloc(n * 4)
  mod.getFunction('fetch').launch([Math.ceil(n / 128)], [128], [out, i32(n)])
  getCurrentStream().synchronize()
  const back = new Float32Array(n)
  out.copyToHost(back)
  t.deepEqual(back, ramp(n).map((v) => v + 1))
})

gpuTest('a texture reference bound to a CUDA array reads it at unnormalized coordinates', (t) => {
  const n = 64
  using a = new CUDAArray(float32(), n)
  a.copyFrom(ramp(n))
  const mod = new RawModule({ ptx: PTX })
  using _ref = new TextureReference(mod, 'tex', { type: 'array', array: a }, { addressModes: ['clamp'], filterMode: 'point' })
  const out = alloc(n * 4)
  mod.getFunction('fetchArray').launch([1], [n], [out, i32(n)])
  getCurrentStream().synchronize()
  const back = new Float32Array(n)
  out.copyToHost(back)
  t.deepEqual(back, ramp(n).map((v) => v + 1))
})

gpuTest('a name the module does not declare is CUDA_ERROR_NOT_FOUND', (t) => {
  const mem = alloc(64)
  const e = t.throws(() => new TextureReference(new RawModule({ ptx: PTX }), 'nope', { type: 'linear', memory: mem, format: float32(), sizeInBytes: 64 }), {
    instanceOf: CudaError,
  })
  t.is(e!.code, 'CUDA_ERROR_NOT_FOUND')
})
