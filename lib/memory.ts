import { native } from './native'
import type { NativeMemory } from '../native'
import { scope } from './context'
import { getCurrentStream, Stream } from './stream'
import { describe } from './validate'

/** What host memory a copy accepts. */
export type HostBuffer = ArrayBufferView | ArrayBuffer

function size(name: string, v: unknown): number {
  if (typeof v !== 'number') throw new TypeError(`${name} must be a number, got ${describe(v)}`)
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got ${v}`)
  return v
}

/** A byte view of `src`'s first `n` bytes (all of it by default). */
function bytes(src: unknown, n: number | undefined, what: string): Uint8Array {
  let view: Uint8Array
  if (src instanceof Uint8Array) view = src
  else if (ArrayBuffer.isView(src)) view = new Uint8Array(src.buffer, src.byteOffset, src.byteLength)
  else if (src instanceof ArrayBuffer || src instanceof SharedArrayBuffer) {
    if ((src as ArrayBuffer & { detached?: boolean }).detached) throw new TypeError(`${what}: the ArrayBuffer is detached`)
    view = new Uint8Array(src)
  } else throw new TypeError(`${what}: host memory must be an ArrayBufferView or ArrayBuffer, got ${describe(src)}`)
  if ((view.buffer as ArrayBuffer & { detached?: boolean }).detached) throw new TypeError(`${what}: the ArrayBuffer is detached`)
  if (n === undefined) return view
  if (n > view.byteLength) throw new RangeError(`${what}: ${n} bytes asked, but the host buffer holds ${view.byteLength}`)
  return n === view.byteLength ? view : view.subarray(0, n)
}

function streamArg(stream: unknown, device: number): Stream {
  if (stream === undefined) return getCurrentStream(device)
  if (!(stream instanceof Stream)) throw new TypeError(`stream must be a Stream, got ${describe(stream)}`)
  return stream
}

/**
 * A plain device allocation (CuPy's `cupy.cuda.Memory`). Freed by `free()`, or by the GC.
 */
export class Memory {
  readonly #native: NativeMemory

  /** @throws {RangeError} for a bad size, {CudaError} `CUDA_ERROR_OUT_OF_MEMORY`. */
  constructor(nbytes: number, device?: number) {
    this.#native = native.NativeMemory.alloc(device ?? scope().device, size('size', nbytes))
  }

  /** @internal */
  get _native(): NativeMemory {
    return this.#native
  }

  get ptr(): bigint {
    return this.#native.ptr
  }

  get size(): number {
    return this.#native.size
  }

  get deviceId(): number {
    return this.#native.device
  }

  get freed(): boolean {
    return this.#native.freed
  }

  /** Frees the allocation now. @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` if already freed. */
  free(): void {
    this.#native.free()
  }
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

  constructor(mem: Memory, byteOffset = 0) {
    if (!(mem instanceof Memory)) throw new TypeError(`MemoryPointer needs a Memory, got ${describe(mem)}`)
    size('offset', byteOffset)
    if (byteOffset > mem.size) throw new RangeError(`offset ${byteOffset} is past the end of the ${mem.size}-byte allocation`)
    this.mem = mem
    this.byteOffset = byteOffset
  }

  /** The device address as a bigint. */
  get ptr(): bigint {
    return this.mem.ptr + BigInt(this.byteOffset)
  }

  /** Bytes from here to the end of the allocation. */
  get size(): number {
    return this.mem.size - this.byteOffset
  }

  get deviceId(): number {
    return this.mem.deviceId
  }

  /** A view `n` bytes further on. @throws {RangeError} past the end. */
  offset(n: number): MemoryPointer {
    return new MemoryPointer(this.mem, this.byteOffset + size('offset', n))
  }

  /** Copies host memory here and waits for the copy (on the current stream). */
  copyFromHost(src: HostBuffer, nbytes?: number): void {
    const s = this.copyFromHostAsync(src, nbytes)
    s.synchronize()
  }

  /** Enqueues a copy from host memory on `stream` (the current stream by default). */
  copyFromHostAsync(src: HostBuffer, nbytes?: number, stream?: Stream): Stream {
    const view = bytes(src, nbytes === undefined ? undefined : size('size', nbytes), 'copyFromHost')
    const s = streamArg(stream, this.deviceId)
    s._native.copyHtod(this.mem._native, this.byteOffset, view)
    return s
  }

  /** Copies from here into host memory; returns once `dst` holds the data. */
  copyToHost(dst: HostBuffer, nbytes?: number): void {
    this.copyToHostAsync(dst, nbytes)
  }

  /**
   * Copies into host memory on `stream`. Into pageable memory (any ArrayBuffer) the copy is
   * synchronous, as the driver makes it: it returns once `dst` holds the data.
   */
  copyToHostAsync(dst: HostBuffer, nbytes?: number, stream?: Stream): void {
    const view = bytes(dst, nbytes === undefined ? undefined : size('size', nbytes), 'copyToHost')
    streamArg(stream, this.deviceId)._native.copyDtoh(view, this.mem._native, this.byteOffset)
  }

  /** Copies `nbytes` from device memory `src` here and waits for the copy. */
  copyFromDevice(src: MemoryPointer, nbytes: number): void {
    this.copyFromDeviceAsync(src, nbytes).synchronize()
  }

  /** Enqueues a device-to-device copy on `stream` (the current stream by default). */
  copyFromDeviceAsync(src: MemoryPointer, nbytes: number, stream?: Stream): Stream {
    if (!(src instanceof MemoryPointer)) throw new TypeError(`src must be a MemoryPointer, got ${describe(src)}`)
    const s = streamArg(stream, this.deviceId)
    s._native.copyDtod(this.mem._native, this.byteOffset, src.mem._native, src.byteOffset, size('size', nbytes))
    return s
  }

  /** Copies from `src`, host or device memory, choosing by its kind, and waits for the copy. */
  copyFrom(src: MemoryPointer | HostBuffer, nbytes?: number): void {
    if (src instanceof MemoryPointer) this.copyFromDevice(src, nbytes ?? Math.min(src.size, this.size))
    else this.copyFromHost(src, nbytes)
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
    if (!Number.isInteger(value) || value < 0 || value > 255) throw new RangeError(`memset value must be a byte (0 to 255), got ${value}`)
    const s = streamArg(stream, this.deviceId)
    s._native.memset(this.mem._native, this.byteOffset, value, size('size', nbytes))
    return s
  }

  /** Frees the underlying allocation (every view of it). */
  free(): void {
    this.mem.free()
  }

  [Symbol.dispose](): void {
    if (!this.mem.freed) this.mem.free()
  }
}

/** Allocates `nbytes` of device memory on the current device (CuPy's `cupy.cuda.alloc`). */
export function alloc(nbytes: number): MemoryPointer {
  return new MemoryPointer(new Memory(nbytes))
}
