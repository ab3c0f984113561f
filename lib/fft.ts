import { native } from './native'
import { scope } from './context'
import { own } from './object'
import { MemoryPointer } from './memory/pointer'
import { alloc } from './memory/allocator'
import type { Stream } from './stream/stream'
import { streamOption } from './stream/handle'
import { count, describe, options as checkOptions } from './validate'

/**
 * cuFFT's transform types: complex to complex, real to complex and complex to real, in single
 * (`c2c`, `r2c`, `c2r`: complex64 and float32) and double precision (`z2z`, `d2z`, `z2d`).
 */
export type FftType = 'c2c' | 'r2c' | 'c2r' | 'z2z' | 'd2z' | 'z2d'

/** A transform's direction: `'forward'` (`CUFFT_FORWARD`, -1) or `'inverse'` (`CUFFT_INVERSE`, 1). */
export type FftDirection = 'forward' | 'inverse' | -1 | 1

/**
 * cufftPlanMany's advanced data layout of one side, in elements of that side's type: point `x`
 * of batch `b` is element `b · dist + stride · (…(x₀ · embed₁ + x₁) · embed₂ + x₂…)`.
 */
export interface FftLayout {
  /** The sizes of the array the data is embedded in (its first is not used). */
  embed: readonly number[]
  /** Elements between two consecutive points; 1 by default. */
  stride?: number
  /** Elements between the first points of two consecutive batches; by default the embed's product times the stride. */
  dist?: number
}

/** What a {@link FftPlan} is made of. */
export interface FftPlanOptions {
  /** The transform's sizes, 1 to 3 of them, the last varying fastest (C order). */
  shape: number | readonly number[]
  /** The transform's type. */
  type: FftType
  /** How many transforms one run does, one after another in memory; 1 by default. */
  batch?: number
  /**
   * The input's layout (cufftPlanMany's `inembed`, `istride`, `idist`); by default contiguous
   * (the basic layout, in which the real side of an in-place real transform is padded to
   * `2·(n/2+1)` on the last axis). Give both layouts or neither.
   */
  input?: FftLayout
  /** The output's layout (cufftPlanMany's `onembed`, `ostride`, `odist`); see `input`. */
  output?: FftLayout
}

/** Options of a run. */
export interface FftExecOptions {
  /** Forward or inverse; by default forward, and inverse for a complex-to-real plan. */
  direction?: FftDirection
  /** The stream to run on; the current stream of the plan's device by default. */
  stream?: Stream
}

const TYPES: readonly string[] = ['c2c', 'r2c', 'c2r', 'z2z', 'd2z', 'z2d']

function pointer(name: string, v: unknown): MemoryPointer {
  if (!(v instanceof MemoryPointer)) throw new TypeError(`${name} must be a MemoryPointer, got ${describe(v)}`)
  return v
}

function directionCode(d: unknown, type: FftType): number {
  if (d === undefined) return type === 'c2r' || type === 'z2d' ? 1 : -1
  if (d === 'forward' || d === -1) return -1
  if (d === 'inverse' || d === 1) return 1
  throw new TypeError(`direction must be 'forward', 'inverse', -1 or 1, got ${describe(d)}`)
}

function layoutNumbers(shape: readonly number[], input?: FftLayout, output?: FftLayout): Float64Array {
  if (input === undefined && output === undefined) return new Float64Array(0)
  if (input === undefined || output === undefined) throw new TypeError('give both layouts, input and output, or neither')
  const out: number[] = []
  for (const [name, l] of [['input', input], ['output', output]] as const) {
    checkOptions<FftLayout>(`the ${name} layout`, l, ['embed', 'stride', 'dist'])
    if (!Array.isArray(l.embed)) throw new TypeError(`the ${name} layout's embed must be an array of sizes, got ${describe(l.embed)}`)
    if (l.embed.length !== shape.length) throw new RangeError(`the ${name} layout's embed has ${l.embed.length} sizes, the shape ${shape.length}`)
    const embed = l.embed.map((v) => count(`${name}.embed`, v))
    const stride = count(`${name}.stride`, l.stride ?? 1)
    const dist = count(`${name}.dist`, l.dist ?? embed.reduce((a, b) => a * b, 1) * stride)
    out.push(...embed, stride, dist)
  }
  return Float64Array.from(out)
}

/**
 * A cuFFT plan (CuPy's `cupy.cuda.cufft.PlanNd`; {@link FftPlan1d} is `Plan1d`): a transform of
 * one type, shape and batch on the current device, made once and run many times. Its work area
 * is allocated when it is made, from the current allocator (`alloc`: the default memory pool
 * unless `setAllocator` or `usingAllocator` says otherwise), as CuPy's is, and held until the
 * plan is destroyed. Transforms are unnormalised, as cuFFT's are: an inverse of a forward gives
 * `n·x`. On the simulator the same transforms run on the host, in stream order.
 * @throws {TypeError} for options of the wrong kind; {RangeError} for sizes that are not counts
 *   or layouts that do not hold the data; {CudaError} `CUFFT_INVALID_SIZE` for a size or batch of
 *   0 or a rank other than 1 to 3, `CUFFT_INVALID_TYPE` for an unknown type,
 *   `CUFFT_NOT_INITIALIZED` where cuFFT cannot be loaded (the message says where it was looked for).
 */
export class FftPlan {
  #handle: number
  #destroyed = false
  /** The device the plan runs on. */
  readonly device: number
  /** The transform's sizes. */
  readonly shape: readonly number[]
  /** The transform's type. */
  readonly type: FftType
  /** How many transforms a run does. */
  readonly batch: number
  /** The bytes of work area the plan needs. */
  readonly workSize: number
  /** The work area, from the allocator current when the plan was made; null when none is needed. */
  readonly workArea: MemoryPointer | null

  constructor(options: FftPlanOptions) {
    checkOptions<FftPlanOptions>('FftPlan', options, ['shape', 'type', 'batch', 'input', 'output'])
    const { type, input, output } = options
    const shape = typeof options.shape === 'number' ? [options.shape] : options.shape
    if (!Array.isArray(shape)) throw new TypeError(`shape must be a size or an array of sizes, got ${describe(options.shape)}`)
    if (typeof type !== 'string') throw new TypeError(`type must be one of ${TYPES.join(', ')}, got ${describe(type)}`)
    const sizes = shape.map((v) => count('shape', v))
    const batch = count('batch', options.batch ?? 1)
    const layout = layoutNumbers(sizes, input, output)
    const device = scope().device
    const handle = native.fftPlanCreate(this, device, type, Float64Array.from(sizes), batch, layout)
    this.#handle = handle
    this.device = device
    this.shape = Object.freeze(sizes)
    this.type = type.toLowerCase() as FftType
    this.batch = batch
    this.workSize = native.fftPlanWorkSize(handle)
    this.workArea = null
    if (this.workSize > 0) {
      try {
        const area = alloc(this.workSize)
        if (area.deviceId !== device) throw new RangeError(`the allocator gave memory of device ${area.deviceId} for a plan of device ${device}`)
        native.fftPlanSetWorkArea(handle, own(area.mem), area.byteOffset)
        this.workArea = area
      } catch (e) {
        this.destroy()
        throw e
      }
    }
  }

  /**
   * Runs the transform from `input` to `output` (the same pointer: in place) on the current
   * stream of the plan's device, or `options.stream`. Both must hold what the plan reads and
   * writes for its type, shape, batch and layout, aligned to their elements.
   * @throws {TypeError} for arguments of the wrong kind; {RangeError} for memory too small for
   *   the plan, input and output that overlap without being the same, or a real plan run the
   *   other way; {CudaError} `CUFFT_UNALIGNED_DATA` for misaligned data, `CUDA_ERROR_INVALID_VALUE`
   *   for freed memory or memory or a stream of another device, `CUDA_ERROR_INVALID_HANDLE` once
   *   destroyed.
   */
  exec(input: MemoryPointer, output: MemoryPointer, options: FftExecOptions = {}): void {
    checkOptions<FftExecOptions>('exec', options, ['direction', 'stream'])
    const i = pointer('input', input)
    const o = pointer('output', output)
    const direction = directionCode(options.direction, this.type)
    const s = streamOption(options.stream, this.device)
    native.fftPlanExec(this.#handle, s, own(i.mem), i.byteOffset, own(o.mem), o.byteOffset, direction)
  }

  /**
   * CuPy's `plan.fft(a, out, direction)`: {@link FftPlan.exec} on the current stream.
   * @throws as {@link FftPlan.exec} does.
   */
  fft(input: MemoryPointer, output: MemoryPointer, direction?: FftDirection): void {
    this.exec(input, output, { direction })
  }

  /** Destroys the plan (`cufftDestroy`); its work area goes back to its allocator. Again: nothing. */
  destroy(): void {
    if (this.#destroyed) return
    this.#destroyed = true
    native.fftPlanDestroy(this.#handle)
  }

  /** `using plan = new FftPlan(…)` destroys it at the end of the block. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}

/**
 * CuPy's `cupy.cuda.cufft.Plan1d(nx, fft_type, batch)`: `batch` one-dimensional transforms of
 * `nx` points, one after another in memory.
 * @throws as {@link FftPlan} does.
 */
export class FftPlan1d extends FftPlan {
  constructor(nx: number, type: FftType, batch = 1) {
    super({ shape: [nx], type, batch })
  }
}

/**
 * cuFFT (CuPy's `cupy.cuda.cufft`), loaded at run time: `new cufft.Plan1d(n, 'c2c')`,
 * `new cufft.PlanNd({ shape, type, batch })`, then `plan.exec(input, output, { direction })`.
 */
export const cufft = {
  /** A plan of any rank from 1 to 3 ({@link FftPlan}). */
  Plan: FftPlan,
  /** CuPy's `PlanNd` ({@link FftPlan}). */
  PlanNd: FftPlan,
  /** CuPy's `Plan1d` ({@link FftPlan1d}). */
  Plan1d: FftPlan1d,
  /** `CUFFT_FORWARD`. */
  FORWARD: -1 as const,
  /** `CUFFT_INVERSE`. */
  INVERSE: 1 as const,
}
