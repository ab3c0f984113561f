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
        if (typeof c === 'function') registered.add(c)
        return target.registerErrorClass(c)
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
    return typeof e.code === 'string' && /^(CUDA|NVRTC|NVJITLINK|NCCL|CUBLAS|CUSOLVER)_/.test(e.code) ? null : `CudaError without a code: ${message}`
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

/** The end of a case: waits for its promises and host callbacks, restores the error class. */
async function settle() {
  await tick()
  const all = pending
  pending = []
  await within(Promise.all(all), 20_000, 'a promise the case made')
  for (let i = 0; i < 200 && cuda.pendingCallbacks() > 0; i++) await new Promise((r) => setTimeout(r, 5))
  if (registered.size > 0) {
    raw.registerErrorClass(cuda.CudaError)
    registered.clear()
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

module.exports = { cuda, native, raw, FuzzMark, mark, t, tick, collect, hostile, unconvertible, detached, settle, done, take, classify, within }
