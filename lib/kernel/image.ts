// What a module is made of — CUDA C++ (compiled with NVRTC on first use, through the cache),
// PTX or a cubin — and its loaded form on each device. `RawModule` and `RawKernel` share it.
import { Device } from '../device'
import { CudaError } from '../errors'
import { native } from '../native'
import { compileCached, type Source } from './cache'

/** The most compiler options or name expressions a module takes (a longer array is a mistake). */
const MAX_STRINGS = 4096

function strings(name: string, v: unknown): string[] {
  if (v === undefined) return []
  if (!Array.isArray(v)) throw new TypeError(`${name} must be an array of strings`)
  if (v.length > MAX_STRINGS) throw new RangeError(`${name} has ${v.length} entries, more than ${MAX_STRINGS} allowed`)
  const out: string[] = []
  for (let i = 0; i < v.length; i++) {
    if (typeof v[i] !== 'string') throw new TypeError(`${name}[${i}] must be a string`)
    out.push(v[i])
  }
  return out
}

/** A module's source or image. */
export type ModuleSource =
  | {
      /** CUDA C++ source, compiled with NVRTC on first use (CuPy's `code`). */
      code: string
      /** NVRTC options, e.g. `'-std=c++17'` (CuPy's `options`). */
      options?: readonly string[]
      /** C++ names, such as template instantiations, to look kernels up by (CuPy's `name_expressions`). */
      nameExpressions?: readonly string[]
      /** The name NVRTC gives the source in its messages; `'kernel.cu'` by default. */
      fileName?: string
    }
  | {
      /** PTX text, compiled by the driver when the module loads. */
      ptx: string
    }
  | {
      /** A compiled cubin image, loaded as it is. */
      cubin: Uint8Array
    }

// RawModule implements this. module.ts imports raw-kernel.ts (getFunction makes a RawKernel), so
// RawKernel's constructor names its module by this interface rather than importing it back.
/** A {@link RawModule}, as RawKernel's constructor takes one: only a RawModule is accepted. */
export interface ModuleLike {
  /** The mangled name NVRTC gave a name expression (CuPy's `get_lowered_name`). */
  getLoweredName(nameExpression: string, device?: number): string
}

interface Loaded {
  module: number
  lowered: ReadonlyMap<string, string>
}

export class ModuleImage {
  readonly #source: Source | undefined
  readonly #image: Uint8Array | undefined
  readonly #loaded = new Map<number, Loaded>()

  /** @throws {TypeError} for a malformed source. */
  constructor(source: ModuleSource) {
    if (typeof source !== 'object' || source === null) throw new TypeError('a module takes { code }, { ptx } or { cubin }')
    if ('code' in source) {
      if (typeof source.code !== 'string') throw new TypeError('code must be a string of CUDA C++')
      const fileName = source.fileName ?? 'kernel.cu'
      if (typeof fileName !== 'string') throw new TypeError('fileName must be a string')
      this.#source = {
        code: source.code,
        options: strings('options', source.options),
        nameExpressions: strings('nameExpressions', source.nameExpressions),
        fileName,
      }
    } else if ('ptx' in source) {
      if (typeof source.ptx !== 'string') throw new TypeError('ptx must be a string')
      this.#image = Buffer.from(source.ptx + '\0')
    } else if ('cubin' in source) {
      if (!(source.cubin instanceof Uint8Array)) throw new TypeError('cubin must be a Uint8Array')
      this.#image = Uint8Array.prototype.slice.call(source.cubin)
    } else throw new TypeError('a module takes { code }, { ptx } or { cubin }')
  }

  /** The CUDA C++ source, if the module was made from it. */
  get code(): string | undefined {
    return this.#source?.code
  }

  /**
   * Whether the module's text declares a kernel `name` (a name expression, a `__global__` function
   * or a PTX `.entry`), for where nothing can be loaded to ask the driver (the simulator). A cubin
   * cannot be read here: it may hold any name.
   */
  declares(name: string): boolean {
    const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    if (this.#source) {
      return this.#source.nameExpressions.includes(name) || new RegExp(`__global__[^;{]*\\b${esc}\\s*\\(`).test(this.#source.code)
    }
    const text = Buffer.from(this.#image!).toString('latin1')
    if (!text.startsWith('\x7fELF')) return new RegExp(`\\.entry\\s+${esc}\\s*\\(`).test(text)
    return true
  }

  /** Compiles (through the cache) and loads the module on `device`, once. */
  load(device: number): Loaded {
    let m = this.#loaded.get(device)
    if (m === undefined) {
      if (this.#source) {
        const out = compileCached(this.#source, `sm_${new Device(device).computeCapability}`)
        m = { module: native.moduleLoad(this, device, out.image), lowered: new Map(out.lowered.map((l) => [l.expression, l.name])) }
      } else m = { module: native.moduleLoad(this, device, this.#image!), lowered: new Map() }
      this.#loaded.set(device, m)
    }
    return m
  }

  /** The mangled name NVRTC gave a name expression on `device`. */
  lowered(nameExpression: string, device: number): string {
    const l = this.load(device).lowered.get(nameExpression)
    if (l === undefined) throw new CudaError(`${nameExpression} was not given in nameExpressions`, 'NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID')
    return l
  }
}

const images = new WeakMap<object, ModuleImage>()

/** Makes `image` the one behind `module` (a RawModule). */
export function bind(module: object, image: ModuleImage): void {
  images.set(module, image)
}

/** The image behind a RawModule; undefined for anything else. */
export function imageOf(module: unknown): ModuleImage | undefined {
  return typeof module === 'object' && module !== null ? images.get(module) : undefined
}
