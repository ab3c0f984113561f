// The one shape every native object has in the TS layer: a class over a handle (a number naming
// the object in the addon's table for this thread), its kind, and its device. The addon owns
// the object and its lifetime (crates/node/src/handles.rs); a class here holds the handle,
// checks arguments and adds the ergonomics.
import { describe } from './validate'

/**
 * The token internal code passes to build an object around a handle the addon made:
 * `new Stream(INTERNAL, ...)`. Exported from this module only, never from the package, so no
 * user can construct one around a handle of their own.
 */
export const INTERNAL: unique symbol = Symbol('cuda-node internal')

/** What a native object is, for argument checks across classes that do not import each other. */
export type Kind = 'Stream' | 'Event' | 'Graph' | 'Memory' | 'MemoryPool' | 'AsyncMemoryPool' | 'PinnedMemory' | 'PinnedMemoryPool' | 'RawModule' | 'NcclCommunicator'

let read: (o: NativeObject) => number
let kindOf: (o: NativeObject) => Kind
let deviceOf: (o: NativeObject) => number
let make: (o: NativeObject) => number
let releaseUnmade: (o: NativeObject) => boolean

/**
 * The handle of an object released before its native object was made: past every handle the
 * addon issues (they stay below 2^53), so it names nothing, and every later use throws the
 * addon's own error for a released object.
 */
const RELEASED = 2 ** 53

/** The handle of an object whose native object is deferred and not made yet: past them too. */
const UNMADE = 2 ** 53 + 2

/** @internal The base of every class over a native handle. */
export abstract class NativeObject {
  #handle: number
  /** Makes the handle at the object's first use, where it was deferred; undefined once made. */
  #make: ((owner: object) => number) | undefined
  readonly #kind: Kind
  readonly #device: number

  /**
   * `handle` is the addon's handle, or a function making one owned by the object under
   * construction (the addon releases it when the object is collected). With `deferred`, that
   * function runs at the object's first use instead: an object never used costs no native call
   * and no finalizer (an Event's native event waits for its first record, as PyTorch's does).
   */
  constructor(token: typeof INTERNAL, kind: Kind, handle: number | ((owner: object) => number), device: number, deferred = false) {
    if (token !== INTERNAL) throw new TypeError(`a ${kind} cannot be made this way`)
    if (typeof handle === 'number') {
      this.#handle = handle
    } else if (deferred) {
      this.#handle = UNMADE
      this.#make = handle
    } else {
      this.#handle = handle(this)
    }
    this.#kind = kind
    this.#device = device
  }

  static {
    // One field read on the hot path, as before deferral: the handle says whether it is made.
    read = (o) => {
      const h = o.#handle
      return h !== UNMADE ? h : make(o)
    }
    make = (o) => {
      const h = o.#make!(o)
      o.#handle = h
      o.#make = undefined
      return h
    }
    releaseUnmade = (o) => {
      if (o.#handle !== UNMADE) return false
      o.#handle = RELEASED
      o.#make = undefined
      return true
    }
    kindOf = (o) => o.#kind
    deviceOf = (o) => o.#device
  }
}

/**
 * Releases `o` if its native object was deferred and never made (true): nothing native exists,
 * and later uses throw as for any released object. False where there is a native object to
 * release (the caller releases it).
 */
export function releaseIfUnmade(o: NativeObject): boolean {
  return releaseUnmade(o)
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
