// CuPy's PinnedMemoryPointer: a place in pinned host memory, an allocation and a byte offset.
import { count, describe } from '../validate'
import { PinnedMemory } from './pinned'

/**
 * A pointer into pinned host memory (CuPy's `PinnedMemoryPointer`): a {@link PinnedMemory} and a
 * byte offset, which keeps the memory alive. `view()` is a Uint8Array over its pinned bytes, which
 * copies take the pinned (truly asynchronous) way; `set` and `get` work where views are refused.
 */
export class PinnedMemoryPointer {
  /** The allocation this points into (CuPy's `mem`). */
  readonly mem: PinnedMemory
  /** Bytes from the start of the allocation. */
  readonly byteOffset: number

  /** @throws {TypeError} unless `mem` is a PinnedMemory; {RangeError} for an offset past its end. */
  constructor(mem: PinnedMemory, byteOffset = 0) {
    if (!(mem instanceof PinnedMemory)) throw new TypeError(`PinnedMemoryPointer needs a PinnedMemory, got ${describe(mem)}`)
    count('offset', byteOffset)
    if (byteOffset > mem.size) throw new RangeError(`offset ${byteOffset} is past the end of the ${mem.size}-byte allocation`)
    this.mem = mem
    this.byteOffset = byteOffset
  }

  /** The host address (CuPy's `ptr`). @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` once the memory is freed. */
  get ptr(): bigint {
    return this.mem.ptr + BigInt(this.byteOffset)
  }

  /** Bytes from here to the end of the allocation. */
  get size(): number {
    return this.mem.size - this.byteOffset
  }

  /** A pointer `n` bytes further on (CuPy's `ptr + n`). @throws {RangeError} past the end. */
  offset(n: number): PinnedMemoryPointer {
    return new PinnedMemoryPointer(this.mem, this.byteOffset + count('offset', n))
  }

  /**
   * A Uint8Array over the pinned bytes from here, `length` of them (all by default): CuPy's buffer
   * protocol. @throws {RangeError} past the end; {CudaError} as `PinnedMemory.buffer` throws
   * (`CUDA_ERROR_NOT_SUPPORTED` where external buffers are refused, `CUDA_ERROR_INVALID_VALUE` once freed).
   */
  view(length?: number): Uint8Array {
    const n = length === undefined ? this.size : count('length', length)
    if (n > this.size) throw new RangeError(`${n} bytes from offset ${this.byteOffset} run past the end of the ${this.mem.size}-byte allocation`)
    return new Uint8Array(this.mem.buffer, this.byteOffset, n)
  }

  /** Copies `src` here, `offset` bytes further on. @throws {RangeError} past the end. */
  set(src: ArrayBufferView | ArrayBuffer, offset = 0): void {
    this.mem.set(src, this.byteOffset + count('offset', offset))
  }

  /** Copies from here, `offset` bytes further on, into `dst`. @throws {RangeError} past the end. */
  get(dst: ArrayBufferView | ArrayBuffer, offset = 0): void {
    this.mem.get(dst, this.byteOffset + count('offset', offset))
  }
}
