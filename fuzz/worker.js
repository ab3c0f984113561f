// The worker thread of the fuzzer's `terminated` move (helpers.js): it loads the package and
// queues, on one stream of one device, work that needs things kept alive until it has run — a long
// sleep ahead of the rest, graphs holding captured host functions, copies from pinned and
// registered memory freed at once, stream-ordered allocations, pending waits, host callbacks, a
// simulated kernel, a capture left open — announcing each step to the main thread, which
// terminates this thread at some moment: before, while or after it queues. Every step is valid;
// an untyped error from one is a rule violation, sent to the main thread to report.
'use strict'
const { isMainThread, parentPort, workerData } = require('node:worker_threads')

/** Set once this thread runs a plan. */
let cuda
let sleepNs = 0
let device = 0

const KERNEL = 'extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }'
const N = 4096

/**
 * An error a step or wait met, reported unless it is typed: the steps are valid, but what the main
 * thread's case does meanwhile may refuse them (a capture it left open, say), with a typed error.
 */
function report(what, e) {
  const typed = e instanceof TypeError || e instanceof RangeError || (e instanceof cuda.CudaError && /^[A-Z]+_/.test(e.code ?? ''))
  if (!typed || !e.message) parentPort.postMessage({ bad: `untyped error in a worker, from ${what}: ${e?.constructor?.name} ${e?.message}` })
}

/** Keeps a wait of the worker's, its failure reported. */
function wait(c, what, p) {
  c.pending.push(p.then(undefined, (e) => report(what, e)))
}

/** What the steps share: the stream, a device buffer, and what the worker keeps referenced. */
function context() {
  const s = new cuda.Stream({ nonBlocking: device === 1 })
  const dst = cuda.alloc(N)
  return { s, dst, keep: [], pending: [] }
}

const STEPS = {
  // First in most plans: everything queued after it is still queued when the thread goes.
  sleep: (c) => cuda.kernels.sleep(sleepNs, c.s),
  graph: (c) => {
    const g = c.s.capture(() => {
      c.dst.memsetAsync(2, N, c.s)
      c.s.launchHostFunc(() => {})
    })
    g.launch(c.s)
    c.keep.push(g)
  },
  // Destroyed with its launch queued: the launch keeps the captured host function.
  graphDestroyed: (c) => {
    const g = c.s.capture(() => c.s.launchHostFunc(() => {}))
    g.launch(c.s)
    g.launch(c.s)
    g.destroy()
  },
  hostFn: (c) => c.s.launchHostFunc(() => parentPort.postMessage({ ran: 'hostFn' })),
  callback: (c) => c.s.addCallback(() => {}),
  pinnedCopy: (c) => {
    const p = cuda.allocPinned(N)
    p.set(new Uint8Array(N).fill(3))
    c.dst.copyFromHostAsync(p, N, c.s)
  },
  // Freed with the copy queued: the copy holds it.
  pinnedFreed: (c) => {
    const p = cuda.allocPinned(N)
    c.dst.copyToHostAsync(p, N, c.s)
    p.free()
  },
  // JS's own bytes, page-locked in place: the copy holds them (and the JS value) until it has run.
  registered: (c) => {
    const bytes = new Uint8Array(N)
    const r = cuda.registerHost(bytes)
    c.dst.copyToHostAsync(bytes, N, c.s)
    c.keep.push(r)
  },
  asyncAlloc: (c) => {
    const pool = new cuda.AsyncMemoryPool()
    const m = c.s.run(() => pool.malloc(N))
    m.memsetAsync(1, N, c.s)
    c.dst.copyFromDeviceAsync(m, N, c.s)
    c.s.run(() => m.free())
  },
  syncAsync: (c) => wait(c, 'synchronizeAsync', c.s.synchronizeAsync()),
  eventAsync: (c) => wait(c, "an event's synchronizeAsync", c.s.record().synchronizeAsync()),
  deviceAsync: (c) => wait(c, "the device's synchronizeAsync", new cuda.Device(device).synchronizeAsync()),
  // The simulator runs a kernel's host implementation on this thread, in stream order.
  simKernel: (c) => {
    if (cuda.backend().compiledKernels) return
    const k = new cuda.RawKernel(KERNEL, 'k', { simulate: () => {} })
    k.launch([1], [32], [c.dst], { stream: c.s })
  },
  // A capture whose body awaits: the thread may go with it open.
  capture: (c) => {
    const g = c.s.capture(async () => {
      c.dst.memsetAsync(4, N, c.s)
      await new Promise((resolve) => setTimeout(resolve, 5))
      c.s.launchHostFunc(() => {})
    })
    wait(c, 'an async capture', g)
  },
  gc: (c) => {
    c.keep.length = 0
    globalThis.gc?.()
  },
}

async function main(pkg, plan) {
  // Alive until terminated, however early its work is done.
  setInterval(() => {}, 1 << 30)
  cuda = pkg
  sleepNs = plan.sleepNs
  device = plan.device
  const steps = plan.steps
  await new cuda.Device(device).run(async () => {
    const c = context()
    for (const [i, name] of steps.entries()) {
      try {
        STEPS[name](c)
      } catch (e) {
        report(`step ${name}`, e)
      }
      parentPort.postMessage({ step: i + 1 })
      // A turn of the loop between steps: termination may come while the thread queues.
      await new Promise((resolve) => setImmediate(resolve))
    }
    parentPort.postMessage({ step: steps.length + 1 })
    await Promise.all(c.pending)
    parentPort.postMessage({ settled: true })
  })
}

if (!isMainThread && workerData?.fuzzWorker) {
  main(require(workerData.root), workerData).catch((e) => parentPort.postMessage({ bad: `the fuzz worker failed: ${e?.stack ?? e}` }))
}

/** The steps a plan may list. */
module.exports = { STEP_NAMES: Object.keys(STEPS) }
