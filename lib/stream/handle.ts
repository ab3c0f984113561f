// Streams as the rest of the layer reaches them: the handle of a Stream argument, and of the
// current stream, without the Stream class itself (which imports Event and Graph, which need
// these). The default streams are one Stream each (`Stream.null`, `Stream.ptds`) whose native
// stream is the current device's: the addon keeps each device's default streams under handles
// its rule gives (`constants.stream`), made at their first use there.
import { scope, type Scope } from '../context'
import { constants } from '../native'
import { NativeObject, handleOf, own, ownDevice } from '../object'
import { describe } from '../validate'

/**
 * The stream protocol's key: an object whose method under this symbol returns `[version, handle]`
 * (version 0, the `CUstream` as a bigint) offers its stream, as CuPy's, PyTorch's, numba-cuda's
 * and RMM's `__cuda_stream__` returns `(version, handle)`. `Symbol.for('cuda.stream')`, from the
 * global registry, so that another package offers or reads a stream without importing this one.
 */
export const CUDA_STREAM: unique symbol = Symbol.for('cuda.stream')

/** An object that offers its CUDA stream by the stream protocol (see {@link CUDA_STREAM}). */
export interface CudaStreamProtocol {
  /** `[0, handle]`: protocol version 0 and the raw `CUstream` as a bigint (0n: the legacy default stream, 2n: the per-thread one). */
  [CUDA_STREAM](): readonly [number, bigint]
}

/**
 * The raw handle an object offers by the stream protocol, checked: a TypeError for a method that
 * throws, a result that is not `[0, bigint]`, or a version this library does not know.
 */
export function protocolHandle(o: CudaStreamProtocol): bigint {
  let r: unknown
  try {
    r = o[CUDA_STREAM]()
  } catch (e) {
    throw new TypeError(`the object's Symbol.for('cuda.stream') method threw: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
  }
  if (!Array.isArray(r) || r.length !== 2) throw new TypeError(`Symbol.for('cuda.stream') must return [version, handle], got ${describe(r)}`)
  const [version, handle] = r as unknown[]
  if (typeof version !== 'number' || typeof handle !== 'bigint') {
    throw new TypeError(`Symbol.for('cuda.stream') must return [number, bigint], got [${describe(version)}, ${describe(handle)}]`)
  }
  if (version !== 0) throw new TypeError(`Symbol.for('cuda.stream') returned version ${version}: only version 0 is known`)
  if (handle < 0n || handle >= 1n << 64n) throw new RangeError(`Symbol.for('cuda.stream') returned ${handle}, which is no stream handle (an unsigned 64-bit address)`)
  return handle
}

/** Whether `o` offers a stream by the protocol (and is not already one of ours). */
function offersStream(o: unknown): o is CudaStreamProtocol {
  return (typeof o === 'object' || typeof o === 'function') && o !== null && typeof (o as Partial<CudaStreamProtocol>)[CUDA_STREAM] === 'function'
}

/** Makes the Stream an offered handle stands for (set by stream.ts: `Stream.fromExternal`). */
let adopter: ((handle: bigint, owner: object) => NativeObject) | undefined
/** Per object offering its stream: the handle it offered last and the Stream made for it. */
const adopted = new WeakMap<object, { handle: bigint; stream: NativeObject }>()

/** @internal Registers how a Stream is made for an offered handle (stream.ts, at load). */
export function setAdopter(f: (handle: bigint, owner: object) => NativeObject): void {
  adopter = f
}

/**
 * `s` as a Stream: itself if one, else the Stream an object offering the stream protocol stands for
 * (made once per object and handle, and kept while the object lives).
 * @throws {TypeError} for anything else, or a protocol answer that is not `[0, bigint]`.
 */
export function asStream(s: unknown, what = 'stream'): NativeObject {
  if (s instanceof NativeObject) return s
  if (!offersStream(s)) throw new TypeError(`${what} must be a Stream or an object offering Symbol.for('cuda.stream'), got ${describe(s)}`)
  const handle = protocolHandle(s)
  const known = adopted.get(s)
  if (known !== undefined && known.handle === handle) return known.stream
  const stream = adopter!(handle, s)
  adopted.set(s, { handle, stream })
  return stream
}

// Stream implements this. Stream imports Event and Graph, so they name it by this interface
// rather than importing it back (no import loop, types included).
/** A {@link Stream}, as Event and Graph name the stream they take: only a Stream is accepted. */
export interface StreamLike {
  /** The raw `CUstream` as a bigint. */
  readonly handle: bigint
  /** The ordinal of the stream's device. */
  readonly deviceId: number
  /** The stream's priority; lower numbers are higher priorities. */
  readonly priority: number
  /** True for a stream that does not synchronize with the legacy default stream. */
  readonly isNonBlocking: boolean
  /** True when all work queued on the stream is complete. */
  readonly done: boolean
  /** Blocks until all work queued on the stream is complete. */
  synchronize(): void
  /** Resolves once all work queued on the stream is complete. */
  synchronizeAsync(): Promise<void>
  /** True while the stream is capturing. */
  isCapturing(): boolean
}

// The default streams' codes and their handles' rule, from the addon (`constants.stream`):
// `Stream.null` carries `LEGACY`, `Stream.ptds` `PER_THREAD`; device d's default stream `code` is
// the handle `code + d * PER_DEVICE`, and a code lies below `PER_DEVICE`, which no other Stream's
// handle does. Read into module constants: a use of an exported binding reads a property of
// `exports` in the compiled CommonJS, on every hot call.
const { legacy, perThread, perDevice: PER_DEVICE } = constants.stream
/** `Stream.null`'s code: the legacy default stream of whichever device is current. */
export const LEGACY = legacy
/** `Stream.ptds`'s code: the per-thread default stream of whichever device is current. */
export const PER_THREAD = perThread

/** The handle of the default stream `code` (`LEGACY` or `PER_THREAD`) of `device`, by the addon's rule. */
export function defaultHandle(code: number, device: number): number {
  return code + device * PER_DEVICE
}

/** Whether `s`, a Stream, is a default one (`Stream.null`, `Stream.ptds`), which is the current device's. */
export function isDefault(s: NativeObject): boolean {
  return own(s) < PER_DEVICE
}

/**
 * The native handle of `s`, a Stream or an object offering one by the stream protocol (a default
 * stream resolves to the current device's).
 */
export function streamHandle(s: unknown, what = 'stream'): number {
  const h = handleOf(s instanceof NativeObject ? s : asStream(s, what), 'Stream', what)
  return h < PER_DEVICE ? h + scope().device * PER_DEVICE : h
}

/**
 * The native handle of `s`, a Stream in its own methods (no check: the class made it); a
 * default stream resolves to the current device's. For hot paths: one field read for a created
 * stream, no instanceof.
 */
export function ownStreamHandle(s: NativeObject): number {
  const h = own(s)
  return h < PER_DEVICE ? h + scope().device * PER_DEVICE : h
}

/** The device of `s`, a Stream: a default stream's (made with device -1) is the current device. */
export function streamDevice(s: NativeObject): number {
  const d = ownDevice(s)
  return d >= 0 ? d : scope().device
}

/** Read once: `process.env` costs a getenv per access, and this is on every default-stream call. */
let perThreadDefault: boolean | undefined

/** Whether the default stream is the per-thread one (`CUDA_NODE_PER_THREAD_DEFAULT_STREAM=1`). */
export function perThreadIsDefault(): boolean {
  return (perThreadDefault ??= process.env.CUDA_NODE_PER_THREAD_DEFAULT_STREAM === '1')
}

/** The current stream object of `device` in this async context, or undefined for the default. */
export function currentStreamObject(device: number, sc: Scope = scope()): object | undefined {
  return sc.streams?.get(device)
}

/**
 * The native handle of the current stream of `device`, an ordinal the caller holds valid: one
 * async-context lookup, no validation. For hot paths.
 */
export function currentStreamHandle(device: number, sc: Scope = scope()): number {
  const s = sc.streams?.get(device)
  if (s === undefined) return (perThreadIsDefault() ? perThread : legacy) + device * PER_DEVICE
  const h = own(s as NativeObject)
  return h < PER_DEVICE ? h + device * PER_DEVICE : h
}

/** The handle of a `stream` option: the given Stream's, or the current stream of `device`. */
export function streamOption(stream: unknown, device: number): number {
  return stream === undefined ? currentStreamHandle(device) : streamHandle(stream)
}
