// A program: CUDA C++ compiled by NVRTC into a cubin, PTX or LTO-IR, with its log (cuda.core's
// `Program`, CuPy's `compile_with_cache`). Compiles go through the memory and disk caches.
import { scope } from '../context'
import { Device } from '../device'
import { describe, options as checkOptions } from '../validate'
import { compileCached, type CompileTarget } from './cache'
import { strings } from './image'
import { native } from '../native'

export type { CompileTarget }

/** Options for a {@link Program}. */
export interface ProgramOptions {
  /** NVRTC options, e.g. `'-std=c++17'`, `'-lineinfo'` (cuda.core's `ProgramOptions`). */
  options?: readonly string[]
  /** The name NVRTC gives the source in its messages; `'kernel.cu'` by default. */
  fileName?: string
}

/** Options for one {@link Program.compile}. */
export interface CompileOptions {
  /** `'cubin'` (default), `'ptx'` or `'ltoir'` (for {@link Linker}). */
  target?: CompileTarget
  /** The architecture: `90`, `'90'`, `'sm_90'` or `'compute_90'`; the current device's by default. */
  arch?: string | number
  /** C++ names, such as template instantiations, whose mangled names to return (CuPy's `name_expressions`). */
  nameExpressions?: readonly string[]
}

/** What a compile produced. */
export interface ProgramOutput {
  /** The cubin, PTX (text, as bytes) or LTO-IR. */
  code: Buffer
  /** What `code` is. */
  target: CompileTarget
  /** NVRTC's log: warnings, also when the compile succeeded; `''` when it had nothing to say. */
  log: string
  /** Each name expression's mangled name (cuda.core's `ObjectCode` symbol mapping). */
  loweredNames: Record<string, string>
}

/**
 * CUDA C++ source, compiled with NVRTC on request (cuda.core's `Program`). NVRTC runs on the host,
 * so this works on the simulator too wherever NVRTC is installed.
 */
export class Program {
  /** The CUDA C++ source. */
  readonly code: string
  readonly #options: string[]
  readonly #fileName: string

  /** @throws {TypeError} for a malformed source or options. Nothing is compiled yet. */
  constructor(code: string, options: ProgramOptions = {}) {
    if (typeof code !== 'string') throw new TypeError(`a Program takes CUDA C++ source as a string, got ${describe(code)}`)
    checkOptions<ProgramOptions>('Program', options, ['options', 'fileName'])
    const fileName = options.fileName ?? 'kernel.cu'
    if (typeof fileName !== 'string' || fileName === '') throw new TypeError('fileName must be a non-empty string')
    this.code = code
    this.#options = strings('options', options.options)
    this.#fileName = fileName
  }

  /**
   * Compiles (or finds in the caches) the program for `arch` into `target`.
   * @throws {TypeError} for a bad target or arch; {CudaError} `NVRTC_ERROR_COMPILATION` with the
   *   log and the offending source line, `NVRTC_ERROR_NOT_FOUND` where NVRTC is missing.
   */
  compile(options: CompileOptions = {}): ProgramOutput {
    checkOptions<CompileOptions>('compile', options, ['target', 'arch', 'nameExpressions'])
    const target = options.target ?? 'cubin'
    const arch = archOf(options.arch)
    native.nvrtcCheckTarget(arch, target)
    const out = compileCached(
      { code: this.code, options: this.#options, nameExpressions: strings('nameExpressions', options.nameExpressions), fileName: this.#fileName },
      arch,
      target,
    )
    return { code: Buffer.from(out.image), target: out.target as CompileTarget, log: out.log, loweredNames: Object.fromEntries(out.lowered.map((l) => [l.expression, l.name])) }
  }

  /** NVRTC's version, `[major, minor]`. @throws {CudaError} `NVRTC_ERROR_NOT_FOUND` without it. */
  static nvrtcVersion(): [number, number] {
    const [a, b] = native.nvrtcVersion()
    return [a, b]
  }

  /** The architectures NVRTC compiles for (`90` for sm_90), oldest first. */
  static supportedArchs(): number[] {
    return native.nvrtcSupportedArchs()
  }
}

/** `arch` as a string, or the current device's compute capability. */
export function archOf(arch: unknown): string {
  if (arch === undefined) return new Device(scope().device).computeCapability
  if (typeof arch === 'number' && Number.isInteger(arch) && arch > 0) return String(arch)
  if (typeof arch === 'string') return arch
  throw new TypeError(`arch must be like 90, '90', 'sm_90' or 'compute_90', got ${describe(arch)}`)
}
