import { native } from './native'
import { Device, deviceOrdinal } from './device'
import { INTERNAL, NativeObject, handleOf, own, ownDevice } from './object'
import { MemoryPointer } from './memory/pointer'
import { currentStreamHandle, streamHandle, type StreamLike } from './stream/handle'
import { count as countArg, describe, options as checkOptions } from './validate'

/** A cuRAND generator kind: CuPy's names for `curandRngType_t`, or its numbers (161 is Philox). */
export type GeneratorKind = 'philox' | 'xorwow' | 'mrg32k3a' | 'mtgp32' | 'mt19937' | 'sobol32' | 'scrambled_sobol32' | 'sobol64' | 'scrambled_sobol64'

/**
 * The order a generator writes its results in (`curandOrdering_t`, CuPy's
 * `CURAND_ORDERING_*`): a pseudo ordering for a pseudorandom generator, `'quasiDefault'` for a
 * quasirandom one; or cuRAND's number.
 */
export type GeneratorOrdering = 'pseudoBest' | 'pseudoDefault' | 'pseudoSeeded' | 'pseudoLegacy' | 'pseudoDynamic' | 'quasiDefault'

const ORDERINGS: Record<GeneratorOrdering, number> = {
  pseudoBest: 100, pseudoDefault: 101, pseudoSeeded: 102, pseudoLegacy: 103, pseudoDynamic: 104, quasiDefault: 201,
}

/** Options of {@link curand.createGenerator}. */
export interface GeneratorOptions {
  /** The device (current by default). */
  device?: number | Device
}

/** Options of the floating-point generate calls. */
export interface GenerateOptions {
  /** `'float32'` (the default: `curandGenerateUniform`, …) or `'float64'` (`…Double`). */
  dtype?: 'float32' | 'float64'
}

const KIND_NUMBERS: Record<number, GeneratorKind> = {
  100: 'xorwow', 101: 'xorwow', 121: 'mrg32k3a', 141: 'mtgp32', 142: 'mt19937', 161: 'philox',
  200: 'sobol32', 201: 'sobol32', 202: 'scrambled_sobol32', 203: 'sobol64', 204: 'scrambled_sobol64',
}

/** The kinds whose words are 64 bits (`generateLongLong`). */
const LONG = new Set<string>(['sobol64', 'scrambled_sobol64'])

/** The distributions' numbers the addon takes (crates/node/src/rand.rs). */
const Dist = { Bits: 0, Uniform: 1, Normal: 2, LogNormal: 3, Poisson: 4 } as const
type Dist = (typeof Dist)[keyof typeof Dist]

function u64(name: string, v: unknown): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  if (typeof v === 'bigint' && v >= 0n && v < 1n << 64n) return v
  if (typeof v === 'number' || typeof v === 'bigint') throw new RangeError(`${name} must be an unsigned 64-bit integer, got ${v}`)
  throw new TypeError(`${name} must be a bigint or a number, got ${describe(v)}`)
}

function finite(name: string, v: unknown): number {
  if (typeof v !== 'number') throw new TypeError(`${name} must be a number, got ${describe(v)}`)
  return v
}

function pointer(v: unknown): MemoryPointer {
  if (!(v instanceof MemoryPointer)) throw new TypeError(`out must be a MemoryPointer, got ${describe(v)}`)
  return v
}

function floatType(o: GenerateOptions | undefined): 'float32' | 'float64' {
  if (o === undefined) return 'float32'
  checkOptions<GenerateOptions>('generate', o, ['dtype'])
  const t = o.dtype ?? 'float32'
  if (t !== 'float32' && t !== 'float64') throw new TypeError(`dtype must be 'float32' or 'float64', got ${describe(t)}`)
  return t
}

/**
 * A cuRAND generator (CuPy's `cupy.cuda.curand` generator handle) of one device. Each generate
 * call writes into device memory on the generator's stream (`setStream`), or else on the current
 * stream of its device at the time of the call. On the simulator, Philox writes the same numbers
 * as cuRAND does for the same seed (in every ordering but `'pseudoDynamic'`, whose layout is the
 * GPU's own: the simulator writes the default layout for it); Sobol32 and Sobol64 have one
 * dimension; XORWOW, MRG32k3a, MTGP32, MT19937 and the scrambled Sobols are not simulated.
 */
export class CurandGenerator extends NativeObject {
  #stream: StreamLike | undefined
  #kind: GeneratorKind | undefined

  /** @internal Made by `curand.createGenerator()`. */
  constructor(token: typeof INTERNAL, make: (owner: object) => number, device: number) {
    super(token, 'CurandGenerator', make, device)
  }

  /** The generator's kind. */
  get kind(): GeneratorKind {
    return (this.#kind ??= native.randKind(own(this)) as GeneratorKind)
  }

  /** The raw `curandGenerator_t` as a bigint (made up on the simulator). */
  get handle(): bigint {
    return native.randHandle(own(this))
  }

  /** The ordinal of the generator's device. */
  get deviceId(): number {
    return ownDevice(this)
  }

  /**
   * Sets the seed (`curandSetPseudoRandomGeneratorSeed`); the offset stays (CuPy's `seed()` sets
   * it to 0 apart).
   * @throws {CudaError} `CURAND_STATUS_TYPE_ERROR` for a quasirandom generator.
   */
  setSeed(seed: bigint | number): this {
    native.randSetSeed(own(this), u64('seed', seed))
    return this
  }

  /** Sets where in its sequence the next call starts (`curandSetGeneratorOffset`). */
  setOffset(offset: bigint | number): this {
    native.randSetOffset(own(this), u64('offset', offset))
    return this
  }

  /**
   * Sets a quasirandom generator's dimensions (`curandSetQuasiRandomGeneratorDimensions`).
   * @throws {CudaError} `CURAND_STATUS_TYPE_ERROR` for a pseudorandom generator,
   *   `CURAND_STATUS_OUT_OF_RANGE` outside 1 to 20000.
   */
  setDimensions(dimensions: number): this {
    native.randSetDimensions(own(this), countArg('dimensions', dimensions))
    return this
  }

  /**
   * Sets the order results are written in (`curandSetGeneratorOrdering`): `'pseudoDefault'`,
   * `'pseudoBest'`, `'pseudoSeeded'`, `'pseudoLegacy'` or `'pseudoDynamic'` for a pseudorandom
   * generator, `'quasiDefault'` for a quasirandom one, or cuRAND's number.
   * @throws {TypeError} for an unknown name; {CudaError} `CURAND_STATUS_OUT_OF_RANGE` for an
   *   ordering of the other class of generator, or one cuRAND refuses for this kind;
   *   `CURAND_STATUS_TYPE_ERROR` on the simulator for `'pseudoSeeded'` (XORWOW's, not simulated).
   */
  setOrdering(ordering: GeneratorOrdering | number): this {
    const n = typeof ordering === 'number' ? countArg('ordering', ordering) : (ORDERINGS as Record<string, number | undefined>)[ordering as string]
    if (n === undefined) throw new TypeError(`ordering must be one of ${Object.keys(ORDERINGS).join(', ')} or cuRAND's number, got ${describe(ordering)}`)
    native.randSetOrdering(own(this), n)
    return this
  }

  /** Runs later calls on `stream`; `null` (or nothing) goes back to the current stream at each call. */
  setStream(stream?: StreamLike | null): this {
    if (stream !== null && stream !== undefined) handleOf(stream, 'Stream', 'stream')
    this.#stream = stream ?? undefined
    return this
  }

  /** The stream a call runs on. */
  get stream(): StreamLike | undefined {
    return this.#stream
  }

  #run(out: MemoryPointer, n: number, dist: Dist, dtype: string, a: number, b: number): void {
    const p = pointer(out)
    const s = this.#stream === undefined ? currentStreamHandle(ownDevice(this)) : streamHandle(this.#stream)
    native.randGenerate(own(this), s, own(p.mem), dist, dtype, countArg('count', n), p.byteOffset, a, b)
  }

  /**
   * `count` raw 64-bit words into `out` (uint64; `curandGenerateLongLong`), of a Sobol64 generator.
   * @throws {CudaError} `CURAND_STATUS_TYPE_ERROR` for a generator of 32-bit words.
   */
  generateLongLong(out: MemoryPointer, count: number): void {
    this.#run(out, count, Dist.Bits, 'uint64', 0, 0)
  }

  /** `count` raw 32-bit words into `out` (uint32; `curandGenerate`). @throws {CudaError} `CURAND_STATUS_TYPE_ERROR` for a Sobol64 generator (use `generateLongLong`). */
  generate(out: MemoryPointer, count: number): void {
    this.#run(out, count, Dist.Bits, 'uint32', 0, 0)
  }

  /** `count` uniforms on (0, 1] into `out` (`curandGenerateUniform`, `…Double` with float64). */
  generateUniform(out: MemoryPointer, count: number, options?: GenerateOptions): void {
    this.#run(out, count, Dist.Uniform, floatType(options), 0, 0)
  }

  /**
   * `count` normals of `mean` and `stddev` into `out` (`curandGenerateNormal`). A pseudorandom
   * generator makes them in pairs: `count` must be even, and `out` aligned to two elements.
   * @throws {CudaError} `CURAND_STATUS_LENGTH_NOT_MULTIPLE` for an odd count.
   */
  generateNormal(out: MemoryPointer, count: number, mean: number, stddev: number, options?: GenerateOptions): void {
    this.#run(out, count, Dist.Normal, floatType(options), finite('mean', mean), finite('stddev', stddev))
  }

  /** `count` values whose logarithms are normals of `mean` and `stddev` (`curandGenerateLogNormal`); as `generateNormal`. */
  generateLogNormal(out: MemoryPointer, count: number, mean: number, stddev: number, options?: GenerateOptions): void {
    this.#run(out, count, Dist.LogNormal, floatType(options), finite('mean', mean), finite('stddev', stddev))
  }

  /**
   * `count` Poisson counts of mean `lambda` into `out` (uint32; `curandGeneratePoisson`).
   * @throws {CudaError} `CURAND_STATUS_OUT_OF_RANGE` unless `lambda` is above 0.
   */
  generatePoisson(out: MemoryPointer, count: number, lambda: number): void {
    this.#run(out, count, Dist.Poisson, 'uint32', finite('lambda', lambda), 0)
  }

  /** Destroys the generator (again: nothing); work it queued still runs. Later calls throw `CUDA_ERROR_INVALID_HANDLE`. */
  destroy(): void {
    native.randDestroy(own(this))
  }

  /** Destroys the generator, for `using`. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}

/** Options of {@link curand.philoxWords}. */
export interface PhiloxWordsOptions {
  /** The subsequence (the counter's high 64 bits); 0 by default. */
  subsequence?: bigint | number
  /** The position in the subsequence, in words; 0 by default. */
  offset?: bigint | number
}

/** What {@link curand.hostGenerate} computes: a generate call's arguments. */
export interface HostGenerateOptions {
  /** The seed; 0 (cuRAND's default) by default. */
  seed?: bigint | number
  /** The generator's offset; 0 by default. */
  offset?: bigint | number
  /** `'bits'` (the default: `generate`), `'uniform'`, `'normal'`, `'logNormal'` or `'poisson'`. */
  distribution?: 'bits' | 'uniform' | 'normal' | 'logNormal' | 'poisson'
  /** `'float32'` (the default) or `'float64'`, for uniforms, normals and log-normals. */
  dtype?: 'float32' | 'float64'
  /** The normal's mean; 0 by default. */
  mean?: number
  /** The normal's standard deviation; 1 by default. */
  stddev?: number
  /** The Poisson mean. */
  lambda?: number
}

const DISTRIBUTIONS = { bits: Dist.Bits, uniform: Dist.Uniform, normal: Dist.Normal, logNormal: Dist.LogNormal, poisson: Dist.Poisson } as const

/** cuRAND (`cupy.cuda.curand`): generators writing random numbers into device memory. */
export const curand = {
  /**
   * A generator of `kind` on the current device (or `options.device`): `'philox'`
   * (`CURAND_RNG_PSEUDO_PHILOX4_32_10`), `'xorwow'` (cuRAND's default), `'mrg32k3a'`,
   * `'mtgp32'`, `'mt19937'`, `'sobol32'`, `'scrambled_sobol32'`, `'sobol64'`,
   * `'scrambled_sobol64'`, or cuRAND's number for one of them.
   * @throws {TypeError} for an unknown kind; {CudaError} `CURAND_STATUS_NOT_INITIALIZED` where
   *   cuRAND cannot be loaded (the message names the files looked for),
   *   `CURAND_STATUS_TYPE_ERROR` for a kind the simulator does not simulate.
   */
  createGenerator(kind: GeneratorKind | number, options?: GeneratorOptions): CurandGenerator {
    if (options !== undefined) checkOptions<GeneratorOptions>('createGenerator', options, ['device'])
    const name = typeof kind === 'number' ? (KIND_NUMBERS[kind] ?? String(kind)) : kind
    if (typeof name !== 'string') throw new TypeError(`kind must be a generator kind's name or number, got ${describe(kind)}`)
    const dev = deviceOrdinal(options?.device)
    return new CurandGenerator(INTERNAL, (owner) => native.randCreate(owner, dev, name), dev)
  },

  /**
   * `count` 32-bit words of cuRAND's Philox4x32-10 under `seed` as its device API gives them:
   * `curand_init(seed, subsequence, offset)`, then `curand()`. Computed on the host.
   */
  philoxWords(seed: bigint | number, count: number, options: PhiloxWordsOptions = {}): Uint32Array {
    checkOptions<PhiloxWordsOptions>('philoxWords', options, ['subsequence', 'offset'])
    const words = native.randPhiloxWords(u64('seed', seed), u64('subsequence', options.subsequence ?? 0), u64('offset', options.offset ?? 0), count)
    return Uint32Array.from(words)
  },

  /**
   * What a `kind` generator writes for one generate call, computed on the host: what the
   * simulator writes, and for Philox cuRAND's host-API numbers (65536 subsequences interleaved
   * four values at a time; bits and uniforms exactly, normals by cuRAND's Box-Muller in the
   * host's arithmetic). For comparing a GPU's numbers with. At most 2^24 values.
   * Sobol64's bits are a BigUint64Array.
   * @throws {CudaError} `CURAND_STATUS_TYPE_ERROR` for XORWOW, MRG32k3a, MTGP32, MT19937 and the scrambled Sobols (not modelled).
   */
  hostGenerate(kind: GeneratorKind, count: number, options: HostGenerateOptions = {}): Uint32Array | BigUint64Array | Float32Array | Float64Array {
    checkOptions<HostGenerateOptions>('hostGenerate', options, ['seed', 'offset', 'distribution', 'dtype', 'mean', 'stddev', 'lambda'])
    const name = options.distribution ?? 'bits'
    const dist = (DISTRIBUTIONS as Record<string, Dist | undefined>)[name as string]
    if (dist === undefined) throw new TypeError(`distribution must be one of ${Object.keys(DISTRIBUTIONS).join(', ')}, got ${describe(name)}`)
    const dtype = dist === Dist.Bits && LONG.has(String(kind)) ? 'uint64' : dist === Dist.Bits || dist === Dist.Poisson ? 'uint32' : floatType({ dtype: options.dtype })
    const [a, b] = dist === Dist.Poisson ? [finite('lambda', options.lambda), 0] : [finite('mean', options.mean ?? 0), finite('stddev', options.stddev ?? 1)]
    const bytes = native.randHostGenerate(String(kind), u64('seed', options.seed ?? 0), u64('offset', options.offset ?? 0), dist, dtype, countArg('count', count), a, b)
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    if (dtype === 'uint64') return new BigUint64Array(copy)
    return dtype === 'uint32' ? new Uint32Array(copy) : dtype === 'float32' ? new Float32Array(copy) : new Float64Array(copy)
  },
}
