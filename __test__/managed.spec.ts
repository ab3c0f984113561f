import test from 'ava'
import {
  alloc, advise, CudaError, Device, getCurrentStream, kernels, mallocManaged, mallocPlain, managedView, MemoryPointer, pointerGetAttributes,
  ManagedMemoryPool, prefetch, usingAllocator,
} from '..'
import { nativeTest, onWasm, runJson, wasmTest } from './helpers'

const noView = 'emnapi\'s ArrayBuffers are copies of wasm memory, so managedView is CUDA_ERROR_NOT_SUPPORTED'

nativeTest(noView)('managed memory is one set of bytes for host and device', (t) => {
  const p = mallocManaged(64)
  t.is(pointerGetAttributes(p.ptr).kind, 'managed')
  const view = managedView(p)
  t.is(view.byteLength, 64)
  view.fill(5)
  const out = Buffer.alloc(64)
  p.copyToHost(out)
  t.true(out.every((b) => b === 5), 'what the host wrote, the device reads')
  kernels.fill(p, 0x0a0b0c0d, 16, 'uint32')
  getCurrentStream().synchronize()
  t.is(view[0], 0x0d, 'what the device wrote, the host reads after a synchronize')
  t.is(managedView(p.offset(8)).byteLength, 56)
})

test('prefetch and advise take devices and the host, in stream order', (t) => {
  const p = mallocManaged(1 << 16)
  advise(p, 'setReadMostly', 0)
  advise(p, 'setPreferredLocation', 'cpu')
  advise(p, 'setAccessedBy', new Device(0))
  const s = prefetch(p, 0)
  prefetch(p, 'cpu', s, 4096)
  s.synchronize()
  p.memset(3, 1 << 16)
  const out = new Uint8Array(1 << 16)
  p.copyToHost(out)
  t.is(out[100], 3)
})

test('prefetch and advise refuse memory that is not managed, and unknown advice', (t) => {
  const plain = mallocPlain(64)
  t.is(t.throws(() => prefetch(plain, 0), { instanceOf: CudaError })!.code, 'CUDA_ERROR_INVALID_VALUE')
  t.is(t.throws(() => advise(plain, 'setReadMostly', 0), { instanceOf: CudaError })!.code, 'CUDA_ERROR_INVALID_VALUE')
  t.throws(() => managedView(plain), { instanceOf: TypeError })
  const p = mallocManaged(64)
  t.throws(() => advise(p, 'readMostly' as any, 0), { instanceOf: RangeError, message: /setReadMostly/ })
  t.throws(() => prefetch(p, 99), { instanceOf: CudaError })
  t.throws(() => prefetch(p, 0, undefined, 65), { instanceOf: RangeError })
  t.throws(() => prefetch({} as any, 0), { instanceOf: TypeError })
  t.throws(() => mallocManaged(8, { attach: 'device' as any }), { instanceOf: TypeError })
  t.throws(() => mallocManaged(-1), { instanceOf: RangeError })
})

test('mallocManaged never asks for more than the device has free', (t) => {
  const { free } = new Device().memInfo()
  const e = t.throws(() => mallocManaged(free + (1 << 30)), { instanceOf: CudaError })!
  t.is(e.code, 'CUDA_ERROR_OUT_OF_MEMORY')
  t.regex(e.message, /free/)
})

test('mallocManaged is an allocator: alloc routes through it', (t) => {
  const p = usingAllocator(mallocManaged, () => alloc(256))
  t.true(p instanceof MemoryPointer)
  t.is(pointerGetAttributes(p.ptr).kind, 'managed')
  t.is(mallocManaged(8, { attach: 'host' }).size, 8)
  t.is(mallocManaged(0).size, 0)
})

test('where external buffers are refused (Electron), the host view is a CudaError and copies still work', (t) => {
  const r = runJson(`
    const p = cuda.mallocManaged(16)
    p.memset(4, 16)
    let code
    try { cuda.managedView(p) } catch (e) { code = e.code }
    const out = Buffer.alloc(16)
    p.copyToHost(out)
    console.log(JSON.stringify({ code, byte: out[15] }))
  `, { CUDA_NODE_EXTERNAL_BUFFERS: '0' })
  t.deepEqual(r, { code: 'CUDA_ERROR_NOT_SUPPORTED', byte: 4 })
})

wasmTest('the host view of managed memory is CUDA_ERROR_NOT_SUPPORTED (a copy would not be the bytes); copies work', (t) => {
  const p = mallocManaged(64)
  p.memset(7, 64)
  const e = t.throws(() => managedView(p), { instanceOf: CudaError })!
  t.is(e.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(e.message, /WebAssembly build cannot expose managed memory/)
  const out = new Uint8Array(64)
  p.copyToHost(out)
  t.true(out.every((b) => b === 7))
})

test('setAllocator(mallocManaged) makes alloc hand out managed memory', (t) => {
  const kinds = runJson(`
    cuda.setAllocator(cuda.mallocManaged)
    const a = cuda.alloc(1000)
    const pool = new cuda.ManagedMemoryPool()
    cuda.setAllocator((n) => pool.malloc(n))
    const b = cuda.alloc(1000)
    console.log(JSON.stringify([a.size, cuda.pointerGetAttributes(a.ptr).kind, b.size, cuda.pointerGetAttributes(b.ptr).kind, pool.usedBytes()]))`)
  t.deepEqual(kinds, [1000, 'managed', 1024, 'managed', 1024])
})

test('a ManagedMemoryPool caches managed blocks, each with its own host view', (t) => {
  const pool = new ManagedMemoryPool()
  const big = pool.malloc(4096)
  const base = big.ptr
  big.free()
  const a = pool.malloc(1024)
  const b = pool.malloc(1024)
  t.is(b.ptr, base + 1024n, 'pieces of one managed allocation')
  t.is(pool.totalBytes(), 4096)
  b.memset(9, 1024)
  getCurrentStream().synchronize()
  if (onWasm) t.is(t.throws(() => managedView(b), { instanceOf: CudaError })!.code, 'CUDA_ERROR_NOT_SUPPORTED', noView)
  else {
    const view = managedView(b)
    t.is(view.byteLength, 1024)
    t.true(view.every((x) => x === 9))
    view[0] = 1
    const out = new Uint8Array(1)
    b.copyToHost(out)
    t.is(out[0], 1)
  }
  t.notThrows(() => prefetch(a, 'cpu'))
  t.notThrows(() => advise(b, 'setReadMostly', 0))
  t.throws(() => new ManagedMemoryPool({ attach: 'device' as any }), { instanceOf: TypeError })
  t.is(new ManagedMemoryPool({ attach: 'host' }).malloc(8).size, 512)
})
