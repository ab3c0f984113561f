import { native } from '../native'
import { scope } from '../context'
import { Device } from '../device'
import { count, describe, integer } from '../validate'
import { adoptPointer, type MemoryPointer } from './pointer'

/** What {@link VirtualMemoryResource} takes. */
export interface VirtualMemoryOptions {
  /** The device (the current one by default). */
  device?: number | Device
  /** Bytes of address space to reserve, rounded up to the granularity (the device's memory by default). */
  reserve?: number
  /** `'minimum'` (default) or `'recommended'` (`cuMemGetAllocationGranularity`'s two options). */
  granularity?: 'minimum' | 'recommended'
}

/** Who may reach memory: read and write, read only, or not at all. */
export type MemoryAccess = 'rw' | 'r' | 'none'

function deviceId(d: unknown, what: string): number {
  return d instanceof Device ? d.id : integer(what, d)
}

/**
 * An allocator over CUDA's virtual memory management (cuda.core's `VirtualMemoryResource`):
 * reserves one address range of a device (`cuMemAddressReserve`) and maps physical memory into
 * it as allocations need it (`cuMemCreate`, `cuMemMap`, `cuMemSetAccess`); each allocation is
 * rounded up to the granularity and unmapped (`cuMemUnmap`, `cuMemRelease`) once it is freed and
 * the device has finished with it. `malloc` is bound, so `setAllocator(vmr.malloc)` allocates
 * from it. The range is freed once the resource is destroyed (or collected) and its last
 * allocation freed.
 * @throws {TypeError} for options of the wrong kind; {RangeError} for a bad size or granularity name.
 */
export class VirtualMemoryResource {
  readonly #handle: number
  /** The device the range belongs to. */
  readonly device: number

  constructor(options: VirtualMemoryOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError(`options must be an object, got ${describe(options)}`)
    const { device, reserve, granularity = 'minimum' } = options
    const id = device === undefined ? scope().device : deviceId(device, 'device')
    const size = reserve === undefined ? undefined : count('reserve', reserve)
    if (granularity !== 'minimum' && granularity !== 'recommended') {
      throw new RangeError(`granularity must be 'minimum' or 'recommended', got ${describe(granularity)}`)
    }
    this.#handle = native.vmmCreate(this, id, size, granularity === 'recommended')
    this.device = id
  }

  /**
   * `nbytes` of device memory mapped into the range (a zero-size pointer for 0).
   * @throws {CudaError} `CUDA_ERROR_OUT_OF_MEMORY` when the range or the device has no room;
   *   `CUDA_ERROR_INVALID_HANDLE` once destroyed.
   */
  readonly malloc = (nbytes: number): MemoryPointer => adoptPointer(native.vmmMalloc(this.#handle, count('nbytes', nbytes)), this.device)

  /** Bytes of address space reserved. */
  get reservedBytes(): number {
    return native.vmmReservedBytes(this.#handle)
  }

  /** Bytes of physical memory mapped now. */
  get mappedBytes(): number {
    return native.vmmMappedBytes(this.#handle)
  }

  /** The granularity allocations are rounded up to, in bytes. */
  get granularity(): number {
    return native.vmmGranularity(this.#handle)
  }

  /** The range's first address. */
  get base(): number {
    return native.vmmBase(this.#handle)
  }

  /**
   * Lets another device reach the memory, present and future (`cuMemSetAccess`): `'rw'`, `'r'`
   * or `'none'`. The owning device always keeps `'rw'`.
   * @throws {RangeError} for another access name; {CudaError} `CUDA_ERROR_INVALID_DEVICE` for a device that does not exist.
   */
  setAccess(device: number | Device, access: MemoryAccess): void {
    const id = deviceId(device, 'device')
    if (typeof access !== 'string') throw new TypeError(`access must be 'rw', 'r' or 'none', got ${describe(access)}`)
    native.vmmSetAccess(this.#handle, id, access)
  }

  /** No more allocations; the range goes once the last one is freed (again: nothing). Later calls throw `CUDA_ERROR_INVALID_HANDLE`. */
  destroy(): void {
    native.vmmDestroy(this.#handle)
  }

  /** Destroys the resource, for `using`, as `destroy()` does. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}
