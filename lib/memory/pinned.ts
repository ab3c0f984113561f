import { native } from '../native'
import { INTERNAL, NativeObject, own } from '../object'
import { count } from '../validate'
import { bytes } from './host'

/**
 * Page-locked host memory (CuPy's `PinnedMemory`): copies from and to it are truly
 * asynchronous. `buffer` is an ArrayBuffer over the pinned bytes themselves.
 */
export class PinnedMemory extends NativeObject {
  readonly #size: number
  #buffer: ArrayBuffer | undefined
  #freed = false

  /** @internal Made by a {@link PinnedMemoryPool}. */
  constructor(token: typeof INTERNAL, make: (owner: object) => number, nbytes: number) {
    super(token, 'PinnedMemory', make, -1)
    this.#size = nbytes
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
    return (this.#buffer ??= native.pinnedBuffer(own(this)))
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
    this.#freed = true
    if (this.#buffer !== undefined) native.arrayBufferDetach(this.#buffer)
    native.pinnedFree(own(this))
  }

  /** Frees the memory, for `using`, as `free()` does. */
  [Symbol.dispose](): void {
    this.free()
  }
}
