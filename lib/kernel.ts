import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import type { CompileOutput, NativeFunction, NativeModule } from '../native'
import { backend } from './backend'
import { scope } from './context'
import { Device, props } from './device'
import { CudaError } from './errors'
import { MemoryPointer } from './memory'
import { native, withId } from './native'
import { getCurrentStream, Stream } from './stream'
import { traced } from './trace'
import { describe, func } from './validate'

/** C types a scalar kernel argument can have. */
export type ScalarType = 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float32' | 'float64'

const SIZES: Record<ScalarType, number> = { int8: 1, uint8: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, int64: 8, uint64: 8, float32: 4, float64: 8 }

/** A scalar kernel argument with its C type stated (see `f32`, `i32`, ...). */
export class Scalar {
  /** @throws {TypeError} for an unknown type, or a value that is not a number (or bigint, for 64-bit integers). */
  constructor(
    /** The argument's C type. */
    readonly type: ScalarType,
    /** The value, checked against the type's range when the kernel is launched. */
    readonly value: number | bigint,
  ) {
    if (!(type in SIZES)) throw new TypeError(`unknown scalar type ${describe(type)}`)
    const big = type === 'int64' || type === 'uint64'
    if (typeof value !== 'number' && !(big && typeof value === 'bigint')) {
      throw new TypeError(`a ${type} argument must be a number${big ? ' or bigint' : ''}, got ${describe(value)}`)
    }
  }

  /** Bytes the argument takes: 1, 2, 4 or 8. */
  get size(): number {
    return SIZES[this.type]
  }

  /**
   * The little-endian bytes the kernel receives.
   * @throws {RangeError} when an integer type's value is fractional or out of its range.
   */
  bytes(): Uint8Array {
    const b = new Uint8Array(this.size)
    this._write(new DataView(b.buffer), 0)
    return b
  }

  /** @internal Writes the bytes at `at` of `v` (the launch packs arguments with no allocation). */
  _write(v: DataView, at: number): void {
    const n = Number(this.value)
    const int = (lo: number, hi: number) => {
      if (!Number.isInteger(n) || n < lo || n > hi) throw new RangeError(`${this.value} does not fit ${this.type}`)
    }
    switch (this.type) {
      case 'int8': int(-128, 127); v.setInt8(at, n); break
      case 'uint8': int(0, 255); v.setUint8(at, n); break
      case 'int16': int(-32768, 32767); v.setInt16(at, n, true); break
      case 'uint16': int(0, 65535); v.setUint16(at, n, true); break
      case 'int32': int(-(2 ** 31), 2 ** 31 - 1); v.setInt32(at, n, true); break
      case 'uint32': int(0, 2 ** 32 - 1); v.setUint32(at, n, true); break
      case 'float32': v.setFloat32(at, n, true); break
      case 'float64': v.setFloat64(at, n, true); break
      case 'int64': v.setBigInt64(at, BigInt(this.value), true); break
      case 'uint64': v.setBigUint64(at, BigInt(this.value), true); break
    }
  }
}

/** `x` as a `float` kernel argument: `new Scalar('float32', x)`. */
export const f32 = (x: number) => new Scalar('float32', x)
/** `x` as a `double` kernel argument: `new Scalar('float64', x)`. */
export const f64 = (x: number) => new Scalar('float64', x)
/** `x` as a `int8_t` (`signed char`) kernel argument: `new Scalar('int8', x)`. */
export const i8 = (x: number) => new Scalar('int8', x)
/** `x` as a `uint8_t` (`unsigned char`) kernel argument: `new Scalar('uint8', x)`. */
export const u8 = (x: number) => new Scalar('uint8', x)
/** `x` as a `int16_t` (`short`) kernel argument: `new Scalar('int16', x)`. */
export const i16 = (x: number) => new Scalar('int16', x)
/** `x` as a `uint16_t` (`unsigned short`) kernel argument: `new Scalar('uint16', x)`. */
export const u16 = (x: number) => new Scalar('uint16', x)
/** `x` as a `int32_t` (`int`) kernel argument: `new Scalar('int32', x)`. */
export const i32 = (x: number) => new Scalar('int32', x)
/** `x` as a `uint32_t` (`unsigned int`) kernel argument: `new Scalar('uint32', x)`. */
export const u32 = (x: number) => new Scalar('uint32', x)
/** `x` as a `int64_t` (`long long`) kernel argument: `new Scalar('int64', x)`. */
export const i64 = (x: number | bigint) => new Scalar('int64', x)
/** `x` as a `uint64_t` (`unsigned long long`) kernel argument: `new Scalar('uint64', x)`. */
export const u64 = (x: number | bigint) => new Scalar('uint64', x)

/** A kernel argument: a device pointer, a typed scalar, or a bigint (passed as 8 bytes). */
export type KernelArg = MemoryPointer | Scalar | bigint

/** A grid or block size: `n`, or `[x, y?, z?]`. */
export type Dim3 = number | readonly [number, number?, number?]

/** A host implementation the simulator runs in the kernel's place, in stream order. */
export type Simulate = (args: readonly KernelArg[], grid: [number, number, number], block: [number, number, number]) => void

// --- parameter kinds, read from the source's signature -------------------------------------

interface Param {
  pointer: boolean
  /** Bytes, where the type is a known scalar; undefined otherwise. */
  size?: number
  text: string
}

const SCALAR_BYTES: [RegExp, number][] = [
  [/\b(double|int64_t|uint64_t|long\s+long|size_t|ptrdiff_t)\b/, 8],
  [/\b(float|int|unsigned|int32_t|uint32_t)\b/, 4],
  [/\b(short|int16_t|uint16_t|half|__half|__nv_bfloat16)\b/, 2],
  [/\b(char|int8_t|uint8_t|bool)\b/, 1],
]

/** The parameters of `extern "C" __global__ void name(...)` in `code`, if it can be found. */
export function parseSignature(code: string, name: string): Param[] | undefined {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const m = new RegExp(`__global__\\s+(?:__launch_bounds__\\s*\\([^)]*\\)\\s*)?void\\s+${esc}\\s*\\(([^)]*)\\)`).exec(code)
  if (!m) return undefined
  const list = m[1].replace(/\/\*[\s\S]*?\*\//g, '').trim()
  if (list === '' || list === 'void') return []
  return list.split(',').map((raw) => {
    const text = raw.trim()
    if (text.includes('*') || text.includes('[')) return { pointer: true, size: 8, text }
    const hit = SCALAR_BYTES.find(([re]) => re.test(text))
    return { pointer: false, size: hit?.[1], text }
  })
}

// The launch's scratch, reused by every launch on this thread: the arguments' bytes (the driver
// copies them at the launch) and the shape: grid x y z, block x y z, shared memory, the argument
// count, then each argument's size. Packing here costs no allocation per launch.
let argBytes = new Uint8Array(1024)
let argView = new DataView(argBytes.buffer)
let shape = new Uint32Array(8 + 32)

/** Writes argument `i` at `at` of the scratch (growing it as needed); returns its size. */
function packArg(a: KernelArg, i: number, name: string, p: Param | undefined, at: number): number {
  if (at + 8 > argBytes.length) {
    const bigger = new Uint8Array(argBytes.length * 2)
    bigger.set(argBytes)
    argBytes = bigger
    argView = new DataView(bigger.buffer)
  }
  if (a instanceof MemoryPointer) {
    if (p && !p.pointer) throw new TypeError(`argument ${i} of ${name} is \`${p.text}\`, not a pointer, but a MemoryPointer was given`)
    argView.setBigUint64(at, a.ptr, true)
    return 8
  }
  if (a instanceof Scalar) {
    if (p?.pointer) throw new TypeError(`argument ${i} of ${name} is the pointer \`${p.text}\`, but a ${a.type} scalar was given`)
    if (p?.size !== undefined && p.size !== a.size) {
      throw new TypeError(`argument ${i} of ${name} is \`${p.text}\` (${p.size} bytes), but a ${a.type} (${a.size} bytes) was given`)
    }
    a._write(argView, at)
    return a.size
  }
  if (typeof a === 'bigint') {
    argView.setBigUint64(at, BigInt.asUintN(64, a), true)
    return 8
  }
  if (typeof a === 'number') {
    throw new TypeError(`argument ${i} of ${name} is a plain number: say its C type, as f32(x), f64(x), i32(x), u32(x), i64(x) or u64(x)`)
  }
  throw new TypeError(`argument ${i} of ${name} must be a MemoryPointer, a typed scalar (f32(x), i32(x), ...) or a bigint, got ${describe(a)}`)
}

/** Packs every argument (checking each) and the launch's shape into the scratch. */
function pack(args: readonly KernelArg[], name: string, params: Param[] | undefined, grid: number[], block: number[], sharedMem: number): void {
  if (shape.length < 8 + args.length) shape = new Uint32Array(8 + args.length)
  let at = 0
  for (let i = 0; i < args.length; i++) {
    const n = packArg(args[i], i, name, params?.[i], at)
    shape[8 + i] = n
    at += n
  }
  shape[0] = grid[0]
  shape[1] = grid[1]
  shape[2] = grid[2]
  shape[3] = block[0]
  shape[4] = block[1]
  shape[5] = block[2]
  shape[6] = sharedMem
  shape[7] = args.length
}

function dim3(name: string, d: unknown): [number, number, number] {
  const v = typeof d === 'number' ? [d] : Array.isArray(d) ? d : undefined
  if (!v || v.length < 1 || v.length > 3) throw new TypeError(`${name} must be a number or [x, y?, z?], got ${describe(d)}`)
  const out = [v[0], v[1] ?? 1, v[2] ?? 1] as [number, number, number]
  for (const x of out) {
    if (typeof x !== 'number') throw new TypeError(`${name} dimensions must be numbers, got ${describe(x)}`)
    if (!Number.isInteger(x) || x < 1 || x > 2 ** 31 - 1) throw new RangeError(`${name} dimensions must be positive integers, got ${x}`)
  }
  return out
}

function checkLaunch(grid: [number, number, number], block: [number, number, number], device: number): void {
  const a = props(device).attributes
  const [bx, by, bz] = block
  const limit = (what: string, v: number, max: number) => {
    if (max && v > max) throw new RangeError(`${what} is ${v}, but device ${device} allows at most ${max}`)
  }
  limit('block x', bx, a.maxBlockDimX)
  limit('block y', by, a.maxBlockDimY)
  limit('block z', bz, a.maxBlockDimZ)
  limit('grid x', grid[0], a.maxGridDimX)
  limit('grid y', grid[1], a.maxGridDimY)
  limit('grid z', grid[2], a.maxGridDimZ)
  if (bx * by * bz > a.maxThreadsPerBlock) {
    throw new RangeError(`a block of ${bx}×${by}×${bz} = ${bx * by * bz} threads is more than device ${device} allows (${a.maxThreadsPerBlock})`)
  }
}

// --- the compile cache ---------------------------------------------------------------------

/** Where compiled kernels are kept between processes (CuPy's `CUPY_CACHE_DIR`). */
export function cacheDir(): string {
  return process.env.CUDA_NODE_CACHE_DIR ?? path.join(homedir(), '.cuda-node', 'kernel_cache')
}

const memoryCache = new Map<string, CompileOutput>()
/** Counts of how this process's kernels were obtained (see {@link kernelCacheStats}). */
export interface KernelCacheStats {
  /** Compiled by NVRTC, found in neither cache. */
  compiles: number
  /** Found in this process's in-memory cache. */
  memoryHits: number
  /** Found in the on-disk cache under {@link cacheDir}. */
  diskHits: number
}

const stats: KernelCacheStats = { compiles: 0, memoryHits: 0, diskHits: 0 }

/** How this process's kernels were obtained: compiled by NVRTC, or found in the caches. A copy. */
export function kernelCacheStats(): Readonly<KernelCacheStats> {
  return { ...stats }
}

interface Source {
  code: string
  options: string[]
  nameExpressions: string[]
  fileName: string
}

function compileCached(src: Source, arch: string): CompileOutput {
  const [major, minor] = native.nvrtcVersion()
  const key = createHash('sha256')
    .update(JSON.stringify([`nvrtc ${major}.${minor}`, arch, src.options, src.nameExpressions, src.fileName, src.code]))
    .digest('hex')
  const inMemory = memoryCache.get(key)
  if (inMemory) {
    stats.memoryHits++
    return inMemory
  }
  const file = path.join(cacheDir(), `${key}.bin`)
  const fromDisk = readEntry(file)
  if (fromDisk) {
    stats.diskHits++
    memoryCache.set(key, fromDisk)
    return fromDisk
  }
  const out = native.nvrtcCompile(src.code, src.fileName, src.options, src.nameExpressions, arch)
  stats.compiles++
  memoryCache.set(key, out)
  writeEntry(file, out)
  return out
}

// An entry is one line of JSON (what the image is), then the image. A torn or foreign file
// reads as a miss.
function readEntry(file: string): CompileOutput | undefined {
  let data: Buffer
  try {
    data = readFileSync(file)
  } catch {
    return undefined
  }
  const nl = data.indexOf(10)
  if (nl < 0) return undefined
  try {
    const head = JSON.parse(data.subarray(0, nl).toString('utf8'))
    const image = data.subarray(nl + 1)
    if (head.magic !== 'cuda-node kernel 1' || image.length !== head.length) return undefined
    return { image: Buffer.from(image), isCubin: head.isCubin, log: head.log, lowered: head.lowered }
  } catch {
    return undefined
  }
}

// Written to a unique temporary file and renamed into place: rename is atomic, so processes
// writing the same entry at once never leave a torn file, and readers see old or new, whole.
function writeEntry(file: string, out: CompileOutput): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true })
    const head = JSON.stringify({ magic: 'cuda-node kernel 1', length: out.image.length, isCubin: out.isCubin, log: out.log, lowered: out.lowered })
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
    writeFileSync(tmp, Buffer.concat([Buffer.from(head + '\n'), out.image]))
    renameSync(tmp, file)
  } catch {
    // A cache that cannot be written only costs a compile next time.
  }
}

// --- modules and kernels -------------------------------------------------------------------

/** What a {@link RawModule} is made from. */
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

function strings(name: string, v: unknown): string[] {
  if (v === undefined) return []
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new TypeError(`${name} must be an array of strings`)
  return [...v]
}

/**
 * A module of kernels (CuPy's `RawModule`): CUDA C++ compiled with NVRTC on first use for the
 * device's architecture (and cached in memory and on disk), or PTX, or a cubin.
 */
export class RawModule {
  readonly #source: Source | undefined
  readonly #image: Uint8Array | undefined
  readonly #loaded = new Map<number, { module: NativeModule; lowered: Record<string, string> }>()

  /** @throws {TypeError} for a malformed source. Compilation waits for first use. */
  constructor(source: ModuleSource) {
    if (typeof source !== 'object' || source === null) throw new TypeError('RawModule takes { code }, { ptx } or { cubin }')
    if ('code' in source) {
      if (typeof source.code !== 'string') throw new TypeError('code must be a string of CUDA C++')
      this.#source = {
        code: source.code,
        options: strings('options', source.options),
        nameExpressions: strings('nameExpressions', source.nameExpressions),
        fileName: source.fileName ?? 'kernel.cu',
      }
    } else if ('ptx' in source) {
      if (typeof source.ptx !== 'string') throw new TypeError('ptx must be a string')
      this.#image = Buffer.from(source.ptx + '\0')
    } else if ('cubin' in source) {
      if (!(source.cubin instanceof Uint8Array)) throw new TypeError('cubin must be a Uint8Array')
      this.#image = source.cubin
    } else throw new TypeError('RawModule takes { code }, { ptx } or { cubin }')
  }

  /** @internal The CUDA C++ source, if the module was made from it. */
  get _code(): string | undefined {
    return this.#source?.code
  }

  /** @internal Compiles (through the cache) and loads the module on `device`. */
  _load(device: number): { module: NativeModule; lowered: Record<string, string> } {
    let m = this.#loaded.get(device)
    if (m === undefined) {
      if (this.#source) {
        const out = compileCached(this.#source, `sm_${new Device(device).computeCapability}`)
        m = { module: native.NativeModule.load(device, out.image), lowered: out.lowered }
      } else m = { module: native.NativeModule.load(device, this.#image!), lowered: {} }
      this.#loaded.set(device, m)
    }
    return m
  }

  /** The mangled name NVRTC gave a name expression (CuPy's `get_lowered_name`). */
  getLoweredName(nameExpression: string, device = scope().device): string {
    const lowered = this._load(device).lowered[nameExpression]
    if (lowered === undefined) throw new CudaError(`${nameExpression} was not given in nameExpressions`, 'NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID')
    return lowered
  }

  /** The kernel `name` (a name expression given at construction, or an `extern "C"` name). */
  getFunction(name: string): RawKernel {
    if (typeof name !== 'string' || name === '') throw new TypeError('getFunction takes a kernel name')
    return new RawKernel(this, name)
  }
}

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
 * A kernel (CuPy's `RawKernel`): `new RawKernel(code, name)` compiles on first use; launch it
 * with typed arguments on the current stream or a given one.
 */
export class RawKernel {
  /** The kernel's name, or the name expression it was looked up by (CuPy's `RawKernel.name`). */
  readonly name: string
  readonly #module: RawModule
  readonly #simulate: Simulate | undefined
  /** Per device: the loaded kernel, and its handle for the hot `kernelLaunch`. */
  readonly #functions = new Map<number, { n: NativeFunction; id: number }>()
  #params: Param[] | undefined | null = null

  /**
   * @param code CUDA C++ source (compiled on first use) or a module that holds the kernel.
   * @param name the kernel's `extern "C"` name or one of its name expressions.
   * @throws {TypeError} for an empty name or malformed options.
   */
  constructor(code: string | RawModule, name: string, options: RawKernelOptions = {}) {
    if (typeof name !== 'string' || name === '') throw new TypeError('a RawKernel needs the kernel name')
    if (typeof options !== 'object' || options === null) throw new TypeError('RawKernel options must be an object')
    this.#module = code instanceof RawModule ? code : new RawModule({ code, options: options.options, nameExpressions: options.nameExpressions })
    this.#simulate = options.simulate === undefined ? undefined : (func('simulate', options.simulate) as Simulate)
    this.name = name
  }

  #params_(): Param[] | undefined {
    if (this.#params === null) {
      const code = this.#module._code
      this.#params = code === undefined ? undefined : parseSignature(code, this.name)
    }
    return this.#params
  }

  #function(device: number): NativeFunction {
    return this.#loaded(device).n
  }

  #loaded(device: number): { n: NativeFunction; id: number } {
    let l = this.#functions.get(device)
    if (l === undefined) {
      const { module, lowered } = this.#module._load(device)
      l = withId(module.getFunction(lowered[this.name] ?? this.name))
      this.#functions.set(device, l)
    }
    return l
  }


  /** The kernel's attributes on the current device (numRegs, maxThreadsPerBlock, ...). */
  get attributes(): FunctionAttributes {
    if (backend().name === 'sim') {
      const a = new Device().attributes
      return { maxThreadsPerBlock: a.maxThreadsPerBlock, sharedSizeBytes: 0, constSizeBytes: 0, localSizeBytes: 0, numRegs: 0, ptxVersion: 0, binaryVersion: 0, maxDynamicSharedSizeBytes: a.maxSharedMemoryPerBlock }
    }
    return this.#function(scope().device).attributes()
  }

  /**
   * Raises (or lowers) the dynamic shared memory the kernel may use on the current device (CuPy's
   * `max_dynamic_shared_size_bytes`); does nothing on the simulator.
   * @throws {RangeError} unless `bytes` is a non-negative integer; {CudaError} past the device's limit.
   */
  setMaxDynamicSharedSize(bytes: number): void {
    if (typeof bytes !== 'number') throw new TypeError(`bytes must be a number, got ${describe(bytes)}`)
    if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError(`bytes must be a non-negative integer, got ${bytes}`)
    if (backend().name === 'sim') return
    this.#function(scope().device).setMaxDynamicSharedSize(bytes)
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
    const { sharedMem = 0, stream } = options
    if (typeof sharedMem !== 'number' || !Number.isInteger(sharedMem) || sharedMem < 0) throw new RangeError(`sharedMem must be a non-negative integer, got ${describe(sharedMem)}`)
    if (stream !== undefined && !(stream instanceof Stream)) throw new TypeError('stream must be a Stream')
    const s = stream ?? getCurrentStream()
    const device = s.deviceId
    checkLaunch(g, b, device)
    const params = this.#params_()
    if (params && params.length !== args.length) {
      throw new TypeError(`${this.name} takes ${params.length} arguments (${params.map((p) => p.text).join(', ')}), ${args.length} given`)
    }
    pack(args, this.name, params, g, b, sharedMem)
    if (backend().name === 'sim') return this.#simulated(s, args, g, b)
    const id = this.#loaded(device).id
    traced(s, () => `${this.name} <<<${g.join('×')}, ${b.join('×')}>>>`, 'kernel', () => native.kernelLaunch(id, s._id, shape, argBytes))
  }

  // The simulator has no compiler: the kernel's host implementation runs in its place, once the
  // stream's earlier work is done, so it sees the memory as the kernel would.
  #simulated(s: Stream, args: readonly KernelArg[], grid: [number, number, number], block: [number, number, number]): void {
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
