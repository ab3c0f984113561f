// When device memory gets its GC backstop. The addon frees a block when its JS owner is
// collected (crates/node/src/handles.rs `own`), but attaching the owner costs more than a whole
// pool allocation, and most pointers in a hot loop are freed before the current macrotask ends.
// So a Memory is attached only if it is still alive at the next macrotask. This module decides
// only *when*; what is freed, and when it may be, is the addon's.
import { native } from '../native'

interface Tracked {
  readonly freed: boolean
}

let pending: Tracked[] = []
const handles: number[] = []
let scheduled = false

function flush(): void {
  scheduled = false
  attachLive()
}

/** Attaches the pending pointers not yet freed, and forgets the list. */
function attachLive(): void {
  const batch = pending
  pending = []
  for (let i = 0; i < batch.length; i++) if (!batch[i].freed) native.memOwn(batch[i], handles[i])
  handles.length = 0
}

/** Past this many pending pointers, the live ones are attached now and the freed ones dropped. */
const COMPACT_AT = 1024

/** Frees the block behind `handle` once `m` is collected, unless it was freed first. */
export function track(m: Tracked, handle: number): void {
  pending.push(m)
  handles.push(handle)
  // A long synchronous loop never reaches the next macrotask: without this, every pointer it
  // allocated and freed would stay reachable from the list until then, and old to the GC.
  if (pending.length >= COMPACT_AT) attachLive()
  if (!scheduled) {
    scheduled = true
    setImmediate(flush).unref()
  }
}
