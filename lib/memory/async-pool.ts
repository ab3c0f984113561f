import { native } from '../native'
import { scope } from '../context'
import { currentStreamHandle } from '../stream/handle'
import { allocWatched, memoryChannels, poolWatched, publishAlloc, publishFailed, publishPoolChange } from './events'
import { PerDevice } from './per-device'
import { adoptPointer, type MemoryPointer } from './pointer'
import { limitBytes } from './pool'

/** What {@link AsyncMemoryPool.stats} reports: the device's stream-ordered pool, as the driver counts it. */
export interface AsyncPoolStats {
  /** Bytes in use (`CU_MEMPOOL_ATTR_USED_MEM_CURRENT`). */
  usedBytes: number
  /** Bytes reserved from the device (`CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT`). */
  totalBytes: number
  /** The most `usedBytes` has been since the last reset (`CU_MEMPOOL_ATTR_USED_MEM_HIGH`). */
  peakUsedBytes: number
  /** The most `totalBytes` has been since then (`CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH`). */
  peakTotalBytes: number
  /** Allocations of this object that ran out of memory, synchronized the stream and were tried again. */
  oomRetries: number
}

/**
 * CUDA's stream-ordered allocator (CuPy's `MemoryAsyncPool`): `cudaMallocAsync` on the current
 * stream; a block is freed on that same stream, in stream order, when freed or collected. It
 * uses each device's pool, which every AsyncMemoryPool of the process shares, and, as CuPy
 * does, sets that pool's release threshold when first used on a device: to
 * `CUDA_NODE_GPU_MEMORY_LIMIT` when set, else to keep everything it holds.
 */
export class AsyncMemoryPool {
  /** The native pool of each device this pool is used on, owned by this object. */
  readonly #pools = new PerDevice((d) => native.asyncPoolCreate(this, d))

  /**
   * `nbytes`, rounded up to 512 as CuPy rounds, on the current device, allocated in order on the current stream.
   * @throws {CudaError} `CUDA_ERROR_OUT_OF_MEMORY` when growing the pool would pass its limit,
   *   or when the device is out of memory after synchronizing the stream twice (as CuPy retries).
   */
  malloc(nbytes: number): MemoryPointer {
    const sc = scope()
    const device = sc.device
    const pool = this.#pools.get(device)
    const stream = currentStreamHandle(device, sc)
    if (!poolWatched()) {
      let p: MemoryPointer
      try {
        p = adoptPointer(native.asyncPoolMalloc(pool, nbytes, stream), device)
      } catch (e) {
        publishFailed(e, device, nbytes, 'async-pool', this)
        throw e
      }
      if (allocWatched()) publishAlloc(p, nbytes, 'async-pool', this, pool)
      return p
    }
    const before = native.asyncPoolStats(pool)
    let done = false
    let p: MemoryPointer
    try {
      p = adoptPointer(native.asyncPoolMalloc(pool, nbytes, stream), device)
      done = true
    } catch (e) {
      publishFailed(e, device, nbytes, 'async-pool', this)
      throw e
    } finally {
      publishPoolChange(this, device, nbytes, before, native.asyncPoolStats(pool), done)
    }
    // Published after the pool's growth, so a listener sees the segment before the block in it.
    if (allocWatched()) publishAlloc(p, nbytes, 'async-pool', this, pool)
    return p
  }

  /** Bytes in use on the current device. */
  usedBytes(): number {
    return native.asyncPoolUsedBytes(this.#pools.get())
  }

  /** Bytes the pool has reserved on the current device. */
  totalBytes(): number {
    return native.asyncPoolTotalBytes(this.#pools.get())
  }

  /** Reserved bytes on the current device that no allocation uses (`totalBytes() - usedBytes()`). */
  freeBytes(): number {
    return native.asyncPoolFreeBytes(this.#pools.get())
  }

  /** Waits for the device, then releases reserved memory no block uses. */
  freeAllBlocks(): void {
    for (const [device, p] of this.#pools.entries()) {
      if (!memoryChannels.release.hasSubscribers) {
        native.asyncPoolFreeAllBlocks(p)
        continue
      }
      const before = native.asyncPoolTotalBytes(p)
      native.asyncPoolFreeAllBlocks(p)
      const bytes = before - native.asyncPoolTotalBytes(p)
      if (bytes > 0) memoryChannels.release.publish({ pool: this, device, bytes, reason: 'freeAllBlocks' })
    }
  }

  /**
   * Limits the pool of the current device (CuPy's `MemoryAsyncPool.set_limit`): `{ size }` in
   * bytes or `{ fraction }` of the device's memory; 0 (or `{}`) removes the limit. It is the
   * pool's release threshold (`CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`): memory held past it goes back
   * to the device at the next synchronization, and an allocation that would grow the pool past
   * it is refused. A soft limit: other users of the device's pool are not bound by it.
   * @throws {TypeError} for both kinds, {RangeError} for a negative size or a fraction outside [0, 1].
   */
  setLimit(limit: { size?: number; fraction?: number }): void {
    native.asyncPoolSetLimit(this.#pools.get(), limitBytes(limit))
  }

  /** The limit in bytes on the current device; 0 when there is none. */
  getLimit(): number {
    return native.asyncPoolGetLimit(this.#pools.get())
  }

  /** Used and reserved bytes of the current device's pool, current and high-water. */
  stats(): AsyncPoolStats {
    return native.asyncPoolStats(this.#pools.get())
  }

  /** Starts the high-water marks of the current device's pool again from the current counts. */
  resetPeakStats(): void {
    native.asyncPoolResetPeakStats(this.#pools.get())
  }
}
