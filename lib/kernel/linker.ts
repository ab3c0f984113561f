// Linking with nvJitLink (cuda.core's `Linker`): PTX, LTO-IR, cubins and fatbins into one cubin
// (or PTX), with its log. nvJitLink is loaded at run time, like NVRTC, and runs on the host.
import { describe, options as checkOptions } from '../validate'
import { native } from '../native'
import { archOf, type ProgramOutput } from './program'
import { strings } from './image'

/** What a link input is. */
export type LinkInputKind = 'cubin' | 'ptx' | 'ltoir' | 'fatbin' | 'object' | 'library'

/**
 * One input: a {@link Program.compile} result, or bytes of a named kind (`{ ltoir: bytes }`,
 * `{ ptx: text }`, …), with an optional name for the log.
 */
export type LinkInput = ProgramOutput | ({
      /** A name for the log. */
      name?: string
    } & LinkBytes)

/** An input's bytes, keyed by their kind (a host object or library archive too). */
export type LinkBytes =
  | {
      /** PTX text. */
      ptx: string | Uint8Array
    }
  | {
      /** LTO-IR. */
      ltoir: Uint8Array
    }
  | {
      /** A cubin. */
      cubin: Uint8Array
    }
  | {
      /** A fatbin. */
      fatbin: Uint8Array
    }
  | {
      /** A host object with device code. */
      object: Uint8Array
    }
  | {
      /** A library archive of objects. */
      library: Uint8Array
    }

/** The most inputs a link takes (a longer array is a mistake). */
const MAX_INPUTS = 4096

/** Options for a {@link Linker} (cuda.core's `LinkerOptions`). */
export interface LinkerOptions {
  /** The architecture to link for: `90`, `'sm_90'`; the current device's by default. */
  arch?: string | number
  /** Link-time optimisation; on by default when an input is LTO-IR. */
  lto?: boolean
  /** Other nvJitLink options, e.g. `'-O3'`, `'-lineinfo'`. */
  options?: readonly string[]
}

/** What a link produced. */
export interface LinkOutput {
  /** A cubin, or PTX (as bytes) for `link('ptx')`. */
  code: Buffer
  /** What `code` is. */
  target: 'cubin' | 'ptx'
  /** nvJitLink's info log (also on success). */
  log: string
}

const KINDS: readonly LinkInputKind[] = ['cubin', 'ptx', 'ltoir', 'fatbin', 'object', 'library']

interface Input {
  kind: LinkInputKind
  data: Uint8Array
  name: string
}

function input(v: unknown, i: number): Input {
  if (typeof v !== 'object' || v === null) throw new TypeError(`link input ${i} must be an object, got ${describe(v)}`)
  const o = v as Record<string, unknown>
  const name = o.name === undefined ? `input${i}` : o.name
  if (typeof name !== 'string') throw new TypeError(`link input ${i}'s name must be a string`)
  if ('target' in o && 'code' in o) {
    if (!(o.code instanceof Uint8Array) || !KINDS.includes(o.target as LinkInputKind)) throw new TypeError(`link input ${i} is not a Program output`)
    return { kind: o.target as LinkInputKind, data: o.code, name }
  }
  const kind = KINDS.find((k) => k in o)
  if (kind === undefined) throw new TypeError(`link input ${i} must be a Program output or one of { ${KINDS.join(' | ')}: bytes }`)
  const d = o[kind]
  const data = kind === 'ptx' && typeof d === 'string' ? Buffer.from(d) : d
  if (!(data instanceof Uint8Array)) throw new TypeError(`link input ${i}'s ${kind} must be a Uint8Array${kind === 'ptx' ? ' or a string' : ''}, got ${describe(d)}`)
  if (data.length === 0) throw new RangeError(`link input ${i} (${name}) is empty`)
  return { kind, data, name }
}

/** Links PTX, LTO-IR, cubin and fatbin inputs with nvJitLink (cuda.core's `Linker`). */
export class Linker {
  readonly #inputs: Input[]
  readonly #options: string[]
  #log = ''

  /** @throws {TypeError} for a malformed input or option; {RangeError} for no inputs. */
  constructor(inputs: readonly LinkInput[], options: LinkerOptions = {}) {
    if (!Array.isArray(inputs)) throw new TypeError(`a Linker takes an array of inputs, got ${describe(inputs)}`)
    if (inputs.length === 0) throw new RangeError('a Linker needs at least one input')
    // Bounded before it is walked: a proxy or sparse array may claim 2**32 - 1 entries (it hung).
    if (inputs.length > MAX_INPUTS) throw new RangeError(`a Linker takes at most ${MAX_INPUTS} inputs, got ${inputs.length}`)
    checkOptions<LinkerOptions>('Linker', options, ['arch', 'lto', 'options'])
    this.#inputs = Array.from({ length: inputs.length }, (_, i) => input(inputs[i], i))
    if (options.lto !== undefined && typeof options.lto !== 'boolean') throw new TypeError('lto must be a boolean')
    const lto = options.lto ?? this.#inputs.some((i) => i.kind === 'ltoir')
    const arch = native.nvrtcCheckTarget(archOf(options.arch), 'cubin')
    this.#options = [`-arch=${arch}`, ...(lto ? ['-lto'] : []), ...strings('options', options.options)]
  }

  /**
   * Links the inputs into a cubin (or PTX, from LTO-IR inputs).
   * @throws {CudaError} `NVJITLINK_ERROR_*` with nvJitLink's error log; `NVJITLINK_ERROR_NOT_FOUND`
   *   (naming where it looked) where nvJitLink is missing.
   */
  link(target: 'cubin' | 'ptx' = 'cubin'): LinkOutput {
    if (target !== 'cubin' && target !== 'ptx') throw new TypeError(`a link makes 'cubin' or 'ptx', got ${describe(target)}`)
    const sizes = new Float64Array(this.#inputs.map((i) => i.data.length))
    const data = Buffer.concat(this.#inputs.map((i) => i.data))
    const opts = target === 'ptx' ? [...this.#options, '-ptx'] : this.#options
    const out = native.nvJitLinkLink(
      this.#inputs.map((i) => i.kind),
      this.#inputs.map((i) => i.name),
      sizes,
      data,
      opts,
    )
    this.#log = out.log
    return { code: Buffer.from(out.image), target: out.isPtx ? 'ptx' : 'cubin', log: out.log }
  }

  /** The info log of the last link (cuda.core's `get_info_log`). */
  get log(): string {
    return this.#log
  }

  /** nvJitLink's version, `[major, minor]`. @throws {CudaError} `NVJITLINK_ERROR_NOT_FOUND` without it. */
  static version(): [number, number] {
    const [a, b] = native.nvJitLinkVersion()
    return [a, b]
  }
}
