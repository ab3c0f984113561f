// Host callbacks: the native side queues a callback's id for this thread; this module holds the
// callback until it runs, keeps the event loop alive meanwhile (as a timer does), and lets
// nothing outlive the call.
import { native } from './native'

interface Pending {
  cb: (arg: unknown) => void
  arg: unknown
}

const pending = new Map<number, Pending>()
let nextId = 1
// One ref'd handle while any callback is pending; unref'd otherwise.
const keepAlive = setInterval(() => {}, 2 ** 30)
keepAlive.unref()

function dispatch(id: number): void {
  const p = pending.get(id)
  if (p === undefined) return
  pending.delete(id)
  if (pending.size === 0) keepAlive.unref()
  try {
    p.cb(p.arg)
  } catch (err) {
    // Surface it like any callback's exception (uncaughtException), never lost.
    process.nextTick(() => {
      throw err
    })
  }
}

native.registerHostDispatcher(dispatch)

/** Registers `cb(arg)` to run on this thread; returns the id the native side will dispatch. */
export function hold(cb: (arg: unknown) => void, arg: unknown): number {
  const id = nextId
  nextId = nextId >= 0x7fffffff ? 1 : nextId + 1
  pending.set(id, { cb, arg })
  if (pending.size === 1) keepAlive.ref()
  return id
}

/** Forgets a callback whose enqueue failed. */
export function release(id: number): void {
  if (pending.delete(id) && pending.size === 0) keepAlive.unref()
}

/** How many host callbacks are waiting to run on this thread. */
export function pendingCallbacks(): number {
  return pending.size
}
