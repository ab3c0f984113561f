/**
 * cuda-node: CUDA's runtime layer for Node.js, after CuPy's `cupy.cuda`.
 * @packageDocumentation
 */
export { backend, type BackendInfo } from './lib/backend'
export { CudaError } from './lib/errors'
export { Device, type MemInfo } from './lib/device'
export { Stream, ExternalStream, getCurrentStream, type StreamOptions, type CaptureMode } from './lib/stream'
export { Graph } from './lib/graph'
export { Event, getElapsedTime, type EventOptions } from './lib/event'
export {
  Memory, MemoryPointer, MemoryPool, AsyncMemoryPool, PinnedMemory, PinnedMemoryPool, alloc, allocPinned, mallocPlain,
  getDefaultMemoryPool, getDefaultPinnedMemoryPool, setAllocator, usingAllocator,
  type HostBuffer, type Allocator,
} from './lib/memory'
export { kernels, type DType } from './lib/kernels'
export {
  RawKernel, RawModule, Scalar, f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, cacheDir, kernelCacheStats,
  type KernelArg, type Dim3, type Simulate, type ModuleSource, type RawKernelOptions, type LaunchOptions, type ScalarType,
  type FunctionAttributes, type KernelCacheStats,
} from './lib/kernel'
export { pendingCallbacks, graphCallbacks } from './lib/callbacks'
export { nvtx } from './lib/nvtx'
export { blas, type GemmOptions, type AxpyOptions } from './lib/blas'
export { profiler } from './lib/profiler'
export type { TraceSlice, TraceResult } from './lib/trace'
