// Streams as the rest of the layer reaches them: the handle of a Stream argument, and of the
// current stream, without the Stream class itself (which imports Event and Graph, which need
// these). The default streams are one Stream each (`Stream.null`, `Stream.ptds`) whose native
// stream is the current device's, made on first use there.
import { scope, type Scope } from '../context'
import { native } from '../native'
import { NativeObject, handleOf, own, ownDevice } from '../object'

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

/** The handles standing for the default streams in a Stream object. */
export const NULL = -1
export const PTDS = -2

/** The default streams' native handles by device. */
const defaults = new Map<number, number>()
/** Owns the default streams: they live as long as the process. */
const owner = {}

/** The native handle of a default stream on `device`, made on first use. */
export function defaultHandle(which: typeof NULL | typeof PTDS, device: number): number {
  const key = device * 2 + (which === NULL ? 0 : 1)
  let h = defaults.get(key)
  if (h === undefined) {
    h = which === NULL ? native.streamLegacy(owner, device) : native.streamPerThread(owner, device)
    defaults.set(key, h)
  }
  return h
}

/** The native handle of `s`, a Stream (a default one resolves to the current device's). */
export function streamHandle(s: unknown, what = 'stream'): number {
  const h = handleOf(s, 'Stream', what)
  return h >= 0 ? h : defaultHandle(h as typeof NULL, scope().device)
}

/**
 * The native handle of `s`, a Stream in its own methods (no check: the class made it); a
 * default stream resolves to the current device's. For hot paths: one field read for a created
 * stream, no instanceof.
 */
export function ownStreamHandle(s: NativeObject): number {
  const h = own(s)
  return h >= 0 ? h : defaultHandle(h as typeof NULL, scope().device)
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
  if (s === undefined) return defaultHandle(perThreadIsDefault() ? PTDS : NULL, device)
  const h = own(s as NativeObject)
  return h >= 0 ? h : defaultHandle(h as typeof NULL, device)
}

/** The handle of a `stream` option: the given Stream's, or the current stream of `device`. */
export function streamOption(stream: unknown, device: number): number {
  return stream === undefined ? currentStreamHandle(device) : streamHandle(stream)
}
