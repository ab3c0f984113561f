// Host callbacks: the native side queues a callback's id for this thread; this module holds the
// callback until it runs, keeps the event loop alive meanwhile (as a timer does), and lets
// nothing outlive the call.
import { AsyncLocalStorage } from 'node:async_hooks'
import { native } from './native'

interface Persistent {
  cb: (arg: unknown) => void
  arg: unknown
  /** The async context the callback was registered in (current stream, device, allocator). */
  ctx: <R>(fn: () => R) => R
}

// Run-once callbacks: dispatching one resolves a promise made when it was registered, whose
// reaction runs it, so it runs in the async context of its registration (the current stream,
// and the application's own AsyncLocalStorage stores) as a timer's callback does. Measured:
// AsyncLocalStorage.snapshot() costs 4-11 µs on Node 20-24, a promise and its reaction
// 1.2 µs on Node 20 and 22 and 0.1 µs on Node 24.
const pending = new Map<number, () => void>()
// Callbacks captured into graphs: they run at every launch, and live while a graph refers to
// them or a launched graph still owes a run of them.
const persistent = new Map<number, Persistent & { refs: number; inflight: number }>()
// Runs of persistent callbacks that launched graphs still owe.
let owed = 0
let nextId = 1
// One ref'd handle while any callback is pending; unref'd otherwise.
const keepAlive = setInterval(() => {}, 2 ** 30)
keepAlive.unref()

function settle(): void {
  if (pending.size === 0 && owed === 0) keepAlive.unref()
}

function dispatch(id: number): void {
  const go = pending.get(id)
  if (go !== undefined) {
    pending.delete(id)
    settle()
    go()
    return
  }
  const q = persistent.get(id)
  if (q === undefined) return
  owed--
  if (--q.inflight === 0 && q.refs === 0) persistent.delete(id)
  settle()
  const { cb, arg } = q
  q.ctx(() => run(cb, arg))
}

function run(cb: (arg: unknown) => void, arg: unknown): void {
  try {
    cb(arg)
  } catch (err) {
    // Surface it like any callback's exception (uncaughtException), never lost.
    process.nextTick(() => {
      throw err
    })
  }
}

native.registerHostDispatcher(dispatch)

function newId(): number {
  const id = nextId
  nextId = nextId >= 0x7fffffff ? 1 : nextId + 1
  return id
}

/** Registers `cb(arg)` to run once on this thread; returns the id the native side will dispatch. */
export function hold(cb: (arg: unknown) => void, arg: unknown): number {
  const id = newId()
  let go!: () => void
  void new Promise<void>((resolve) => {
    go = resolve
  }).then(() => run(cb, arg))
  pending.set(id, go)
  keepAlive.ref()
  return id
}

/** Forgets a callback whose enqueue failed. */
export function release(id: number): void {
  pending.delete(id)
  settle()
}

/** Registers `cb(arg)` for a graph: it runs at every launch, until released. */
export function holdPersistent(cb: (arg: unknown) => void, arg: unknown): number {
  const id = newId()
  persistent.set(id, { cb, arg, ctx: AsyncLocalStorage.snapshot(), refs: 1, inflight: 0 })
  return id
}

/** Another graph refers to these callbacks (after `update`). */
export function retainPersistent(ids: readonly number[]): void {
  for (const id of ids) {
    const p = persistent.get(id)
    if (p !== undefined) p.refs++
  }
}

/** A graph no longer refers to these callbacks. */
export function releasePersistent(ids: readonly number[]): void {
  for (const id of ids) {
    const p = persistent.get(id)
    if (p !== undefined && --p.refs === 0 && p.inflight === 0) persistent.delete(id)
  }
}

/** A launched graph will run these callbacks once each: keep them, and the process, alive until then. */
export function expectRuns(ids: readonly number[]): void {
  if (ids.length === 0) return
  for (const id of ids) {
    const p = persistent.get(id)
    if (p !== undefined) {
      p.inflight++
      owed++
    }
  }
  keepAlive.ref()
}

/** How many host callbacks are waiting to run on this thread (graph launches included). */
export function pendingCallbacks(): number {
  return pending.size + owed
}

/** How many callbacks captured into graphs are held (for leak checks). */
export function graphCallbacks(): number {
  return persistent.size
}
