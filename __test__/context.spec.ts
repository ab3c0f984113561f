import test from 'ava'
import path from 'node:path'
import { alloc, CudaError, Device, driver, ExternalStream, Stream } from '..'
import { gpuTest, onGpu, onWasm, runJson } from './helpers'

// Contexts for interop (#38 item 7): driver.ctxGetCurrent() and stream.context, so native code
// can share them. On the GPU they are the driver's CUcontext handles; on the simulator a stable
// fake per device.

test('driver.ctxGetCurrent() is a non-zero bigint, the same on every call for a device', (t) => {
  const c = driver.ctxGetCurrent()
  t.is(typeof c, 'bigint')
  t.not(c, 0n)
  t.is(driver.ctxGetCurrent(), c)
  alloc(16).free() // work on the device leaves the same context current
  t.is(driver.ctxGetCurrent(), c)
  t.is(new Device(0).run(() => driver.ctxGetCurrent()), c)
})

test("a stream's context is its device's: created, non-blocking, default and per-thread streams", (t) => {
  const c = driver.ctxGetCurrent()
  for (const s of [new Stream(), new Stream({ nonBlocking: true }), Stream.null, Stream.ptds]) {
    t.is(typeof s.context, 'bigint')
    t.is(s.context, c, `${s.handle}`)
  }
  // An external stream names the same driver stream, so the same context.
  const s = new Stream()
  t.is(new ExternalStream(s.handle).context, c)
})

test('asking a stream for its context does not disturb its work', (t) => {
  const s = new Stream()
  const p = alloc(64)
  s.run(() => p.memset(7, 64))
  t.is(s.context, driver.ctxGetCurrent())
  s.synchronize()
  const out = new Uint8Array(64)
  p.copyToHost(out)
  t.true(out.every((v) => v === 7))
})

test('each device has its own context, and a stream its own device\'s (two simulated devices)', (t) => {
  const r = runJson(
    `const c0 = cuda.driver.ctxGetCurrent()
     const c1 = new cuda.Device(1).run(() => cuda.driver.ctxGetCurrent())
     const s1 = new cuda.Stream({ device: 1 })
     console.log(JSON.stringify({
       differ: c0 !== c1,
       s1: s1.context === c1,
       null1: new cuda.Device(1).run(() => cuda.Stream.null.context) === c1,
       back: cuda.driver.ctxGetCurrent() === c0,
     }))`,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.deepEqual(r, { differ: true, s1: true, null1: true, back: true })
})

const perInstance = onWasm ? ' (WebAssembly: each worker is its own simulator, whose fakes are the same numbers)' : ''
test(`a worker sees the same context for a device: the primary context is the process's${perInstance}`, async (t) => {
  const { Worker } = await import('node:worker_threads')
  const w = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads')
     const cuda = require(workerData.root)
     parentPort.postMessage({ ctx: cuda.driver.ctxGetCurrent(), stream: new cuda.Stream().context })`,
    { eval: true, workerData: { root: path.join(__dirname, '..') } },
  )
  const got = await new Promise<any>((resolve, reject) => w.once('message', resolve).once('error', reject))
  await w.terminate()
  const c = driver.ctxGetCurrent()
  t.is(got.ctx, c)
  t.is(got.stream, c)
})

test('a destroyed stream has no context to give: a typed error', (t) => {
  const s = new Stream()
  s.destroy()
  t.throws(() => s.context, { instanceOf: CudaError, code: 'CUDA_ERROR_INVALID_HANDLE', message: /destroyed/ })
})

gpuTest('on the GPU the context is the driver\'s, the one cuBLAS work ran in: not the simulator\'s fake', (t) => {
  t.true(onGpu)
  const c = driver.ctxGetCurrent()
  t.not(c >> 32n, 0x0c7cn, 'a real CUcontext, not a fake')
  t.is(new Stream({ nonBlocking: true }).context, c)
})
