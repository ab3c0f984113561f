import test from 'ava'
import { alloc, ChannelFormatDescriptor, CudaError, CUDAArray, Device, getCurrentStream, i32, RawKernel, Stream, SurfaceObject, TextureObject } from '..'
import { nvrtcTest, onGpu, onWasm, runJson } from './helpers'

const float32 = () => new ChannelFormatDescriptor(32, 0, 0, 0, 'float')

/** `n` floats 0.5, 1.5, 2.5, … as the host side of a copy. */
const ramp = (n: number) => Float32Array.from({ length: n }, (_, i) => i + 0.5)

test('a channel format is 1, 2 or 4 channels of 8, 16 or 32 bits, checked by the addon', (t) => {
  t.is(float32().elementSize, 4)
  t.is(new ChannelFormatDescriptor(8, 8, 8, 8, 'unsigned').elementSize, 4)
  t.is(new ChannelFormatDescriptor(16, 16, 0, 0, 'float').elementSize, 4, 'two halves')
  t.deepEqual(new ChannelFormatDescriptor(16, 0, 0, 0, 'signed').getChannelFormat(), { x: 16, y: 0, z: 0, w: 0, f: 'signed' })
  t.throws(() => new ChannelFormatDescriptor(12), { instanceOf: RangeError, message: /8, 16 or 32/ })
  t.throws(() => new ChannelFormatDescriptor(0), { instanceOf: RangeError, message: /at least one channel/ })
  t.throws(() => new ChannelFormatDescriptor(8, 8, 8, 0, 'unsigned'), { instanceOf: RangeError, message: /not 3/ })
  t.throws(() => new ChannelFormatDescriptor(8, 16, 0, 0, 'unsigned'), { instanceOf: RangeError, message: /same width/ })
  t.throws(() => new ChannelFormatDescriptor(8, 0, 0, 0, 'float'), { instanceOf: RangeError, message: /not 8/ })
  t.throws(() => new ChannelFormatDescriptor(8, 0, 0, 0, 'complex' as any), { instanceOf: RangeError, message: /'signed', 'unsigned' or 'float'/ })
  t.throws(() => new ChannelFormatDescriptor(8.5), { instanceOf: RangeError })
  t.throws(() => new ChannelFormatDescriptor('8' as any), { instanceOf: TypeError })
})

test('a 2D array round-trips host memory, and device memory packed or pitched', (t) => {
  using a = new CUDAArray(float32(), 5, 3)
  t.is(a.ndim, 2)
  t.is(a.nbytes, 5 * 3 * 4)
  t.is(typeof a.handle, 'bigint')
  const src = ramp(15)
  a.copyFrom(src)
  const back = new Float32Array(15)
  a.copyTo(back)
  t.deepEqual(back, src)

  // Out to device memory with rows 64 bytes apart, and back in from there into a second array.
  const pitch = 64
  const d = alloc(pitch * 3)
  d.memset(0, pitch * 3)
  a.copyTo({ ptr: d, pitch })
  const rows = new Float32Array((pitch * 3) / 4)
  d.copyToHost(rows)
  for (let y = 0; y < 3; y++) t.deepEqual(Array.from(rows.subarray((y * pitch) / 4, (y * pitch) / 4 + 5)), Array.from(src.subarray(y * 5, y * 5 + 5)), `row ${y} at its pitch`)
  using b = new CUDAArray(float32(), 5, 3)
  b.copyFrom({ ptr: d, pitch })
  const packed = alloc(a.nbytes)
  b.copyTo(packed, new Stream())
  const out = new Float32Array(15)
  packed.copyToHost(out)
  t.deepEqual(out, src)
})

test('a 3D layered array, a 3D array and a 1D one round-trip', (t) => {
  for (const [w, h, d, layered] of [[4, 3, 5, true], [4, 3, 5, false], [7, 0, 0, false], [6, 0, 2, true]] as const) {
    using a = new CUDAArray(new ChannelFormatDescriptor(16, 16, 0, 0, 'signed'), w, h, d, { layered, surfaceLoadStore: true })
    const n = w * Math.max(h, 1) * Math.max(d, 1) * 2
    t.is(a.nbytes, n * 2)
    const src = Int16Array.from({ length: n }, (_, i) => i * 7 - 300)
    a.copyFrom(src)
    const back = new Int16Array(n)
    a.copyTo(back)
    t.deepEqual(back, src, `${w} x ${h} x ${d}${layered ? ' layered' : ''}`)
  }
})

test('a texture object over an array keeps it alive after free(), and handles are unique', (t) => {
  const a = new CUDAArray(float32(), 8, 8, 0, { surfaceLoadStore: true })
  const src = ramp(64)
  a.copyFrom(src)
  const tex = new TextureObject({ type: 'array', array: a }, { addressModes: ['clamp', 'border'], filterMode: 'linear', borderColor: [1, 2, 3, 4] })
  const surf = new SurfaceObject(a)
  const tex2 = new TextureObject({ type: 'array', array: a })
  const handles = [tex.handle, surf.handle, tex2.handle]
  t.is(new Set(handles).size, 3, 'three distinct handles')
  for (const h of handles) t.true(typeof h === 'bigint' && h !== 0n)
  a.free()
  a.free() // again: nothing
  t.throws(() => a.handle, { instanceOf: CudaError, code: 'CUDA_ERROR_INVALID_HANDLE', message: /CUDAArray was freed/ })
  t.throws(() => new TextureObject({ type: 'array', array: a }), { instanceOf: CudaError, code: 'CUDA_ERROR_INVALID_HANDLE' })
  t.is(tex.handle, handles[0], 'the texture still reads the array')
  tex.destroy()
  tex.destroy()
  t.throws(() => tex.handle, { instanceOf: CudaError, code: 'CUDA_ERROR_INVALID_HANDLE', message: /TextureObject was destroyed/ })
  t.is(surf.handle, handles[1])
  surf.destroy()
  t.throws(() => surf.handle, { instanceOf: CudaError, code: 'CUDA_ERROR_INVALID_HANDLE' })
  tex2[Symbol.dispose]()
})

test('the array goes with the last object over it: its memory is counted back', (t) => {
  if (onGpu) return t.pass('simulator only: on a GPU other processes allocate meanwhile')
  const dev = new Device()
  const free0 = dev.memInfo().free
  const a = new CUDAArray(float32(), 1024, 256)
  t.is(dev.memInfo().free, free0 - 1024 * 256 * 4)
  const tex = new TextureObject({ type: 'array', array: a })
  a.free()
  t.is(dev.memInfo().free, free0 - 1024 * 256 * 4, 'held by the texture')
  tex.destroy()
  t.is(dev.memInfo().free, free0)
})

const nodeTest: typeof test = onWasm ? (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (spawns node --expose-gc: native only)`, ...rest)) as any) : test

nodeTest('the GC is the backstop: an array and the objects over it go when collected, in either order', (t) => {
  const r = runJson(`
    const { CUDAArray, ChannelFormatDescriptor, TextureObject, SurfaceObject, Device } = cuda
    const dev = new Device()
    const free0 = dev.memInfo().free
    ;(() => {
      const a = new CUDAArray(new ChannelFormatDescriptor(32), 512, 512, 0, { surfaceLoadStore: true })
      const tex = new TextureObject({ type: 'array', array: a })
      globalThis.surf = new SurfaceObject(a)
      a.free()
    })()
    global.gc()
    setTimeout(() => {
      global.gc()
      const held = free0 - dev.memInfo().free
      globalThis.surf = undefined
      global.gc()
      setTimeout(() => { global.gc(); console.log(JSON.stringify({ held, after: free0 - dev.memInfo().free })) }, 20)
    }, 20)
  `, {}, ['--expose-gc'])
  // memInfo is device-wide: on a GPU other test processes allocate meanwhile, so there the
  // child only has to run and exit cleanly.
  if (onGpu) return t.pass('ran and exited cleanly')
  t.is(r.held, 512 * 512 * 4, 'the surface still holds the array')
  t.is(r.after, 0, 'collected')
})

test('linear and pitch2D textures read device memory, and hold it after free()', (t) => {
  const mem = alloc(64 * 16)
  const lin = new TextureObject({ type: 'linear', memory: mem, format: float32(), sizeInBytes: 256 })
  const p2 = new TextureObject({ type: 'pitch2D', memory: mem, format: float32(), width: 10, height: 16, pitchInBytes: 64 })
  mem.mem.free()
  t.is(typeof lin.handle, 'bigint')
  t.not(lin.handle, p2.handle)
  t.throws(() => new TextureObject({ type: 'linear', memory: alloc(512), format: float32(), sizeInBytes: 1024 }), { instanceOf: RangeError, message: /past the end/ })
  t.throws(() => new TextureObject({ type: 'linear', memory: alloc(1024).offset(4), format: float32(), sizeInBytes: 16 }), { instanceOf: CudaError, code: 'CUDA_ERROR_INVALID_VALUE', message: /multiple of 512/ })
  t.throws(() => new TextureObject({ type: 'pitch2D', memory: alloc(1024), format: float32(), width: 10, height: 4, pitchInBytes: 40 }), { instanceOf: RangeError, message: /multiple of 32/ })
  t.throws(() => new TextureObject({ type: 'pitch2D', memory: alloc(1024), format: float32(), width: 10, height: 4, pitchInBytes: 32 }), { instanceOf: RangeError, message: /less than the 40-byte width/ })
  lin.destroy()
  p2.destroy()
})

test('bad input is a typed error before the driver', (t) => {
  t.throws(() => new CUDAArray(float32(), 0), { instanceOf: RangeError, message: /width of at least 1/ })
  t.throws(() => new CUDAArray(float32(), 4, 0, 3), { instanceOf: RangeError, message: /3D CUDA array needs a height/ })
  t.throws(() => new CUDAArray(float32(), 4, 4, 0, { layered: true }), { instanceOf: RangeError, message: /at least 1 layer/ })
  t.throws(() => new CUDAArray(float32(), 1 << 20), { instanceOf: RangeError, message: /1D array's width is at most 131072/ })
  t.throws(() => new CUDAArray(float32(), 100, 100, 20000), { instanceOf: RangeError, message: /3D array's depth is at most 16384/ })
  t.throws(() => new CUDAArray(float32(), 8, 8, 4096, { layered: true }), { instanceOf: RangeError, message: /layer count is at most 2048/ })
  t.throws(() => new CUDAArray({ x: 32 } as any, 4), { instanceOf: TypeError, message: /ChannelFormatDescriptor/ })
  t.throws(() => new CUDAArray(float32(), 4, 0, 0, { layerd: true } as any), { instanceOf: TypeError, message: /no option 'layerd'/ })
  t.throws(() => new CUDAArray(float32(), -1), { instanceOf: RangeError })

  using a = new CUDAArray(float32(), 4, 4)
  using big = new CUDAArray(float32(), 16, 16)
  t.throws(() => a.copyFrom(new Float32Array(15)), { instanceOf: RangeError, message: /exactly the array's 64 bytes .*got 60/ })
  t.throws(() => a.copyTo(new Float32Array(17)), { instanceOf: RangeError, message: /exactly the array's 64 bytes/ })
  t.throws(() => big.copyFrom(alloc(512)), { instanceOf: RangeError, message: /past the end/ })
  t.throws(() => a.copyFrom({ ptr: alloc(256), pitch: 8 }), { instanceOf: RangeError, message: /less than the 16-byte width/ })
  t.throws(() => a.copyFrom('bytes' as any), { instanceOf: TypeError })

  t.throws(() => new SurfaceObject(a), { instanceOf: CudaError, code: 'CUDA_ERROR_INVALID_VALUE', message: /surfaceLoadStore: true/ })
  t.throws(() => new TextureObject({ type: 'array', array: a }, { addressModes: ['wrap'] }), { instanceOf: RangeError, message: /needs normalizedCoords/ })
  t.notThrows(() => new TextureObject({ type: 'array', array: a }, { addressModes: ['wrap', 'mirror'], normalizedCoords: true }).destroy())
  t.throws(() => new TextureObject({ type: 'array', array: a }, { addressModes: ['tile' as any] }), { instanceOf: RangeError, message: /'wrap', 'clamp', 'mirror' or 'border'/ })
  t.throws(() => new TextureObject({ type: 'array', array: a }, { readMode: 'normalizedFloat' }), { instanceOf: RangeError, message: /8- and 16-bit integer/ })
  t.throws(() => new TextureObject({ type: 'array', array: a }, { filterMode: 'cubic' as any }), { instanceOf: RangeError })
  t.throws(() => new TextureObject({ type: 'array', array: a }, { sRGB: true } as any), { instanceOf: TypeError, message: /no option 'sRGB'/ })
  t.throws(() => new TextureObject({ type: 'mipmap' } as any), { instanceOf: RangeError, message: /'array', 'linear' or 'pitch2D'/ })
  using u8 = new CUDAArray(new ChannelFormatDescriptor(8, 0, 0, 0, 'unsigned'), 4)
  t.throws(() => new TextureObject({ type: 'array', array: u8 }, { filterMode: 'linear' }), { instanceOf: RangeError, message: /'linear' needs float channels/ })
  t.notThrows(() => new TextureObject({ type: 'array', array: u8 }, { filterMode: 'linear', readMode: 'normalizedFloat' }).destroy())
})

const KERNEL = String.raw`
extern "C" __global__ void doubled(cudaTextureObject_t tex, cudaSurfaceObject_t surf, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);
    surf2Dwrite(2.0f * v, surf, x * (int)sizeof(float), y);
  }
}`

const kernelTest: typeof test = onGpu ? nvrtcTest : test

kernelTest('a kernel reads through tex2D and writes through surf2Dwrite (the simulator: its host implementation reads the arrays)', (t) => {
  const [w, h] = [37, 19]
  using input = new CUDAArray(float32(), w, h)
  using output = new CUDAArray(float32(), w, h, 0, { surfaceLoadStore: true })
  const src = ramp(w * h)
  input.copyFrom(src)
  using tex = new TextureObject({ type: 'array', array: input }, { filterMode: 'point' })
  using surf = new SurfaceObject(output)
  // The simulator's host implementation finds the arrays by the handles it is given, as the GPU does.
  const arrays = new Map<bigint, CUDAArray>([[tex.handle, input], [surf.handle, output]])
  const k = new RawKernel(KERNEL, 'doubled', {
    simulate: ([texHandle, surfHandle]) => {
      const from = arrays.get(texHandle as bigint)!
      const bytes = new Float32Array(w * h)
      from.copyTo(bytes)
      arrays.get(surfHandle as bigint)!.copyFrom(bytes.map((v) => 2 * v))
    },
  })
  k.launch([Math.ceil(w / 16), Math.ceil(h / 16)], [16, 16], [tex.handle, surf.handle, i32(w), i32(h)])
  getCurrentStream().synchronize()
  const back = new Float32Array(w * h)
  output.copyTo(back)
  t.deepEqual(back, src.map((v) => 2 * v))
})

const FETCH = String.raw`
extern "C" __global__ void fetch(cudaTextureObject_t tex, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(tex, i) + 1.0f;
}`

kernelTest('a kernel reads linear memory through tex1Dfetch', (t) => {
  const n = 300
  const src = alloc(n * 4)
  src.copyFromHost(ramp(n))
  using tex = new TextureObject({ type: 'linear', memory: src, format: float32(), sizeInBytes: n * 4 })
  const out = alloc(n * 4)
  const k = new RawKernel(FETCH, 'fetch', {
    simulate: ([, dst]) => {
      const bytes = new Float32Array(n)
      src.copyToHost(bytes)
      ;(dst as typeof out).copyFromHost(bytes.map((v) => v + 1))
    },
  })
  k.launch([Math.ceil(n / 128)], [128], [tex.handle, out, i32(n)])
  getCurrentStream().synchronize()
  const back = new Float32Array(n)
  out.copyToHost(back)
  t.deepEqual(back, ramp(n).map((v) => v + 1))
})
