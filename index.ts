/**
 * cuda-node: CUDA's runtime layer for Node.js, after CuPy's `cupy.cuda`.
 * @packageDocumentation
 */
export { backend, type BackendInfo } from './lib/backend'
export { CudaError } from './lib/errors'
export { Device, type MemInfo } from './lib/device'
export { Stream, type StreamOptions, type CaptureMode } from './lib/stream/stream'
export { ExternalStream } from './lib/stream/external'
export { getCurrentStream } from './lib/stream/current'
export { Graph } from './lib/graph'
export { Event, getElapsedTime, type EventOptions } from './lib/event'
export { Memory } from './lib/memory/memory'
export { MemoryPointer, type HostBuffer } from './lib/memory/pointer'
export { MemoryPool } from './lib/memory/pool'
export { AsyncMemoryPool } from './lib/memory/async-pool'
export { PinnedMemory } from './lib/memory/pinned'
export { PinnedMemoryPool } from './lib/memory/pinned-pool'
export {
  alloc, allocPinned, mallocPlain, getDefaultMemoryPool, getDefaultPinnedMemoryPool, setAllocator, getAllocator, usingAllocator, type Allocator,
} from './lib/memory/allocator'
export { kernels } from './lib/kernel/builtins'
export { type DType } from './lib/kernel/dtype'
export { Scalar, f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, type ScalarType } from './lib/kernel/scalar'
export { RawModule, type ModuleSource } from './lib/kernel/module'
export {
  RawKernel, type Simulate, type RawKernelOptions, type LaunchOptions, type FunctionAttributes,
} from './lib/kernel/raw-kernel'
export { type KernelArg, type Dim3 } from './lib/kernel/launch'
export { cacheDir, kernelCacheStats, type KernelCacheStats } from './lib/kernel/cache'
export { pendingCallbacks, graphCallbacks } from './lib/callbacks'
export { nvtx } from './lib/nvtx'
export { blas, type GemmOptions, type AxpyOptions } from './lib/blas'
export { nccl, NcclCommunicator, type NcclDType, type NcclOp } from './lib/nccl'
export { profiler } from './lib/profiler'
export type { TraceSlice, TraceResult } from './lib/trace'
