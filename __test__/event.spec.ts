import test from 'ava'
import { CudaError, Event, getElapsedTime, kernels, Stream } from '..'
import { constants, native } from '../lib/native'
import { gpuTest, runJson, runNode } from './helpers'

const MS = 1e6

test('an event never recorded is done, and synchronizes at once', (t) => {
  const e = new Event()
  t.true(e.done)
  e.synchronize()
  t.pass()
})

test('an event completes in stream order', async (t) => {
  const s = new Stream()
  const e = new Event()
  kernels.sleep(300 * MS, s)
  e.record(s)
  t.false(e.done)
  await e.synchronizeAsync()
  t.true(e.done)
})

test('record() defaults to the current stream, and Stream.record makes an event', (t) => {
  const s = new Stream()
  kernels.sleep(300 * MS, s)
  const e = s.run(() => new Event().record())
  t.false(e.done)
  const e2 = s.record()
  t.true(e2 instanceof Event)
  e2.synchronize()
  t.true(e.done)
})

test('elapsed time with timing disabled is a typed error that says what to do', (t) => {
  const s = new Stream()
  const a = new Event({ disableTiming: true }).record(s)
  const b = new Event().record(s)
  b.synchronize()
  const e = t.throws(() => getElapsedTime(a, b), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_INVALID_HANDLE')
  t.regex(e!.message, /disableTiming: false/)
})

test('elapsed time of an event never recorded is a typed error', (t) => {
  const b = new Event().record(new Stream())
  b.synchronize()
  for (const [x, y] of [[new Event(), b], [b, new Event()]]) {
    const e = t.throws(() => getElapsedTime(x, y), { instanceOf: CudaError })
    t.is(e!.code, 'CUDA_ERROR_INVALID_HANDLE')
    t.regex(e!.message, /never recorded: call record\(\)/)
  }
})

test('elapsed time of an event not complete yet is CUDA_ERROR_NOT_READY', (t) => {
  const s = new Stream()
  const a = new Event().record(s)
  a.synchronize() // complete (on the GPU a record just queued may not be, yet)
  kernels.sleep(300 * MS, s)
  const b = new Event().record(s)
  const e = t.throws(() => getElapsedTime(a, b), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_NOT_READY')
  t.regex(e!.message, /the end event has not completed yet: synchronize it first/)
  b.synchronize()
  t.true(getElapsedTime(a, b) > 0)
  // The start one pending (recorded after a sleep), the end one done: the message names the start.
  const idle = new Stream()
  const end = new Event().record(idle)
  end.synchronize()
  kernels.sleep(300 * MS, s)
  const start = new Event().record(s)
  const f = t.throws(() => getElapsedTime(start, end), { instanceOf: CudaError })
  t.is(f!.code, 'CUDA_ERROR_NOT_READY')
  t.regex(f!.message, /the start event has not completed yet/)
  start.synchronize()
})

test('elapsed time from an event to itself is 0', (t) => {
  const e = new Event().record(new Stream())
  e.synchronize()
  t.is(getElapsedTime(e, e), 0)
})

test('an interprocess event needs timing disabled', (t) => {
  const e = t.throws(() => new Event({ interprocess: true }), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_INVALID_VALUE')
  t.regex(e!.message, /disableTiming: true/)
})

test('a destroyed event throws on every use, whether or not it was ever used', (t) => {
  const never = new Event()
  never.destroy()
  const recorded = new Event().record(new Stream())
  recorded.destroy()
  for (const e of [never, recorded]) {
    for (const use of [() => e.done, () => e.synchronize(), () => e.record(), () => new Stream().waitEvent(e), () => getElapsedTime(e, e), () => e.handle]) {
      const err = t.throws(use, { instanceOf: CudaError })
      t.is(err!.code, 'CUDA_ERROR_INVALID_HANDLE')
      t.regex(err!.message, /destroyed/)
    }
    e.destroy() // again: nothing
  }
})

test('an event is made at its first use: one never used makes no native event (#25.2)', (t) => {
  const s = new Stream({ nonBlocking: true })
  const before = native.eventLive()
  const unused = new Event()
  t.is(native.eventLive(), before, 'constructing makes nothing native')
  unused.destroy()
  t.is(native.eventLive(), before)
  const e = new Event().record(s)
  t.is(native.eventLive(), before + 1, 'the first record makes it')
  e.record(s)
  t.is(typeof e.handle, 'bigint')
  t.is(native.eventLive(), before + 1, 'once')
  e.destroy()
  t.is(native.eventLive(), before, 'destroy releases it')
  // An interprocess event is made at once (its options are checked then).
  t.throws(() => new Event({ interprocess: true }), { instanceOf: CudaError })
  t.is(native.eventLive(), before)
  s.destroy()
})

test('an event never recorded behaves as CUDA says (E3): done, synchronizes and resolves at once, adds nothing to wait for, has no elapsed time', async (t) => {
  const s = new Stream({ nonBlocking: true })
  for (const make of [() => new Event(), () => new Event({ disableTiming: true, block: true })]) {
    t.true(make().done)
    make().synchronize()
    let resolved = false
    void make()
      .synchronizeAsync()
      .then(() => (resolved = true))
    await Promise.resolve()
    await Promise.resolve()
    t.true(resolved, 'resolved within two microtask turns: no thread hop')
    s.waitEvent(make())
    t.true(s.done, 'a wait on it adds nothing to wait for')
    const done = new Event().record(s)
    done.synchronize()
    for (const [a, b] of [[make(), done], [done, make()]]) {
      const err = t.throws(() => getElapsedTime(a, b), { instanceOf: CudaError })
      t.is(err!.code, 'CUDA_ERROR_INVALID_HANDLE')
    }
  }
  s.destroy()
})

test('an event made before a global capture and first recorded inside it is made there without breaking the capture', (t) => {
  const s = new Stream({ nonBlocking: true })
  const side = new Stream({ nonBlocking: true })
  // A released event waits for reuse (GPU), and reusing one asks the driver about it first: a
  // query, which the global capture mode bars. Inside a capture a new one is made instead.
  new Event({ disableTiming: true }).record(s).destroy()
  s.synchronize()
  const fork = new Event({ disableTiming: true })
  const join = new Event({ disableTiming: true })
  s.beginCapture('global')
  fork.record(s)
  side.waitEvent(fork)
  kernels.sleep(0, side)
  join.record(side)
  s.waitEvent(join)
  const g = s.endCapture()
  g.launch(s)
  s.synchronize()
  t.true(s.done)
  for (const x of [g, s, side, fork, join]) x.destroy()
})

test('bad event options are TypeErrors', (t) => {
  t.throws(() => new Event({ disableTiming: 1 as any }), { instanceOf: TypeError })
  t.throws(() => new Event(null as any), { instanceOf: TypeError })
  t.throws(() => new Stream().waitEvent({} as any), { instanceOf: TypeError })
})

test("eventCreate takes cuEventCreate's flags as one word, from constants.event, and refuses any other bit", (t) => {
  t.deepEqual({ ...constants.event }, { blockingSync: 1, disableTiming: 2, interprocess: 4 }, "CUDA's CU_EVENT_* values")
  const e = new Event({ block: true, disableTiming: true })
  t.throws(() => getElapsedTime(e, e), { instanceOf: CudaError, message: /timing disabled/ })
  e.destroy()
  for (const bits of [8, 1 << 20]) t.throws(() => native.eventCreate(0, bits), { instanceOf: RangeError, message: /event flags/ })
  for (const bits of [-1, 0.5, 2 ** 32]) t.throws(() => native.eventCreate(0, bits), { instanceOf: RangeError })
})

test('an event without interprocess has no IPC handle', (t) => {
  const e = t.throws(() => new Event().ipcHandle(), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_INVALID_VALUE')
  t.regex(e!.message, /interprocess: true/)
})

test('an IPC handle must be 64 bytes', (t) => {
  t.throws(() => Event.fromIpcHandle(new Uint8Array(10)), { instanceOf: RangeError, message: /64 bytes/ })
  t.throws(() => Event.fromIpcHandle('abc' as any), { instanceOf: TypeError })
})

test('on the simulator interprocess events say they need the GPU', (t) => {
  const r = runJson(
    `const e = new cuda.Event({ interprocess: true, disableTiming: true });
     try { e.ipcHandle(); console.log('{}') } catch (err) { console.log(JSON.stringify({ code: err.code, message: err.message })) }`,
    { CUDA_NODE_BACKEND: 'sim' },
  )
  t.is(r.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(r.message, /need the GPU/)
})

gpuTest('an interprocess event is waited on by another process', async (t) => {
  const s = new Stream({ nonBlocking: true })
  const e = new Event({ interprocess: true, disableTiming: true })
  kernels.sleep(300 * MS, s)
  e.record(s)
  const handle = e.ipcHandle().toString('hex')
  t.is(handle.length, 128)
  const child = runNode(`
    const e = cuda.Event.fromIpcHandle(Buffer.from(${JSON.stringify(handle)}, 'hex'));
    const before = e.done;
    e.synchronize();
    console.log(JSON.stringify({ before, after: e.done }));
  `)
  t.is(child.status, 0, child.stderr)
  const r = JSON.parse(child.stdout.trim())
  t.true(r.after)
  t.true(e.done, 'the child returned only once the event had completed')
})
