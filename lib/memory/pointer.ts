import { runWith, scope } from '../context'
import { native } from '../native'
import { INTERNAL } from '../object'
import { own } from '../object'
import { Stream } from '../stream/stream'
import { streamOr } from '../stream/current'
import { streamHandle } from '../stream/handle'
import { traced } from '../trace'
import { count, describe } from '../validate'
import { bytes } from './host'
import { Memory } from './memory'
import { PinnedMemory } from './pinned'

/** What host memory a copy accepts. */
export type HostBuffer = ArrayBufferView | ArrayBuffer | PinnedMemory

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

  /** Copies host memory here and waits for the copy (on the current stream). */
  copyFromHost(src: HostBuffer, nbytes?: number): void {
    this.copyFromHostAsync(src, nbytes).synchronize()
  }

  /**
   * Enqueues a copy from host memory on `stream` (the current stream by default). From
   * `PinnedMemory` it returns before the copy completes, and the pinned memory is kept alive
   * until it has; from other memory the bytes are staged before it returns.
   */
  copyFromHostAsync(src: HostBuffer, nbytes?: number, stream?: Stream): Stream {
    const s = streamOr(stream, this.deviceId)
    const h = streamHandle(s)
    const dst = own(this.mem)
    if (src instanceof PinnedMemory) {
      const n = nbytes === undefined ? src.size : count('size', nbytes)
      traced(h, () => `copy H2D ${n} B (pinned)`, 'memcpy', () => native.memCopyHtodPinned(h, dst, this.byteOffset, own(src), 0, n))
    } else {
      const view = bytes(src, nbytes === undefined ? undefined : count('size', nbytes), 'copyFromHost')
      traced(h, () => `copy H2D ${view.byteLength} B`, 'memcpy', () => native.memCopyHtod(h, dst, this.byteOffset, view))
    }
    return s
  }

  /** Copies from here into host memory; returns once `dst` holds the data. */
  copyToHost(dst: HostBuffer, nbytes?: number): void {
    this.copyToHostAsync(dst, nbytes).synchronize()
  }

  /**
   * Copies into host memory on `stream`. Into `PinnedMemory` it returns before the copy
   * completes; into other memory (pageable) it is synchronous, as the driver makes it.
   */
  copyToHostAsync(dst: HostBuffer, nbytes?: number, stream?: Stream): Stream {
    const s = streamOr(stream, this.deviceId)
    const h = streamHandle(s)
    const src = own(this.mem)
    if (dst instanceof PinnedMemory) {
      const n = nbytes === undefined ? dst.size : count('size', nbytes)
      traced(h, () => `copy D2H ${n} B (pinned)`, 'memcpy', () => native.memCopyDtohPinned(h, own(dst), 0, src, this.byteOffset, n))
    } else {
      const view = bytes(dst, nbytes === undefined ? undefined : count('size', nbytes), 'copyToHost')
      traced(h, () => `copy D2H ${view.byteLength} B`, 'memcpy', () => native.memCopyDtoh(h, view, src, this.byteOffset))
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
   * pointer's device. Between devices (`cudaMemcpyPeerAsync`) the stream may be either device's;
   * the copy is ordered on it alone, so order work on the other device with an event
   * (`stream.waitEvent(other.record())`).
   */
  copyFromDeviceAsync(src: MemoryPointer, nbytes: number, stream?: Stream): Stream {
    if (!(src instanceof MemoryPointer)) throw new TypeError(`src must be a MemoryPointer, got ${describe(src)}`)
    if (stream === undefined && this.deviceId !== scope().device) {
      return runWith({ device: this.deviceId }, () => this.copyFromDeviceAsync(src, nbytes))
    }
    const s = streamOr(stream, this.deviceId)
    const h = streamHandle(s)
    const n = count('size', nbytes)
    traced(h, () => `copy D2D ${n} B`, 'memcpy', () => native.memCopyDtod(h, own(this.mem), this.byteOffset, own(src.mem), src.byteOffset, n))
    return s
  }

  /** Copies from `src`, host or device memory, choosing by its kind, and waits for the copy. */
  copyFrom(src: MemoryPointer | HostBuffer, nbytes?: number): void {
    this.copyFromAsync(src, nbytes).synchronize()
  }

  /** Enqueues a copy from `src`, host or device memory, on `stream`. */
  copyFromAsync(src: MemoryPointer | HostBuffer, nbytes?: number, stream?: Stream): Stream {
    if (src instanceof MemoryPointer) return this.copyFromDeviceAsync(src, nbytes ?? Math.min(src.size, this.size), stream)
    return this.copyFromHostAsync(src, nbytes, stream)
  }

  /** Sets `nbytes` bytes to `value` (0 to 255) and waits. */
  memset(value: number, nbytes: number): void {
    this.memsetAsync(value, nbytes).synchronize()
  }

  /** Enqueues a memset on `stream` (the current stream by default). */
  memsetAsync(value: number, nbytes: number, stream?: Stream): Stream {
    if (typeof value !== 'number') throw new TypeError(`memset value must be a number, got ${describe(value)}`)
    const s = streamOr(stream, this.deviceId)
    const h = streamHandle(s)
    const n = count('size', nbytes)
    traced(h, () => `memset ${n} B`, 'memset', () => native.memMemset(h, own(this.mem), this.byteOffset, value, n))
    return s
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
