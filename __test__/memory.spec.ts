import test from 'ava'
import { randomBytes } from 'node:crypto'
import { alloc, CudaError, mallocPlain, Memory, MemoryPointer, Stream } from '..'
import { runJson } from './helpers'

test('alloc returns a pointer with a bigint address and a size rounded up to 512', (t) => {
  const p = alloc(1000)
  t.is(typeof p.ptr, 'bigint')
  t.not(p.ptr, 0n)
  t.is(p.size, 1024)
  t.is(mallocPlain(1000).size, 1000)
  t.is(p.deviceId, 0)
  t.true(p.mem instanceof Memory)
})

test('offset(n) is a view into the same allocation', (t) => {
  const p = alloc(1024)
  const q = p.offset(100)
  t.is(q.ptr, p.ptr + 100n)
  t.is(q.size, 924)
  t.is(q.mem, p.mem)
  t.throws(() => p.offset(1025), { instanceOf: RangeError })
  t.throws(() => p.offset(-1), { instanceOf: RangeError })
})

test('data round-trips through host, device and device copies', (t) => {
  for (const n of [1, 511, 512, 513, (1 << 20) + 3]) {
    const src = randomBytes(n)
    const a = alloc(n)
    const b = alloc(n)
    a.copyFromHost(src)
    b.copyFromDevice(a, n)
    const back = Buffer.alloc(n, 0xee)
    b.copyToHost(back)
    t.true(back.equals(src), `${n} bytes`)
  }
})

test('memset sets bytes, and copyFrom chooses by source', (t) => {
  const p = alloc(64)
  p.memset(0xab, 64)
  const out = new Uint8Array(64)
  p.copyToHost(out)
  t.true(out.every((b) => b === 0xab))
  p.copyFrom(new Uint8Array(64).fill(3))
  const q = alloc(64)
  q.copyFrom(p)
  q.copyToHost(out)
  t.true(out.every((b) => b === 3))
})

test('zero-byte allocations and copies are allowed', (t) => {
  const p = alloc(0)
  t.is(p.size, 0)
  t.is(p.ptr, 0n)
  p.copyFromHost(new Uint8Array(0))
  t.pass()
})

test('use after free is a typed error; freeing twice is nothing, as in CuPy', (t) => {
  const p = alloc(64)
  const view = p.offset(8)
  p.free()
  for (const use of [() => p.ptr, () => p.copyFromHost(new Uint8Array(8)), () => view.copyToHost(new Uint8Array(8)), () => p.memset(0, 8)]) {
    const e = t.throws(use, { instanceOf: CudaError })
    t.is(e!.code, 'CUDA_ERROR_INVALID_VALUE')
    t.regex(e!.message, /freed/)
  }
  t.notThrows(() => p.free())
  t.notThrows(() => view[Symbol.dispose]())
  t.true(p.mem.freed)
})

test('copies past either end are RangeErrors before the driver sees them', (t) => {
  const p = mallocPlain(100)
  t.throws(() => alloc(100).copyFromHost(new Uint8Array(513)), { instanceOf: RangeError, message: /512-byte allocation/ })
  t.throws(() => p.copyFromHost(new Uint8Array(101)), { instanceOf: RangeError, message: /runs past the end/ })
  t.throws(() => p.offset(50).copyToHost(new Uint8Array(51)), { instanceOf: RangeError, message: /runs past the end/ })
  t.throws(() => p.copyFromHost(new Uint8Array(10), 11), { instanceOf: RangeError, message: /host buffer holds 10/ })
  t.throws(() => p.copyFromDevice(mallocPlain(10), 11), { instanceOf: RangeError })
  t.throws(() => p.memset(0, 101), { instanceOf: RangeError })
})

test('bad sizes are typed errors', (t) => {
  for (const bad of [-1, 1.5, NaN, Infinity, 2 ** 60]) t.throws(() => alloc(bad), { instanceOf: RangeError }, String(bad))
  for (const bad of ['1', 1n, null, {}]) t.throws(() => alloc(bad as any), { instanceOf: TypeError }, String(bad))
  t.throws(() => alloc(64).memset('x' as any, 1), { instanceOf: TypeError })
  t.throws(() => alloc(64).memset(256, 1), { instanceOf: RangeError })
  t.throws(() => new MemoryPointer({} as any), { instanceOf: TypeError })
})

test('more memory than the device has is CUDA_ERROR_OUT_OF_MEMORY', (t) => {
  const e = t.throws(() => alloc(2 ** 52), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_OUT_OF_MEMORY')
})

test('a detached ArrayBuffer is a TypeError', (t) => {
  const buf = new ArrayBuffer(16)
  structuredClone(buf, { transfer: [buf] })
  t.throws(() => alloc(16).copyFromHost(buf), { instanceOf: TypeError, message: /detached/ })
  t.throws(() => alloc(16).copyFromHost('abc' as any), { instanceOf: TypeError })
})

test('async copies go to the given stream, else the current stream', (t) => {
  const s = new Stream()
  const p = alloc(16)
  t.is(p.copyFromHostAsync(new Uint8Array(16), undefined, s), s)
  t.is(s.run(() => p.memsetAsync(1, 16)), s)
  t.throws(() => p.memsetAsync(1, 16, {} as any), { instanceOf: TypeError })
  s.synchronize()
})

test('memory of one device used with a stream of another is a typed error', (t) => {
  const r = runJson(
    `const { alloc, Device, Stream, kernels } = cuda;
     const p = new Device(1).run(() => alloc(64));
     const s0 = new Stream({ device: 0 });
     const out = [];
     for (const f of [() => p.copyFromHostAsync(new Uint8Array(8), 8, s0), () => kernels.fill(p, 1, 4, 'float32', s0), () => p.memsetAsync(0, 8, s0)]) {
       try { f(); out.push('no error') } catch (e) { out.push(e.code + ': ' + e.message) }
     }
     console.log(JSON.stringify(out))`,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.is(r.length, 3)
  for (const line of r) t.regex(line, /^CUDA_ERROR_INVALID_VALUE: .*memory of device 1 used with a stream of device 0/)
})
