// The GC backstop for device memory. A pointer is registered with a FinalizationRegistry only
// if it is still alive at the next macrotask: registering costs more than a whole pool
// allocation, and most pointers in a hot loop are freed before then. The native table owns
// the memory; the registry only tells it which handles JS can no longer reach.
import { native } from './native'

interface Tracked {
  readonly freed: boolean
  readonly _handle: number
}

const registry = new FinalizationRegistry<number>((handle) => native.memCollect(handle))
let pending: Tracked[] = []
let scheduled = false

function flush(): void {
  scheduled = false
  registerLive()
}

/** Registers the pending pointers not yet freed, and forgets the list. */
function registerLive(): void {
  const batch = pending
  pending = []
  for (const m of batch) if (!m.freed) registry.register(m, m._handle)
}

/** Past this many pending pointers, the live ones are registered now and the freed ones dropped. */
const COMPACT_AT = 1024

/** Frees `m`'s handle once `m` is collected, unless it was freed first. */
export function track(m: Tracked): void {
  pending.push(m)
  // A long synchronous loop never reaches the next macrotask: without this, every pointer it
  // allocated and freed would stay reachable from the list until then, and old to the GC.
  if (pending.length >= COMPACT_AT) registerLive()
  if (!scheduled) {
    scheduled = true
    setImmediate(flush).unref()
  }
}
