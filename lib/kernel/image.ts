// What a module is made of — CUDA C++ (compiled with NVRTC on first use, through the cache),
// PTX, a cubin, a fatbin, LTO-IR (linked with nvJitLink on load) or a file of one of those — and
// its loaded form on each device. `RawModule` and `RawKernel` share it.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { compiledKernels } from '../backend'
import { Device } from '../device'
import { native } from '../native'
import { describe } from '../validate'
import { compileCached, type Source } from './cache'

/** The most compiler options or name expressions a module takes (a longer array is a mistake). */
const MAX_STRINGS = 4096

export function strings(name: string, v: unknown): string[] {
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
  | {
      /** A fatbin (cubins and PTX for several architectures); the driver picks the device's. */
      fatbin: Uint8Array
    }
  | {
      /** LTO-IR (from `Program.compile({ target: 'ltoir' })` or `nvcc -dlto`), one module or several, linked with nvJitLink for the device on first use. */
      ltoir: Uint8Array | readonly Uint8Array[]
    }
  | {
      /** A `.cubin`, `.ptx`, `.fatbin` or `.ltoir` file (CuPy's `RawModule(path=)`), read now; the kind is told by the extension, else by the contents. */
      path: string
    }

type ImageKind = 'ptx' | 'cubin' | 'fatbin' | 'ltoir'

/** The kind of a file's image: by its extension, else an ELF cubin, a fatbin's magic, or PTX text. */
function kindOf(file: string, data: Uint8Array): ImageKind {
  const ext = path.extname(file).toLowerCase()
  if (ext === '.cubin' || ext === '.ptx' || ext === '.fatbin' || ext === '.ltoir') return ext.slice(1) as ImageKind
  if (ext === '.lto') return 'ltoir'
  if (data[0] === 0x7f && data[1] === 0x45 && data[2] === 0x4c && data[3] === 0x46) return 'cubin'
  if (data.length >= 4 && Buffer.from(data.buffer, data.byteOffset, 4).readUInt32LE(0) === 0xba55ed50) return 'fatbin'
  return 'ptx'
}

function readImage(file: string): Buffer {
  try {
    return readFileSync(file)
  } catch (e) {
    native.moduleFileUnreadable(file, (e as Error).message) // throws CUDA_ERROR_FILE_NOT_FOUND
    throw e
  }
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
  readonly #ltoir: Uint8Array[] | undefined
  readonly #loaded = new Map<number, Loaded>()

  /** @throws {TypeError} for a malformed source. */
  constructor(source: ModuleSource) {
    if (typeof source !== 'object' || source === null) throw new TypeError('a module takes { code }, { ptx }, { cubin }, { fatbin }, { ltoir } or { path }')
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
    } else if ('cubin' in source || 'fatbin' in source) {
      const kind = 'cubin' in source ? 'cubin' : 'fatbin'
      const data = (source as Record<string, unknown>)[kind]
      if (!(data instanceof Uint8Array)) throw new TypeError(`${kind} must be a Uint8Array, got ${describe(data)}`)
      if (data.length === 0) throw new RangeError(`a ${kind} cannot be empty`)
      this.#image = Uint8Array.prototype.slice.call(data)
    } else if ('ltoir' in source) {
      const parts = Array.isArray(source.ltoir) ? source.ltoir : [source.ltoir]
      if (parts.length === 0) throw new RangeError('ltoir needs at least one module')
      this.#ltoir = parts.map((p: unknown, i: number) => {
        if (!(p instanceof Uint8Array)) throw new TypeError(`ltoir[${i}] must be a Uint8Array, got ${describe(p)}`)
        if (p.length === 0) throw new RangeError(`ltoir[${i}] is empty`)
        return Uint8Array.prototype.slice.call(p)
      })
    } else if ('path' in source) {
      if (typeof source.path !== 'string' || source.path === '') throw new TypeError(`path must be a file name, got ${describe(source.path)}`)
      const data = readImage(source.path)
      const kind = kindOf(source.path, data)
      if (data.length === 0) throw new RangeError(`the module file ${source.path} is empty`)
      if (kind === 'ltoir') this.#ltoir = [data]
      else this.#image = kind === 'ptx' && data[data.length - 1] !== 0 ? Buffer.concat([data, Buffer.alloc(1)]) : data
    } else throw new TypeError('a module takes { code }, { ptx }, { cubin }, { fatbin }, { ltoir } or { path }')
  }

  /** The CUDA C++ source, if the module was made from it. */
  get code(): string | undefined {
    return this.#source?.code
  }

  /**
   * Checks that the module's text declares a kernel `name` (a name expression, a `__global__`
   * function or a PTX `.entry`), for where nothing can be loaded to ask the driver (the
   * simulator); core's rule (`module::check_declared`) throws `CUDA_ERROR_NOT_FOUND` where not.
   */
  checkDeclared(name: string): void {
    const s = this.#source
    native.moduleCheckDeclared(s?.code ?? null, s?.nameExpressions ?? [], this.#ltoir ? null : (this.#image ?? null), name)
  }

  /**
   * On the simulator, which loads nothing: compiles CUDA C++ where NVRTC is installed, so a
   * source error shows there too (and the cache fills); where NVRTC is missing, nothing happens
   * and the host implementation runs as before.
   */
  checkSimulated(device: number): void {
    if (this.#source === undefined || this.#simChecked) return
    try {
      native.nvrtcVersion()
    } catch {
      return
    }
    compileCached(this.#source, `sm_${new Device(device).computeCapability}`)
    this.#simChecked = true
  }

  #simChecked = false

  /** Compiles (through the cache) and loads the module on `device`, once. */
  load(device: number): Loaded {
    let m = this.#loaded.get(device)
    if (m === undefined) {
      if (this.#source) {
        const out = compileCached(this.#source, `sm_${new Device(device).computeCapability}`)
        m = { module: native.moduleLoad(this, device, out.image), lowered: new Map(out.lowered.map((l) => [l.expression, l.name])) }
      } else if (this.#ltoir) {
        const arch = `-arch=sm_${new Device(device).computeCapability}`
        const out = native.nvJitLinkLink(
          this.#ltoir.map(() => 'ltoir'),
          this.#ltoir.map((_, i) => `ltoir${i}`),
          new Float64Array(this.#ltoir.map((p) => p.length)),
          Buffer.concat(this.#ltoir),
          [arch, '-lto'],
        )
        m = { module: native.moduleLoad(this, device, out.image), lowered: new Map() }
      } else m = { module: native.moduleLoad(this, device, this.#image!), lowered: new Map() }
      this.#loaded.set(device, m)
    }
    return m
  }

  /** The mangled name NVRTC gave a name expression on `device`. */
  lowered(nameExpression: string, device: number): string {
    // The simulator loads nothing, but NVRTC, where it is found, names the expressions all the same.
    const pairs = !compiledKernels() && this.#source !== undefined
      ? compileCached(this.#source, `sm_${new Device(device).computeCapability}`).lowered.map((x): [string, string] => [x.expression, x.name])
      : [...this.load(device).lowered]
    // Core's lookup: an expression the compile was not given is NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID.
    return native.nvrtcLowered(pairs.map((p) => p[0]), pairs.map((p) => p[1]), nameExpression)
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
