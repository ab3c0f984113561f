/**
 * cuda-node: CUDA's runtime layer for Node.js, after CuPy's `cupy.cuda`.
 * @packageDocumentation
 */
export { backend, isAvailable, type BackendInfo } from './lib/backend'
export { CudaError } from './lib/errors'
export { Device, type MemInfo, type DeviceLimit } from './lib/device'
export { Stream, type StreamOptions, type CaptureMode } from './lib/stream/stream'
export { ExternalStream } from './lib/stream/external'
export { CUDA_STREAM, type StreamLike, type CudaStreamProtocol } from './lib/stream/handle'
export { getCurrentStream } from './lib/stream/current'
export { Graph } from './lib/graph'
export { Event, getElapsedTime, type EventOptions } from './lib/event'
export { Memory } from './lib/memory/memory'
export {
  MemoryPointer, pointerGetAttributes, type HostBuffer, type ExternalOptions, type CudaArrayInterface, type PointerAttributes, type IpcMemHandle,
} from './lib/memory/pointer'
export { copy2D, copy2DAsync } from './lib/memory/copy2d'
export {
  memoryChannels, type AllocMessage, type AllocSource, type FreeMessage, type OomRetryMessage, type ReleaseMessage, type GrowMessage, type AllocFailedMessage,
} from './lib/memory/events'
export { mallocManaged, ManagedMemoryPool, prefetch, advise, managedView, type ManagedOptions, type MemoryAdvice } from './lib/memory/managed'
export { MemoryPool, type PoolStats, type MemoryPoolOptions, type PoolSegment, type PoolBlock } from './lib/memory/pool'
export { AsyncMemoryPool, type AsyncPoolStats, type AsyncMemoryPoolOptions, type SharedPoolAddress } from './lib/memory/async-pool'
export { PinnedMemory, registerHost } from './lib/memory/pinned'
export { PinnedMemoryPool, type PinnedMemoryPoolOptions } from './lib/memory/pinned-pool'
export { CFunctionAllocator } from './lib/memory/c-allocator'
export {
  alloc, allocPinned, mallocPlain, getDefaultMemoryPool, getDefaultPinnedMemoryPool, setAllocator, getAllocator, usingAllocator, type Allocator,
  setPinnedMemoryAllocator, mallocPinnedPlain, type PinnedAllocator,
} from './lib/memory/allocator'
export { kernels } from './lib/kernel/builtins'
export { type DType } from './lib/kernel/dtype'
export { Scalar, f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, type ScalarType } from './lib/kernel/scalar'
export { RawModule, type ModuleSource } from './lib/kernel/module'
export type { ModuleLike } from './lib/kernel/image'
export { Program, type ProgramOptions, type CompileOptions, type ProgramOutput, type CompileTarget } from './lib/kernel/program'
export { Linker, type LinkInput, type LinkInputKind, type LinkBytes, type LinkerOptions, type LinkOutput } from './lib/kernel/linker'
export { LaunchConfig, type LaunchConfigOptions } from './lib/kernel/launch-config'
export {
  RawKernel, type Simulate, type RawKernelOptions, type LaunchOptions, type LinearLaunchOptions, type FunctionAttributes,
  type SettableAttribute, type CacheConfig, type SuggestedBlockSize,
} from './lib/kernel/raw-kernel'
export { type KernelArg, type Dim3 } from './lib/kernel/launch'
export { cacheDir, kernelCacheStats, type KernelCacheStats } from './lib/kernel/cache'
export { pendingCallbacks, graphCallbacks } from './lib/callbacks'
export { nvtx } from './lib/nvtx'
export { blas, type GemmOptions, type AxpyOptions } from './lib/blas'
export { curand, CurandGenerator, type GeneratorKind, type GeneratorOptions, type GenerateOptions, type PhiloxWordsOptions, type HostGenerateOptions } from './lib/random'
export { nccl, NcclCommunicator, type NcclDType, type NcclOp } from './lib/nccl'
export { profiler } from './lib/profiler'
export type { TraceSlice, TraceResult, MemoryCounter } from './lib/trace'
export { VirtualMemoryResource, type VirtualMemoryOptions, type MemoryAccess } from './lib/memory/virtual'
export { TcpStore, TcpStoreServer, StoreError, type StoreOptions, type StoreServerOptions, type StoreValue, type StoreErrorCode, type CallOptions } from './lib/distributed/store'
export type { NcclConfig, NcclInitOptions, ProcessGroupOptions } from './lib/nccl'
export { GraphBuilder, GraphNode, Condition, type NodeOptions, type SetConditionOptions } from './lib/graph-builder'
export { memory, SNAPSHOT_SCHEMA, SNAPSHOT_VERSION, type HistoryOptions, type HistoryAction, type HistoryEvent, type MemorySnapshot, type SnapshotBlock, type SnapshotFreeBlock, type SnapshotSegment, type SnapshotDevice, type SnapshotOom, type SnapshotHistory } from './lib/memory/history'
export { system, type DeviceTelemetry, type DeviceProcess } from './lib/system'
export { registrationCache, type RegistrationCacheStats } from './lib/memory/host-cache'
export { ChannelFormatDescriptor, type ChannelKind } from './lib/texture/format'
export { CUDAArray, type CUDAArrayOptions, type PitchedPointer, type ArrayCopySide } from './lib/texture/array'
export type { ResourceDescriptor, ArrayResource, LinearResource, Pitch2DResource, TextureDescriptor, AddressMode } from './lib/texture/descriptor'
export { TextureObject, SurfaceObject } from './lib/texture/object'
export type { GemmDtype, BlasDataType, ComputeType, TypedGemmOptions, BatchOptions, StridedBatchedGemmOptions, GemmExOptions } from './lib/blas'
export { driver } from './lib/driver'
export { cufft, FftPlan, FftPlan1d, XtPlanNd, type FftType, type FftDirection, type FftLayout, type FftPlanOptions, type FftExecOptions, type FftDataType, type FftCallback, type FftCallbacks, type XtPlanOptions, type FftData } from './lib/fft'
export { MemoryHook, getMemoryHooks, type AllocHookEvent, type MallocHookEvent, type FreeHookEvent } from './lib/memory/hook'
export { DebugPrintHook, type LineSink } from './lib/memory/hook-debug-print'
export { LineProfileHook, type MemoryFrame } from './lib/memory/hook-line-profile'
export { PinnedMemoryPointer } from './lib/memory/pinned-pointer'
export type { GeneratorOrdering } from './lib/random'
export { deviceGetMemPool, deviceSetMemPool, deviceGetDefaultMemPool } from './lib/memory/device-pool'
export { TextureReference } from './lib/texture/reference'
export { cublas, type Cublas, type CublasSettings, type CublasEntry, type CublasOptions, type CublasResult, type BlasScalar, type BlasComplex, type BlasOperation, type BlasFill, type BlasSide, type BlasDiag, type BlasMathMode, type MathMode, type MathModeOptions } from './lib/blas'
