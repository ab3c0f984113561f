import { native } from '../native'
import { INTERNAL, NativeObject, own } from '../object'
import { count } from '../validate'
import { historyTap } from './channels'
import { bytes } from './host'

/** ArrayBuffers whose bytes are pinned memory: where each lies in its PinnedMemory. */
// Held weakly both ways: a registered buffer's PinnedMemory is still GC'd (and unregistered) when
// dropped, though the buffer lives on.
const pinnedBuffers = new WeakMap<ArrayBufferLike, { pinned: WeakRef<PinnedMemory>; start: number; length: number }>()

/**
 * The PinnedMemory under `view` and the view's offset in it, where the view's bytes are pinned
 * (a typed array over `pinned.buffer`, or over bytes `registerHost` page-locked). A copy from
 * such a view is truly asynchronous, so it must go the pinned way, which keeps the memory alive
 * until the copy has run, rather than the pageable way, which assumes the bytes are staged.
 */
export function pinnedUnder(view: Uint8Array): { pinned: PinnedMemory; offset: number } | undefined {
  const r = pinnedBuffers.get(view.buffer)
  const pinned = r?.pinned.deref()
  if (r === undefined || pinned === undefined || pinned.freed) return undefined
  const offset = view.byteOffset - r.start
  return offset >= 0 && offset + view.byteLength <= r.length ? { pinned, offset } : undefined
}

/**
 * Page-locked host memory (CuPy's `PinnedMemory`): copies from and to it are truly
 * asynchronous. `buffer` is an ArrayBuffer over the pinned bytes themselves.
 */
export class PinnedMemory extends NativeObject {
  readonly #size: number
  #buffer: ArrayBuffer | undefined
  #freed = false
  /** The bytes JS owns, when made by `registerHost` rather than a pool. */
  readonly #registered: Uint8Array | undefined

  /** @internal Made by a {@link PinnedMemoryPool} or {@link registerHost}. */
  constructor(token: typeof INTERNAL, make: (owner: object) => number, nbytes: number, registered?: Uint8Array) {
    super(token, 'PinnedMemory', make, -1)
    this.#size = nbytes
    this.#registered = registered
    if (registered !== undefined) pinnedBuffers.set(registered.buffer, { pinned: new WeakRef(this), start: registered.byteOffset, length: nbytes })
  }

  /** @internal Whether it was freed or unregistered. */
  get freed(): boolean {
    return this.#freed
  }

  /** True for host memory JS owns that `registerHost` page-locked. */
  get registered(): boolean {
    return this.#registered !== undefined
  }

  /** Bytes asked for when it was allocated. */
  get size(): number {
    return this.#size
  }

  /** The host address. @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` once freed. */
  get ptr(): bigint {
    return native.pinnedInfo(own(this)).ptr
  }

  /**
   * An ArrayBuffer over the pinned memory. @throws {CudaError} `CUDA_ERROR_NOT_SUPPORTED` in
   * runtimes that refuse external buffers (Electron): use `set()` and `get()` there;
   * `CUDA_ERROR_INVALID_VALUE` once freed.
   */
  get buffer(): ArrayBuffer {
    if (this.#freed) native.pinnedInfo(own(this)) // throws: the addon says it was freed
    const r = this.#registered
    if (r !== undefined) {
      if (r.byteOffset !== 0 || r.byteLength !== r.buffer.byteLength || !(r.buffer instanceof ArrayBuffer)) {
        throw new TypeError('this registration covers part of an ArrayBuffer: use the view you registered')
      }
      return r.buffer
    }
    if (this.#buffer === undefined) {
      this.#buffer = native.pinnedBuffer(own(this))
      pinnedBuffers.set(this.#buffer, { pinned: new WeakRef(this), start: 0, length: this.#size })
    }
    return this.#buffer
  }

  /** Copies `src` into the pinned memory at `offset` (works where `buffer` is refused). */
  set(src: ArrayBufferView | ArrayBuffer, offset = 0): void {
    native.pinnedWrite(own(this), count('offset', offset), bytes(src, undefined, 'PinnedMemory.set'))
  }

  /** Copies from the pinned memory at `offset` into `dst`. */
  get(dst: ArrayBufferView | ArrayBuffer, offset = 0): void {
    native.pinnedRead(own(this), count('offset', offset), bytes(dst, undefined, 'PinnedMemory.get'))
  }

  /**
   * Gives the memory back to its pool once queued copies are done. `buffer` is detached, so
   * later use of it is a TypeError. Freeing twice is nothing, as in CuPy.
   */
  free(): void {
    if (this.#freed) return
    const tap = historyTap.on
    tap?.free(this, own(this), true)
    this.#freed = true
    if (this.#buffer !== undefined) native.arrayBufferDetach(this.#buffer)
    native.pinnedFree(own(this))
    tap?.freed(true)
  }

  /**
   * Unregisters memory `registerHost` page-locked, now (CuPy's `hostUnregister`); the bytes stay
   * JS's. @throws {CudaError} `CUDA_ERROR_ILLEGAL_STATE` while queued copies still use them
   *   (synchronize first, or `free()`, which unregisters once they are done); {TypeError} for
   *   pinned memory of a pool.
   */
  unregister(): void {
    native.pinnedUnregister(own(this))
    this.#freed = true
  }

  /** Frees the memory, for `using`, as `free()` does. */
  [Symbol.dispose](): void {
    this.free()
  }
}

/**
 * Page-locks host memory JS owns (`cuMemHostRegister`, CuPy's `hostRegister`): the result is
 * `PinnedMemory` over the same bytes, so async copies from and to it run at pinned speed. The
 * bytes are kept alive and registered until `free()` / `unregister()` / GC, and while queued
 * copies use them. Register whole buffers (`Buffer.alloc`, `new ArrayBuffer`), not slices of a
 * pooled `Buffer`: a page can be registered once, and do not transfer or detach the buffer
 * while it is registered.
 * @throws {TypeError} for other kinds of value; {RangeError} for zero bytes; {CudaError}
 *   `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED` for bytes already registered,
 *   `CUDA_ERROR_NOT_SUPPORTED` on the WebAssembly build (it sees copies of JS's bytes).
 */
export function registerHost(src: ArrayBufferView | ArrayBuffer): PinnedMemory {
  const view = bytes(src, undefined, 'registerHost')
  return new PinnedMemory(INTERNAL, (owner) => native.pinnedRegister(owner, view), view.byteLength, view)
}
