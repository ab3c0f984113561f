// When an object gets its GC backstop. The addon releases what a handle names when the handle's
// JS owner is collected (crates/node/src/handles.rs `own`), but attaching an owner (a Node-API
// finalizer, ~0.4 µs) costs more than making a stream or an event, or than a pool allocation, and
// most made in a hot loop are released before the current macrotask ends. So an object is
// attached only if it is still alive at the next macrotask, and one its class's `destroy()` marked
// released (object.ts `backstop`) is not even asked for: made and destroyed in one macrotask, a
// stream or an event costs its two native calls and no third. This module decides only *when*;
// what is released, and whether anything is left to release, is the addon's.

/** Attaches `o` as the owner of `handle` (the addon does nothing for a handle released since). */
export type Attach = (o: object, handle: number) => void

let owners: object[] = []
let handles: number[] = []
let attaches: Attach[] = []
let scheduled = false

function flush(): void {
  scheduled = false
  attachLive()
}

/** Attaches the waiting objects, and forgets the list. */
function attachLive(): void {
  const [o, h, a] = [owners, handles, attaches]
  owners = []
  handles = []
  attaches = []
  for (let i = 0; i < o.length; i++) a[i](o[i], h[i])
}

/** Past this many waiting objects, they are attached now (the released ones do nothing). */
const COMPACT_AT = 1024

/** Has `attach(o, handle)` called at the next macrotask, unless it is already released then. */
export function ownLater(o: object, handle: number, attach: Attach): void {
  // A long synchronous loop never reaches the next macrotask: without this, every object it
  // made and released would stay reachable from the list until then, and old to the GC. Those
  // waiting are attached before `o` joins them: `o` is still under construction (its class's
  // fields are set once the base constructor returns).
  if (owners.length >= COMPACT_AT) attachLive()
  owners.push(o)
  handles.push(handle)
  attaches.push(attach)
  if (!scheduled) {
    scheduled = true
    setImmediate(flush).unref()
  }
}
