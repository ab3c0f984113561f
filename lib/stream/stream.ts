import { native } from '../native'
import { scope, runWith, enterWith, restore } from '../context'
import { Device, deviceOrdinal } from '../device'
import { Event } from '../event'
import { CudaError } from '../errors'
import { forget, persist, register } from '../callbacks'
import { Graph } from '../graph'
import { INTERNAL, NativeObject, backstop, handleOf, own, released } from '../object'
import { describe, integer, func, options as checkOptions } from '../validate'
import { traced } from '../trace'
import { CUDA_STREAM, LEGACY, PER_THREAD, isDefault, ownStreamHandle, protocolHandle, setAdopter, streamDevice, type CudaStreamProtocol, type StreamLike } from './handle'

/** What a Stream made by `fromExternal` keeps alive: the object that offered its stream (CuPy's `_foreign_stream_ref`). */
const foreign = new WeakMap<Stream, object>()

/** Options for {@link Stream}. */
export interface StreamOptions {
  /** No implicit synchronization with the legacy default stream (`cudaStreamNonBlocking`). */
  nonBlocking?: boolean
  /** Lower numbers are higher priorities; must lie in {@link Stream.priorityRange}. */
  priority?: number
  /** The device (current by default). */
  device?: number | Device
}

/** How strictly a capture refuses calls that are unsafe during it (`cudaStreamCaptureMode`). */
export type CaptureMode = 'global' | 'threadLocal' | 'relaxed'

/** A Stream's GC backstop (`lifetime.ts`): none asked for a stream destroyed before it was due. */
const attachStream = backstop((s, handle) => native.streamOwn(s, handle))

/** The options of `new Stream()`: one object, not one per stream. */
const NO_OPTIONS: StreamOptions = Object.freeze({})

/** A Stream's flag and priority, as `new Stream()` has them. */
const DEFAULTS = Object.freeze({ nonBlocking: false, priority: undefined })

/** A Stream's flag and priority, read once from `options` and checked (the device is checked where it is read). */
function checked(options: StreamOptions): { nonBlocking: boolean; priority: number | undefined } {
  const { nonBlocking = false, priority } = checkOptions<StreamOptions>('Stream', options, ['nonBlocking', 'priority', 'device'])
  if (typeof nonBlocking !== 'boolean') throw new TypeError('nonBlocking must be a boolean')
  if (priority !== undefined) integer('priority', priority)
  return { nonBlocking, priority }
}

/**
 * A CUDA stream (CuPy's `cupy.cuda.Stream`): work on one stream runs in order; work on
 * different streams may overlap. `Stream.null` and `Stream.ptds` are the default streams.
 */
export class Stream extends NativeObject implements StreamLike {
  /** Read once, on first use (a native call each). */
  #info: { handle: bigint; priority: number; nonBlocking: boolean } | undefined

  /**
   * @throws {TypeError} for bad options, {RangeError} for a priority outside the device's range.
   */
  constructor(options?: StreamOptions)
  /** @internal */
  constructor(token: typeof INTERNAL, make: number | ((owner: object) => number), device: number)
  constructor(options: StreamOptions | typeof INTERNAL = NO_OPTIONS, make?: number | ((owner: object) => number), device?: number) {
    if (options === INTERNAL) {
      super(INTERNAL, 'Stream', make!, device!)
      return
    }
    const { nonBlocking, priority } = options === NO_OPTIONS ? DEFAULTS : checked(options)
    const dev = deviceOrdinal(options.device)
    // The addon makes the native stream at its first use (one with a priority at once, where the
    // device checks it): a stream never used costs no driver call. No priority is no argument,
    // not an undefined one to read.
    const handle = priority === undefined ? native.streamCreate(dev, nonBlocking) : native.streamCreate(dev, nonBlocking, priority)
    super(INTERNAL, 'Stream', handle, dev, attachStream)
  }

  static #null: Stream | undefined
  static #ptds: Stream | undefined

  /** The legacy default stream (handle 0), on whichever device is current when it is used. */
  static get null(): Stream {
    return (Stream.#null ??= new Stream(INTERNAL, LEGACY, -1))
  }

  /** The per-thread default stream (`cudaStreamPerThread`), on the current device. */
  static get ptds(): Stream {
    return (Stream.#ptds ??= new Stream(INTERNAL, PER_THREAD, -1))
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

  /**
   * A Stream over a stream other code made (CuPy's `Stream.from_external`): from an object that
   * offers it by the stream protocol (`[Symbol.for('cuda.stream')]()` returning `[0, handle]`, as
   * CuPy's `__cuda_stream__`; the object is kept alive as long as the Stream), or from the raw
   * handle as a bigint, as {@link ExternalStream}. Handles 0n and 1n are `Stream.null`, 2n
   * `Stream.ptds`. Never destroyed here: `destroy()` releases only the wrapper.
   * @param device the stream's device; the current one by default.
   * @throws {TypeError} for an object without the protocol, a protocol method that throws, a
   *   result that is not `[0, bigint]` or a version other than 0; {RangeError} for a value no
   *   stream handle can be; {CudaError} where the driver rejects the handle (another device's
   *   stream: `CUDA_ERROR_INVALID_CONTEXT`).
   */
  static fromExternal(obj: CudaStreamProtocol | bigint, device?: number | Device): Stream {
    if (typeof obj === 'bigint') return adopt(obj, undefined, device)
    if ((typeof obj !== 'object' && typeof obj !== 'function') || obj === null || typeof obj[CUDA_STREAM] !== 'function') {
      throw new TypeError(`fromExternal takes an object offering Symbol.for('cuda.stream') or a stream handle as a bigint, got ${describe(obj)}`)
    }
    return adopt(protocolHandle(obj), obj, device)
  }

  static {
    setAdopter((handle, owner) => adopt(handle, owner, undefined))
  }

  /**
   * The stream protocol (CuPy's `__cuda_stream__`): `[0, handle]`, so that another library takes
   * this stream from any object offering one. See {@link Stream.fromExternal} for the way in.
   */
  [CUDA_STREAM](): [number, bigint] {
    return [0, this.handle]
  }

  #facts(): { handle: bigint; priority: number; nonBlocking: boolean } {
    const h = ownStreamHandle(this)
    // A default stream's facts are its current device's: not kept.
    if (isDefault(this)) return native.streamInfo(h)
    return (this.#info ??= native.streamInfo(h))
  }

  /** The raw `CUstream` as a bigint: 0n for `Stream.null`, 2n for `Stream.ptds`. */
  get handle(): bigint {
    return this.#facts().handle
  }

  /**
   * The context the stream belongs to (`cuStreamGetCtx`) as a bigint, for native code: its
   * device's primary context (`driver.ctxGetCurrent()` on that device), or an external
   * stream's own. A default stream's is its current device's. On the simulator, the device's fake.
   */
  get context(): bigint {
    return native.streamContext(ownStreamHandle(this))
  }

  /** The ordinal of the stream's device (CuPy's `Stream.device_id`). A default stream's is the current device. */
  get deviceId(): number {
    return streamDevice(this)
  }

  /** The stream's priority; lower numbers are higher priorities (CuPy's `Stream.priority`). */
  get priority(): number {
    return this.#facts().priority
  }

  /** True for a stream created with `nonBlocking` (`cudaStreamNonBlocking`). */
  get isNonBlocking(): boolean {
    return this.#facts().nonBlocking
  }

  /** True when all work on the stream is complete (`cudaStreamQuery`). */
  get done(): boolean {
    return native.streamQuery(ownStreamHandle(this))
  }

  /** Blocks until all work on the stream is complete, as CuPy's does. */
  synchronize(): void {
    native.streamSynchronize(ownStreamHandle(this))
  }

  /** Resolves once all work on the stream is complete, without blocking the event loop. */
  synchronizeAsync(): Promise<void> {
    return native.streamSynchronizeAsync(ownStreamHandle(this))
  }

  /** Records `event` (a new one by default) on this stream and returns it. */
  record(event?: Event): Event {
    const e = event ?? new Event({ device: this.deviceId })
    native.streamRecord(ownStreamHandle(this), handleOf(e, 'Event', 'event'))
    return e
  }

  /** Makes all later work on this stream wait for the work `event` captured. */
  waitEvent(event: Event): void {
    native.streamWaitEvent(ownStreamHandle(this), handleOf(event, 'Event', 'event'))
  }

  /**
   * Runs `cb(arg)` on the JS thread once all work enqueued so far is done (CuPy's
   * `launch_host_func`). An exception from `cb` reaches `uncaughtException`. During a capture
   * the callback becomes part of the graph and runs at every launch.
   */
  launchHostFunc<T>(cb: (arg: T) => void, arg?: T): void {
    func('callback', cb)
    const s = ownStreamHandle(this)
    const id = register(cb as (a: unknown) => void, arg)
    let captured: boolean
    try {
      captured = traced(s, 'host callback', 'callback', () => native.streamLaunchHostFn(s, id))
    } catch (e) {
      forget(id)
      throw e
    }
    if (captured) persist(id, cb as (a: unknown) => void, arg)
  }

  /**
   * Starts recording the work given to this stream into a graph instead of running it (CuPy's
   * `begin_capture`). The default mode is `'relaxed'`, as CuPy's, since pools may call the driver.
   * @throws {CudaError} `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` on `Stream.null`;
   *   `CUDA_ERROR_ILLEGAL_STATE` if already capturing.
   */
  beginCapture(mode: CaptureMode = 'relaxed'): void {
    if (typeof mode !== 'string') throw new TypeError(`capture mode must be a string, got ${typeof mode}`)
    native.streamBeginCapture(ownStreamHandle(this), mode)
  }

  /**
   * Ends the capture begun on this stream and returns the graph (CuPy's `end_capture`).
   * @throws {CudaError} `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` after an error during the
   *   capture (the stream is usable again), `CUDA_ERROR_ILLEGAL_STATE` if not capturing.
   */
  endCapture(): Graph {
    const s = ownStreamHandle(this)
    return new Graph(INTERNAL, (owner) => native.streamEndCapture(owner, s), this.deviceId)
  }

  /** True while the stream is capturing (an invalidated capture included, until it is ended). */
  isCapturing(): boolean {
    return native.streamCaptureStatus(ownStreamHandle(this)) !== 'none'
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
    const s = ownStreamHandle(this)
    const id = register(() => cb(this, null, arg as T), undefined)
    try {
      native.streamAddCallback(s, id)
    } catch (e) {
      forget(id)
      throw e
    }
  }

  /**
   * Makes this the current stream of its device for the rest of the async context (CuPy's `use()`).
   * @throws {CudaError} `CUDA_ERROR_INVALID_CONTEXT` when the stream's device is not the current one, as CuPy refuses it.
   */
  use(): this {
    enterWith({ streams: withStream(this) })
    return this
  }

  /**
   * Runs `fn` with this as the current stream of its device (CuPy's `with stream:`), for `fn` and
   * everything it awaits. Leaving it restores the stream of the scope it was entered from, as
   * CuPy does (a `use()` inside that scope since does not outlive it: cupy/cupy#5143).
   * @throws {CudaError} `CUDA_ERROR_INVALID_CONTEXT` when the stream's device is not the current one.
   */
  run<T>(fn: () => T): T {
    const outer = scope()
    const streams = withStream(this)
    try {
      return runWith({ streams }, fn)
    } finally {
      const base = outer.base
      if (base !== undefined && outer.streams !== base.streams) enterWith({ streams: base.streams })
    }
  }

  /**
   * Makes this the current stream until the returned scope is disposed:
   * `{ using _ = stream.enter(); ... }`.
   */
  enter(): Disposable {
    const before = scope()
    enterWith({ streams: withStream(this) })
    return { [Symbol.dispose]: () => restore(before) }
  }

  /**
   * Releases the stream (again: nothing). Work already enqueued still completes. Later calls throw.
   * @throws {CudaError} `CUDA_ERROR_INVALID_HANDLE` for the default streams, which cannot be destroyed.
   */
  destroy(): void {
    native.streamDestroy(ownStreamHandle(this))
    released(this)
  }

  /** Destroys the stream, for `using`; does nothing for a default stream. */
  [Symbol.dispose](): void {
    if (!isDefault(this)) this.destroy()
  }

  /** `'<Stream null>'`, `'<Stream ptds>'`, or `'<Stream 0x…>'` with the handle in hex. */
  override toString(): string {
    const h = own(this)
    return h === LEGACY ? '<Stream null>' : h === PER_THREAD ? '<Stream ptds>' : `<Stream 0x${this.handle.toString(16)}>`
  }
}

/** The Stream over `handle`, another's stream; `owner` (the object that offered it) kept alive with it. */
function adopt(handle: bigint, owner: object | undefined, device: number | Device | undefined): Stream {
  if (handle === 0n || handle === 1n) return Stream.null
  if (handle === 2n) return Stream.ptds
  const dev = deviceOrdinal(device)
  const s = new Stream(INTERNAL, (o) => native.streamExternal(o, dev, handle), dev)
  if (owner !== undefined) foreign.set(s, owner)
  return s
}

/** The current streams with `s` current on its device, which must be the current device. */
function withStream(s: Stream): ReadonlyMap<number, object> {
  const sc = scope()
  native.streamCheckCurrent(ownStreamHandle(s), sc.device)
  const m = new Map(sc.streams)
  m.set(sc.device, s)
  return m
}
