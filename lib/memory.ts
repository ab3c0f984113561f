import { native, withId } from './native'
import type { NativeAsyncPool, NativePool, NativePinned, NativePinnedPool } from '../native'
import { scope, runWith, enterWith } from './context'
import { Device, deviceOrdinal } from './device'
import { CudaError } from './errors'
import { track } from './lifetime'
import { currentStreamOf, Stream, streamOr } from './stream'
import { traced } from './trace'
import { count, describe, func } from './validate'

/** What host memory a copy accepts. */
export type HostBuffer = ArrayBufferView | ArrayBuffer | PinnedMemory

/** A function that allocates device memory (see {@link setAllocator}). */
export type Allocator = (nbytes: number) => MemoryPointer

/** Set by `Memory._adopt` for the constructor it calls next: a handle the native side made. */
let adopting: number | undefined
let adoptSize = 0
let adoptDevice = 0

function isDetached(b: ArrayBufferLike): boolean {
  return (b as ArrayBuffer & { detached?: boolean }).detached === true
}

/** A byte view of `src`'s first `n` bytes (all of it by default). */
function bytes(src: unknown, n: number | undefined, what: string): Uint8Array {
  let view: Uint8Array
  if (src instanceof Uint8Array) view = src
  else if (ArrayBuffer.isView(src)) view = new Uint8Array(src.buffer, src.byteOffset, src.byteLength)
  else if (src instanceof ArrayBuffer || src instanceof SharedArrayBuffer) {
    if (isDetached(src)) throw new TypeError(`${what}: the ArrayBuffer is detached`)
    view = new Uint8Array(src)
  } else throw new TypeError(`${what}: host memory must be an ArrayBufferView, ArrayBuffer or PinnedMemory, got ${describe(src)}`)
  if (isDetached(view.buffer)) throw new TypeError(`${what}: the ArrayBuffer is detached`)
  if (n === undefined) return view
  if (n > view.byteLength) throw new RangeError(`${what}: ${n} bytes asked, but the host buffer holds ${view.byteLength}`)
  return n === view.byteLength ? view : view.subarray(0, n)
}

function freedError(): CudaError {
  return new CudaError('this memory was freed: allocate a new one', 'CUDA_ERROR_INVALID_VALUE')
}

/**
 * A device allocation (CuPy's `cupy.cuda.Memory`): a plain `cudaMalloc` one, or a block of a
 * pool. Freed by `free()`, or by the GC once unreachable (stream-ordered for pool blocks).
 */
export class Memory {
  readonly #handle: number
  #size: number
  #ptr: bigint | undefined
  #device: number
  #freed = false

  /** A plain allocation of `nbytes` on `device` (current by default). @throws {RangeError}, {CudaError} `CUDA_ERROR_OUT_OF_MEMORY`. */
  constructor(nbytes: number, device?: number | Device) {
    if (adopting !== undefined) {
      // From _adopt (no JS runs between its assignment and here): no object built to say so.
      this.#handle = adopting
      this.#size = adoptSize
      this.#device = adoptDevice
      adopting = undefined
    } else {
      const dev = deviceOrdinal(device)
      this.#handle = native.memAlloc(dev, count('size', nbytes))
      this.#size = nbytes
      this.#device = dev
    }
    track(this)
  }

  /** @internal Wraps a native handle of known size and device. */
  static _adopt(handle: number, nbytes: number, device: number): Memory {
    adopting = handle
    adoptSize = nbytes
    adoptDevice = device
    return new Memory(nbytes)
  }

  /** @internal */
  get _handle(): number {
    return this.#handle
  }

  /** The device address. */
  get ptr(): bigint {
    if (this.#freed) throw freedError()
    return (this.#ptr ??= native.memDesc(this.#handle).ptr)
  }

  /** Bytes in the allocation (pool blocks: the request rounded up to 512). */
  get size(): number {
    return this.#size
  }

  /** The ordinal of the device the memory is on (CuPy's `Memory.device_id`). */
  get deviceId(): number {
    return this.#device
  }

  /** True once `free()` has been called on this allocation. */
  get freed(): boolean {
    return this.#freed
  }

  /** Frees the allocation now (pool blocks go back to their pool). @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` if already freed. */
  free(): void {
    native.memFree(this.#handle)
    this.#freed = true
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
    count('offset', byteOffset)
    if (byteOffset > mem.size) throw new RangeError(`offset ${byteOffset} is past the end of the ${mem.size}-byte allocation`)
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
    if (src instanceof PinnedMemory) {
      const n = nbytes === undefined ? src.size : count('size', nbytes)
      traced(s, () => `copy H2D ${n} B (pinned)`, 'memcpy', () => s._native.copyHtodPinned(this.mem._handle, this.byteOffset, src._native, 0, n))
    } else {
      const view = bytes(src, nbytes === undefined ? undefined : count('size', nbytes), 'copyFromHost')
      traced(s, () => `copy H2D ${view.byteLength} B`, 'memcpy', () => s._native.copyHtod(this.mem._handle, this.byteOffset, view))
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
    if (dst instanceof PinnedMemory) {
      const n = nbytes === undefined ? dst.size : count('size', nbytes)
      traced(s, () => `copy D2H ${n} B (pinned)`, 'memcpy', () => s._native.copyDtohPinned(dst._native, 0, this.mem._handle, this.byteOffset, n))
    } else {
      const view = bytes(dst, nbytes === undefined ? undefined : count('size', nbytes), 'copyToHost')
      traced(s, () => `copy D2H ${view.byteLength} B`, 'memcpy', () => s._native.copyDtoh(view, this.mem._handle, this.byteOffset))
    }
    return s
  }

  /** Copies `nbytes` from device memory `src` here and waits for the copy. */
  copyFromDevice(src: MemoryPointer, nbytes: number): void {
    this.copyFromDeviceAsync(src, nbytes).synchronize()
  }

  /** Enqueues a device-to-device copy on `stream` (the current stream by default). */
  copyFromDeviceAsync(src: MemoryPointer, nbytes: number, stream?: Stream): Stream {
    if (!(src instanceof MemoryPointer)) throw new TypeError(`src must be a MemoryPointer, got ${describe(src)}`)
    const s = streamOr(stream, this.deviceId)
    const n = count('size', nbytes)
    traced(s, () => `copy D2D ${n} B`, 'memcpy', () => s._native.copyDtod(this.mem._handle, this.byteOffset, src.mem._handle, src.byteOffset, n))
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
    if (!Number.isInteger(value) || value < 0 || value > 255) throw new RangeError(`memset value must be a byte (0 to 255), got ${value}`)
    const s = streamOr(stream, this.deviceId)
    const n = count('size', nbytes)
    traced(s, () => `memset ${n} B`, 'memset', () => s._native.memset(this.mem._handle, this.byteOffset, value, n))
    return s
  }

  /** Frees the underlying allocation (every view of it). */
  free(): void {
    this.mem.free()
  }

  /** Frees the underlying allocation, for `using`, unless it was freed already. */
  [Symbol.dispose](): void {
    if (!this.mem.freed) this.mem.free()
  }
}

/** One native object per device, made on first use for that device. */
class PerDevice<T> {
  readonly #made = new Map<number, T>()
  constructor(private readonly make: (device: number) => T) {}

  get(device = scope().device): T {
    let v = this.#made.get(device)
    if (v === undefined) {
      v = this.make(device)
      this.#made.set(device, v)
    }
    return v
  }

  all(): IterableIterator<T> {
    return this.#made.values()
  }
}

function round512(n: number): number {
  return Math.ceil(n / 512) * 512
}

/**
 * The caching device memory pool (CuPy's `MemoryPool`): sizes round up to 512 bytes; freed
 * blocks are kept per stream and reused there with no driver call; a block freed on one stream
 * is reused on another only once the first has passed the free.
 */
export class MemoryPool {
  /** Per device: the native pool, and its handle for the hot `poolMalloc`. */
  readonly #pools = new PerDevice((d) => withId(new native.NativePool(d)))

  #pool(device?: number): NativePool {
    return this.#pools.get(device).n
  }

  /**
   * A block of at least `nbytes` on the current device, for work on the current stream.
   * @throws {CudaError} `CUDA_ERROR_OUT_OF_MEMORY` (after freeing cached blocks and retrying),
   *   saying how much was asked, used and held.
   */
  malloc(nbytes: number): MemoryPointer {
    count('size', nbytes)
    const sc = scope()
    const device = sc.device
    const handle = native.poolMalloc(this.#pools.get(device).id, nbytes, currentStreamOf(device, sc)._id)
    return new MemoryPointer(Memory._adopt(handle, round512(nbytes), device), 0)
  }

  /** Releases cached blocks to the driver: all, or those of `stream`. Split blocks wait to re-merge. */
  freeAllBlocks(stream?: Stream): void {
    for (const p of this.#pools.all()) p.n.freeAllBlocks(stream?._native)
  }

  /** Cached free blocks on the current device. */
  nFreeBlocks(): number {
    return this.#pool().nFreeBlocks()
  }

  /** Bytes handed out and not yet freed, on the current device. */
  usedBytes(): number {
    return this.#pool().usedBytes()
  }

  /** Bytes cached for reuse, on the current device. */
  freeBytes(): number {
    return this.#pool().freeBytes()
  }

  /** Bytes the pool holds from the driver (used + free), on the current device. */
  totalBytes(): number {
    return this.#pool().totalBytes()
  }

  /**
   * Bounds the bytes the pool holds on the current device: `{ size }` in bytes or `{ fraction }`
   * of the device's memory; 0 (or `{}`) removes the limit.
   * @throws {TypeError} for both or neither kind, {RangeError} for a negative size or a fraction outside [0, 1].
   */
  setLimit(limit: { size?: number; fraction?: number }): void {
    if (typeof limit !== 'object' || limit === null) throw new TypeError('setLimit takes { size } or { fraction }')
    const { size: bytes, fraction } = limit
    if (bytes !== undefined && fraction !== undefined) throw new TypeError('setLimit takes { size } or { fraction }, not both')
    let n = 0
    if (bytes !== undefined) n = count('size', bytes)
    else if (fraction !== undefined) {
      if (typeof fraction !== 'number') throw new TypeError(`fraction must be a number, got ${describe(fraction)}`)
      if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`fraction must lie in [0, 1], got ${fraction}`)
      n = Math.floor(new Device().totalMemory * fraction)
    }
    this.#pool().setLimit(n)
  }

  /** The limit in bytes on the current device; 0 when there is none. */
  getLimit(): number {
    return this.#pool().getLimit()
  }
}

/**
 * CUDA's stream-ordered allocator (CuPy's `MemoryAsyncPool`): `cudaMallocAsync` on the current
 * stream; a block is freed on that same stream, in stream order, when freed or collected.
 */
export class AsyncMemoryPool {
  /** Per device: the native pool, and its handle for the hot `asyncPoolMalloc`. */
  readonly #pools = new PerDevice((d) => withId(new native.NativeAsyncPool(d)))

  #pool(device?: number): NativeAsyncPool {
    return this.#pools.get(device).n
  }

  /** `nbytes` on the current device, allocated in order on the current stream. */
  malloc(nbytes: number): MemoryPointer {
    count('size', nbytes)
    const sc = scope()
    const device = sc.device
    const handle = native.asyncPoolMalloc(this.#pools.get(device).id, nbytes, currentStreamOf(device, sc)._id)
    return new MemoryPointer(Memory._adopt(handle, nbytes, device), 0)
  }

  /** Bytes in use on the current device. */
  usedBytes(): number {
    return this.#pool().usedBytes()
  }

  /** Bytes the pool has reserved on the current device. */
  totalBytes(): number {
    return this.#pool().totalBytes()
  }

  /** Waits for the device, then releases reserved memory no block uses. */
  freeAllBlocks(): void {
    for (const p of this.#pools.all()) p.n.freeAllBlocks()
  }
}

/**
 * Page-locked host memory (CuPy's `PinnedMemory`): copies from and to it are truly
 * asynchronous. `buffer` is an ArrayBuffer over the pinned bytes themselves.
 */
export class PinnedMemory {
  readonly #native: NativePinned
  readonly #size: number
  #buffer: ArrayBuffer | undefined
  #freed = false

  /** @internal */
  constructor(n: NativePinned, nbytes: number) {
    this.#native = n
    this.#size = nbytes
  }

  /** @internal */
  get _native(): NativePinned {
    return this.#native
  }

  /** Bytes asked for when it was allocated. */
  get size(): number {
    return this.#size
  }

  /** The host address. */
  get ptr(): bigint {
    return this.#native.ptr
  }

  /**
   * An ArrayBuffer over the pinned memory. @throws {CudaError} `CUDA_ERROR_NOT_SUPPORTED` in
   * runtimes that refuse external buffers (Electron): use `set()` and `get()` there.
   */
  get buffer(): ArrayBuffer {
    if (this.#freed) throw freedError()
    return (this.#buffer ??= this.#native.buffer())
  }

  /** Copies `src` into the pinned memory at `offset` (works where `buffer` is refused). */
  set(src: ArrayBufferView | ArrayBuffer, offset = 0): void {
    this.#native.write(count('offset', offset), bytes(src, undefined, 'PinnedMemory.set'))
  }

  /** Copies from the pinned memory at `offset` into `dst`. */
  get(dst: ArrayBufferView | ArrayBuffer, offset = 0): void {
    this.#native.read(count('offset', offset), bytes(dst, undefined, 'PinnedMemory.get'))
  }

  /**
   * Gives the memory back to its pool once queued copies are done. `buffer` is detached, so
   * later use of it is a TypeError.
   */
  free(): void {
    if (this.#freed) throw new CudaError('this pinned memory was freed already', 'CUDA_ERROR_INVALID_VALUE')
    this.#freed = true
    if (this.#buffer !== undefined) native.detachArrayBuffer(this.#buffer)
    this.#native.release()
  }

  /** Frees the memory, for `using`, as `free()` does, unless it was freed already. */
  [Symbol.dispose](): void {
    if (!this.#freed) this.free()
  }
}

/** Caches pinned host allocations (CuPy's `PinnedMemoryPool`), since pinning is slow. */
export class PinnedMemoryPool {
  readonly #native: NativePinnedPool = new native.NativePinnedPool()

  /**
   * `nbytes` of pinned host memory (CuPy's `PinnedMemoryPool.malloc`), a cached block when one fits.
   * @throws {TypeError} for a non-number, {RangeError} for a negative or fractional size,
   *   {CudaError} `CUDA_ERROR_OUT_OF_MEMORY` (after releasing cached blocks and retrying).
   */
  malloc(nbytes: number): PinnedMemory {
    return new PinnedMemory(this.#native.malloc(count('size', nbytes)), nbytes)
  }

  /** Cached free blocks (CuPy's `n_free_blocks`). */
  nFreeBlocks(): number {
    return this.#native.nFreeBlocks()
  }

  /** Releases the cached free blocks to the driver (`cuMemFreeHost`; CuPy's `free_all_blocks`). */
  freeAllBlocks(): void {
    this.#native.freeAllBlocks()
  }
}

let defaultPool: MemoryPool | undefined
let defaultPinnedPool: PinnedMemoryPool | undefined

/** The pool `alloc` uses unless an allocator is set (CuPy's `get_default_memory_pool`). */
export function getDefaultMemoryPool(): MemoryPool {
  return (defaultPool ??= new MemoryPool())
}

/** The pool `allocPinned` uses (CuPy's `get_default_pinned_memory_pool`). */
export function getDefaultPinnedMemoryPool(): PinnedMemoryPool {
  return (defaultPinnedPool ??= new PinnedMemoryPool())
}

/** `nbytes` of pinned host memory from the default pinned pool (CuPy's `alloc_pinned_memory`). */
export function allocPinned(nbytes: number): PinnedMemory {
  return getDefaultPinnedMemoryPool().malloc(nbytes)
}

/** Allocates with `cudaMalloc` directly, bypassing any pool (the allocator `null` selects). */
export function mallocPlain(nbytes: number): MemoryPointer {
  return new MemoryPointer(new Memory(nbytes))
}

function checked(p: unknown): MemoryPointer {
  if (!(p instanceof MemoryPointer)) throw new TypeError(`the allocator must return a MemoryPointer, got ${describe(p)}`)
  return p
}

/**
 * `nbytes` of device memory from the current allocator (CuPy's `cupy.cuda.alloc`): the default
 * pool unless {@link setAllocator} or {@link usingAllocator} chose another.
 */
export function alloc(nbytes: number): MemoryPointer {
  const a = scope().allocator as Allocator | undefined
  return a === undefined ? getDefaultMemoryPool().malloc(nbytes) : checked(a(nbytes))
}

function allocatorArg(fn: Allocator | null): Allocator {
  return fn === null ? mallocPlain : (func('allocator', fn) as Allocator)
}

/**
 * Sets the allocator `alloc` uses for the rest of the current async context (CuPy's
 * `set_allocator`); `null` allocates with `cudaMalloc` directly.
 */
export function setAllocator(fn: Allocator | null): void {
  enterWith({ allocator: allocatorArg(fn) })
}

/** Runs `body` with `fn` as the allocator, for `body` and everything it awaits (CuPy's `using_allocator`). */
export function usingAllocator<T>(fn: Allocator | null, body: () => T): T {
  return runWith({ allocator: allocatorArg(fn) }, func('body', body) as () => T)
}
