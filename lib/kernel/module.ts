import { scope } from '../context'
import { bind, ModuleImage, type ModuleLike, type ModuleSource } from './image'
import { lookUp, RawKernel } from './raw-kernel'

export type { ModuleSource }

/**
 * A module of kernels (CuPy's `RawModule`): CUDA C++ compiled with NVRTC on first use for the
 * device's architecture (and cached in memory and on disk), or PTX, or a cubin.
 */
export class RawModule implements ModuleLike {
  readonly #image: ModuleImage

  /** @throws {TypeError} for a malformed source. Compilation waits for first use. */
  constructor(source: ModuleSource) {
    this.#image = new ModuleImage(source)
    bind(this, this.#image)
  }

  /** The mangled name NVRTC gave a name expression (CuPy's `get_lowered_name`). */
  getLoweredName(nameExpression: string, device = scope().device): string {
    return this.#image.lowered(nameExpression, device)
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
