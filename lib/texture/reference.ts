// CuPy's `RawModule.get_texref` and `TextureReference`: a module's texture reference bound to an
// array or memory (the driver's deprecated `cuModuleGetTexRef` and `cuTexRefSet*`).
import { scope } from '../context'
import { imageOf } from '../kernel/image'
import { native } from '../native'
import { describe } from '../validate'
import type { ResourceDescriptor, TextureDescriptor } from './descriptor'
import { textureArgs } from './object'

/**
 * A texture reference (CuPy's `TextureReference` over `RawModule.get_texref(name)`): the
 * reference `name` that `module` declares (`.global .texref name;` in PTX: CUDA C++ dropped
 * `texture<>` in CUDA 12, so NVRTC declares none), loaded on the current device, bound to what
 * `resDesc` names and set to sample as `texDesc` says, as a {@link TextureObject} takes them.
 * Kernels of the module read it by name; binding it again (another TextureReference of the same
 * name) replaces what they read. It keeps the module and what it reads alive until it is
 * destroyed (`destroy()`, `using`, or the GC). Texture references are deprecated by CUDA: prefer
 * texture objects. **GPU only**: the simulator loads no modules.
 * @throws {TypeError} for a module that is not a RawModule, a bad name, or descriptors as
 *   TextureObject throws; {CudaError} `CUDA_ERROR_NOT_FOUND` where the module declares no such
 *   reference, `CUDA_ERROR_NOT_SUPPORTED` on the simulator.
 */
export class TextureReference {
  readonly #handle: number
  /** What it reads. */
  readonly resDesc: ResourceDescriptor
  /** How it samples. */
  readonly texDesc: TextureDescriptor
  /** The reference's name in its module. */
  readonly name: string

  constructor(module: object, name: string, resDesc: ResourceDescriptor, texDesc?: TextureDescriptor) {
    const image = imageOf(module)
    if (image === undefined) throw new TypeError(`module must be a RawModule, got ${describe(module)}`)
    if (typeof name !== 'string' || name === '') throw new TypeError(`name must be a texture reference's name, got ${describe(name)}`)
    const { args, checked } = textureArgs(resDesc, texDesc)
    const loaded = image.load(scope().device)
    this.#handle = native.texrefCreate(this, loaded.module, name, ...args)
    this.resDesc = resDesc
    this.texDesc = checked
    this.name = name
  }

  /** The `CUtexref` as a bigint (what CuPy's `get_texref` returns). @throws {CudaError} `CUDA_ERROR_INVALID_HANDLE` once destroyed. */
  get handle(): bigint {
    return native.texrefHandle(this.#handle)
  }

  /** Lets go of the reference (again: nothing); its module and what it reads go once nothing else holds them. */
  destroy(): void {
    native.texrefDestroy(this.#handle)
  }

  /** Destroys the reference, for `using`, as `destroy()` does. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}
