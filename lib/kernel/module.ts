import { compiledKernels } from '../backend'
import { scope } from '../context'
import { deviceOrdinal } from '../device'
import { Memory } from '../memory/memory'
import { MemoryPointer } from '../memory/pointer'
import { native } from '../native'
import { INTERNAL } from '../object'
import { describe } from '../validate'
import { bind, ModuleImage, type ModuleLike, type ModuleSource } from './image'
import { lookUp, RawKernel } from './raw-kernel'

export type { ModuleSource }

/**
 * A module of kernels (CuPy's `RawModule`): CUDA C++ compiled with NVRTC on first use for the
 * device's architecture (and cached in memory and on disk), or PTX, a cubin, a fatbin, LTO-IR
 * (linked with nvJitLink), or a file of one of those.
 */
export class RawModule implements ModuleLike {
  readonly #image: ModuleImage

  /** @throws {TypeError} for a malformed source. Compilation waits for first use. */
  constructor(source: ModuleSource) {
    this.#image = new ModuleImage(source)
    bind(this, this.#image)
  }

  /**
   * A `__device__` or `__constant__` variable of the module on the current device, as a
   * `MemoryPointer` over it (CuPy's `get_global`, `cuModuleGetGlobal`): copies and memset reach
   * it, and it keeps the module loaded; `free()` only lets go of it. A name expression given at
   * construction is looked up by its mangled name. **GPU only**: the simulator loads no modules.
   * @throws {CudaError} `CUDA_ERROR_NOT_FOUND` where the module has no such variable,
   *   `CUDA_ERROR_NOT_SUPPORTED` on the simulator.
   */
  getGlobal(name: string): MemoryPointer {
    if (typeof name !== 'string' || name === '') throw new TypeError('getGlobal takes a variable name')
    const device = scope().device
    let handle: number
    if (compiledKernels()) {
      const { module, lowered } = this.#image.load(device)
      handle = native.moduleGetGlobal(module, lowered.get(name) ?? name)
    } else {
      this.#image.checkSimulated(device)
      handle = native.moduleSimulatedGlobal(name)
    }
    return new MemoryPointer(new Memory(INTERNAL, handle, device))
  }

  /**
   * The mangled name NVRTC gave a name expression (CuPy's `get_lowered_name`).
   * @throws {TypeError} for a name expression that is not a string.
   */
  getLoweredName(nameExpression: string, device = scope().device): string {
    if (typeof nameExpression !== 'string') throw new TypeError(`getLoweredName takes a name expression (a string), got ${describe(nameExpression)}`)
    return this.#image.lowered(nameExpression, deviceOrdinal(device))
  }

  /**
   * The kernel `name` (a name expression given at construction, or an `extern "C"` name), looked
   * up at once on the current device, compiling and loading the module if it is not yet (CuPy's
   * `get_function`).
   * @throws {CudaError} `CUDA_ERROR_NOT_FOUND` where the module has no such kernel; the module
   *   stays usable.
   */
  getFunction(name: string): RawKernel {
    if (typeof name !== 'string' || name === '') throw new TypeError('getFunction takes a kernel name')
    const kernel = new RawKernel(this, name)
    lookUp(kernel, this.#image)
    return kernel
  }
}
