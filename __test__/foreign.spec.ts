import test from 'ava'
import { randomBytes } from 'node:crypto'
import {
  alloc, allocPinned, blas, CudaError, getCurrentStream, kernels, mallocPlain, MemoryPointer, pointerGetAttributes, Stream,
} from '..'
import { runJson } from './helpers'

test('fromExternal wraps memory another owner allocated, at any offset', (t) => {
  const owner = mallocPlain(1024)
  const src = randomBytes(1024)
  owner.copyFromHost(src)
  const p = MemoryPointer.fromExternal(owner.ptr + 256n, 512, { owner })
  t.is(p.ptr, owner.ptr + 256n)
  t.is(p.size, 512)
  const back = Buffer.alloc(512)
  p.copyToHost(back)
  t.true(back.equals(src.subarray(256, 768)))
  p.memset(7, 16)
  const whole = Buffer.alloc(1024)
  owner.copyToHost(whole)
  t.true(whole.subarray(256, 272).every((b) => b === 7), 'writes through the wrapper land in the owner’s memory')
  p.free()
  owner.copyToHost(whole) // still alive: never freed by the wrapper
  t.pass()
})

test('copies, kernels and BLAS take a foreign pointer like any other', (t) => {
  const x = alloc(16)
  const y = mallocPlain(16)
  const fy = MemoryPointer.fromExternal(y.ptr, 16, { owner: y })
  kernels.fill(x, 2, 4, 'float32')
  kernels.fill(fy, 1, 4, 'float32')
  blas.saxpy(4, 3, x, fy)
  const out = new Float32Array(4)
  y.copyToHost(out)
  t.deepEqual([...out], [7, 7, 7, 7])
  const z = alloc(16)
  z.copyFromDevice(fy, 16)
  const out2 = new Float32Array(4)
  z.copyToHost(out2)
  t.deepEqual([...out2], [7, 7, 7, 7])
})

test('pointerGetAttributes reports device, kind and the allocation holding an address', (t) => {
  const p = mallocPlain(1000)
  const a = pointerGetAttributes(p.ptr + 10n)
  t.is(a.kind, 'device')
  t.is(a.device, 0)
  t.is(a.base, p.ptr)
  t.true(a.size >= 1000)
  const pinned = allocPinned(100)
  t.is(pointerGetAttributes(pinned.ptr).kind, 'host')
})

test('an address the driver does not know is CUDA_ERROR_INVALID_VALUE, for attributes and wrapping alike', (t) => {
  const p = mallocPlain(64)
  const ptr = p.ptr
  p.free()
  t.is(t.throws(() => pointerGetAttributes(ptr), { instanceOf: CudaError })!.code, 'CUDA_ERROR_INVALID_VALUE')
  t.is(t.throws(() => MemoryPointer.fromExternal(ptr, 64), { instanceOf: CudaError })!.code, 'CUDA_ERROR_INVALID_VALUE')
})

test('fromExternal checks what the caller claims', (t) => {
  const p = mallocPlain(64)
  t.throws(() => MemoryPointer.fromExternal(Number(p.ptr) as any, 64), { instanceOf: TypeError })
  t.throws(() => MemoryPointer.fromExternal(p.ptr, -1), { instanceOf: RangeError })
  t.throws(() => MemoryPointer.fromExternal(p.ptr + 32n, 64), { instanceOf: RangeError, message: /past the end/ })
  t.throws(() => MemoryPointer.fromExternal(p.ptr, 8, { owner: 5 as any }), { instanceOf: TypeError })
  t.throws(() => MemoryPointer.fromExternal(p.ptr, 8, { stream: {} as any }), { instanceOf: TypeError })
  t.throws(() => MemoryPointer.fromExternal(p.ptr, 8, { device: 99 }), { instanceOf: CudaError })
  const pinned = allocPinned(64)
  t.is(t.throws(() => MemoryPointer.fromExternal(pinned.ptr, 8), { instanceOf: CudaError })!.code, 'CUDA_ERROR_INVALID_VALUE')
})

test('toCudaArray and fromCudaArray round-trip the __cuda_array_interface__ shape', (t) => {
  const p = mallocPlain(64)
  const s = new Stream()
  const cai = p.toCudaArray(s)
  t.deepEqual(cai.shape, [64])
  t.is(cai.typestr, '|u1')
  t.is(cai.version, 3)
  t.is(cai.data[0], p.ptr)
  t.is(cai.stream, s.handle)
  const q = MemoryPointer.fromCudaArray({ shape: [4, 4], typestr: '<f4', data: [p.ptr, false], version: 3, strides: null, stream: s.handle }, { owner: p })
  t.is(q.size, 64)
  t.is(q.ptr, p.ptr)
  t.throws(() => MemoryPointer.fromCudaArray({ ...cai, version: 2 as any }), { instanceOf: TypeError })
  t.throws(() => MemoryPointer.fromCudaArray({ ...cai, strides: [4] }), { instanceOf: TypeError })
  t.throws(() => MemoryPointer.fromCudaArray({ ...cai, typestr: 'float' }), { instanceOf: TypeError })
})

test('the stream option makes the current stream wait for the producer’s work', (t) => {
  const producer = new Stream({ nonBlocking: true })
  const owner = mallocPlain(16)
  kernels.sleep(150e6, producer)
  kernels.fill(owner, 9, 4, 'int32', producer)
  const p = MemoryPointer.fromExternal(owner.ptr, 16, { owner, stream: producer })
  const out = new Int32Array(4)
  p.copyToHostAsync(out, 16, getCurrentStream())
  t.deepEqual([...out], [9, 9, 9, 9])
})

test('freeing a foreign pointer waits for queued work before letting its owner go', (t) => {
  const r = runJson(`
    const { MemoryPointer, mallocPlain, kernels, Stream } = cuda
    const s = new Stream({ nonBlocking: true })
    let owner = mallocPlain(1 << 16)
    let collected = false
    const reg = new FinalizationRegistry(() => { collected = true })
    reg.register(owner, 'owner')
    const p = MemoryPointer.fromExternal(owner.ptr, 1 << 16, { owner })
    owner = undefined
    kernels.sleep(300e6, s)
    p.memsetAsync(1, 1 << 16, s)
    global.gc()
    setTimeout(() => {
      global.gc()
      const alive = !collected
      const t0 = Date.now()
      p.free()
      const waited = Date.now() - t0
      setTimeout(() => { global.gc(); setTimeout(() => console.log(JSON.stringify({ alive, waited, collected })), 50) }, 20)
    }, 20)
  `, {}, ['--expose-gc'])
  t.true(r.alive, 'the owner lived while the wrapper did')
  t.true(r.waited >= 150, `free waited for the queued work (${r.waited} ms)`)
  t.true(r.collected, 'the owner was collected once the wrapper was freed')
})
