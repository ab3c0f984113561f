import { native } from '../native'
import { Device, deviceOrdinal } from '../device'
import { INTERNAL, NativeObject, own, ownDevice } from '../object'
import { count } from '../validate'
import { historyTap, memoryChannels } from './channels'

/**
 * A device allocation (CuPy's `cupy.cuda.Memory`): a plain `cudaMalloc` one, or a block of a
 * pool. Freed by `free()`, or by the GC once unreachable (stream-ordered for pool blocks).
 */
export class Memory extends NativeObject {
  /** Address and size, read from the addon on first use (a pool rounds sizes up). */
  #desc: { ptr: bigint; size: number } | undefined
  #freed = false

  /** A plain allocation of `nbytes` on `device` (current by default). @throws {RangeError}, {CudaError} `CUDA_ERROR_OUT_OF_MEMORY`. */
  constructor(nbytes: number, device?: number | Device)
  /** @internal Wraps a block the addon made. */
  constructor(token: typeof INTERNAL, handle: number, device: number)
  constructor(nbytes: number | typeof INTERNAL, device?: number | Device, known?: number) {
    if (nbytes === INTERNAL) {
      super(INTERNAL, 'Memory', device as number, known!, attachMemory)
    } else {
      const dev = deviceOrdinal(device)
      super(INTERNAL, 'Memory', native.memAlloc(dev, count('size', nbytes)), dev, attachMemory)
    }
  }

  #describe(): { ptr: bigint; size: number } {
    // Freed: ask anyway, so the addon says so (CUDA_ERROR_INVALID_VALUE).
    if (this.#desc === undefined || this.#freed) this.#desc = native.memDesc(own(this))
    return this.#desc
  }

  /** The device address. @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` once freed. */
  get ptr(): bigint {
    return this.#describe().ptr
  }

  /** Bytes in the allocation (pool blocks: the request rounded up to 512). @throws {CudaError} if freed before it was asked. */
  get size(): number {
    return (this.#desc ?? this.#describe()).size
  }

  /** The ordinal of the device the memory is on (CuPy's `Memory.device_id`). */
  get deviceId(): number {
    return ownDevice(this)
  }

  /** True once `free()` has been called on this allocation. */
  get freed(): boolean {
    return this.#freed
  }

  #publishFree(): void {
    let size: number
    try {
      size = this.size // read before the free: a freed block cannot say its size any more
    } catch {
      return // already gone (a pool took it from its allocator): nothing is freed here
    }
    memoryChannels.free.publish({ memory: this, size, device: this.deviceId })
  }

  /** Frees the allocation now (pool blocks go back to their pool). Freeing twice is nothing, as in CuPy. */
  free(): void {
    const h = own(this)
    // Told after a free made twice too: where the addon logs frees, the log counts that one.
    const tap = historyTap.on
    if (!this.#freed) {
      tap?.free(this, h, false)
      if (memoryChannels.free.hasSubscribers) this.#publishFree()
    }
    native.memFree(h)
    this.#freed = true
    tap?.freed(false)
  }
}

/** A Memory's GC backstop, attached if it outlives the macrotask that made it (`lifetime.ts`). */
function attachMemory(m: object): void {
  if (!(m as Memory).freed) native.memOwn(m, own(m as Memory))
}
