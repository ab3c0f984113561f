import { constants, native } from '../native'
import { scope } from '../context'
import { CudaError } from '../errors'
import { own } from '../object'
import type { Stream } from '../stream/stream'
import { currentStreamHandle, streamHandle } from '../stream/handle'
import { count, describe, func, options as checkOptions } from '../validate'
import { historyTap } from './channels'
import { memoryChannels, poolWatched, publishAllocMessage, publishFailed, publishPoolChange } from './events'
import { PerDevice } from './per-device'
import { adoptPointer, MemoryPointer } from './pointer'

/** A function that allocates device memory: what `setAllocator` and `new MemoryPool(allocator)` take. */
export type Allocator = (nbytes: number) => MemoryPointer

/** What {@link MemoryPool.stats} reports, on the current device. */
export interface PoolStats {
  /** Bytes handed out and not yet freed. */
  usedBytes: number
  /** Bytes the pool holds from its allocator (used + cached). */
  totalBytes: number
  /** The most `usedBytes` has been since the pool was made or `resetPeakStats()`. */
  peakUsedBytes: number
  /** The most `totalBytes` has been since then. */
  peakTotalBytes: number
  /** Cached free blocks. */
  nFreeBlocks: number
  /** Allocations that ran out of memory, released the cache and were tried again. */
  oomRetries: number
  /** Bytes given back to the allocator (the driver by default) so far. */
  releasedBytes: number
  /** Allocations held from the allocator (classic), or expandable segments with memory mapped. */
  segments: number
  /** Bytes of device memory held mapped: every byte the pool holds (`totalBytes`). */
  mappedBytes: number
}

/** A block of a {@link PoolSegment}. */
export interface PoolBlock {
  /** Its device address. */
  address: bigint
  /** Its bytes. */
  size: number
  /** Handed out (true), or cached free. */
  inUse: boolean
  /** The `CUstream` whose arena it is in (0n: the legacy default stream, 2n: the per-thread one). */
  stream: bigint
}

/** A segment as {@link MemoryPool.segments} reports it. */
export interface PoolSegment {
  /** Its first byte's device address. */
  address: bigint
  /** Its bytes: the blocks' sum. */
  size: number
  /** The `CUstream` whose arena its first block is in. */
  stream: bigint
  /** An expandable segment's mapped range (it grows in place). */
  expandable: boolean
  /** Its blocks in address order, covering it. */
  blocks: PoolBlock[]
}

/** What `new MemoryPool(options)` takes. */
export interface MemoryPoolOptions {
  /** Where the pool grows from (CuPy's `MemoryPool(allocator)`); the driver by default. */
  allocator?: Allocator | null
  /**
   * Grow in place (PyTorch's expandable segments): each stream's blocks live in one address
   * range reserved once, and a request no free block fits maps more memory at its end;
   * `freeAllBlocks()` and the limit unmap free tails. Not with an allocator. By default, as
   * `CUDA_NODE_ALLOC_CONF=expandable_segments:true` says (pools without an allocator).
   */
  expandable?: boolean
}

/** @internal Bytes of a `{ size }` or `{ fraction }` limit, checked as CuPy's `set_limit` checks it. */
export function limitBytes(limit: { size?: number; fraction?: number }): number {
  checkOptions('setLimit', limit, ['size', 'fraction'])
  const { size: bytes, fraction } = limit
  if (bytes !== undefined && fraction !== undefined) throw new TypeError('setLimit takes { size } or { fraction }, not both')
  if (bytes !== undefined) return count('size', bytes)
  if (fraction === undefined) return 0
  if (typeof fraction !== 'number') throw new TypeError(`fraction must be a number, got ${describe(fraction)}`)
  return native.poolFractionLimit(scope().device, fraction)
}

function poolOptions(o: unknown): MemoryPoolOptions {
  if (typeof o !== 'object' || o === null) throw new TypeError(`a MemoryPool takes an allocator or { allocator, expandable }, got ${describe(o)}`)
  const { allocator, expandable } = o as MemoryPoolOptions
  if (expandable !== undefined && typeof expandable !== 'boolean') throw new TypeError(`expandable must be a boolean, got ${describe(expandable)}`)
  return { allocator, expandable }
}

// What the native pool reads back from a base allocator out of memory (the addon's), so that it
// releases its cache and asks once more.
const { outOfMemory: OUT_OF_MEMORY } = constants.allocator

/**
 * The function the native pool calls to grow: the allocator's block, or out of memory. Anything
 * else it throws fails the allocation, and the native call throws it back as it was.
 */
function source(allocator: Allocator): (nbytes: number) => number {
  return (nbytes) => {
    try {
      const p = allocator(nbytes)
      if (!(p instanceof MemoryPointer)) throw new TypeError(`the allocator must return a MemoryPointer, got ${describe(p)}`)
      if (p.byteOffset !== 0) throw new TypeError('the allocator must return a pointer to the start of its memory (byteOffset 0)')
      return own(p.mem)
    } catch (e) {
      if (e instanceof CudaError && e.code === 'CUDA_ERROR_OUT_OF_MEMORY') return OUT_OF_MEMORY
      throw e
    }
  }
}

/**
 * The caching device memory pool (CuPy's `MemoryPool`): sizes round up to 512 bytes; freed
 * blocks are kept per stream and reused there with no driver call; a block freed on one stream
 * is reused on another only once the first has passed the free. It grows with `cudaMalloc`, or
 * from `allocator` where given (CuPy's `MemoryPool(allocator)`: `new MemoryPool(mallocManaged)`
 * pools managed memory); the pointer the allocator returns belongs to the pool from then on (it
 * reads as freed), and goes back to the allocator when the pool releases it. `CUDA_NODE_GPU_MEMORY_LIMIT` (bytes, or a percentage such as `'50%'`,
 * as CuPy's `CUPY_GPU_MEMORY_LIMIT`) sets the limit of every pool when it is first used on a device.
 * @throws {TypeError} for an allocator that is not a function.
 */
export class MemoryPool {
  /** The native pool of each device this pool is used on, owned by this object. */
  readonly #pools = new PerDevice((d) => native.poolCreate(this, d, this.#expandable))
  readonly #source: ((nbytes: number) => number) | undefined
  readonly #expandable: boolean | undefined

  /**
   * `new MemoryPool()`, `new MemoryPool(allocator)` or `new MemoryPool({ allocator, expandable })`.
   * @throws {TypeError} for an allocator that is not a function, `expandable` not a boolean, or both an allocator and `expandable: true`.
   */
  constructor(options?: Allocator | MemoryPoolOptions | null) {
    const { allocator, expandable } = typeof options === 'function' || options === null || options === undefined ? { allocator: options } : poolOptions(options)
    if (allocator !== undefined && allocator !== null) {
      if (expandable === true) throw new TypeError('an expandable pool grows from the driver: it takes no allocator')
      this.#source = source(func('allocator', allocator) as Allocator)
      this.#expandable = false
    } else {
      this.#expandable = expandable
    }
  }

  /** Whether the pool grows its segments in place (on the current device). */
  get expandable(): boolean {
    return native.poolExpandable(this.#pools.get())
  }

  /**
   * A block of at least `nbytes` on the current device, for work on the current stream.
   * @throws {CudaError} `CUDA_ERROR_OUT_OF_MEMORY` (after freeing cached blocks and retrying),
   *   saying how much was asked, used and held; what the base allocator threw, as it threw it.
   */
  malloc(nbytes: number): MemoryPointer {
    const sc = scope()
    const device = sc.device
    const pool = this.#pools.get(device)
    const stream = currentStreamHandle(device, sc)
    if (poolWatched()) return this.#watched(pool, nbytes, stream, device)
    let h: number
    let p: MemoryPointer
    try {
      h = this.#take(pool, nbytes, stream)
      p = adoptPointer(h, device)
    } catch (e) {
      publishFailed(e, device, nbytes, 'pool', this)
      throw e
    }
    this.#told(h, p, nbytes, device, pool, stream)
    return p
  }

  /** An allocation that tells the retry and release channels what happened inside it. */
  #watched(pool: number, nbytes: number, stream: number, device: number): MemoryPointer {
    const before = native.poolStats(pool)
    let done = false
    let h: number
    let p: MemoryPointer
    try {
      h = this.#take(pool, nbytes, stream)
      p = adoptPointer(h, device)
      done = true
    } catch (e) {
      publishFailed(e, device, nbytes, 'pool', this)
      throw e
    } finally {
      publishPoolChange(this, device, nbytes, before, native.poolStats(pool), done)
    }
    // Published after the pool's growth, so a listener sees the segment before the block in it.
    this.#told(h, p, nbytes, device, pool, stream)
    return p
  }

  /** A block from the pool (which grows from the driver, or from the base allocator): its handle. */
  #take(pool: number, nbytes: number, stream: number): number {
    return this.#source === undefined ? native.poolMalloc(pool, nbytes, stream) : native.poolMallocFrom(pool, nbytes, stream, this.#source)
  }

  /** Tells the history and the alloc channel of the block `p` (handle `h`) just made. */
  #told(h: number, p: MemoryPointer, nbytes: number, device: number, pool: number, stream: number): void {
    const tap = historyTap.on
    if (tap !== undefined) tap.poolAlloc(h, nbytes, this, device, pool, stream, tap.capture?.('pool'))
    if (memoryChannels.alloc.hasSubscribers) publishAllocMessage(p, nbytes, 'pool', this)
  }

  /** Releases cached blocks to the driver (or the base allocator): all, or those of `stream`. Split blocks wait to re-merge. */
  freeAllBlocks(stream?: Stream): void {
    const s = stream === undefined ? undefined : streamHandle(stream)
    for (const [device, p] of this.#pools.entries()) {
      const bytes = native.poolFreeAllBlocks(p, s)
      if (bytes > 0 && memoryChannels.release.hasSubscribers) memoryChannels.release.publish({ pool: this, device, bytes, reason: 'freeAllBlocks' })
    }
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

  /** The counts, their high-water marks, retries and bytes released, on the current device. */
  stats(): PoolStats {
    return native.poolStats(this.#pools.get())
  }

  /**
   * The segments the pool holds on the current device, as it lays them out (PyTorch's
   * `memory_snapshot()` segments): each allocation it took from the driver or its allocator, or
   * an expandable segment's mapped range, with its blocks in address order, in use and cached
   * free, each with the stream whose arena it is in.
   */
  segments(): PoolSegment[] {
    return this.#segmentsOf(this.#pools.get())
  }

  /** @internal The segments of each device the pool is used on. */
  segmentsByDevice(): [device: number, segments: PoolSegment[]][] {
    return [...this.#pools.entries()].map(([device, p]) => [device, this.#segmentsOf(p)])
  }

  #segmentsOf(pool: number): PoolSegment[] {
    return native.poolSegments(pool).map((g) => ({
      address: BigInt(g.address),
      size: g.size,
      stream: BigInt(g.stream),
      expandable: g.expandable,
      blocks: g.blocks.map((b) => ({ address: BigInt(b.address), size: b.size, inUse: b.inUse, stream: BigInt(b.stream) })),
    }))
  }

  /** Starts the high-water marks of the current device again from the current counts. */
  resetPeakStats(): void {
    native.poolResetPeakStats(this.#pools.get())
  }

  /**
   * Bounds the bytes the pool holds on the current device: `{ size }` in bytes or `{ fraction }`
   * of the device's memory; 0 (or `{}`) removes the limit.
   * @throws {TypeError} for both or neither kind, {RangeError} for a negative size or a fraction outside [0, 1].
   */
  setLimit(limit: { size?: number; fraction?: number }): void {
    native.poolSetLimit(this.#pools.get(), limitBytes(limit))
  }

  /** The limit in bytes on the current device; 0 when there is none. */
  getLimit(): number {
    return native.poolGetLimit(this.#pools.get())
  }
}
