// The one shape every native object has in the TS layer: a class over a handle (a number naming
// the object in the addon's table for this thread), its kind, and its device. The addon owns
// the object and its lifetime (crates/node/src/handles.rs); a class here holds the handle,
// checks arguments and adds the ergonomics.
import { describe } from './validate'
import { dropIfLast, ownLater, type Attach } from './lifetime'

/**
 * The token internal code passes to build an object around a handle the addon made:
 * `new Stream(INTERNAL, ...)`. Exported from this module only, never from the package, so no
 * user can construct one around a handle of their own.
 */
export const INTERNAL: unique symbol = Symbol('cuda-node internal')

/** What a native object is, for argument checks across classes that do not import each other. */
export type Kind = 'Stream' | 'Event' | 'Graph' | 'GraphBuilder' | 'Memory' | 'MemoryPool' | 'AsyncMemoryPool' | 'PinnedMemory' | 'PinnedMemoryPool' | 'RawModule' | 'NcclCommunicator' | 'CurandGenerator'

let read: (o: NativeObject) => number
let kindOf: (o: NativeObject) => Kind
let deviceOf: (o: NativeObject) => number
let letGo: (o: NativeObject) => void
let wasLetGo: (o: NativeObject) => boolean

/** @internal The base of every class over a native handle. */
export abstract class NativeObject {
  readonly #handle: number
  readonly #kind: Kind
  readonly #device: number
  /** Set by `released(o)`: its backstop, not attached yet, need not be (`backstop`). */
  #released = false

  /**
   * `handle` is the addon's handle, or a function making one owned by the object under
   * construction (the addon releases it when the object is collected). What the handle names is
   * valid for as long as the handle is: the addon decides when its native object is made (a
   * Stream's or an Event's at its first use). With `attach`, a handle made with no owner gets
   * this object as its owner at the next macrotask, if both are alive then (`lifetime.ts`).
   */
  constructor(token: typeof INTERNAL, kind: Kind, handle: number | ((owner: object) => number), device: number, attach?: Attach) {
    if (token !== INTERNAL) throw new TypeError(`a ${kind} cannot be made this way`)
    this.#handle = typeof handle === 'number' ? handle : handle(this)
    this.#kind = kind
    this.#device = device
    if (attach !== undefined) ownLater(this, attach)
  }

  static {
    read = (o) => o.#handle
    kindOf = (o) => o.#kind
    deviceOf = (o) => o.#device
    letGo = (o) => {
      o.#released = true
    }
    wasLetGo = (o) => o.#released
  }
}

/** The handle of `o`, which must be a native object of `kind`; a TypeError naming `what` otherwise. */
export function handleOf(o: unknown, kind: Kind, what: string): number {
  if (!(o instanceof NativeObject) || kindOf(o) !== kind) throw new TypeError(`${what} must be a ${kind}, got ${describe(o)}`)
  return read(o)
}

/** The handle of `this` in a class's own methods (no check: the class made it). */
export function own(o: NativeObject): number {
  return read(o)
}

/** The device of a native object (checked as `handleOf` checks). */
export function deviceOfObject(o: unknown, kind: Kind, what: string): number {
  handleOf(o, kind, what)
  return deviceOf(o as NativeObject)
}

/** The device of `this` in a class's own methods. */
export function ownDevice(o: NativeObject): number {
  return deviceOf(o)
}

/**
 * Notes that a class's own `destroy()` released `o` in the addon. Only a hint, never a handle's
 * meaning (the addon alone says what a handle names): the object's GC backstop, if it is still
 * waiting for the next macrotask (`lifetime.ts`), is then not asked for — a stream or an event
 * made and destroyed in one macrotask costs its two native calls and no third.
 */
export function released(o: NativeObject): void {
  letGo(o)
  dropIfLast(o)
}

/**
 * A kind's `attach` (`attach(o, handle)` makes `o` the owner of its handle) for `lifetime.ts`,
 * skipping the objects `released` marked (no native call for them).
 */
export function backstop(attach: (o: object, handle: number) => void): Attach {
  return (o) => {
    if (!wasLetGo(o as NativeObject)) attach(o, read(o as NativeObject))
  }
}
