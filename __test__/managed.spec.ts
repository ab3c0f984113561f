import test from 'ava'
import {
  alloc, advise, CudaError, Device, getCurrentStream, kernels, mallocManaged, mallocPlain, managedView, MemoryPointer, pointerGetAttributes,
  prefetch, usingAllocator,
} from '..'
import { runJson } from './helpers'

test('managed memory is one set of bytes for host and device', (t) => {
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
  t.is(managedView(p)[100], 3)
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
