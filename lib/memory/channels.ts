// The memory channels themselves, apart from events.ts: the message types there name Memory and
// MemoryPointer, and memory.ts publishes on these, so memory.ts imports only this file.
import diagnosticsChannel from 'node:diagnostics_channel'

/** The memory channels: `cuda-node:memory:alloc`, `:free`, `:oom-retry`, `:release`, `:grow`, `:alloc-failed`. */
export const memoryChannels: {
  /** `cuda-node:memory:alloc`: `AllocMessage` (events.ts). */
  readonly alloc: diagnosticsChannel.Channel
  /** `cuda-node:memory:free`: `FreeMessage` (events.ts). */
  readonly free: diagnosticsChannel.Channel
  /** `cuda-node:memory:oom-retry`: `OomRetryMessage` (events.ts). */
  readonly oomRetry: diagnosticsChannel.Channel
  /** `cuda-node:memory:release`: `ReleaseMessage` (events.ts). */
  readonly release: diagnosticsChannel.Channel
  /** `cuda-node:memory:grow`: `GrowMessage` (events.ts). */
  readonly grow: diagnosticsChannel.Channel
  /** `cuda-node:memory:alloc-failed`: `AllocFailedMessage` (events.ts). */
  readonly allocFailed: diagnosticsChannel.Channel
} = {
  alloc: diagnosticsChannel.channel('cuda-node:memory:alloc'),
  free: diagnosticsChannel.channel('cuda-node:memory:free'),
  oomRetry: diagnosticsChannel.channel('cuda-node:memory:oom-retry'),
  release: diagnosticsChannel.channel('cuda-node:memory:release'),
  grow: diagnosticsChannel.channel('cuda-node:memory:grow'),
  allocFailed: diagnosticsChannel.channel('cuda-node:memory:alloc-failed'),
}

/**
 * @internal The memory history's hooks (history.ts), set while it records: the allocators call
 * them directly, which costs a few stores where a channel message and its subscriber cost an
 * object, a publish and the reads each listener makes. Off, the hot paths read one property.
 */
export interface HistoryTap {
  /** An allocation of device memory (`mem` a Memory) of `nbytes` asked, from `source`, made on `device`, by `pool` (its native handle `nativePool`, or -1), with the `stack` `capture` took. */
  alloc(mem: object, nbytes: number, source: string, pool: object | undefined, device: number, nativePool: number, stack: object | undefined): void
  /**
   * A caching pool's allocation (`source` 'pool'), the hot one: as `alloc`, with the Memory's
   * handle in place of the Memory, and the native handle of the stream it was made for (`stream`),
   * which names the current stream without reading the async context again.
   */
  poolAlloc(handle: number, nbytes: number, pool: object, device: number, nativePool: number, stream: number, stack: object | undefined): void
  /** An allocation of pinned host memory (`mem` a PinnedMemory) of `nbytes` asked, by `pool`, with the `stack` `capture` took: registered memory (where external buffers are refused). */
  pinnedAlloc(mem: object, nbytes: number, pool: object, stack: object | undefined): void
  /** A pinned pool's block (of handle `handle`) of `nbytes` asked, by `pool` (its native handle `nativePool`), with the `stack` `capture` took. */
  pinnedPoolAlloc(handle: number, nbytes: number, pool: object, nativePool: number, stack: object | undefined): void
  /**
   * While stacks are recorded: the stack of the allocation of `source` being made, captured by the
   * allocator's own call before `alloc` (V8 summarizes each frame on the stack to capture it, and
   * `alloc`'s is a large one).
   */
  capture: ((source: string) => object) | undefined
  /** `mem` (a Memory, or a PinnedMemory when `pinned`), of handle `handle`, is about to be freed. */
  free(mem: object, handle: number, pinned: boolean): void
  /** The block `free` was told of is freed now (the addon wrote the clock of it). */
  freed(pinned: boolean): void
}

/** @internal The history's hooks while it records (see {@link HistoryTap}). */
export const historyTap: { on: HistoryTap | undefined } = { on: undefined }
