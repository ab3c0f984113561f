import { runWith, scope } from '../context'
import { native } from '../native'
import { deviceOrdinal, type Device } from '../device'
import { INTERNAL } from '../object'
import { own } from '../object'
import { Stream } from '../stream/stream'
import { ExternalStream } from '../stream/external'
import { streamOr } from '../stream/current'
import { currentStreamHandle, streamHandle, type CudaStreamProtocol } from '../stream/handle'
import { traced } from '../trace'
import { count, describe, options as checkOptions } from '../validate'
import { bytes } from './host'
import { Memory } from './memory'
import { PinnedMemory, pinnedUnder } from './pinned'

/** What host memory a copy accepts. */
export type HostBuffer = ArrayBufferView | ArrayBuffer | PinnedMemory

/** Options of {@link MemoryPointer.fromExternal}. */
export interface ExternalOptions {
  /** The device the memory is on (the current device by default); checked against the driver. */
  device?: number | Device
  /** Kept alive as long as the memory is in use here, queued work included (CuPy's `owner`). */
  owner?: object
  /** The stream the producer wrote the memory on (or an object offering it by the stream protocol): the current stream waits for it first. */
  stream?: Stream | CudaStreamProtocol
}

/**
 * The `__cuda_array_interface__` (version 3) shape, as a plain object for other native addons:
 * a one-dimensional byte array. `data` is `[address, readonly]`; `stream` is the handle of the
 * stream the producer's work is on (null: none to wait for).
 */
export interface CudaArrayInterface {
  /** Elements along each dimension. */
  shape: number[]
  /** The element type in NumPy's notation (`'|u1'` bytes, `'<f4'` float32). */
  typestr: string
  /** `[address, readonly]`. */
  data: [bigint, boolean]
  /** The interface's version: 3. */
  version: 3
  /** Null: contiguous (C order); strided arrays are refused. */
  strides: number[] | null
  /** The handle of the stream the producer's work is on; null: nothing to wait for. */
  stream: bigint | null
  /** Not in the Python protocol (a pointer names its device there); the device ordinal. */
  device?: number
}

/** What {@link pointerGetAttributes} reports. */
export interface PointerAttributes {
  /** The device ordinal the driver reports. */
  device: number
  /** Device memory, page-locked host memory, or managed memory. */
  kind: 'device' | 'host' | 'managed'
  /** The start of the allocation holding the address. */
  base: bigint
  /** The size of that allocation in bytes. */
  size: number
}

/**
 * What the driver knows of an address (`cuPointerGetAttribute`): its device, kind, and the
 * allocation holding it. @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` for an address it does
 * not know; {TypeError} unless `ptr` is a bigint.
 */
export function pointerGetAttributes(ptr: bigint): PointerAttributes {
  if (typeof ptr !== 'bigint') throw new TypeError(`ptr must be a bigint, got ${describe(ptr)}`)
  return native.pointerGetAttributes(ptr) as PointerAttributes
}

/** A 64-byte IPC handle of a pointer's allocation and the pointer's offset in it. */
export interface IpcMemHandle {
  /** The 64-byte handle of the whole allocation (`cuIpcGetMemHandle`). */
  handle: Buffer
  /** Where the pointer lies in that allocation. */
  offset: number
}

/**
 * A pointer into device memory (CuPy's `MemoryPointer`): an allocation and a byte offset. Views
 * made with `offset(n)` keep the allocation alive.
 */
export class MemoryPointer {
  /** The allocation this points into. */
  readonly mem: Memory
  /** Bytes from the start of the allocation. */
  readonly byteOffset: number

  /** @throws {TypeError} unless `mem` is a Memory; {RangeError} for an offset past its end. */
  constructor(mem: Memory, byteOffset = 0) {
    if (!(mem instanceof Memory)) throw new TypeError(`MemoryPointer needs a Memory, got ${describe(mem)}`)
    count('offset', byteOffset)
    if (byteOffset !== 0 && byteOffset > mem.size) throw new RangeError(`offset ${byteOffset} is past the end of the ${mem.size}-byte allocation`)
    this.mem = mem
    this.byteOffset = byteOffset
  }

  /** The device address as a bigint. */
  get ptr(): bigint {
    return this.byteOffset === 0 ? this.mem.ptr : this.mem.ptr + BigInt(this.byteOffset)
  }

  /** Bytes from here to the end of the allocation. */
  get size(): number {
    return this.mem.size - this.byteOffset
  }

  /** The ordinal of the device the memory is on (CuPy's `MemoryPointer.device_id`). */
  get deviceId(): number {
    return this.mem.deviceId
  }

  /** A view `n` bytes further on. @throws {RangeError} past the end. */
  offset(n: number): MemoryPointer {
    return new MemoryPointer(this.mem, this.byteOffset + count('offset', n))
  }

  /** Copies host memory here and waits for the copy (on the current stream of this pointer's device). */
  copyFromHost(src: HostBuffer, nbytes?: number): void {
    // The default stream is this pointer's device's, wherever the call is made from (CuPy's
    // `copy_from_host`, PyTorch's `copy_` run on the memory's device).
    if (this.deviceId !== scope().device) return runWith({ device: this.deviceId }, () => this.copyFromHost(src, nbytes))
    this.copyFromHostAsync(src, nbytes).synchronize()
  }

  /**
   * Enqueues a copy from host memory on `stream` (the current stream by default). From
   * `PinnedMemory`, or a typed array over its bytes (`pinned.buffer`, or bytes `registerHost`
   * page-locked), it returns before the copy completes, and the pinned memory is kept alive
   * until it has; from other memory the bytes are staged before it returns.
   */
  copyFromHostAsync(src: HostBuffer, nbytes?: number, stream?: Stream | CudaStreamProtocol): Stream {
    if (stream === undefined && this.deviceId !== scope().device) {
      return runWith({ device: this.deviceId }, () => this.copyFromHostAsync(src, nbytes))
    }
    const s = streamOr(stream, this.deviceId)
    const h = streamHandle(s)
    const dst = own(this.mem)
    if (src instanceof PinnedMemory) {
      const n = nbytes === undefined ? src.size : count('size', nbytes)
      traced(h, () => `copy H2D ${n} B (pinned)`, 'memcpy', () => native.memCopyHtodPinned(h, dst, this.byteOffset, own(src), 0, n))
    } else {
      const view = bytes(src, nbytes === undefined ? undefined : count('size', nbytes), 'copyFromHost')
      const under = pinnedUnder(view)
      if (under !== undefined) {
        const n = view.byteLength
        traced(h, () => `copy H2D ${n} B (pinned)`, 'memcpy', () => native.memCopyHtodPinned(h, dst, this.byteOffset, own(under.pinned), under.offset, n))
      } else traced(h, () => `copy H2D ${view.byteLength} B`, 'memcpy', () => native.memCopyHtod(h, dst, this.byteOffset, view))
    }
    return s
  }

  /** Copies from here into host memory (on the current stream of this pointer's device); returns once `dst` holds the data. */
  copyToHost(dst: HostBuffer, nbytes?: number): void {
    if (this.deviceId !== scope().device) return runWith({ device: this.deviceId }, () => this.copyToHost(dst, nbytes))
    this.copyToHostAsync(dst, nbytes).synchronize()
  }

  /**
   * Copies into host memory on `stream`. Into `PinnedMemory`, or a typed array over its bytes,
   * it returns before the copy completes; into other memory (pageable) it is synchronous, as the
   * driver makes it.
   */
  copyToHostAsync(dst: HostBuffer, nbytes?: number, stream?: Stream | CudaStreamProtocol): Stream {
    if (stream === undefined && this.deviceId !== scope().device) {
      return runWith({ device: this.deviceId }, () => this.copyToHostAsync(dst, nbytes))
    }
    const s = streamOr(stream, this.deviceId)
    const h = streamHandle(s)
    const src = own(this.mem)
    if (dst instanceof PinnedMemory) {
      const n = nbytes === undefined ? dst.size : count('size', nbytes)
      traced(h, () => `copy D2H ${n} B (pinned)`, 'memcpy', () => native.memCopyDtohPinned(h, own(dst), 0, src, this.byteOffset, n))
    } else {
      const view = bytes(dst, nbytes === undefined ? undefined : count('size', nbytes), 'copyToHost')
      const under = pinnedUnder(view)
      if (under !== undefined) {
        const n = view.byteLength
        traced(h, () => `copy D2H ${n} B (pinned)`, 'memcpy', () => native.memCopyDtohPinned(h, own(under.pinned), under.offset, src, this.byteOffset, n))
      } else traced(h, () => `copy D2H ${view.byteLength} B`, 'memcpy', () => native.memCopyDtoh(h, view, src, this.byteOffset))
    }
    return s
  }

  /** Copies `nbytes` from device memory `src` here and waits for the copy. */
  copyFromDevice(src: MemoryPointer, nbytes: number): void {
    // The default stream is this pointer's device's, wherever the call is made from.
    if (this.deviceId !== scope().device) return runWith({ device: this.deviceId }, () => this.copyFromDevice(src, nbytes))
    this.copyFromDeviceAsync(src, nbytes).synchronize()
  }

  /**
   * Enqueues a device-to-device copy on `stream`: by default the current stream of this
   * pointer's device, and between devices ordered after the current stream of `src`'s device too
   * (an event recorded there and waited on here, as PyTorch orders it). Between devices
   * (`cudaMemcpyPeerAsync`) a given stream may be either device's; the copy is ordered on it
   * alone, so order work on the other device with an event (`stream.waitEvent(other.record())`).
   */
  copyFromDeviceAsync(src: MemoryPointer, nbytes: number, stream?: Stream | CudaStreamProtocol): Stream {
    if (!(src instanceof MemoryPointer)) throw new TypeError(`src must be a MemoryPointer, got ${describe(src)}`)
    if (stream === undefined && this.deviceId !== scope().device) {
      return runWith({ device: this.deviceId }, () => this.copyFromDeviceAsync(src, nbytes))
    }
    const s = streamOr(stream, this.deviceId)
    const h = streamHandle(s)
    const n = count('size', nbytes)
    if (stream === undefined && src.deviceId !== this.deviceId) {
      const after = currentStreamHandle(src.deviceId)
      traced(h, () => `copy D2D ${n} B`, 'memcpy', () => native.memCopyDtodAfter(h, after, own(this.mem), this.byteOffset, own(src.mem), src.byteOffset, n))
    } else traced(h, () => `copy D2D ${n} B`, 'memcpy', () => native.memCopyDtod(h, own(this.mem), this.byteOffset, own(src.mem), src.byteOffset, n))
    return s
  }

  /** Copies from `src`, host or device memory, choosing by its kind, and waits for the copy. */
  copyFrom(src: MemoryPointer | HostBuffer, nbytes?: number): void {
    this.copyFromAsync(src, nbytes).synchronize()
  }

  /** Enqueues a copy from `src`, host or device memory, on `stream`. */
  copyFromAsync(src: MemoryPointer | HostBuffer, nbytes?: number, stream?: Stream | CudaStreamProtocol): Stream {
    if (src instanceof MemoryPointer) return this.copyFromDeviceAsync(src, nbytes ?? Math.min(src.size, this.size), stream)
    return this.copyFromHostAsync(src, nbytes, stream)
  }

  /** Sets `nbytes` bytes to `value` (0 to 255) on the current stream of this pointer's device, and waits. */
  memset(value: number, nbytes: number): void {
    if (this.deviceId !== scope().device) return runWith({ device: this.deviceId }, () => this.memset(value, nbytes))
    this.memsetAsync(value, nbytes).synchronize()
  }

  /** Enqueues a memset on `stream` (the current stream by default). */
  memsetAsync(value: number, nbytes: number, stream?: Stream | CudaStreamProtocol): Stream {
    if (typeof value !== 'number') throw new TypeError(`memset value must be a number, got ${describe(value)}`)
    if (stream === undefined && this.deviceId !== scope().device) {
      return runWith({ device: this.deviceId }, () => this.memsetAsync(value, nbytes))
    }
    const s = streamOr(stream, this.deviceId)
    const h = streamHandle(s)
    const n = count('size', nbytes)
    traced(h, () => `memset ${n} B`, 'memset', () => native.memMemset(h, own(this.mem), this.byteOffset, value, n))
    return s
  }

  /**
   * `nbytes` at `ptr` that another library allocated (CuPy's `UnownedMemory`): copies, memset,
   * kernels and BLAS take it like any pointer; it is never freed here, and `owner` is kept alive
   * until it is freed and the device has finished the work queued before.
   * @throws {TypeError} unless `ptr` is a bigint; {RangeError} for a bad size or a range past
   *   the allocation that holds `ptr`; {CudaError} `CUDA_ERROR_INVALID_VALUE` for an address the
   *   driver does not know or host memory, `CUDA_ERROR_INVALID_DEVICE` for memory of another device.
   */
  static fromExternal(ptr: bigint, nbytes: number, options: ExternalOptions = {}): MemoryPointer {
    if (typeof ptr !== 'bigint') throw new TypeError(`ptr must be a bigint, got ${describe(ptr)}`)
    checkOptions<ExternalOptions>('fromExternal', options, ['device', 'owner', 'stream'])
    const { owner, stream } = options
    if (owner !== undefined && (owner === null || (typeof owner !== 'object' && typeof owner !== 'function'))) {
      throw new TypeError(`owner must be an object, got ${describe(owner)}`)
    }
    const after = stream === undefined ? undefined : streamOr(stream, -1)
    const device = deviceOrdinal(options.device)
    const handle = native.memFromExternal(ptr, count('size', nbytes), device, owner)
    const p = adoptPointer(handle, device)
    if (after !== undefined) streamOr(undefined, device).waitEvent(after.record())
    return p
  }

  /**
   * The `__cuda_array_interface__` v3 form of these bytes, for other native addons (CuPy's
   * `__cuda_array_interface__`). `stream`: the stream work on them is queued on.
   */
  toCudaArray(stream?: Stream | CudaStreamProtocol): CudaArrayInterface {
    const s = stream === undefined ? null : streamOr(stream, -1).handle
    return { shape: [this.size], typestr: '|u1', data: [this.ptr, false], version: 3, strides: null, stream: s, device: this.deviceId }
  }

  /**
   * Wraps memory described in the `__cuda_array_interface__` v3 shape (as {@link toCudaArray}
   * makes); `owner` as in {@link fromExternal}. A non-null `stream` is waited for by the
   * current stream. @throws {TypeError} for a malformed description.
   */
  static fromCudaArray(obj: CudaArrayInterface, options: { owner?: object } = {}): MemoryPointer {
    if (typeof obj !== 'object' || obj === null) throw new TypeError(`fromCudaArray needs an object, got ${describe(obj)}`)
    checkOptions('fromCudaArray', options, ['owner'])
    const { shape, typestr, data, version, strides } = obj
    if (version !== 3) throw new TypeError(`fromCudaArray reads version 3 of the interface, got ${describe(version)}`)
    if (!Array.isArray(data) || typeof data[0] !== 'bigint') throw new TypeError('data must be [ptr: bigint, readonly: boolean]')
    if (!Array.isArray(shape)) throw new TypeError(`shape must be an array, got ${describe(shape)}`)
    const m = typeof typestr === 'string' ? /^[<>|=][a-zA-Z](\d+)$/.exec(typestr) : null
    if (m === null) throw new TypeError(`typestr must be like '<f4', got ${describe(typestr)}`)
    if (strides !== null && strides !== undefined) throw new TypeError('only contiguous arrays (strides null) can be wrapped')
    const n = shape.reduce((a: number, d: unknown) => a * count('shape entry', d), 1) * Number(m[1])
    const device = obj.device ?? pointerGetAttributes(data[0]).device
    const p = MemoryPointer.fromExternal(data[0], n, { device, owner: options.owner })
    if (obj.stream !== null && obj.stream !== undefined) {
      if (typeof obj.stream !== 'bigint') throw new TypeError(`stream must be a bigint handle or null, got ${describe(obj.stream)}`)
      streamOr(undefined, device).waitEvent(new ExternalStream(obj.stream, device).record())
    }
    return p
  }

  /**
   * The 64-byte IPC handle of the allocation this points into (`cuIpcGetMemHandle`) and this
   * pointer's offset in it: a pool block lies inside a larger allocation, and one handle serves
   * all of it. **GPU only**: the simulator throws `CUDA_ERROR_NOT_SUPPORTED`.
   */
  ipcHandle(): IpcMemHandle {
    const { handle, offset } = native.memIpcHandle(own(this.mem))
    return { handle, offset: offset + this.byteOffset }
  }

  /**
   * The data another process imports this allocation with (`cuMemPoolExportPointer`, behind a
   * small header naming its pool), for `pool.importPointer(data)` on the pool
   * `AsyncMemoryPool.connect` gave there. Only the whole of an allocation of a shareable pool.
   * **GPU only.**
   * @throws {RangeError} for a pointer at an offset, {CudaError} `CUDA_ERROR_INVALID_VALUE` for
   *   memory that is not from a shareable pool.
   */
  exportPointer(): Buffer {
    if (this.byteOffset !== 0) throw new RangeError('exportPointer() exports a whole allocation: call it on the pointer malloc returned')
    return native.memExportPointer(own(this.mem))
  }

  /**
   * Opens memory of another process (`cuIpcOpenMemHandle`) from what its `ipcHandle()` gave:
   * `size` bytes (the rest of the allocation by default) at `offset`; closed when freed.
   * **GPU only**. @throws {RangeError} for a handle that is not 64 bytes or a range past the allocation.
   */
  static fromIpcHandle(handle: Buffer | Uint8Array | IpcMemHandle, options: { offset?: number; size?: number; device?: number | Device } = {}): MemoryPointer {
    checkOptions('fromIpcHandle', options, ['offset', 'size', 'device'])
    let bytes = handle as Uint8Array
    let offset = options.offset ?? 0
    if (!(handle instanceof Uint8Array)) {
      if (typeof handle !== 'object' || handle === null || !(handle.handle instanceof Uint8Array)) {
        throw new TypeError(`fromIpcHandle needs a 64-byte Buffer or { handle, offset }, got ${describe(handle)}`)
      }
      bytes = handle.handle
      offset = options.offset ?? handle.offset
    }
    const device = deviceOrdinal(options.device)
    const size = options.size === undefined ? undefined : count('size', options.size)
    return adoptPointer(native.memFromIpcHandle(device, bytes, count('offset', offset), size), device)
  }

  /** Frees the underlying allocation (every view of it). Freeing twice is nothing. */
  free(): void {
    this.mem.free()
  }

  /** Frees the underlying allocation, for `using`, as `free()` does. */
  [Symbol.dispose](): void {
    this.mem.free()
  }
}

/** @internal A pointer to the start of a block the addon made. */
export function adoptPointer(handle: number, device: number): MemoryPointer {
  return new MemoryPointer(new Memory(INTERNAL, handle, device), 0)
}
