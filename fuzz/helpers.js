// What every fuzz case, and every repro snippet, runs with: the package, the raw addon, and the
// oracle. Plain CommonJS so a snippet replays with `node --expose-gc -e "..."` from the repo root.
'use strict'
const path = require('node:path')

const root = path.join(__dirname, '..')
const cuda = require(root)
const raw = require(path.join(root, 'native.js'))

/** Thrown by the fuzzer's own hostile values (getters, traps, callbacks): passing it on is right. */
class FuzzMark extends Error {
  constructor() {
    super('FUZZ-MARK: thrown by a hostile value of the fuzzer')
  }
}
const mark = () => new FuzzMark()

/** Error classes a raw case registered with registerErrorClass: what they build is theirs. */
const registered = new Set()
/** The raw addon, except that a registered error class is remembered (and restored by done()). */
const native = new Proxy(raw, {
  get(target, key) {
    if (key === 'registerErrorClass') {
      return (c) => {
        // Refused (CUDA_ERROR_NOT_PERMITTED) once the package's loader has registered its class
        // (#32.3): remembered only where it was taken.
        const r = target.registerErrorClass(c)
        if (typeof c === 'function') registered.add(c)
        return r
      }
    }
    return target[key]
  },
})

let bad = []
let pending = []
/** Set while a call runs, so an error reaching uncaughtException is named by what threw it. */
let current = ''

/** Why `e` breaks the rule "only typed errors", or null when it is a typed error. */
function classify(e) {
  if (e instanceof FuzzMark) return null
  if (e === null || (typeof e !== 'object' && typeof e !== 'function')) return `threw a non-error: ${String(e)}`
  let message
  try {
    message = e.message
  } catch {
    return 'threw an error whose message cannot be read'
  }
  if (typeof message === 'string' && message.includes('FUZZ-MARK')) return null
  for (const c of registered) {
    try {
      if (e instanceof c) return null
    } catch {
      // Not a constructor (an arrow function, say): nothing is an instance of it.
    }
  }
  if (typeof message !== 'string' || message.trim() === '' || /^unknown$/i.test(message.trim())) {
    return `error with no useful message: ${e.constructor?.name} ${JSON.stringify(message)}`
  }
  if (e instanceof TypeError || e instanceof RangeError) return null
  if (e instanceof cuda.CudaError) {
    return typeof e.code === 'string' && /^(CUDA|NVRTC|NVJITLINK|NCCL|CUBLAS|CUSOLVER|CUSPARSE|CUTENSOR|CURAND|CUFFT)_/.test(e.code) ? null : `CudaError without a code: ${message}`
  }
  // A plain Error carrying a CUDA code is what the addon throws while a raw case has replaced
  // the CudaError class with one that fails to construct.
  if (registered.size > 0 && typeof e.code === 'string' && /^(CUDA|NVRTC|NVJITLINK|NCCL)_/.test(e.code)) return null
  return `untyped error: ${e.constructor?.name ?? typeof e}: ${String(message).slice(0, 200)}`
}

function note(what, e) {
  const why = classify(e)
  if (why !== null) bad.push(`${why}  [from ${what}]`)
}

/** Runs one call: a typed error is fine, anything else is recorded; a promise is checked when it settles. */
function t(f, what = '') {
  const outer = current
  current = what || f.toString().replace(/^\(\) => /, '').slice(0, 160)
  try {
    const r = f()
    if (r !== null && (typeof r === 'object' || typeof r === 'function') && typeof r.then === 'function' && r instanceof Promise) {
      const label = current
      pending.push(r.then(undefined, (e) => note(`${label} (rejected)`, e)))
    }
    return r
  } catch (e) {
    note(current, e)
    return undefined
  } finally {
    current = outer
  }
}

const tick = () => new Promise((r) => setImmediate(r))
/** Runs the collector, where the process allows it (--expose-gc). */
const collect = () => globalThis.gc?.()

/** An object every one of whose traps throws the fuzzer's mark. */
function hostile() {
  const trap = () => {
    throw mark()
  }
  return new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap, set: trap, defineProperty: trap, deleteProperty: trap, apply: trap, construct: trap })
}
/** An object that throws when converted to a number or string. */
const unconvertible = () => ({ [Symbol.toPrimitive]: () => { throw mark() }, valueOf: () => { throw mark() }, toString: () => { throw mark() } })
/** A detached ArrayBuffer (transferred away). */
function detached(n = 16) {
  const b = new ArrayBuffer(n)
  structuredClone(b, { transfer: [b] })
  return b
}

/** A promise that settles when `p` does or after `ms`, whichever is first: a promise that never settles is a hang. */
function within(p, ms, what) {
  let timer
  return Promise.race([p, new Promise((r) => { timer = setTimeout(() => { bad.push(`hang: ${what} did not settle within ${ms} ms`); r() }, ms) })]).finally(() => clearTimeout(timer))
}

/** The first device with a stream capturing through the library, or undefined. */
function capturing() {
  for (let d = 0; d < cuda.Device.count(); d++) if (native.deviceCapturing(d)) return `device ${d} is capturing`
  return undefined
}

/** The end of a case: waits for its promises and host callbacks, restores the error class. */
async function settle() {
  await tick()
  const all = pending
  pending = []
  await within(Promise.all(all), 20_000, 'a promise the case made')
  for (let i = 0; i < 200 && cuda.pendingCallbacks() > 0; i++) await new Promise((r) => setTimeout(r, 5))
  // A capture the case began on a stream that lives as long as the thread (the per-thread
  // default stream) and left open is the case's own state, as it would be a user's: it keeps the
  // device capturing for every later case. End it here, as that user would.
  for (let d = 0; d < cuda.Device.count(); d++) {
    try {
      new cuda.Device(d).run(() => cuda.Stream.ptds.isCapturing() && cuda.Stream.ptds.endCapture().destroy())
    } catch {
      // Not capturing, or a capture already invalidated: nothing to end.
    }
  }
  // A case's own stream still capturing at its end ends its capture when the GC takes it, as a
  // user's would: collect before the next case, so that case does not meet this one's capture.
  // Not an oracle: a case's objects may outlive it (a graph whose captured host function closes
  // over the case's variables is held by the callback table until it is destroyed).
  for (let i = 0; i < 4 && capturing() !== undefined; i++) {
    globalThis.gc?.()
    await new Promise((r) => setImmediate(r))
  }
  if (registered.size > 0) {
    raw.registerErrorClass(cuda.CudaError)
    registered.clear()
  }
}

/** What the harness counts across cases (reported by the child, checked by fuzz.spec). */
const stats = { workers: 0 }

/**
 * The worker move: a worker thread loads the package and queues `plan.steps` (fuzz/worker.js) on
 * device `plan.device`, and is terminated once it has announced step `plan.at` (0: as soon as it
 * is made, before it loaded anything; `steps.length + 1`: all queued; `+ 2`: its own waits
 * settled), `plan.wait` ms later. Then the main thread goes on: the termination must settle, and
 * the device must still work for it (the legacy stream included) and drain what the worker left.
 */
async function terminated(spec) {
  // With a capture of the case's open, a worker's calls and the checks after it are refused by
  // right (a global capture bars other threads' unsafe calls; synchronize waits for no capture):
  // the move is left out then.
  if (capturing() !== undefined) return
  stats.workers++
  // Device 1 where there is one (the fuzz runs with two; a GPU machine may have one).
  const plan = { ...spec, device: spec.device < cuda.Device.count() ? spec.device : 0 }
  // The legacy stream is refused while a blocking stream captures (C6c): the case itself may have
  // left one capturing, so what counts is that it worked before the worker and not after.
  const legacy = () => {
    try {
      new cuda.Device(plan.device).run(() => cuda.Stream.null.synchronize())
      return true
    } catch {
      return false
    }
  }
  const legacyBefore = legacy()
  const { Worker } = require('node:worker_threads')
  // Plain CommonJS, without the parent's loaders (the fuzz child runs under tsx, from a scratch
  // directory where tsx cannot be found); --expose-gc is V8's, for the whole process.
  const w = new Worker(path.join(__dirname, 'worker.js'), { execArgv: [], workerData: { ...plan, root, fuzzWorker: true } })
  const what = `a worker terminated at step ${plan.at} of ${JSON.stringify(plan.steps)}`
  let exited = false
  const reached = new Promise((resolve) => {
    if (plan.at === 0) resolve()
    w.on('message', (m) => {
      if (m.bad) bad.push(`${m.bad}  [from ${what}]`)
      if (m.step >= plan.at || (m.settled && plan.at > plan.steps.length + 1)) resolve()
    })
    w.once('exit', () => {
      exited = true
      resolve()
    })
  })
  w.on('error', (e) => note(`${what} (its uncaught error)`, e))
  await within(reached, 20_000, `${what}: the step it was to be terminated at`)
  if (plan.wait > 0) await new Promise((r) => setTimeout(r, plan.wait))
  if (exited) bad.push(`the fuzz worker exited before it was terminated (it stays alive until then)  [from ${what}]`)
  await within(w.terminate(), 20_000, `${what}: worker.terminate()`)
  // The process goes on, on the device the worker used.
  const after = (f, label) => {
    try {
      return f()
    } catch (e) {
      bad.push(`after ${what}, ${label} threw: ${e?.constructor?.name} ${e?.code ?? ''} ${e?.message}`)
    }
  }
  await clean(plan.device, async () => {
    const m = after(() => cuda.alloc(64), 'alloc')
    const s = after(() => new cuda.Stream(), 'new Stream()')
    if (m === undefined || s === undefined) return
    const out = new Uint8Array(64)
    after(() => {
      m.memsetAsync(plan.device + 5, 64, s)
      m.copyToHostAsync(out, 64, s)
    }, 'a memset and copy')
    await within(s.synchronizeAsync().catch((e) => bad.push(`after ${what}, synchronizeAsync rejected: ${e?.message}`)), 20_000, `after ${what}, a stream's synchronizeAsync`)
    if (out[63] !== plan.device + 5) bad.push(`after ${what}, the device gave back ${out[63]} for ${plan.device + 5}`)
    // A capture the worker left open must not keep the legacy stream refused, nor frees deferred.
    if (legacyBefore && !legacy()) {
      bad.push(`after ${what}, the legacy stream is refused: ${after(() => cuda.Stream.null.synchronize(), 'Stream.null.synchronize()') ?? ''}`)
    }
    await within(new cuda.Device(plan.device).synchronizeAsync().catch((e) => bad.push(`after ${what}, the device's synchronizeAsync rejected: ${e?.message}`)), 20_000, `after ${what}, the device's synchronizeAsync`)
    after(() => m.free(), 'free')
    after(() => s.destroy(), 'destroy')
  })
}

/** For each kind of object: make one, let it go, use it, and check a live one works. */
const KINDS = {
  memory: { make: () => cuda.alloc(64), kill: (m) => m.free(), use: (m) => m.memset(1, 64), works: (m) => { m.memset(2, 64); const b = new Uint8Array(64); m.copyToHost(b); return b[63] === 2 } },
  plain: { make: () => cuda.mallocPlain(64), kill: (m) => m.free(), use: (m) => m.memset(1, 64), works: (m) => { m.memset(3, 64); const b = new Uint8Array(64); m.copyToHost(b); return b[63] === 3 } },
  stream: { make: () => new cuda.Stream(), kill: (s) => s.destroy(), use: (s) => s.synchronize(), works: (s) => { s.synchronize(); return s.done } },
  event: { make: () => new cuda.Event(), kill: (e) => e.destroy(), use: (e) => e.synchronize(), works: (e) => { e.record(); e.synchronize(); return e.done } },
  pinned: { make: () => cuda.getDefaultPinnedMemoryPool().malloc(64), kill: (p) => p.free(), use: (p) => p.set(new Uint8Array(8)), works: (p) => { p.set(new Uint8Array(64).fill(4)); const b = new Uint8Array(64); p.get(b); return b[63] === 4 } },
  graph: { make: () => cuda.Stream.ptds.capture(() => {}), kill: (g) => g.destroy(), use: (g) => g.launch(), works: (g) => { g.launch(); return true } },
}

/**
 * The stale-handle move: an object of `kind` is let go (freed or destroyed), then `cycles` more
 * are made and let go, reusing its slot under new generations, the last one kept live; then the
 * old one is used and let go again (a typed error, or nothing), and collected. Its handle must
 * name nothing any more: the live object must be untouched and keep working.
 */
/**
 * Runs a check of the harness's own on `device` in a scope of its own: a fresh non-blocking
 * stream current (the case may have made a destroyed stream current, or left a blocking stream
 * capturing, which refuses the legacy stream) and the default pool as the allocator (the case may
 * have set one that returns nonsense). What the case set stays set outside. The pinned allocator
 * is the thread's, not a scope's, so the moves take pinned memory from the default pinned pool.
 */
function clean(device, fn) {
  return new cuda.Device(device).run(() => {
    const s = new cuda.Stream({ nonBlocking: true })
    const pool = cuda.getDefaultMemoryPool()
    return cuda.usingAllocator((n) => pool.malloc(n), () => s.run(fn))
  })
}

function stale(kind, cycles) {
  const k = KINDS[kind]
  const what = `a stale ${kind} after ${cycles} cycles`
  // A capture of the case's own (on any stream) turns the legacy stream and a graph's
  // instantiation away by right: the move is left out then.
  if (capturing() !== undefined) return
  clean(0, () => staleIn(k, kind, what, cycles))
}

function staleIn(k, kind, what, cycles) {
  const live = (() => {
    try {
      const old = k.make()
      k.kill(old)
      let last
      for (let i = 0; i < cycles; i++) {
        last = k.make()
        if (i < cycles - 1) k.kill(last)
      }
      t(() => k.use(old), `using ${what}`)
      t(() => k.kill(old), `letting go of ${what} again`)
      return last
    } catch (e) {
      bad.push(`${what}: making or letting go of a fresh one threw: ${e?.constructor?.name} ${e?.code ?? ''} ${e?.message}`)
      return undefined
    }
  })()
  // The old object is unreachable now: its finalizer must find nothing to release.
  collect()
  if (live === undefined) return
  try {
    if (!k.works(live)) bad.push(`${what}: the live ${kind} in its slot no longer works`)
    k.kill(live)
  } catch (e) {
    bad.push(`${what}: the live ${kind} in its slot threw: ${e?.constructor?.name} ${e?.code ?? ''} ${e?.message}`)
  }
}

/** For a snippet run alone: settles, prints what broke the rules, and sets the exit status. */
async function done() {
  await settle()
  if (bad.length > 0) {
    console.log(bad.join('\n'))
    process.exitCode = 1
  } else console.log('no violation')
}

/** For the harness: the violations since the last call, cleared. */
function take() {
  const out = bad
  bad = []
  return out
}

process.on('uncaughtException', (e) => note(`uncaughtException (while ${current || 'idle'})`, e))
process.on('unhandledRejection', (e) => note(`unhandledRejection (while ${current || 'idle'})`, e))

module.exports = { cuda, native, raw, FuzzMark, mark, t, tick, collect, hostile, unconvertible, detached, terminated, stale, stats, settle, done, take, classify, within }
