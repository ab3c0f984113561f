import { native, withId } from './native'
import type { NativeStream } from '../native'
import { scope, runWith, enterWith, type Scope } from './context'
import { Device, deviceOrdinal } from './device'
import { Event } from './event'
import { CudaError } from './errors'
import { hold, holdPersistent, release, releasePersistent } from './callbacks'
import { Graph } from './graph'
import { integer, func, describe } from './validate'

/** Options for {@link Stream}. */
export interface StreamOptions {
  /** No implicit synchronization with the legacy default stream (`cudaStreamNonBlocking`). */
  nonBlocking?: boolean
  /** Lower numbers are higher priorities; must lie in {@link Stream.priorityRange}. */
  priority?: number
  /** The device (current by default). */
  device?: number | Device
}

type Kind = 'null' | 'ptds' | 'created' | 'external'

/** How strictly a capture refuses calls that are unsafe during it (`cudaStreamCaptureMode`). */
export type CaptureMode = 'global' | 'threadLocal' | 'relaxed'

/** The default streams by device: the native stream, and its handle for the hot calls (read once: a native getter costs ~0.4 µs). */
const defaults = { null: new Map<number, { n: NativeStream; id: number }>(), ptds: new Map<number, { n: NativeStream; id: number }>() }

/**
 * A CUDA stream (CuPy's `cupy.cuda.Stream`): work on one stream runs in order; work on
 * different streams may overlap. `Stream.null` and `Stream.ptds` are the default streams.
 */
export class Stream {
  readonly #kind: Kind
  readonly #native: NativeStream | undefined
  /** The native stream's handle for the hot calls (`native.stream*`); -1 for the default streams. */
  readonly #id: number
  #device: number | undefined
  /** While a capture begun here runs: the ids of the host callbacks it captured. */
  #captured: number[] | undefined

  /**
   * @throws {RangeError} for a priority outside the device's range, {TypeError} for bad options.
   */
  constructor(options: StreamOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('Stream options must be an object')
    const internal = (options as Internal)[INTERNAL]
    if (internal !== undefined) {
      this.#kind = internal.kind
      this.#native = internal.native
      this.#id = internal.native?.id ?? -1
      return
    }
    const { nonBlocking = false, priority, device } = options
    if (typeof nonBlocking !== 'boolean') throw new TypeError('nonBlocking must be a boolean')
    if (priority !== undefined) integer('priority', priority)
    this.#kind = 'created'
    this.#native = native.NativeStream.create(deviceOrdinal(device), nonBlocking, priority)
    this.#id = this.#native.id
  }

  static #null: Stream | undefined
  static #ptds: Stream | undefined

  /** The legacy default stream (handle 0), on whichever device is current when it is used. */
  static get null(): Stream {
    return (Stream.#null ??= new Stream(internal('null')))
  }

  /** The per-thread default stream (`cudaStreamPerThread`), on the current device. */
  static get ptds(): Stream {
    return (Stream.#ptds ??= new Stream(internal('ptds')))
  }

  /** `{ least, greatest }` priorities of a device's streams; lower numbers are higher priorities. */
  static priorityRange(device?: number | Device): {
    /** The lowest priority (the default), the largest number. */
    least: number
    /** The highest priority, the smallest number. */
    greatest: number
  } {
    const [least, greatest] = native.streamPriorityRange(deviceOrdinal(device))
    return { least, greatest }
  }

  /** @internal The native stream for the current device (default streams) or this stream's. */
  get _native(): NativeStream {
    return this.#native ?? this.#default().n
  }

  /** @internal The native stream's handle, for the hot calls that take one. */
  get _id(): number {
    return this.#id !== -1 ? this.#id : this.#default().id
  }

  /** A default stream's native stream on the current device, made on first use there. */
  #default(): { n: NativeStream; id: number } {
    const dev = scope().device
    const cache = defaults[this.#kind as 'null' | 'ptds']
    let d = cache.get(dev)
    if (d === undefined) {
      d = withId(this.#kind === 'null' ? native.NativeStream.legacy(dev) : native.NativeStream.perThread(dev))
      cache.set(dev, d)
    }
    return d
  }

  /** The raw `CUstream` as a bigint: 0n for `Stream.null`, 2n for `Stream.ptds`. */
  get handle(): bigint {
    return this._native.handle
  }

  /** The ordinal of the stream's device (CuPy's `Stream.device_id`). */
  get deviceId(): number {
    if (this.#id === -1) return scope().device
    // Kept once read (a native getter costs ~0.4 µs; launches ask every time). A destroyed
    // stream still says its device; using it throws.
    return (this.#device ??= this._native.device)
  }

  /** The stream's priority; lower numbers are higher priorities (CuPy's `Stream.priority`). */
  get priority(): number {
    return this._native.priority
  }

  /** True for a stream created with `nonBlocking` (`cudaStreamNonBlocking`). */
  get isNonBlocking(): boolean {
    return this._native.nonblocking
  }

  /** True when all work on the stream is complete (`cudaStreamQuery`). */
  get done(): boolean {
    return native.streamQuery(this._id)
  }

  /** Blocks until all work on the stream is complete, as CuPy's does. */
  synchronize(): void {
    native.streamSynchronize(this._id)
  }

  /** Resolves once all work on the stream is complete, without blocking the event loop. */
  synchronizeAsync(): Promise<void> {
    return this._native.synchronizeAsync()
  }

  /** Records `event` (a new one by default) on this stream and returns it. */
  record(event?: Event): Event {
    const e = event ?? new Event({ device: this.deviceId })
    if (!(e instanceof Event)) throw new TypeError('record() takes an Event')
    native.streamRecord(this._id, e._id)
    return e
  }

  /** Makes all later work on this stream wait for the work `event` captured. */
  waitEvent(event: Event): void {
    if (!(event instanceof Event)) throw new TypeError('waitEvent() takes an Event')
    native.streamWaitEvent(this._id, event._id)
  }

  /**
   * Runs `cb(arg)` on the JS thread once all work enqueued so far is done (CuPy's
   * `launch_host_func`). An exception from `cb` reaches `uncaughtException`.
   */
  launchHostFunc<T>(cb: (arg: T) => void, arg?: T): void {
    func('callback', cb)
    const captured = this.#captured
    const id = captured ? holdPersistent(cb as (a: unknown) => void, arg) : hold(cb as (a: unknown) => void, arg)
    try {
      native.streamLaunchHostFn(this._id, id)
    } catch (e) {
      if (captured) releasePersistent([id])
      else release(id)
      throw e
    }
    captured?.push(id)
  }

  /**
   * Starts recording the work given to this stream into a graph instead of running it (CuPy's
   * `begin_capture`). The default mode is `'relaxed'`, as CuPy's, since pools may call the driver.
   * @throws {CudaError} `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` on `Stream.null`;
   *   `CUDA_ERROR_ILLEGAL_STATE` if already capturing.
   */
  beginCapture(mode: CaptureMode = 'relaxed'): void {
    if (typeof mode !== 'string') throw new TypeError(`capture mode must be a string, got ${typeof mode}`)
    this._native.beginCapture(mode)
    this.#captured = []
  }

  /**
   * Ends the capture begun on this stream and returns the graph (CuPy's `end_capture`).
   * @throws {CudaError} `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` after an error during the
   *   capture (the stream is usable again), `CUDA_ERROR_ILLEGAL_STATE` if not capturing.
   */
  endCapture(): Graph {
    const ids = this.#captured ?? []
    this.#captured = undefined
    let g
    try {
      g = this._native.endCapture()
    } catch (e) {
      releasePersistent(ids)
      throw e
    }
    return new Graph(g, ids)
  }

  /** True while the stream is capturing (an invalidated capture included, until it is ended). */
  isCapturing(): boolean {
    return this._native.captureStatus() !== 'none'
  }

  /**
   * Captures what `fn` (and, if it returns a promise, what it awaits) gives this stream, with
   * this stream current, and returns the graph. The capture always ends: if `fn` throws or
   * rejects, the partial graph is discarded, the stream is usable again, and the error rethrown.
   */
  capture(fn: () => void, mode?: CaptureMode): Graph
  capture(fn: () => Promise<void>, mode?: CaptureMode): Promise<Graph>
  capture(fn: () => void | Promise<void>, mode: CaptureMode = 'relaxed'): Graph | Promise<Graph> {
    func('capture body', fn)
    this.beginCapture(mode)
    let result: void | Promise<void>
    try {
      result = this.run(fn)
    } catch (e) {
      this.#discard()
      throw e
    }
    if (result !== undefined && typeof (result as Promise<void>).then === 'function') {
      return (result as Promise<void>).then(
        () => this.endCapture(),
        (e) => {
          this.#discard()
          throw e
        },
      )
    }
    return this.endCapture()
  }

  #discard(): void {
    try {
      this.endCapture().destroy()
    } catch {
      // An invalidated capture ends with an error; either way the stream leaves capture mode.
    }
  }

  /**
   * Runs `cb(stream, error, arg)` on the JS thread once all work enqueued so far is done
   * (CuPy's `add_callback`; not capturable into graphs).
   */
  addCallback<T>(cb: (stream: Stream, error: CudaError | null, arg: T) => void, arg?: T): void {
    func('callback', cb)
    const id = hold(() => cb(this, null, arg as T), undefined)
    try {
      this._native.addCallback(id)
    } catch (e) {
      release(id)
      throw e
    }
  }

  /** Makes this the current stream of its device for the rest of the async context (CuPy's `use()`). */
  use(): this {
    enterWith({ streams: withStream(this) })
    return this
  }

  /** Runs `fn` with this as the current stream of its device (CuPy's `with stream:`). */
  run<T>(fn: () => T): T {
    return runWith({ streams: withStream(this) }, fn)
  }

  /**
   * Makes this the current stream until the returned scope is disposed:
   * `{ using _ = stream.enter(); ... }`.
   */
  enter(): Disposable {
    const before = scope()
    enterWith({ streams: withStream(this) })
    return { [Symbol.dispose]: () => enterWith({ streams: before.streams }) }
  }

  /** Releases the stream. Work already enqueued still completes. Later calls throw. */
  destroy(): void {
    if (this.#native === undefined) {
      throw new CudaError('the default streams cannot be destroyed', 'CUDA_ERROR_INVALID_HANDLE')
    }
    this.#native.destroy()
  }

  /** Destroys the stream, for `using`; does nothing for a default stream or one already destroyed. */
  [Symbol.dispose](): void {
    if (this.#native !== undefined && !this.#native.destroyed) this.#native.destroy()
  }

  /** `'<Stream null>'`, `'<Stream ptds>'`, or `'<Stream 0x…>'` with the handle in hex. */
  toString(): string {
    return this.#kind === 'null' ? '<Stream null>' : this.#kind === 'ptds' ? '<Stream ptds>' : `<Stream 0x${this.handle.toString(16)}>`
  }
}

/**
 * A stream created by other code (CuPy's `ExternalStream`), wrapped without owning it: it is
 * never destroyed here. The handle is trusted, as CuPy trusts it.
 */
export class ExternalStream extends Stream {
  /** @throws {TypeError} unless `handle` is a bigint; {CudaError} where the driver rejects it. */
  constructor(handle: bigint, device?: number | Device) {
    if (typeof handle !== 'bigint') throw new TypeError('ExternalStream takes the stream handle as a bigint')
    super(internal('external', native.NativeStream.external(deviceOrdinal(device), handle)))
  }

  /** @throws {CudaError} `CUDA_ERROR_INVALID_HANDLE` always: the stream belongs to the code that created it. */
  override destroy(): void {
    throw new CudaError('an ExternalStream is owned by the code that created it and is not destroyed here', 'CUDA_ERROR_INVALID_HANDLE')
  }

  /** Does nothing, for `using`: the stream belongs to the code that created it. */
  override [Symbol.dispose](): void {}
}

const INTERNAL = Symbol('cuda-node internal')
type Internal = { [INTERNAL]?: { kind: Kind; native: NativeStream | undefined } }
function internal(kind: Kind, n?: NativeStream): StreamOptions {
  return { [INTERNAL]: { kind, native: n } } as StreamOptions
}

function withStream(s: Stream): ReadonlyMap<number, unknown> {
  const m = new Map(scope().streams)
  m.set(s.deviceId, s)
  return m
}

/** The current stream of a device (the current device by default) in this async context. */
export function getCurrentStream(device?: number | Device): Stream {
  return currentStreamOf(device === undefined ? scope().device : deviceOrdinal(device))
}

/** @internal A `stream` option: the given Stream, or the current stream of `device` when omitted. */
export function streamOr(stream: unknown, device: number): Stream {
  if (stream === undefined) return currentStreamOf(device)
  if (!(stream instanceof Stream)) throw new TypeError(`stream must be a Stream, got ${describe(stream)}`)
  return stream
}

/**
 * @internal The current stream of `device`, an ordinal the caller already holds valid (a pointer's
 * or an event's): no validation, one async-context lookup. For hot paths.
 */
export function currentStreamOf(device: number, sc: Scope = scope()): Stream {
  return (sc.streams?.get(device) as Stream | undefined) ?? defaultStream()
}

/** Read once: `process.env` costs a getenv per access, and this is on every default-stream call. */
let perThreadDefault: boolean | undefined

function defaultStream(): Stream {
  perThreadDefault ??= process.env.CUDA_NODE_PER_THREAD_DEFAULT_STREAM === '1'
  return perThreadDefault ? Stream.ptds : Stream.null
}
