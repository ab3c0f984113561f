// Memory events on `node:diagnostics_channel` (CuPy's memory hooks, the Node way). Each
// publisher asks `hasSubscribers` first, so with no subscriber no message is built and no
// count is read: the cost is a property read.
import { historyTap, memoryChannels } from './channels'

export { memoryChannels }

/** Where an allocation came from (`'pinned'`: a PinnedMemoryPool's host memory, in the memory history only). */
export type AllocSource = 'pool' | 'async-pool' | 'plain' | 'managed' | 'pinned'

/** `cuda-node:memory:alloc`: a pointer handed out (published in the allocating call, so a subscriber sees its stack). */
export interface AllocMessage {
  /** The new pointer (read `.ptr` for its address). */
  pointer: import('./pointer').MemoryPointer
  /** Bytes asked for. */
  nbytes: number
  /** Bytes given (pools round up to 512). */
  size: number
  /** The device's ordinal. */
  device: number
  /** Which allocator gave it. */
  source: AllocSource
  /** The MemoryPool or AsyncMemoryPool it came from, for the pool sources. */
  pool?: object
}

/** `cuda-node:memory:free`: memory freed by `free()` or `using` (not by the GC, which calls no JS). */
export interface FreeMessage {
  /** The allocation being freed (read before the free). */
  memory: import('./memory').Memory
  /** Its bytes. */
  size: number
  /** The device's ordinal. */
  device: number
}

/** `cuda-node:memory:oom-retry`: a pool ran out, released what it could (or synchronized) and tried again. */
export interface OomRetryMessage {
  /** The MemoryPool or AsyncMemoryPool that retried. */
  pool: object
  /** The device's ordinal. */
  device: number
  /** Bytes asked for. */
  nbytes: number
  /** Whether the retry gave the memory. */
  succeeded: boolean
}

/** `cuda-node:memory:release`: a pool gave memory back to the driver (or its base allocator). */
export interface ReleaseMessage {
  /** The MemoryPool or AsyncMemoryPool that released memory. */
  pool: object
  /** The device's ordinal. */
  device: number
  /** Bytes given back. */
  bytes: number
  /** `'freeAllBlocks'`, or `'oom-retry'` when an allocation that ran out released the cache. */
  reason: 'freeAllBlocks' | 'oom-retry'
}

/** `cuda-node:memory:grow`: a pool took more memory from the driver (or its base allocator) to serve an allocation. */
export interface GrowMessage {
  /** The MemoryPool or AsyncMemoryPool that grew. */
  pool: object
  /** The device's ordinal. */
  device: number
  /** Bytes it took. */
  bytes: number
}

/** `cuda-node:memory:alloc-failed`: an allocation threw (published before the error reaches the caller, who may add to its message). */
export interface AllocFailedMessage {
  /** The device's ordinal. */
  device: number
  /** Bytes asked for. */
  nbytes: number
  /** Which allocator failed. */
  source: AllocSource
  /** The MemoryPool or AsyncMemoryPool, for the pool sources. */
  pool?: object
  /** What is about to be thrown. */
  error: unknown
}

/** @internal Whether anyone listens for what a pool does inside an allocation. */
export function poolWatched(): boolean {
  return memoryChannels.oomRetry.hasSubscribers || memoryChannels.release.hasSubscribers || memoryChannels.grow.hasSubscribers
}

/** @internal Publishes a failed allocation, if anyone listens; returns nothing: the caller rethrows. */
export function publishFailed(error: unknown, device: number, nbytes: number, source: AllocSource, pool?: object): void {
  if (!memoryChannels.allocFailed.hasSubscribers) return
  const m: AllocFailedMessage = { device, nbytes, source, error }
  if (pool !== undefined) m.pool = pool
  memoryChannels.allocFailed.publish(m)
}

/** @internal Whether an allocation is to be published: the history records, or someone listens. */
export function allocWatched(): boolean {
  return historyTap.on !== undefined || memoryChannels.alloc.hasSubscribers
}

/** @internal Publishes an allocation to the history and the channel (callers check `allocWatched()` first). */
export function publishAlloc(pointer: AllocMessage['pointer'], nbytes: number, source: AllocSource, pool?: object, nativePool = -1): void {
  const tap = historyTap.on
  if (tap !== undefined) tap.alloc(pointer.mem, nbytes, source, pool, pointer.deviceId, nativePool, tap.capture?.(source))
  if (memoryChannels.alloc.hasSubscribers) publishAllocMessage(pointer, nbytes, source, pool)
}

/** @internal Publishes an allocation on the channel alone (the caller told the history). */
export function publishAllocMessage(pointer: AllocMessage['pointer'], nbytes: number, source: AllocSource, pool?: object): void {
  const m: AllocMessage = { pointer, nbytes, size: pointer.size, device: pointer.deviceId, source }
  if (pool !== undefined) m.pool = pool
  memoryChannels.alloc.publish(m)
}

/** The counts of a pool that say what happened inside an allocation. */
interface PoolCounts {
  oomRetries: number
  totalBytes: number
  releasedBytes?: number
}

/** @internal Publishes what a pool's counts say happened during an allocation (a retry, a release). */
export function publishPoolChange(
  pool: object, device: number, nbytes: number, before: PoolCounts, after: PoolCounts, succeeded: boolean,
): void {
  const released = (after.releasedBytes ?? 0) - (before.releasedBytes ?? 0)
  // What it holds now, less what it held and what it gave back in between: what it took.
  const grown = after.totalBytes - before.totalBytes + released
  if (grown > 0 && memoryChannels.grow.hasSubscribers) memoryChannels.grow.publish({ pool, device, bytes: grown } satisfies GrowMessage)
  if (released > 0 && memoryChannels.release.hasSubscribers) {
    memoryChannels.release.publish({ pool, device, bytes: released, reason: 'oom-retry' } satisfies ReleaseMessage)
  }
  if (after.oomRetries > before.oomRetries && memoryChannels.oomRetry.hasSubscribers) {
    memoryChannels.oomRetry.publish({ pool, device, nbytes, succeeded } satisfies OomRetryMessage)
  }
}
