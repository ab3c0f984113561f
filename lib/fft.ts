import { native } from './native'
import { runWith, scope } from './context'
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

/**
 * `cudaDataType`'s names as cuFFT's Xt API takes them ({@link XtPlanNd}): real (`R`) or complex
 * (`C`) numbers in half (`16F`), bfloat16 (`16BF`), single (`32F`) or double (`64F`) precision.
 */
export type FftDataType = 'CUDA_R_16F' | 'CUDA_C_16F' | 'CUDA_R_16BF' | 'CUDA_C_16BF' | 'CUDA_R_32F' | 'CUDA_C_32F' | 'CUDA_R_64F' | 'CUDA_C_64F'

/**
 * A load or store callback (CuPy's `cupy.fft.config.set_cufft_callbacks`, done as CUDA 12.6+ does
 * it: an LTO callback): CUDA C source defining the `__device__` function `name` with cuFFT's LTO
 * callback signature for the plan's type, for example for a c2c load
 * `__device__ float2 name(void *dataIn, unsigned long long offset, void *callerInfo, void *sharedPtr)`
 * and for a c2c store
 * `__device__ void name(void *dataOut, unsigned long long offset, float2 value, void *callerInfo, void *sharedPtr)`
 * (`offset` counts elements). NVRTC compiles it to LTO-IR (`-dlto`) and cuFFT links it into the
 * plan's kernels with nvJitLink.
 */
export interface FftCallback {
  /** The `__device__` function's name. */
  name: string
  /** CUDA C source defining it (no headers: declare what it uses). */
  source: string
  /** Memory handed to the callback as `callerInfo` (its address); the plan holds it while it lives. */
  callerInfo?: MemoryPointer
}

/** The callbacks of a plan: one run on each element read, one on each element written. */
export interface FftCallbacks {
  /** Runs on each input element the plan reads; returns the element to use. */
  load?: FftCallback
  /** Runs on each output element the plan writes; writes it (or not). */
  store?: FftCallback
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
  /**
   * Devices to spread the plan over (CuPy's `Plan1d(..., devices=[…])`, `cufftXtSetGPUs`): two
   * to 16 distinct ordinals, or a count `n` for devices 0 to n-1. One axis, `c2c` or `z2z`, no
   * layouts or callbacks; one transform (`batch` 1) spreads over 2, 4, 8 or 16 devices and has a
   * power of 2 of at least 64 points (128 on 8 devices, 1024 on 16), a batch gives each device
   * one transform at least. A run copies the input into buffers on the devices, runs there and
   * copies the result back, and returns when it is done.
   */
  devices?: number | readonly number[]
  /** LTO callbacks (GPU only: the simulator runs no CUDA C and throws `CUFFT_NOT_SUPPORTED`). */
  callbacks?: FftCallbacks
}

/**
 * What a {@link XtPlanNd} is made of (CuPy's `XtPlanNd`, cufftXtMakePlanMany): a plan's
 * options with the input, output and execution types in place of `type`.
 */
export interface XtPlanOptions extends Omit<FftPlanOptions, 'type' | 'devices'> {
  /** The input's numbers: complex for c2c and c2r, real for r2c. */
  inputType: FftDataType
  /** The output's numbers: complex for c2c and r2c, real for c2r. */
  outputType: FftDataType
  /** The precision the transform runs in: the complex type of the same precision. */
  executionType: FftDataType
}

/** Input or output of a run: device memory, or (for a plan over several devices) host memory. */
export type FftData = MemoryPointer | ArrayBufferView

/** Options of a run. */
export interface FftExecOptions {
  /** Forward or inverse; by default forward, and inverse for a complex-to-real plan. */
  direction?: FftDirection
  /** The stream to run on; the current stream of the plan's device by default. */
  stream?: Stream
}

const TYPES: readonly string[] = ['c2c', 'r2c', 'c2r', 'z2z', 'd2z', 'z2d']
const KEYS = ['shape', 'type', 'batch', 'input', 'output', 'devices', 'callbacks'] as const
const XT_KEYS = ['shape', 'batch', 'input', 'output', 'callbacks', 'inputType', 'outputType', 'executionType'] as const

function callbackStrings(c: FftCallbacks | undefined): { strings: string[]; info: Float64Array } {
  if (c === undefined) return { strings: [], info: new Float64Array(0) }
  checkOptions<FftCallbacks>('callbacks', c, ['load', 'store'])
  const strings: string[] = []
  const info: number[] = []
  for (const which of ['load', 'store'] as const) {
    const cb = c[which]
    if (cb === undefined) {
      strings.push('', '')
      info.push(-1, 0)
      continue
    }
    checkOptions<FftCallback>(`the ${which} callback`, cb, ['name', 'source', 'callerInfo'])
    if (typeof cb.name !== 'string') throw new TypeError(`the ${which} callback's name must be a string, got ${describe(cb.name)}`)
    if (typeof cb.source !== 'string' || cb.source === '') throw new TypeError(`the ${which} callback's source must be CUDA C, got ${describe(cb.source)}`)
    strings.push(cb.name, cb.source)
    if (cb.callerInfo === undefined) info.push(-1, 0)
    else {
      const p = pointer(`the ${which} callback's callerInfo`, cb.callerInfo)
      info.push(own(p.mem), p.byteOffset)
    }
  }
  return { strings, info: Float64Array.from(info) }
}

/** The transform an Xt plan's types make, by their kinds (for the default direction). */
function xtKind(input: string, output: string, execution: string): FftType {
  const double = /64F$/i.test(execution)
  const [i, o] = [/^CUDA_C_/i.test(input), /^CUDA_C_/i.test(output)]
  if (i && !o) return double ? 'z2d' : 'c2r'
  if (!i && o) return double ? 'd2z' : 'r2c'
  return double ? 'z2z' : 'c2c'
}

function deviceList(d: number | readonly number[]): number[] {
  if (typeof d === 'number') return Array.from({ length: count('devices', d) }, (_, i) => i)
  if (!Array.isArray(d)) throw new TypeError(`devices must be a count or an array of device ordinals, got ${describe(d)}`)
  return d.map((v) => count('devices', v))
}

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
 * With `devices` the plan spreads over several devices (see {@link FftPlanOptions.devices}); with
 * `callbacks` cuFFT runs CUDA C on each element read or written ({@link FftCallback}).
 * @throws {TypeError} for options of the wrong kind; {RangeError} for sizes that are not counts
 *   or layouts that do not hold the data; {CudaError} `CUFFT_INVALID_SIZE` for a size or batch of
 *   0 or a rank other than 1 to 3, `CUFFT_INVALID_TYPE` for an unknown type,
 *   `CUFFT_NOT_INITIALIZED` where cuFFT cannot be loaded (the message says where it was looked for);
 *   for `devices`, `CUFFT_INVALID_DEVICE` for a device named twice, `CUFFT_INVALID_VALUE` for fewer
 *   than two or more than 16, `CUFFT_INVALID_SIZE` for sizes cuFFT does not spread; for
 *   `callbacks`, `NVRTC_ERROR_COMPILATION` with the log, `CUFFT_NOT_SUPPORTED` on the simulator.
 */
export class FftPlan {
  #handle!: number
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

  /** The devices the plan runs on: its one device, or those a multi-device plan spreads over. */
  readonly devices: readonly number[]
  /** An Xt plan's input, output and execution types; null for a plan of a classic type. */
  readonly xtTypes: readonly [FftDataType, FftDataType, FftDataType] | null
  /** A multi-device plan's work area on each device (`workArea` is then null). */
  readonly workAreas: readonly MemoryPointer[]
  /** A multi-device plan's buffers (and scratch buffers) on each device, kept while it lives. */
  #buffers: MemoryPointer[] = []
  #multi = false

  constructor(options: FftPlanOptions) {
    const xt = options !== null && typeof options === 'object' && 'inputType' in options
    checkOptions<FftPlanOptions>(xt ? 'XtPlanNd' : 'FftPlan', options, (xt ? XT_KEYS : KEYS) as any)
    const { input, output } = options
    const shape = typeof options.shape === 'number' ? [options.shape] : options.shape
    if (!Array.isArray(shape)) throw new TypeError(`shape must be a size or an array of sizes, got ${describe(options.shape)}`)
    const sizes = shape.map((v) => count('shape', v))
    const batch = count('batch', options.batch ?? 1)
    const layout = layoutNumbers(sizes, input, output)
    const device = scope().device
    let types: string[]
    let type: FftType
    if (xt) {
      const o = options as unknown as XtPlanOptions
      types = [o.inputType, o.outputType, o.executionType]
      types.forEach((t, k) => {
        if (typeof t !== 'string') throw new TypeError(`${['inputType', 'outputType', 'executionType'][k]} must be a cudaDataType name such as 'CUDA_C_16F', got ${describe(t)}`)
      })
      type = xtKind(types[0], types[1], types[2])
    } else {
      if (typeof options.type !== 'string') throw new TypeError(`type must be one of ${TYPES.join(', ')}, got ${describe(options.type)}`)
      types = [options.type]
      type = options.type.toLowerCase() as FftType
    }
    this.shape = Object.freeze(sizes)
    this.type = type
    this.batch = batch
    this.xtTypes = xt ? (Object.freeze(types.map((t) => t.toUpperCase())) as any) : null
    this.workArea = null
    if (options.devices !== undefined) {
      const devices = deviceList(options.devices)
      if (sizes.length !== 1) throw new RangeError(`a plan over several devices has one axis, got ${sizes.length}`)
      if (layout.length > 0 || options.callbacks !== undefined) throw new TypeError('a plan over several devices takes no layouts or callbacks')
      this.#handle = native.fftMultiPlanCreate(this, Float64Array.from(devices), types[0], sizes[0], batch)
      this.#multi = true
      this.device = devices[0]
      this.devices = Object.freeze(devices)
      const got = native.fftMultiPlanSizes(this.#handle)
      const n = devices.length
      const [work, share, scratch] = [got.slice(0, n), got.slice(n, 2 * n), got[2 * n] === 1]
      this.workSize = work.reduce((a, b) => a + b, 0)
      const made: MemoryPointer[] = []
      const on = (d: number, bytes: number) => {
        const p = runWith({ device: d }, () => alloc(Math.max(bytes, 1)))
        made.push(p)
        return p
      }
      let areas: MemoryPointer[] = []
      try {
        areas = devices.map((d, k) => on(d, work[k]))
        const data = devices.map((d, k) => on(d, share[k]))
        const spare = scratch ? devices.map((d, k) => on(d, share[k])) : []
        const h = (list: MemoryPointer[]) => Float64Array.from(list.map((p) => own(p.mem)))
        const o = (list: MemoryPointer[]) => Float64Array.from(list.map((p) => p.byteOffset))
        native.fftMultiPlanSetAreas(this.#handle, h(areas), o(areas), h(data), o(data), h(spare), o(spare))
        this.#buffers = [...data, ...spare]
      } catch (e) {
        for (const p of made) p.mem.free()
        this.workAreas = []
        this.destroy()
        throw e
      }
      this.workAreas = Object.freeze(areas)
      return
    }
    const cb = callbackStrings(options.callbacks)
    const handle =
      xt || options.callbacks !== undefined
        ? native.fftPlanCreateEx(this, device, types, Float64Array.from(sizes), batch, layout, cb.strings, cb.info)
        : native.fftPlanCreate(this, device, types[0], Float64Array.from(sizes), batch, layout)
    this.#handle = handle
    this.device = device
    this.devices = Object.freeze([device])
    this.workAreas = Object.freeze([])
    this.workSize = native.fftPlanWorkSize(handle)
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
   * writes for its type, shape, batch and layout, aligned to their elements. A plan over
   * several devices takes memory of one device (run on that device's current stream, or
   * `options.stream`) or host arrays (staged through its first device), and returns once the
   * output is written.
   * @throws {TypeError} for arguments of the wrong kind; {RangeError} for memory too small for
   *   the plan, input and output that overlap without being the same, or a real plan run the
   *   other way; {CudaError} `CUFFT_UNALIGNED_DATA` for misaligned data, `CUDA_ERROR_INVALID_VALUE`
   *   for freed memory or memory or a stream of another device, `CUDA_ERROR_INVALID_HANDLE` once
   *   destroyed, `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` for a multi-device run during a capture.
   */
  exec(input: FftData, output: FftData, options: FftExecOptions = {}): void {
    checkOptions<FftExecOptions>('exec', options, ['direction', 'stream'])
    const direction = directionCode(options.direction, this.type)
    if (this.#multi) {
      this.#execMulti(input, output, direction, options.stream)
      return
    }
    const i = pointer('input', input)
    const o = pointer('output', output)
    const s = streamOption(options.stream, this.device)
    native.fftPlanExec(this.#handle, s, own(i.mem), i.byteOffset, own(o.mem), o.byteOffset, direction)
  }

  /** A multi-device run: device memory of one device, or host memory staged through the plan's first device. */
  #execMulti(input: FftData, output: FftData, direction: number, stream: Stream | undefined): void {
    const host = (v: unknown) => ArrayBuffer.isView(v)
    if (host(input) !== host(output)) throw new TypeError('give input and output both as device memory or both as host memory')
    if (!host(input)) {
      const i = pointer('input', input)
      const o = pointer('output', output)
      const s = streamOption(stream, i.deviceId)
      native.fftMultiPlanExec(this.#handle, s, own(i.mem), i.byteOffset, own(o.mem), o.byteOffset, direction)
      return
    }
    const [hi, ho] = [input as ArrayBufferView, output as ArrayBufferView]
    const bytes = this.shape[0] * this.batch * (this.type === 'z2z' ? 16 : 8)
    for (const [name, v] of [['input', hi], ['output', ho]] as const) {
      if (v.byteLength < bytes) throw new RangeError(`the ${name} holds ${v.byteLength} bytes, the plan reads and writes ${bytes}`)
    }
    runWith({ device: this.device }, () => {
      const staging = alloc(bytes)
      try {
        staging.copyFromHost(hi, bytes)
        const s = streamOption(stream, this.device)
        native.fftMultiPlanExec(this.#handle, s, own(staging.mem), staging.byteOffset, own(staging.mem), staging.byteOffset, direction)
        staging.copyToHost(ho, bytes)
      } finally {
        staging.mem.free()
      }
    })
  }

  /**
   * CuPy's `plan.fft(a, out, direction)`: {@link FftPlan.exec} on the current stream.
   * @throws as {@link FftPlan.exec} does.
   */
  fft(input: FftData, output: FftData, direction?: FftDirection): void {
    this.exec(input, output, { direction })
  }

  /** Destroys the plan (`cufftDestroy`); its work area goes back to its allocator. Again: nothing. */
  destroy(): void {
    if (this.#destroyed) return
    this.#destroyed = true
    // A plan that threw while made may have no handle yet.
    if (this.#handle === undefined) return
    if (this.#multi) {
      native.fftMultiPlanDestroy(this.#handle)
      // The buffers and work areas are the plan's alone (its runs waited for them): back now.
      for (const p of [...this.#buffers, ...this.workAreas]) p.mem.free()
    } else native.fftPlanDestroy(this.#handle)
    this.#buffers = []
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
  constructor(nx: number, type: FftType, batch = 1, options: { devices?: number | readonly number[] } = {}) {
    checkOptions<{ devices?: number | readonly number[] }>('Plan1d', options, ['devices'])
    super(options.devices === undefined ? { shape: [nx], type, batch } : { shape: [nx], type, batch, devices: options.devices })
  }
}

/**
 * CuPy's `cupy.cuda.cufft.XtPlanNd` (cufftXtMakePlanMany, cufftXtExec): a plan whose input,
 * output and execution types are `cudaDataType`s — half (`CUDA_C_16F`, `CUDA_R_16F`) and
 * bfloat16 (`CUDA_C_16BF`, `CUDA_R_16BF`) as well as single and double. cuFFT runs half and
 * bfloat16 transforms of powers of 2 only (bfloat16 on compute capability 8.0 and later). On the
 * simulator the transform is computed in double on the host and each output rounded to the
 * plan's precision (cuFFT computes in half, so results differ by half's rounding).
 * @throws as {@link FftPlan} does; {CudaError} `CUFFT_INVALID_TYPE` for types that make no
 *   transform, `CUFFT_NOT_SUPPORTED` for half or bfloat16 sizes that are not powers of 2.
 */
export class XtPlanNd extends FftPlan {
  constructor(options: XtPlanOptions) {
    super(options as unknown as FftPlanOptions)
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
  /** CuPy's `Plan1d` ({@link FftPlan1d}); with `{ devices }` spread over several devices. */
  Plan1d: FftPlan1d,
  /** CuPy's `XtPlanNd` ({@link XtPlanNd}): half, bfloat16, single and double by `cudaDataType`. */
  XtPlanNd,
  /** `CUFFT_FORWARD`. */
  FORWARD: -1 as const,
  /** `CUFFT_INVERSE`. */
  INVERSE: 1 as const,
}
