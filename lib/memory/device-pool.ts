// A device's current stream-ordered pool (CuPy's `runtime.deviceGetMemPool`,
// `deviceSetMemPool`, `deviceGetDefaultMemPool`): the device's default pool, or a pool of ours.
import { native } from '../native'
import { type Device, deviceOrdinal } from '../device'
import { describe } from '../validate'
import { AsyncMemoryPool, poolHandle } from './async-pool'

/** The pools of ours this thread made current, by device (the addon keeps them alive while current). */
const current = new Map<number, AsyncMemoryPool>()
let defaultPool: AsyncMemoryPool | undefined

/**
 * The default stream-ordered pool of every device (CuPy's `runtime.deviceGetDefaultMemPool`,
 * as `MemoryAsyncPool('default')`): one AsyncMemoryPool object, used on the current device. It
 * allocates from the device's default pool even while another pool is current.
 */
export function deviceGetDefaultMemPool(): AsyncMemoryPool {
  return (defaultPool ??= new AsyncMemoryPool())
}

/**
 * The current stream-ordered pool of `device` (the current device by default; CuPy's
 * `runtime.deviceGetMemPool`): the pool {@link deviceSetMemPool} made current there, or the
 * default pool ({@link deviceGetDefaultMemPool}).
 * @throws {CudaError} `CUDA_ERROR_INVALID_DEVICE` for a device that does not exist.
 */
export function deviceGetMemPool(device?: number | Device): AsyncMemoryPool {
  const d = deviceOrdinal(device)
  if (native.devicePoolIsDefault(d)) {
    current.delete(d)
    return deviceGetDefaultMemPool()
  }
  return current.get(d) ?? deviceGetDefaultMemPool()
}

/**
 * Makes `pool` the current stream-ordered pool of `device` (the current device by default;
 * `cuDeviceSetMemPool`, CuPy's `runtime.deviceSetMemPool`): a pool of our own
 * (`new AsyncMemoryPool({ shareable: true })` made for that device, its memory there), kept
 * alive while it is current, even destroyed; or the default pool
 * ({@link deviceGetDefaultMemPool}, or any AsyncMemoryPool that is not shareable) again.
 * `cuMemAllocAsync` takes from the current pool; the default pool's allocations stay its own.
 * @throws {TypeError} unless `pool` is an AsyncMemoryPool; {CudaError}
 *   `CUDA_ERROR_INVALID_DEVICE` for a pool of another device, `CUDA_ERROR_INVALID_VALUE` for an
 *   imported pool or one of host memory.
 */
export function deviceSetMemPool(pool: AsyncMemoryPool, device?: number | Device): void {
  if (!(pool instanceof AsyncMemoryPool)) throw new TypeError(`pool must be an AsyncMemoryPool, got ${describe(pool)}`)
  const d = deviceOrdinal(device)
  native.devicePoolSet(d, poolHandle(pool, d))
  if (native.devicePoolIsDefault(d)) current.delete(d)
  else current.set(d, pool)
}
