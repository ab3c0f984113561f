import test from 'ava'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { allocPinned, CudaError, Event, kernels, mallocPlain, pointerGetAttributes, registerHost, Stream } from '..'
import { nativeTest, runJson, wasmTest } from './helpers'

const inPlace = nativeTest('emnapi hands the module copies of JS\'s bytes, so registerHost is CUDA_ERROR_NOT_SUPPORTED')

inPlace('registerHost pins a Buffer in place: async copies read and write its bytes', (t) => {
  const host = Buffer.alloc(8192)
  randomBytes(8192).copy(host)
  const pinned = registerHost(host)
  t.true(pinned.registered)
  t.is(pinned.size, 8192)
  t.is(pointerGetAttributes(pinned.ptr).kind, 'host')
  t.is(pinned.buffer, host.buffer)
  const dev = mallocPlain(8192)
  const s = new Stream({ nonBlocking: true })
  dev.copyFromHostAsync(pinned, 8192, s)
  const back = Buffer.alloc(8192)
  const into = registerHost(back)
  dev.copyToHostAsync(into, 8192, s)
  s.synchronize()
  t.true(back.equals(host))
  pinned.unregister()
  into.free()
})

inPlace('registering the same bytes twice is CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED', (t) => {
  const host = new Uint8Array(new ArrayBuffer(4096))
  const a = registerHost(host)
  t.is(t.throws(() => registerHost(host), { instanceOf: CudaError })!.code, 'CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED')
  a.unregister()
  registerHost(host).free() // registrable again once unregistered
  t.pass()
})

inPlace('unregister is refused while queued copies still use the bytes', (t) => {
  const s = new Stream({ nonBlocking: true })
  const host = new Float32Array(1024)
  const pinned = registerHost(host)
  const dev = mallocPlain(4096)
  kernels.fill(dev, 2.5, 1024, 'float32', s)
  kernels.sleep(200e6, s)
  dev.copyToHostAsync(pinned, 4096, s)
  t.is(t.throws(() => pinned.unregister(), { instanceOf: CudaError })!.code, 'CUDA_ERROR_ILLEGAL_STATE')
  new Event().record(s).synchronize()
  t.is(host[1023], 2.5)
  pinned.unregister()
})

test('registerHost checks its argument', (t) => {
  t.throws(() => registerHost('bytes' as any), { instanceOf: TypeError })
  t.throws(() => registerHost(new ArrayBuffer(0)), { instanceOf: RangeError })
  t.throws(() => allocPinned(8).unregister(), { instanceOf: TypeError })
})

inPlace('a registered buffer dropped with a copy in flight stays alive until the copy is done', (t) => {
  const r = runJson(`
    const { registerHost, mallocPlain, kernels, Stream } = cuda
    const s = new Stream({ nonBlocking: true })
    const dev = mallocPlain(1 << 20)
    dev.memset(1, 1 << 20)
    ;(() => {
      const p = registerHost(new ArrayBuffer(1 << 20))
      kernels.sleep(200e6, s)
      dev.copyToHostAsync(p, 1 << 20, s)
      p.free()
    })()
    global.gc()
    s.synchronize()
    global.gc()
    // The bytes can be registered again once released: the same allocation pattern works.
    const q = registerHost(new ArrayBuffer(1 << 20)); dev.copyToHostAsync(q, 1 << 20, s); s.synchronize()
    console.log(JSON.stringify({ byte: new Uint8Array(q.buffer)[12345] }))
  `, {}, ['--expose-gc'])
  t.is(r.byte, 1)
})

nativeTest('its pinned memory has no buffer, Electron-like or not')('where external buffers are refused (Electron), pinned memory is a registered V8 buffer, so .buffer works', (t) => {
  const r = runJson(`
    const p = cuda.allocPinned(4096)
    const buf = new Uint8Array(p.buffer)
    buf.fill(9)
    const dev = cuda.mallocPlain(4096)
    const s = new cuda.Stream()
    dev.copyFromHostAsync(p, 4096, s)
    const out = Buffer.alloc(4096)
    dev.copyToHost(out)
    console.log(JSON.stringify({ registered: p.registered, byte: out[4095], kind: cuda.pointerGetAttributes(p.ptr).kind }))
  `, { CUDA_NODE_EXTERNAL_BUFFERS: '0' })
  t.deepEqual(r, { registered: true, byte: 9, kind: 'host' })
})

nativeTest('the WebAssembly build has no external buffers to ask about')('without the switch the runtime itself is asked: Node allows external buffers, so pinned memory is the pinned block, not a registered V8 buffer', (t) => {
  const r = runJson(`
    const { native } = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'native.js'))})
    const p = cuda.allocPinned(4096)
    console.log(JSON.stringify({ allowed: native.externalBuffers(), registered: p.registered, size: p.buffer.byteLength }))
  `, { CUDA_NODE_EXTERNAL_BUFFERS: undefined })
  t.deepEqual(r, { allowed: true, registered: false, size: 4096 })
})

wasmTest('registerHost is CUDA_ERROR_NOT_SUPPORTED: the module sees copies of JS\'s bytes, not the bytes', (t) => {
  const e = t.throws(() => registerHost(Buffer.alloc(4096)), { instanceOf: CudaError })!
  t.is(e.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(e.message, /WebAssembly build cannot register JS's bytes in place/)
})

wasmTest('where external buffers are refused, pinned memory is still allocated (not a registered V8 buffer), copied through set() and get()', (t) => {
  const r = runJson(`
    const p = cuda.allocPinned(4096)
    let code
    try { p.buffer } catch (e) { code = e.code }
    p.set(new Uint8Array(4096).fill(9))
    const dev = cuda.mallocPlain(4096)
    const s = new cuda.Stream()
    dev.copyFromHostAsync(p, 4096, s)
    const out = Buffer.alloc(4096)
    dev.copyToHost(out)
    console.log(JSON.stringify({ registered: p.registered, code, byte: out[4095], kind: cuda.pointerGetAttributes(p.ptr).kind }))
  `, { CUDA_NODE_EXTERNAL_BUFFERS: '0' })
  t.deepEqual(r, { registered: false, code: 'CUDA_ERROR_NOT_SUPPORTED', byte: 9, kind: 'host' })
})
