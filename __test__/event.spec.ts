import test from 'ava'
import { CudaError, Event, getElapsedTime, kernels, Stream } from '..'
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
  kernels.sleep(300 * MS, s)
  const b = new Event().record(s)
  const e = t.throws(() => getElapsedTime(a, b), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_NOT_READY')
  t.regex(e!.message, /synchronize it first/)
  b.synchronize()
  t.true(getElapsedTime(a, b) > 0)
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

test('a destroyed event throws on every use', (t) => {
  const e = new Event()
  e.destroy()
  for (const use of [() => e.done, () => e.synchronize(), () => e.record(), () => new Stream().waitEvent(e), () => getElapsedTime(e, e)]) {
    const err = t.throws(use, { instanceOf: CudaError })
    t.is(err!.code, 'CUDA_ERROR_INVALID_HANDLE')
  }
})

test('bad event options are TypeErrors', (t) => {
  t.throws(() => new Event({ disableTiming: 1 as any }), { instanceOf: TypeError })
  t.throws(() => new Event(null as any), { instanceOf: TypeError })
  t.throws(() => new Stream().waitEvent({} as any), { instanceOf: TypeError })
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
