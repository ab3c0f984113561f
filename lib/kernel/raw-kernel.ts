import { AsyncLocalStorage } from 'node:async_hooks'
import { compiledKernels } from '../backend'
import { scope } from '../context'
import { native } from '../native'
import type { NativeObject } from '../object'
import { Stream } from '../stream/stream'
import { streamDevice, streamHandle, currentStreamHandle, type CudaStreamProtocol } from '../stream/handle'
import { getCurrentStream, streamOr } from '../stream/current'
import { traced, tracing } from '../trace'
import { describe, func, options as checkOptions } from '../validate'
import { imageOf, ModuleImage, type ModuleLike } from './image'
import { dim3, pack, packed, shapeOf, type Dim3, type KernelArg, type LaunchAttributes } from './launch'
import { LaunchConfig } from './launch-config'
import { parseSignature, type Param } from './signature'

/** A host implementation the simulator runs in the kernel's place, in stream order (for a cooperative or cluster launch too: the same arguments, and the config as the fourth). */
export type Simulate = (args: readonly KernelArg[], grid: [number, number, number], block: [number, number, number], config?: LaunchConfig) => void

/** Options for a {@link RawKernel} made from source. */
export interface RawKernelOptions {
  /** NVRTC options, e.g. `'-std=c++17'` (CuPy's `options`). */
  options?: readonly string[]
  /** C++ names, such as template instantiations, to compile and look the kernel up by (CuPy's `name_expressions`). */
  nameExpressions?: readonly string[]
  /** The host implementation the simulator runs; without one, launching on sim throws. */
  simulate?: Simulate
}

/**
 * A kernel's attributes on a device (`cuFuncGetAttribute`, every one; CuPy's `RawKernel.attributes`).
 * On the simulator only the two limits are the device's; the rest are 0.
 */
export interface FunctionAttributes {
  /** The most threads a block of this kernel can have. */
  maxThreadsPerBlock: number
  /** Bytes of static shared memory per block. */
  sharedSizeBytes: number
  /** Bytes of constant memory. */
  constSizeBytes: number
  /** Bytes of local memory per thread. */
  localSizeBytes: number
  /** Registers per thread. */
  numRegs: number
  /** The PTX virtual architecture it was compiled for, as major · 10 + minor. */
  ptxVersion: number
  /** The binary architecture it was compiled for, as major · 10 + minor. */
  binaryVersion: number
  /** Whether it was compiled with the L1 cache of global memory on (`-Xptxas -dlcm=ca`). */
  cacheModeCa: number
  /** The most dynamic shared memory a launch may ask for (see `setMaxDynamicSharedSize`). */
  maxDynamicSharedSizeBytes: number
  /** The preferred share of on-chip memory for shared memory, in percent (-1: no preference). */
  preferredSharedMemoryCarveout: number
  /** 1 if it must be launched with a cluster (`__cluster_dims__`). */
  clusterSizeMustBeSet: number
  /** Its compile-time cluster dimensions, 0 where none. */
  requiredClusterWidth: number
  /** See `requiredClusterWidth`. */
  requiredClusterHeight: number
  /** See `requiredClusterWidth`. */
  requiredClusterDepth: number
  /** 1 if clusters larger than 8 blocks (non-portable) are allowed. */
  nonPortableClusterSizeAllowed: number
  /** The block scheduling policy preference for its clusters (`CUclusterSchedulingPolicy`). */
  clusterSchedulingPolicyPreference: number
}

/** The attributes {@link RawKernel.setAttribute} sets (`cuFuncSetAttribute`). */
export type SettableAttribute =
  | 'maxDynamicSharedSizeBytes'
  | 'preferredSharedMemoryCarveout'
  | 'requiredClusterWidth'
  | 'requiredClusterHeight'
  | 'requiredClusterDepth'
  | 'nonPortableClusterSizeAllowed'
  | 'clusterSchedulingPolicyPreference'

/** A kernel's preferred L1 / shared memory split (`cuFuncSetCacheConfig`). */
export type CacheConfig = 'preferNone' | 'preferShared' | 'preferL1' | 'preferEqual'

/** What {@link RawKernel.suggestedBlockSize} returns. */
export interface SuggestedBlockSize {
  /** The smallest grid that reaches the most occupancy on every multiprocessor. */
  minGridSize: number
  /** The block size that gives the most occupancy. */
  blockSize: number
}

function nonNegative(name: string, v: unknown, max = 2 ** 32 - 1): number {
  if (typeof v !== 'number') throw new TypeError(`${name} must be a number, got ${describe(v)}`)
  if (!Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`${name} must be an integer from 0 to ${max}, got ${v}`)
  return v
}

function attrsOf(c: LaunchConfig): LaunchAttributes {
  return { cooperative: c.cooperative, programmatic: c.programmaticDependentLaunch, cluster: c.cluster }
}

/** Options for one launch. */
export interface LaunchOptions {
  /** Bytes of dynamic shared memory per block; 0 by default (CuPy's `shared_mem`). */
  sharedMem?: number
  /** The stream to launch on (or an object offering one by the stream protocol); the current stream by default (CuPy's `stream`). */
  stream?: Stream | CudaStreamProtocol
}

/** Options for {@link RawKernel.linearLaunch}. */
export interface LinearLaunchOptions extends LaunchOptions {
  /** The most threads a block has; 128 by default (CuPy's `block_max_size`). */
  blockSize?: number
}

/** A launch's options where none are given: one object, not one per launch. */
const NO_LAUNCH_OPTIONS: LaunchOptions = Object.freeze({})

/**
 * Looks `kernel` (of the module whose image is `image`) up on the current device now, as CuPy's
 * `RawModule.get_function` does: a missing name is a CudaError here, not at the first launch.
 */
export let lookUp: (kernel: RawKernel, image: ModuleImage) => void


/** Per device: the non-blocking stream current while a simulated kernel's host implementation runs. */
const privateStreams = new Map<number, Stream>()
function privateStream(device: number): Stream {
  let s = privateStreams.get(device)
  if (s === undefined) {
    privateStreams.set(device, (s = new Stream({ nonBlocking: true, device })))
    // Its native stream is made now (a query is a use), not at its first use: that is inside the
    // kernel's host implementation, which may run in the middle of a synchronize on this thread.
    void s.done
  }
  return s
}

/**
 * A kernel (CuPy's `RawKernel`): `new RawKernel(code, name)` compiles on first use; launch it
 * with typed arguments on the current stream or a given one.
 */
export class RawKernel {
  /** The kernel's name, or the name expression it was looked up by (CuPy's `RawKernel.name`). */
  readonly name: string
  readonly #image: ModuleImage
  readonly #simulate: Simulate | undefined
  /** The simulator found the kernel's name in its module (checked at the first simulated launch). */
  #declared = false
  /** Per device: the loaded kernel's handle, owned by this object. */
  readonly #functions = new Map<number, number>()
  #params: Param[] | undefined | null = null

  /**
   * @param code CUDA C++ source (compiled on first use) or a module that holds the kernel.
   * @param name the kernel's `extern "C"` name or one of its name expressions.
   * @throws {TypeError} for an empty name or malformed options.
   */
  constructor(code: string | ModuleLike, name: string, options: RawKernelOptions = {}) {
    if (typeof name !== 'string' || name === '') throw new TypeError('a RawKernel needs the kernel name')
    checkOptions<RawKernelOptions>('RawKernel', options, ['options', 'nameExpressions', 'simulate'])
    if (typeof code === 'string') this.#image = new ModuleImage({ code, options: options.options, nameExpressions: options.nameExpressions })
    else {
      const image = imageOf(code)
      if (image === undefined) throw new TypeError(`a RawKernel takes CUDA C++ source or a RawModule, got ${describe(code)}`)
      this.#image = image
    }
    this.#simulate = options.simulate === undefined ? undefined : (func('simulate', options.simulate) as Simulate)
    this.name = name
  }

  static {
    lookUp = (kernel, image) => {
      if (compiledKernels()) kernel.#function(scope().device)
      else {
        image.checkSimulated(scope().device)
        image.checkDeclared(kernel.name)
      }
    }
  }

  #signature(): Param[] | undefined {
    if (this.#params === null) {
      const code = this.#image.code
      this.#params = code === undefined ? undefined : parseSignature(code, this.name)
    }
    return this.#params
  }

  /**
   * The loaded kernel on `device`, or null on the simulator, which loads no code: the native
   * calls then answer for the kernel it simulates on the device (core decides what).
   */
  #kernel(device: number): number | null {
    return compiledKernels() ? this.#function(device) : null
  }

  /** The loaded kernel on `device`, looked up once. */
  #function(device: number): number {
    let f = this.#functions.get(device)
    if (f === undefined) {
      const { module, lowered } = this.#image.load(device)
      const name = lowered.get(this.name) ?? this.name
      f = native.moduleGetFunction(this, module, name)
      this.#functions.set(device, f)
    }
    return f
  }

  /** The kernel's attributes on the current device (numRegs, maxThreadsPerBlock, ...). */
  get attributes(): FunctionAttributes {
    const device = scope().device
    return native.kernelAttributes(this.#kernel(device), device)
  }

  /**
   * Raises (or lowers) the dynamic shared memory the kernel may use on the current device (CuPy's
   * `max_dynamic_shared_size_bytes`); checked, then nothing more, on the simulator.
   * @throws {RangeError} unless `bytes` is a non-negative integer; {CudaError} past the device's limit.
   */
  setMaxDynamicSharedSize(bytes: number): void {
    if (typeof bytes !== 'number') throw new TypeError(`bytes must be a number, got ${describe(bytes)}`)
    if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError(`bytes must be a non-negative integer, got ${bytes}`)
    const device = scope().device
    native.kernelSetMaxDynamicSharedSize(this.#kernel(device), device, bytes)
  }

  /**
   * Sets one of the kernel's settable attributes on the current device (`cuFuncSetAttribute`;
   * cuda.core's `Kernel.attributes` setters). Checked, then nothing more, on the simulator.
   * @throws {TypeError} for an unknown or read-only attribute; {RangeError} for a bad value;
   *   {CudaError} from the driver (a value past the device's limit).
   */
  setAttribute(name: SettableAttribute, value: number): void {
    if (typeof name !== 'string') throw new TypeError(`the attribute's name must be a string, got ${describe(name)}`)
    if (typeof value !== 'number') throw new TypeError(`value must be a number, got ${describe(value)}`)
    native.kernelCheckAttribute(name, value)
    const device = scope().device
    native.kernelSetAttribute(this.#kernel(device), device, name, value)
  }

  /** The kernel's preferred L1 / shared memory split on the current device (`cuFuncSetCacheConfig`); checked, then nothing more, on the simulator. @throws {TypeError} for an unknown preference. */
  setCacheConfig(config: CacheConfig): void {
    if (typeof config !== 'string') throw new TypeError(`cacheConfig must be a string, got ${describe(config)}`)
    native.kernelCheckCacheConfig(config)
    const device = scope().device
    native.kernelSetCacheConfig(this.#kernel(device), device, config)
  }

  /**
   * Blocks of `blockSize` threads using `sharedMem` dynamic bytes that fit on one multiprocessor
   * of the current device at once (`cuOccupancyMaxActiveBlocksPerMultiprocessor`). On the
   * simulator: from the device's limits on threads, blocks and shared memory alone (no registers).
   * @throws {RangeError} for a block past the device's limit.
   */
  maxActiveBlocksPerMultiprocessor(blockSize: number, sharedMem = 0): number {
    const b = nonNegative('blockSize', blockSize)
    const m = nonNegative('sharedMem', sharedMem)
    const device = scope().device
    return native.kernelMaxActiveBlocks(this.#kernel(device), device, b, m)
  }

  /**
   * The block size that gives the most occupancy on the current device, and the smallest grid
   * that reaches it (`cuOccupancyMaxPotentialBlockSize`); `blockSizeLimit` 0 means none. On the
   * simulator: the largest whole-warp block that keeps the most threads busy by the device's limits.
   */
  suggestedBlockSize(sharedMem = 0, blockSizeLimit = 0): SuggestedBlockSize {
    const m = nonNegative('sharedMem', sharedMem)
    const l = nonNegative('blockSizeLimit', blockSizeLimit)
    const device = scope().device
    const [minGridSize, blockSize] = native.kernelSuggestedBlockSize(this.#kernel(device), device, m, l)
    return { minGridSize, blockSize }
  }

  /**
   * The largest cluster `config`'s block and shared memory allow (`cuOccupancyMaxPotentialClusterSize`;
   * compute capability 9.0+). The simulator answers 8, the portable size.
   * @throws {CudaError} `CUDA_ERROR_NOT_SUPPORTED` before Hopper.
   */
  maxPotentialClusterSize(config: LaunchConfig): number {
    if (!(config instanceof LaunchConfig)) throw new TypeError(`maxPotentialClusterSize takes a LaunchConfig, got ${describe(config)}`)
    const device = config.stream === undefined ? scope().device : streamDevice(config.stream as unknown as NativeObject)
    const shape = shapeOf(config.grid, config.block, config.sharedMem, attrsOf(config))
    return native.kernelMaxPotentialClusterSize(this.#kernel(device), device, shape)
  }

  /** Clusters of `config`'s shape that can be resident at once (`cuOccupancyMaxActiveClusters`). GPU only: the simulator throws `CUDA_ERROR_NOT_SUPPORTED`. */
  maxActiveClusters(config: LaunchConfig): number {
    if (!(config instanceof LaunchConfig)) throw new TypeError(`maxActiveClusters takes a LaunchConfig, got ${describe(config)}`)
    if (config.cluster === undefined) throw new TypeError('maxActiveClusters needs a LaunchConfig with cluster dimensions')
    const device = config.stream === undefined ? scope().device : streamDevice(config.stream as unknown as NativeObject)
    const shape = shapeOf(config.grid, config.block, config.sharedMem, attrsOf(config))
    return native.kernelMaxActiveClusters(this.#kernel(device), device, shape)
  }

  /**
   * Launches the kernel with `grid` blocks of `block` threads, or as `config` says (cuda.core's
   * `launch(stream, config, kernel, *args)`): cooperative, with clusters, or with programmatic
   * dependent launch.
   * @throws {TypeError} for arguments that do not match the kernel's parameters (count, pointer
   *   or scalar, width) or a plain number, {RangeError} for sizes past the device's limits (a
   *   cooperative grid that cannot be resident at once, a cluster that does not divide the grid),
   *   before anything is launched; {CudaError} from the driver or NVRTC (with its log).
   */
  launch(config: LaunchConfig, args: readonly KernelArg[]): void
  launch(grid: Dim3, block: Dim3, args: readonly KernelArg[], options?: LaunchOptions): void
  launch(first: Dim3 | LaunchConfig, second: Dim3 | readonly KernelArg[], third?: readonly KernelArg[], fourth: LaunchOptions = NO_LAUNCH_OPTIONS): void {
    let g: [number, number, number], b: [number, number, number], sharedMem: number, stream: Stream | CudaStreamProtocol | undefined, args: readonly KernelArg[]
    let config: LaunchConfig | undefined
    if (first instanceof LaunchConfig) {
      config = first
      ;({ grid: g, block: b, sharedMem, stream } = first)
      args = second as readonly KernelArg[]
    } else {
      g = dim3('grid', first)
      b = dim3('block', second)
      args = third as readonly KernelArg[]
      const options = fourth
      // The hot path: no options object made or walked where none is given.
      if (options !== NO_LAUNCH_OPTIONS) checkOptions<LaunchOptions>('launch', options, ['sharedMem', 'stream'])
      ;({ sharedMem = 0, stream } = options)
      if (typeof sharedMem !== 'number' || !Number.isInteger(sharedMem) || sharedMem < 0 || sharedMem > 2 ** 32 - 1) {
        throw new RangeError(`sharedMem must be a non-negative integer, got ${describe(sharedMem)}`)
      }
    }
    if (!Array.isArray(args)) throw new TypeError(`args must be an array, got ${describe(args)}`)
    // One async-context lookup where no stream is given, none where one is.
    let s: number, device: number
    if (stream === undefined) {
      const sc = scope()
      device = sc.device
      s = currentStreamHandle(device, sc)
    } else {
      if (!(stream instanceof Stream)) stream = streamOr(stream, -1)
      s = streamHandle(stream)
      device = streamDevice(stream as unknown as NativeObject)
    }
    const params = this.#signature()
    if (params && params.length !== args.length) {
      throw new TypeError(`${this.name} takes ${params.length} arguments (${params.map((p) => p.text).join(', ')}), ${args.length} given`)
    }
    pack(args, this.name, params, g, b, sharedMem, config === undefined ? undefined : attrsOf(config))
    const [shape, bytes] = packed()
    if (!compiledKernels()) return this.#simulated((stream as Stream | undefined) ?? getCurrentStream(), s, device, shape, args, g, b, config)
    const f = this.#function(device)
    if (!tracing()) native.kernelLaunch(f, s, shape, bytes)
    else traced(s, () => `${this.name} <<<${g.join('×')}, ${b.join('×')}>>>`, 'kernel', () => native.kernelLaunch(f, s, shape, bytes))
  }

  /**
   * Launches one thread per element of `size` (CuPy's `Function.linear_launch`): blocks of
   * `min(blockSize, size)` threads (`blockSize` 128 by default), `ceil(size / blockSize)` of them
   * (at most 2³¹ − 1), in x. The kernel checks its index against `size`, as CuPy's do. A `size` of
   * 0 launches nothing.
   * @throws {TypeError} / {RangeError} for a `size` or `blockSize` that is not a positive integer
   *   (`size` may be 0), and as {@link launch} throws.
   */
  linearLaunch(size: number, args: readonly KernelArg[], options: LinearLaunchOptions = {}): void {
    if (typeof size !== 'number') throw new TypeError(`size must be a number, got ${describe(size)}`)
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`size must be a non-negative integer, got ${size}`)
    const { blockSize = 128, ...rest } = checkOptions<LinearLaunchOptions>('linearLaunch', options, ['blockSize', 'sharedMem', 'stream'])
    if (typeof blockSize !== 'number') throw new TypeError(`blockSize must be a number, got ${describe(blockSize)}`)
    if (!Number.isInteger(blockSize) || blockSize < 1 || blockSize > 2 ** 31 - 1) throw new RangeError(`blockSize must be a positive integer, got ${blockSize}`)
    if (!Array.isArray(args)) throw new TypeError(`args must be an array, got ${describe(args)}`)
    if (size === 0) return
    const grid = Math.min(2 ** 31 - 1, Math.ceil(size / blockSize))
    this.launch([grid, 1, 1], [Math.min(blockSize, size), 1, 1], args, rest)
  }

  // The simulator has no compiler: the kernel's host implementation runs in its place, in stream
  // order (once the stream's earlier work is done, before its later work), so it sees the memory
  // as the kernel would. The launch only queues it, as on the GPU: it runs on this thread, from
  // the event loop or from a wait that blocks it (crates/node/src/callbacks.rs `launch_simulated`),
  // with a private non-blocking stream current, so its synchronous copies do not wait for the
  // stream that waits for it. Core checks the launch and decides (`module::launch_simulated`):
  // where there are no threads (the WebAssembly build) it synchronizes and says to run it now.
  #simulated(
    s: Stream,
    handle: number,
    device: number,
    shape: Uint32Array,
    args: readonly KernelArg[],
    grid: [number, number, number],
    block: [number, number, number],
    config: LaunchConfig | undefined,
  ): void {
    this.#image.checkSimulated(device)
    // As the GPU's first use looks the name up (cuModuleGetFunction): a name the module does not declare is not found.
    if (!this.#declared) {
      this.#image.checkDeclared(this.name)
      this.#declared = true
    }
    const simulate = this.#simulate
    if (simulate === undefined) {
      native.kernelLaunchSimulated(handle, shape, this.name, null)
      return
    }
    const own = privateStream(device)
    const ctx = AsyncLocalStorage.snapshot()
    const runNow = native.kernelLaunchSimulated(handle, shape, this.name, () => {
      try {
        ctx(() => own.run(() => simulate(args, grid, block, config)))
      } catch (err) {
        // Surface it like a host callback's exception (uncaughtException), never lost.
        process.nextTick(() => {
          throw err
        })
      }
    })
    if (runNow) s.run(() => simulate(args, grid, block, config))
  }
}

