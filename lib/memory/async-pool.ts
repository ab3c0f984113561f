import { native } from '../native'
import { scope } from '../context'
import { currentStreamHandle } from '../stream/handle'
import { PerDevice } from './per-device'
import { adoptPointer, type MemoryPointer } from './pointer'

/**
 * CUDA's stream-ordered allocator (CuPy's `MemoryAsyncPool`): `cudaMallocAsync` on the current
 * stream; a block is freed on that same stream, in stream order, when freed or collected.
 */
export class AsyncMemoryPool {
  /** The native pool of each device this pool is used on, owned by this object. */
  readonly #pools = new PerDevice((d) => native.asyncPoolCreate(this, d))

  /** `nbytes`, rounded up to 512 as CuPy rounds, on the current device, allocated in order on the current stream. */
  malloc(nbytes: number): MemoryPointer {
    const sc = scope()
    const device = sc.device
    return adoptPointer(native.asyncPoolMalloc(this.#pools.get(device), nbytes, currentStreamHandle(device, sc)), device)
  }

  /** Bytes in use on the current device. */
  usedBytes(): number {
    return native.asyncPoolUsedBytes(this.#pools.get())
  }

  /** Bytes the pool has reserved on the current device. */
  totalBytes(): number {
    return native.asyncPoolTotalBytes(this.#pools.get())
  }

  /** Reserved bytes on the current device that no allocation uses (`totalBytes() - usedBytes()`). */
  freeBytes(): number {
    return native.asyncPoolFreeBytes(this.#pools.get())
  }

  /** Waits for the device, then releases reserved memory no block uses. */
  freeAllBlocks(): void {
    for (const p of this.#pools.all()) native.asyncPoolFreeAllBlocks(p)
  }
}
