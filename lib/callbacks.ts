// Host callbacks, the JS half. The addon owns each callback (crates/node/src/callbacks.rs): who
// holds it, how many runs queued work still owes, and keeping the event loop alive meanwhile.
// This module only keeps the function under an id and runs it, or forgets it, when told to.
import { AsyncLocalStorage } from 'node:async_hooks'
import { runIn, scope, type Scope } from './context'
import { native } from './native'

/** What the addon tells the dispatcher (crates/node/src/callbacks.rs `Kind`): run it (a graph's callback, it stays), 1 run it then forget it, or forget it. */
const RUN = 0
const RELEASE = 2
/** Added to a run's kind inside a blocking synchronize: run it before the call returns. */
const NOW = 4

/**
 * A callback held for the addon: `go` runs it from the event loop, in the async context it was
 * registered in; `now` runs it at once, inside a blocking synchronize (with cuda-node's scope of
 * its registration — current device and streams — in the synchronize caller's other stores).
 */
interface Held {
  go: () => void
  now: () => void
}

const held = new Map<number, Held>()
/** Ids travel with their kind in a pointer-sized word: below 2^30. */
const MAX_ID = 2 ** 30 - 1
let nextId = 1

function dispatch(id: number, kind: number): void {
  const h = held.get(id)
  if (h === undefined) return
  const k = kind & 3
  if (k !== RUN) held.delete(id)
  if (k === RELEASE) return
  if (kind & NOW) h.now()
  else h.go()
}

native.registerHostDispatcher(dispatch)

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

/**
 * Keeps `cb(arg)` for one run; returns the id to hand the addon. The run happens in the async
 * context of this call (the current stream, device, allocator, and the application's own
 * AsyncLocalStorage stores), as a timer's callback does: through a promise made now, whose
 * reaction runs it. Measured: AsyncLocalStorage.snapshot() costs 4–11 µs on Node 20–24, a
 * promise and its reaction 1.2 µs on Node 20 and 22 and 0.1 µs on Node 24.
 */
export function register(cb: (arg: unknown) => void, arg: unknown): number {
  let id = nextId
  while (held.has(id)) id = id >= MAX_ID ? 1 : id + 1
  nextId = id >= MAX_ID ? 1 : id + 1
  let go!: () => void
  let done = false
  void new Promise<void>((resolve) => {
    go = resolve
  }).then(() => done || run(cb, arg))
  const sc: Scope = scope()
  held.set(id, {
    go,
    now: () => {
      done = true
      runIn(sc, () => run(cb, arg))
    },
  })
  return id
}

/** The callback under `id` was captured into a graph: it runs at every launch, in this context. */
export function persist(id: number, cb: (arg: unknown) => void, arg: unknown): void {
  const ctx = AsyncLocalStorage.snapshot()
  const go = () => ctx(() => run(cb, arg))
  held.set(id, { go, now: go })
}

/** Forgets a callback the addon never took (its call threw before queueing it). */
export function forget(id: number): void {
  held.delete(id)
}

/** How many host callbacks are waiting to run on this thread (graph launches included). */
export function pendingCallbacks(): number {
  return native.callbacksPending()
}

/** How many callbacks captured into graphs are held (for leak checks). */
export function graphCallbacks(): number {
  return native.callbacksCaptured()
}
