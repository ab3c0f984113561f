import { compiledKernels } from '../backend'
import { scope } from '../context'
import { Device } from '../device'
import { CudaError } from '../errors'
import { native } from '../native'
import type { NativeObject } from '../object'
import type { Stream } from '../stream/stream'
import { streamDevice, streamHandle, currentStreamHandle } from '../stream/handle'
import { getCurrentStream } from '../stream/current'
import { traced } from '../trace'
import { describe, func } from '../validate'
import { imageOf, ModuleImage, type ModuleLike } from './image'
import { dim3, pack, packed, type Dim3, type KernelArg } from './launch'
import { parseSignature, type Param } from './signature'

/** A host implementation the simulator runs in the kernel's place, in stream order. */
export type Simulate = (args: readonly KernelArg[], grid: [number, number, number], block: [number, number, number]) => void

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
 * A kernel's attributes on a device (`cuFuncGetAttribute`; CuPy's `RawKernel.attributes`). On the
 * simulator only the two limits are the device's; the rest are 0.
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
  /** The most dynamic shared memory a launch may ask for (see `setMaxDynamicSharedSize`). */
  maxDynamicSharedSizeBytes: number
}

/** Options for one launch. */
export interface LaunchOptions {
  /** Bytes of dynamic shared memory per block; 0 by default (CuPy's `shared_mem`). */
  sharedMem?: number
  /** The stream to launch on; the current stream by default (CuPy's `stream`). */
  stream?: Stream
}

/**
 * Looks `kernel` (of the module whose image is `image`) up on the current device now, as CuPy's
 * `RawModule.get_function` does: a missing name is a CudaError here, not at the first launch.
 */
export let lookUp: (kernel: RawKernel, image: ModuleImage) => void

/**
 * A kernel (CuPy's `RawKernel`): `new RawKernel(code, name)` compiles on first use; launch it
 * with typed arguments on the current stream or a given one.
 */
export class RawKernel {
  /** The kernel's name, or the name expression it was looked up by (CuPy's `RawKernel.name`). */
  readonly name: string
  readonly #image: ModuleImage
  readonly #simulate: Simulate | undefined
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
    if (typeof options !== 'object' || options === null) throw new TypeError('RawKernel options must be an object')
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
      else if (!image.declares(kernel.name)) throw new CudaError(`the module declares no kernel named ${kernel.name}`, 'CUDA_ERROR_NOT_FOUND')
    }
  }

  #signature(): Param[] | undefined {
    if (this.#params === null) {
      const code = this.#image.code
      this.#params = code === undefined ? undefined : parseSignature(code, this.name)
    }
    return this.#params
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
    if (!compiledKernels()) {
      const a = new Device().attributes
      return { maxThreadsPerBlock: a.maxThreadsPerBlock, sharedSizeBytes: 0, constSizeBytes: 0, localSizeBytes: 0, numRegs: 0, ptxVersion: 0, binaryVersion: 0, maxDynamicSharedSizeBytes: a.maxSharedMemoryPerBlock }
    }
    return native.kernelAttributes(this.#function(scope().device))
  }

  /**
   * Raises (or lowers) the dynamic shared memory the kernel may use on the current device (CuPy's
   * `max_dynamic_shared_size_bytes`); does nothing on the simulator.
   * @throws {RangeError} unless `bytes` is a non-negative integer; {CudaError} past the device's limit.
   */
  setMaxDynamicSharedSize(bytes: number): void {
    if (typeof bytes !== 'number') throw new TypeError(`bytes must be a number, got ${describe(bytes)}`)
    if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError(`bytes must be a non-negative integer, got ${bytes}`)
    if (!compiledKernels()) return
    native.kernelSetMaxDynamicSharedSize(this.#function(scope().device), bytes)
  }

  /**
   * Launches the kernel with `grid` blocks of `block` threads.
   * @throws {TypeError} for arguments that do not match the kernel's parameters (count, pointer
   *   or scalar, width) or a plain number, {RangeError} for sizes past the device's limits, before
   *   anything is launched; {CudaError} from the driver or NVRTC (with its log).
   */
  launch(grid: Dim3, block: Dim3, args: readonly KernelArg[], options: LaunchOptions = {}): void {
    const g = dim3('grid', grid)
    const b = dim3('block', block)
    if (!Array.isArray(args)) throw new TypeError(`args must be an array, got ${describe(args)}`)
    if (typeof options !== 'object' || options === null) throw new TypeError('launch options must be an object')
    const { sharedMem = 0, stream } = options
    if (typeof sharedMem !== 'number' || !Number.isInteger(sharedMem) || sharedMem < 0 || sharedMem > 2 ** 32 - 1) {
      throw new RangeError(`sharedMem must be a non-negative integer, got ${describe(sharedMem)}`)
    }
    const s = stream === undefined ? currentStreamHandle(scope().device) : streamHandle(stream)
    const device = stream === undefined ? scope().device : streamDevice(stream as unknown as NativeObject)
    const params = this.#signature()
    if (params && params.length !== args.length) {
      throw new TypeError(`${this.name} takes ${params.length} arguments (${params.map((p) => p.text).join(', ')}), ${args.length} given`)
    }
    pack(args, this.name, params, g, b, sharedMem)
    const [shape, bytes] = packed()
    if (!compiledKernels()) return this.#simulated(stream ?? getCurrentStream(), device, shape, args, g, b)
    const f = this.#function(device)
    traced(s, () => `${this.name} <<<${g.join('×')}, ${b.join('×')}>>>`, 'kernel', () => native.kernelLaunch(f, s, shape, bytes))
  }

  // The simulator has no compiler: the kernel's host implementation runs in its place, once the
  // stream's earlier work is done, so it sees the memory as the kernel would.
  #simulated(s: Stream, device: number, shape: Uint32Array, args: readonly KernelArg[], grid: [number, number, number], block: [number, number, number]): void {
    native.kernelCheckShape(device, shape)
    if (this.#simulate === undefined) {
      throw new CudaError(
        `the simulator cannot run the compiled kernel ${this.name}: give it a host implementation, new RawKernel(code, name, { simulate(args, grid, block) { ... } })`,
        'CUDA_ERROR_NOT_SUPPORTED',
      )
    }
    if (s.isCapturing()) throw new CudaError(`a simulated kernel (${this.name}) cannot be captured into a graph`, 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED')
    s.synchronize()
    s.run(() => this.#simulate!(args, grid, block))
  }
}

