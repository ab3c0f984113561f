import { native } from './native'
import type { NativeEvent } from '../native'
import { Device, deviceOrdinal } from './device'
import { currentStreamOf, Stream } from './stream'

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

const OPENED = Symbol('cuda-node opened event')

/**
 * A CUDA event (CuPy's `cupy.cuda.Event`): a marker in a stream, to wait on, query, or time.
 */
export class Event {
  readonly #native: NativeEvent
  /** The device, kept here: asking the native side costs a call per record(). */
  readonly #device: number
  /** The native event's handle, for the hot calls (`native.event*`). */
  readonly #id: number

  /** @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` for `interprocess` without `disableTiming`. */
  constructor(options: EventOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('Event options must be an object')
    const opened = (options as { [OPENED]?: NativeEvent })[OPENED]
    if (opened !== undefined) {
      this.#native = opened
      this.#device = opened.device
      this.#id = opened.id
      return
    }
    const { block = false, disableTiming = false, interprocess = false, device } = options
    for (const [k, v] of Object.entries({ block, disableTiming, interprocess })) {
      if (typeof v !== 'boolean') throw new TypeError(`${k} must be a boolean`)
    }
    const dev = deviceOrdinal(device)
    this.#native = native.NativeEvent.create(dev, block, disableTiming, interprocess)
    this.#device = dev
    this.#id = this.#native.id
  }

  /**
   * Opens an interprocess event another process shared (CuPy's `Event.from_ipc_handle`; GPU only).
   * @throws {RangeError} unless the handle is 64 bytes; {CudaError} where the driver rejects it.
   */
  static fromIpcHandle(handle: Uint8Array, device?: number | Device): Event {
    if (!(handle instanceof Uint8Array)) throw new TypeError('fromIpcHandle takes the 64-byte handle as a Buffer or Uint8Array')
    const dev = deviceOrdinal(device)
    return new Event({ [OPENED]: native.NativeEvent.fromIpc(dev, handle) } as EventOptions)
  }

  /** The 64-byte handle another process opens this event with (GPU only; needs `interprocess`). */
  ipcHandle(): Buffer {
    return this.#native.ipcHandle()
  }

  /** @internal */
  get _native(): NativeEvent {
    return this.#native
  }

  /** @internal The native event's handle, for the hot calls that take one. */
  get _id(): number {
    return this.#id
  }

  /** The raw `CUevent` as a bigint. */
  get handle(): bigint {
    return this.#native.handle
  }

  /** The ordinal of the event's device. */
  get deviceId(): number {
    return this.#native.device
  }

  /** True when the recorded work is complete, or when never recorded (`cudaEventQuery`). */
  get done(): boolean {
    return native.eventQuery(this.#id)
  }

  /** Records the event on `stream`, the current stream by default. */
  record(stream?: Stream): this {
    const s = stream ?? currentStreamOf(this.#device)
    if (!(s instanceof Stream)) throw new TypeError('record() takes a Stream')
    native.streamRecord(s._id, this.#id)
    return this
  }

  /** Blocks until the recorded work is complete. */
  synchronize(): void {
    native.eventSynchronize(this.#id)
  }

  /** Resolves once the recorded work is complete, without blocking the event loop. */
  synchronizeAsync(): Promise<void> {
    return this.#native.synchronizeAsync()
  }

  /** Releases the event. Later calls throw `CUDA_ERROR_INVALID_HANDLE`. */
  destroy(): void {
    this.#native.destroy()
  }

  /** Destroys the event, for `using`, as `destroy()` does. */
  [Symbol.dispose](): void {
    this.#native.destroy()
  }
}

/**
 * Milliseconds from `start` to `end` (CuPy's `get_elapsed_time`).
 * @throws {CudaError} `CUDA_ERROR_INVALID_HANDLE` when timing is disabled or an event was never
 *   recorded; `CUDA_ERROR_NOT_READY` when an event has not completed yet. Each says what to do.
 */
export function getElapsedTime(start: Event, end: Event): number {
  if (!(start instanceof Event) || !(end instanceof Event)) throw new TypeError('getElapsedTime takes two Events')
  return native.eventElapsedTime(start._native, end._native)
}
