import { native } from '../native'
import { scope } from '../context'
import { type Device, deviceOrdinal } from '../device'
import { count, describe, options as checkOptions } from '../validate'
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

/** Options of {@link AsyncMemoryPool}. */
export interface AsyncMemoryPoolOptions {
  /**
   * A pool of its own (`cuMemPoolCreate`, with POSIX file descriptors as its handle type) that
   * other processes of this user import: {@link AsyncMemoryPool.share} serves it,
   * {@link AsyncMemoryPool.connect} imports it. **GPU only**: the simulator throws
   * `CUDA_ERROR_NOT_SUPPORTED`.
   */
  shareable?: boolean
  /** A shareable pool's device (the current one by default); an ordinary pool follows the current device. */
  device?: number | Device
  /**
   * Where a shareable pool's memory lives: `'device'` (the default), or `'host'`: pinned host
   * memory on the device's host NUMA node (`CU_MEM_LOCATION_TYPE_HOST_NUMA`, CUDA 12.2 or later;
   * CUDA shares no pool of plain host memory), reached by the device and the host.
   */
  location?: 'device' | 'host'
}

/** What {@link AsyncMemoryPool.share} gives: the socket another process passes to {@link AsyncMemoryPool.connect}. */
export interface SharedPoolAddress {
  /** A Unix socket in a directory only this user reaches. */
  path: string
}

/** @internal The native handle of `pool` for `device` (a shareable or imported pool's own device's): device-pool.ts. */
export let poolHandle: (pool: AsyncMemoryPool, device: number) => number

/** A pool imported by {@link AsyncMemoryPool.connect}: passed to the constructor under a key no user has. */
const IMPORTED: unique symbol = Symbol('imported pool')
type Imported = { [IMPORTED]: { device: number; path: string } }

/**
 * CUDA's stream-ordered allocator (CuPy's `MemoryAsyncPool`): `cudaMallocAsync` on the current
 * stream; a block is freed on that same stream, in stream order, when freed or collected. It
 * uses each device's pool, which every AsyncMemoryPool of the process shares, and, as CuPy
 * does, sets that pool's release threshold when first used on a device: to
 * `CUDA_NODE_GPU_MEMORY_LIMIT` when set, else to keep everything it holds.
 */
export class AsyncMemoryPool {
  /** The native pool of each device this pool is used on, owned by this object. */
  readonly #pools: PerDevice<number>
  /** A shareable or imported pool's one device. */
  readonly #device: number | undefined

  /**
   * @throws {TypeError} for an unknown option, {CudaError} `CUDA_ERROR_NOT_SUPPORTED` for
   *   `{ shareable: true }` on the simulator.
   */
  constructor(options: AsyncMemoryPoolOptions = {}) {
    const imported = (options as Partial<Imported>)[IMPORTED]
    if (imported !== undefined) {
      const { device, path } = imported
      this.#device = device
      const handle = native.asyncPoolConnect(this, device, path)
      this.#pools = new PerDevice((d) => this.#only(d, handle))
      return
    }
    const { shareable, device, location } = checkOptions<AsyncMemoryPoolOptions>('AsyncMemoryPool', options, ['shareable', 'device', 'location'])
    if (shareable !== undefined && typeof shareable !== 'boolean') throw new TypeError(`shareable must be a boolean, got ${describe(shareable)}`)
    if (location !== undefined && location !== 'device' && location !== 'host') {
      throw new TypeError(`location must be 'device' or 'host', got ${describe(location)}`)
    }
    if (!shareable) {
      if (device !== undefined || location !== undefined) throw new TypeError('device and location are options of a shareable pool ({ shareable: true })')
      this.#device = undefined
      this.#pools = new PerDevice((d) => native.asyncPoolCreate(this, d))
      return
    }
    const d = deviceOrdinal(device)
    this.#device = d
    const handle = native.asyncPoolCreateShareable(this, d, location === 'host')
    this.#pools = new PerDevice((on) => this.#only(on, handle))
  }

  /** A shareable pool's handle, used on `device`, which must be its own. */
  #only(device: number, handle: number): number {
    if (device !== this.#device) {
      throw new RangeError(`this shareable pool is on device ${this.#device}, not the current device ${device}: make device ${this.#device} current`)
    }
    return handle
  }

  /** A shareable or imported pool's handle. */
  #shared(what: string): number {
    if (this.#device === undefined) throw new TypeError(`${what} needs a shareable pool: make it with new AsyncMemoryPool({ shareable: true })`)
    return this.#pools.get(this.#device)
  }

  /**
   * Serves this shareable pool to other processes of this user: a Unix socket in a private
   * directory (mode 0700 under `$XDG_RUNTIME_DIR` or the temporary directory), answered by a
   * thread that checks each peer's user and sends the pool's file descriptor (`SCM_RIGHTS`).
   * Sharing again gives the same path. The socket keeps no event loop alive; {@link unshare}
   * or {@link destroy} closes it. **GPU only.**
   * @throws {TypeError} for a pool that is not shareable, {CudaError} for an imported one.
   */
  async share(): Promise<SharedPoolAddress> {
    return { path: native.asyncPoolShare(this.#shared('share()')) }
  }

  /** Stops serving the pool and removes its socket; what other processes imported stays valid. */
  unshare(): void {
    native.asyncPoolUnshare(this.#shared('unshare()'))
  }

  /**
   * Unshares and lets go of a shareable or imported pool: it is destroyed once the memory
   * allocated from it (or imported into it) is freed. Any later call throws.
   */
  destroy(): void {
    native.asyncPoolDestroy(this.#shared('destroy()'))
  }

  /** Destroys a shareable or imported pool, for `using`, as {@link destroy} does. */
  [Symbol.dispose](): void {
    if (this.#device !== undefined) this.destroy()
  }

  /**
   * The pool another process of this user shares at `path` ({@link share}), imported for the
   * current device (or `device`): it makes no allocations; {@link importPointer} brings in the
   * exporter's. Its imports stay valid after the exporter exits, until freed here. **GPU only.**
   * @throws {CudaError} `CUDA_ERROR_NOT_FOUND` where nothing answers at `path` (its process has
   *   exited, or unshared), `CUDA_ERROR_INVALID_VALUE` where what answers is no pool socket,
   *   `CUDA_ERROR_NOT_PERMITTED` where it belongs to another user.
   */
  static async connect(path: string, options: { device?: number | Device } = {}): Promise<AsyncMemoryPool> {
    if (typeof path !== 'string') throw new TypeError(`connect needs a socket path, got ${describe(path)}`)
    const { device } = checkOptions('AsyncMemoryPool.connect', options, ['device'])
    const imported: Imported = { [IMPORTED]: { device: deviceOrdinal(device), path } }
    const pool = new AsyncMemoryPool(imported as AsyncMemoryPoolOptions)
    const handle = pool.#shared('connect()')
    try {
      // Off the JS thread: the socket may be served by this very event loop.
      await native.asyncPoolJoin(handle)
    } catch (e) {
      native.asyncPoolDestroy(handle)
      throw e
    }
    return pool
  }

  /**
   * Another process's allocation, from what its `exportPointer()` gave, imported into this pool
   * (one {@link connect} returned). CUDA's rule: the exporter must not free it before this
   * process has freed its import (`free()`, which waits for the device).
   * @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` for malformed data, or data from another pool.
   */
  importPointer(data: Uint8Array): MemoryPointer {
    if (!(data instanceof Uint8Array)) throw new TypeError(`importPointer needs the Buffer exportPointer() gave, got ${describe(data)}`)
    const handle = this.#shared('importPointer()')
    return adoptPointer(native.asyncPoolImportPointer(handle, data), this.#device as number)
  }

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

  /**
   * Gives the device back what the pool holds past `bytes` (and past what is in use), without
   * waiting for the device (`cuMemPoolTrimTo`, CuPy's `runtime.memPoolTrimTo`); of the current
   * device's pool, or a shareable pool's. `freeAllBlocks()` waits, then trims to 0.
   * @throws {RangeError} for a negative or fractional size; {CudaError} `CUDA_ERROR_INVALID_VALUE` for an imported pool.
   */
  trimTo(bytes: number): void {
    native.asyncPoolTrimTo(this.#pools.get(this.#device ?? scope().device), count('bytes', bytes))
  }

  static {
    poolHandle = (p, device) => p.#pools.get(p.#device ?? device)
  }
}
