import { native } from '../native'
import { scope } from '../context'
import { Device } from '../device'
import type { Stream } from '../stream/stream'
import { currentStreamHandle, streamHandle } from '../stream/handle'
import { count, describe } from '../validate'
import { PerDevice } from './per-device'
import { adoptPointer, type MemoryPointer } from './pointer'

/**
 * The caching device memory pool (CuPy's `MemoryPool`): sizes round up to 512 bytes; freed
 * blocks are kept per stream and reused there with no driver call; a block freed on one stream
 * is reused on another only once the first has passed the free.
 */
export class MemoryPool {
  /** The native pool of each device this pool is used on, owned by this object. */
  readonly #pools = new PerDevice((d) => native.poolCreate(this, d))

  /**
   * A block of at least `nbytes` on the current device, for work on the current stream.
   * @throws {CudaError} `CUDA_ERROR_OUT_OF_MEMORY` (after freeing cached blocks and retrying),
   *   saying how much was asked, used and held.
   */
  malloc(nbytes: number): MemoryPointer {
    const sc = scope()
    const device = sc.device
    return adoptPointer(native.poolMalloc(this.#pools.get(device), nbytes, currentStreamHandle(device, sc)), device)
  }

  /** Releases cached blocks to the driver: all, or those of `stream`. Split blocks wait to re-merge. */
  freeAllBlocks(stream?: Stream): void {
    const s = stream === undefined ? undefined : streamHandle(stream)
    for (const p of this.#pools.all()) native.poolFreeAllBlocks(p, s)
  }

  /** Cached free blocks on the current device. */
  nFreeBlocks(): number {
    return native.poolNFreeBlocks(this.#pools.get())
  }

  /** Bytes handed out and not yet freed, on the current device. */
  usedBytes(): number {
    return native.poolUsedBytes(this.#pools.get())
  }

  /** Bytes cached for reuse, on the current device. */
  freeBytes(): number {
    return native.poolFreeBytes(this.#pools.get())
  }

  /** Bytes the pool holds from the driver (used + free), on the current device. */
  totalBytes(): number {
    return native.poolTotalBytes(this.#pools.get())
  }

  /**
   * Bounds the bytes the pool holds on the current device: `{ size }` in bytes or `{ fraction }`
   * of the device's memory; 0 (or `{}`) removes the limit.
   * @throws {TypeError} for both or neither kind, {RangeError} for a negative size or a fraction outside [0, 1].
   */
  setLimit(limit: { size?: number; fraction?: number }): void {
    if (typeof limit !== 'object' || limit === null) throw new TypeError('setLimit takes { size } or { fraction }')
    const { size: bytes, fraction } = limit
    if (bytes !== undefined && fraction !== undefined) throw new TypeError('setLimit takes { size } or { fraction }, not both')
    let n = 0
    if (bytes !== undefined) n = count('size', bytes)
    else if (fraction !== undefined) {
      if (typeof fraction !== 'number') throw new TypeError(`fraction must be a number, got ${describe(fraction)}`)
      if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`fraction must lie in [0, 1], got ${fraction}`)
      n = Math.floor(new Device().totalMemory * fraction)
    }
    native.poolSetLimit(this.#pools.get(), n)
  }

  /** The limit in bytes on the current device; 0 when there is none. */
  getLimit(): number {
    return native.poolGetLimit(this.#pools.get())
  }
}
