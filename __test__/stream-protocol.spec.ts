// The stream protocol (CuPy's `Stream.from_external` / `__cuda_stream__`, as PyTorch, numba-cuda
// and RMM offer it): in JS, a method under `Symbol.for('cuda.stream')` returning `[0, handle]`.
// Our Streams offer theirs; an object offering one is taken wherever a stream is.
import test from 'ava'
import { onGpu, runJson } from './helpers'
import { alloc, CUDA_STREAM, CudaError, Event, kernels, RawKernel, Stream, type CudaStreamProtocol } from '..'

/** What another addon's stream object looks like: nothing of ours but the protocol. */
function foreign(handle: bigint): CudaStreamProtocol & { calls: number } {
  const o = {
    calls: 0,
    [Symbol.for('cuda.stream')]() {
      o.calls++
      return [0, handle] as const
    },
  }
  return o
}

test('the key is the registry symbol, so packages share it without importing each other', (t) => {
  t.is(CUDA_STREAM, Symbol.for('cuda.stream'))
})

test('a Stream offers [0, handle], the default streams theirs too', (t) => {
  const s = new Stream()
  t.deepEqual(s[CUDA_STREAM](), [0, s.handle])
  t.deepEqual(Stream.null[CUDA_STREAM](), [0, 0n])
  t.deepEqual(Stream.ptds[CUDA_STREAM](), [0, 2n])
  s.destroy()
})

test('Stream.fromExternal takes an object offering its stream, or the handle itself', (t) => {
  const s = new Stream({ nonBlocking: true })
  const a = Stream.fromExternal(foreign(s.handle))
  t.true(a instanceof Stream)
  t.is(a.handle, s.handle)
  t.true(a.isNonBlocking)
  t.is(Stream.fromExternal(s.handle).handle, s.handle)
  t.is(Stream.fromExternal(s).handle, s.handle, 'ours, through its own protocol method')
  t.is(Stream.fromExternal(foreign(0n)), Stream.null)
  t.is(Stream.fromExternal(foreign(1n)), Stream.null)
  t.is(Stream.fromExternal(2n), Stream.ptds)
  a.destroy() // the wrapper only
  t.false(s.isCapturing(), 'the stream itself is still there')
  s.destroy()
})

test('an object offering a stream is taken where a stream is: copies, kernels, events, in its order', async (t) => {
  const s = new Stream()
  const f = foreign(s.handle)
  const p = alloc(64)
  p.copyFromHostAsync(new Float32Array(16).fill(1), 64, f)
  kernels.fill(p, 5, 8, 'float32', f as unknown as Stream)
  const e = new Event().record(f)
  const out = new Float32Array(16)
  p.copyToHostAsync(out, 64, f)
  e.synchronize()
  s.synchronize()
  t.deepEqual([...out], [5, 5, 5, 5, 5, 5, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1])
  t.true(f.calls >= 4, 'asked each time, so a stream that changes is followed')
  s.destroy()
})

test('a kernel launch takes one as its stream option', async (t) => {
  const s = new Stream()
  let ran = false
  const k = new RawKernel('extern "C" __global__ void noop() {}', 'noop', { simulate: () => void (ran = true) })
  k.launch([1, 1, 1], [1, 1, 1], [], { stream: foreign(s.handle) })
  s.synchronize()
  t.is(ran, !onGpu, 'the simulator ran the host implementation in its place')
  s.destroy()
})

test('a protocol method that throws is a TypeError carrying the cause', (t) => {
  const boom = new Error('boom')
  const bad = { [Symbol.for('cuda.stream')]: () => { throw boom } } as unknown as CudaStreamProtocol
  const e = t.throws(() => Stream.fromExternal(bad), { instanceOf: TypeError, message: /threw: boom/ })
  t.is(e!.cause, boom)
  t.throws(() => new Event().record(bad), { instanceOf: TypeError })
})

test('an answer of the wrong shape, or a version not known, is a TypeError', (t) => {
  const answers: unknown[] = [undefined, 5n, [0], [0, 5n, 1], [0, 5], ['0', 5n], [0n, 5n], { 0: 0, 1: 5n, length: 2 }]
  for (const r of answers) {
    const o = { [Symbol.for('cuda.stream')]: () => r } as unknown as CudaStreamProtocol
    t.throws(() => Stream.fromExternal(o), { instanceOf: TypeError }, String(r))
    t.throws(() => kernels.sleep(0, o as unknown as Stream), { instanceOf: TypeError })
  }
  const v1 = { [Symbol.for('cuda.stream')]: () => [1, 5n] } as unknown as CudaStreamProtocol
  t.throws(() => Stream.fromExternal(v1), { instanceOf: TypeError, message: /version 1: only version 0/ })
  const neg = { [Symbol.for('cuda.stream')]: () => [0, -8n] } as unknown as CudaStreamProtocol
  t.throws(() => Stream.fromExternal(neg), { instanceOf: RangeError })
})

test('anything else is a TypeError naming the protocol', (t) => {
  for (const v of [null, 5, 'stream', {}, { [Symbol.for('cuda.stream')]: 7 }]) {
    t.throws(() => Stream.fromExternal(v as unknown as CudaStreamProtocol), { instanceOf: TypeError, message: /Symbol.for\('cuda.stream'\)/ })
    t.throws(() => alloc(8).memsetAsync(0, 8, v as unknown as Stream), { instanceOf: TypeError, message: /Symbol.for\('cuda.stream'\)/ })
  }
})

test('a handle that names no stream is refused as ExternalStream refuses it', (t) => {
  const e = t.throws(() => Stream.fromExternal(foreign(0x7f00_0000_0000n)))
  t.true(e instanceof CudaError || e instanceof RangeError, String(e))
})

test('a Stream made from an object keeps the object alive, and lets it go with itself', (t) => {
  const r = runJson(
    `const s = new cuda.Stream()
     let adopted
     const offered = (() => {
       const o = { [Symbol.for('cuda.stream')]: () => [0, s.handle] }
       adopted = cuda.Stream.fromExternal(o)
       return new WeakRef(o)
     })()
     // A WeakRef holds its target to the end of the job that made it: look in later ones.
     setTimeout(() => {
       for (let i = 0; i < 3; i++) globalThis.gc()
       const kept = offered.deref() !== undefined && adopted.handle === s.handle
       adopted = undefined
       setTimeout(() => {
         for (let i = 0; i < 3; i++) globalThis.gc()
         console.log(JSON.stringify({ kept, released: offered.deref() === undefined }))
       }, 50)
     }, 50)`,
    {},
    ['--expose-gc'],
  )
  t.true(r.kept, 'alive while its Stream is')
  t.true(r.released, 'collected once its Stream is')
})
