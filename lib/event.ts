import { constants, native } from './native'
import { options as checkOptions } from './validate'
import { Device, deviceOrdinal } from './device'
import { INTERNAL, NativeObject, backstop, handleOf, own, ownDevice, released } from './object'
import { currentStreamHandle, streamHandle, type CudaStreamProtocol, type StreamLike } from './stream/handle'

/** Options for {@link Event}. */
export interface EventOptions {
  /** The host sleeps instead of spinning in `synchronize()` (`cudaEventBlockingSync`). */
  block?: boolean
  /** Cheaper events that cannot time (`cudaEventDisableTiming`). */
  disableTiming?: boolean
  /** Shareable with other processes; needs `disableTiming: true` (GPU only). */
  interprocess?: boolean
  /** The device (current by default). */
  device?: number | Device
}

/** The options of `new Event()`: one object, not one per event. */
const NO_OPTIONS: EventOptions = Object.freeze({})

/** An Event's GC backstop (`lifetime.ts`): none asked for an event destroyed before it was due. */
const attachEvent = backstop((e, handle) => native.eventOwn(e, handle))

/**
 * A CUDA event (CuPy's `cupy.cuda.Event`): a marker in a stream, to wait on, query, or time.
 */
export class Event extends NativeObject {
  /** The raw handle, read on first use. */
  #raw: bigint | undefined

  /** @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` for `interprocess` without `disableTiming`. */
  constructor(options?: EventOptions)
  /** @internal */
  constructor(token: typeof INTERNAL, make: (owner: object) => number, device: number)
  constructor(options: EventOptions | typeof INTERNAL = NO_OPTIONS, make?: (owner: object) => number, device?: number) {
    if (options === INTERNAL) {
      super(INTERNAL, 'Event', make!, device!)
      return
    }
    const flags = options === NO_OPTIONS ? 0 : eventFlags(options)
    const dev = deviceOrdinal(options.device)
    // The addon makes the native event at its first use (a record, mostly), as PyTorch makes its
    // CUDA event; an interprocess one at once, where its options are checked.
    super(INTERNAL, 'Event', native.eventCreate(dev, flags), dev, attachEvent)
  }

  /**
   * Opens an interprocess event another process shared (CuPy's `runtime.ipcOpenEventHandle`,
   * PyTorch's `Event.from_ipc_handle`; GPU only).
   * @throws {TypeError} unless the handle is a Buffer or Uint8Array, {RangeError} unless it is
   *   64 bytes; {CudaError} where the driver rejects it.
   */
  static fromIpcHandle(handle: Uint8Array, device?: number | Device): Event {
    if (!(handle instanceof Uint8Array)) throw new TypeError('fromIpcHandle takes the 64-byte handle as a Buffer or Uint8Array')
    const dev = deviceOrdinal(device)
    return new Event(INTERNAL, (owner) => native.eventFromIpc(owner, dev, handle), dev)
  }

  /**
   * The 64-byte handle another process opens this event with (CuPy's `runtime.ipcGetEventHandle`,
   * PyTorch's `Event.ipc_handle`; GPU only; needs `interprocess`).
   */
  ipcHandle(): Buffer {
    return native.eventIpcHandle(own(this))
  }

  /** The raw `CUevent` as a bigint. */
  get handle(): bigint {
    return (this.#raw ??= native.eventInfo(own(this)).handle)
  }

  /** The ordinal of the event's device. */
  get deviceId(): number {
    return ownDevice(this)
  }

  /** True when the recorded work is complete, or when never recorded (`cudaEventQuery`). */
  get done(): boolean {
    return native.eventQuery(own(this))
  }

  /** Records the event on `stream`, the current stream of its device by default. */
  record(stream?: StreamLike | CudaStreamProtocol): this {
    const s = stream === undefined ? currentStreamHandle(ownDevice(this)) : streamHandle(stream)
    native.streamRecord(s, own(this))
    return this
  }

  /** Blocks until the recorded work is complete. */
  synchronize(): void {
    native.eventSynchronize(own(this))
  }

  /** Resolves once the recorded work is complete, without blocking the event loop. */
  synchronizeAsync(): Promise<void> {
    return native.eventSynchronizeAsync(own(this))
  }

  /** Releases the event (again: nothing). Later calls throw `CUDA_ERROR_INVALID_HANDLE`. */
  destroy(): void {
    native.eventDestroy(own(this))
    released(this)
  }

  /** Destroys the event, for `using`, as `destroy()` does. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}

/** `cuEventCreate`'s flags for `options`, checked (`constants.event`'s bits). */
function eventFlags(options: EventOptions): number {
  checkOptions<EventOptions>('Event', options, ['block', 'disableTiming', 'interprocess', 'device'])
  const bits = constants.event
  return (flag('block', options.block) ? bits.blockingSync : 0) |
    (flag('disableTiming', options.disableTiming) ? bits.disableTiming : 0) |
    (flag('interprocess', options.interprocess) ? bits.interprocess : 0)
}

/** An event option: a boolean, false when absent. */
function flag(name: string, v: unknown): boolean {
  if (v === undefined) return false
  if (typeof v !== 'boolean') throw new TypeError(`${name} must be a boolean`)
  return v
}

/**
 * Milliseconds from `start` to `end` (CuPy's `get_elapsed_time`).
 * @throws {TypeError} unless both are Events; {CudaError} `CUDA_ERROR_INVALID_HANDLE` when timing
 *   is disabled or an event was never recorded, `CUDA_ERROR_NOT_READY` when an event has not
 *   completed yet. Each says what to do.
 */
export function getElapsedTime(start: Event, end: Event): number {
  return native.eventElapsedTime(handleOf(start, 'Event', 'start'), handleOf(end, 'Event', 'end'))
}
