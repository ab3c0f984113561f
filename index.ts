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
export { pendingCallbacks, graphCallbacks } from './lib/callbacks'
