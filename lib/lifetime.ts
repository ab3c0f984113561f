// When an object gets its GC backstop. The addon releases what a handle names when the handle's
// JS owner is collected (crates/node/src/handles.rs `own`), but attaching an owner (a Node-API
// finalizer, ~0.4 µs) costs more than making a stream or an event, or than a pool allocation, and
// most made in a hot loop are released before the current macrotask ends. So an object is
// attached only if it is still alive at the next macrotask, and one its class's `destroy()` marked
// released (object.ts `backstop`) is not even asked for: made and destroyed in one macrotask, a
// stream or an event costs its two native calls and no third. This module decides only *when*;
// what is released, and whether anything is left to release, is the addon's.

/** Attaches `o` as the owner of its handle (the addon does nothing for a handle released since). */
export type Attach = (o: object) => void

/** Past this many waiting objects, they are attached now (the released ones do nothing). */
const COMPACT_AT = 1024

/**
 * The waiting objects and their attaches, interleaved (`o, attach, o, attach, …`), `count` pairs.
 * Kept at its size, the slots cleared as they are attached: arrays grown again from empty at every
 * flush showed in the profile of a create-and-destroy loop, as did a third array of handles (the
 * attach reads the handle from its object).
 */
const waiting: unknown[] = Array.from({ length: 2 * COMPACT_AT }, () => undefined)
let count = 0
let scheduled = false

function flush(): void {
  scheduled = false
  attachLive()
}

/** Attaches the waiting objects, and forgets them. */
function attachLive(): void {
  const n = 2 * count
  count = 0
  for (let i = 0; i < n; i += 2) {
    const o = waiting[i] as object
    const attach = waiting[i + 1] as Attach
    waiting[i] = undefined
    waiting[i + 1] = undefined
    attach(o)
  }
}

/** Has `attach(o)` called at the next macrotask, unless `o` is already released then. */
export function ownLater(o: object, attach: Attach): void {
  // A long synchronous loop never reaches the next macrotask: without this, every object it
  // made and released would stay reachable from the list until then, and old to the GC. Those
  // waiting are attached before `o` joins them: `o` is still under construction (its class's
  // fields are set once the base constructor returns).
  if (count === COMPACT_AT) attachLive()
  waiting[2 * count] = o
  waiting[2 * count + 1] = attach
  count++
  if (!scheduled) {
    scheduled = true
    setImmediate(flush).unref()
  }
}

/**
 * Forgets `o` if it is the last object waiting (made, then released before anything else was made:
 * a create-and-destroy loop). It then costs nothing at the next macrotask and is not kept reachable
 * until then, which in a long synchronous loop would age it into the old generation.
 */
export function dropIfLast(o: object): void {
  if (count > 0 && waiting[2 * count - 2] === o) {
    count--
    waiting[2 * count] = undefined
    waiting[2 * count + 1] = undefined
  }
}
