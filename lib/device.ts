import { native, libraryHandlesCreated } from './native'
import { scope, runWith, enterWith } from './context'
import { describe, integer } from './validate'

/**
 * A limit of a device's context (`cudaLimit*` in camelCase): bytes for `stackSize` (per thread),
 * `printfFifoSize`, `mallocHeapSize`, `maxL2FetchGranularity` and `persistingL2CacheSize`; a count
 * for `devRuntimeSyncDepth` and `devRuntimePendingLaunchCount`.
 */
export type DeviceLimit =
  | 'stackSize'
  | 'printfFifoSize'
  | 'mallocHeapSize'
  | 'devRuntimeSyncDepth'
  | 'devRuntimePendingLaunchCount'
  | 'maxL2FetchGranularity'
  | 'persistingL2CacheSize'

/** Free and total device memory in bytes (`cuMemGetInfo`). */
export interface MemInfo {
  /** Bytes free on the device now. */
  readonly free: number
  /** Bytes of device memory in all. */
  readonly total: number
}

interface Props {
  name: string
  computeCapability: string
  totalMemory: number
  attributes: Readonly<Record<string, number>>
}

const propsCache = new Map<number, Props>()

/** @internal A device's properties, read once per process. */
export function props(id: number): Props {
  let p = propsCache.get(id)
  if (p === undefined) {
    const raw = native.deviceProps(id)
    p = Object.freeze({ ...raw, attributes: Object.freeze({ ...raw.attributes }) })
    propsCache.set(id, p)
  }
  return p
}

/**
 * @internal The ordinal of a `device` option: the current device when omitted, a Device's id, or a
 * number checked as `new Device(n)` checks it.
 */
export function deviceOrdinal(d: unknown): number {
  if (d === undefined) return scope().device
  if (d instanceof Device) return d.id
  return new Device(integer('device', d) as number).id
}

/**
 * A CUDA device (CuPy's `cupy.cuda.Device`). Cheap to create: two `Device` objects with the same
 * id are the same device.
 */
export class Device {
  /** The device's ordinal. */
  readonly id: number

  /**
   * @param id the ordinal; the current device when omitted.
   * @throws {TypeError} for a non-number, {RangeError} for a non-integer or NaN,
   *   {CudaError} `CUDA_ERROR_INVALID_DEVICE` for an ordinal with no device.
   */
  constructor(id?: number) {
    if (id === undefined) {
      this.id = scope().device
    } else {
      integer('device id', id)
      props(id) // checks the ordinal against the devices present
      this.id = id
    }
  }

  /** How many devices the backend presents (`cudaGetDeviceCount`). */
  static count(): number {
    return native.deviceCount()
  }

  /** The current device of this async context (`cupy.cuda.Device()`). */
  static current(): Device {
    return new Device()
  }

  /** The device's name, as `nvidia-smi` shows it. */
  get name(): string {
    return props(this.id).name
  }

  /** Compute capability as CuPy writes it: `'90'` for 9.0. */
  get computeCapability(): string {
    return props(this.id).computeCapability
  }

  /** Total device memory in bytes. */
  get totalMemory(): number {
    return props(this.id).totalMemory
  }

  /** Device attributes by camelCase name (`multiProcessorCount`, `warpSize`, ...). */
  get attributes(): Readonly<Record<string, number>> {
    return props(this.id).attributes
  }

  /** The device's UUID, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (cuda.core's `Device.uuid`; nvidia-smi prefixes it with `GPU-`). */
  get uuid(): string {
    return native.deviceUuid(this.id)
  }

  /** The device's PCI bus id, `0000:19:00.0` (CuPy's `Device.pci_bus_id`). */
  get pciBusId(): string {
    return native.devicePciBusId(this.id)
  }

  /**
   * The device at a PCI bus id, in any form the driver takes (`0000:19:00.0`, `19:00.0`)
   * (CuPy's `Device.from_pci_bus_id`).
   * @throws {TypeError} for a non-string, {CudaError} `CUDA_ERROR_INVALID_VALUE` for a malformed
   *   id, `CUDA_ERROR_INVALID_DEVICE` where no device is at it.
   */
  static fromPciBusId(id: string): Device {
    if (typeof id !== 'string') throw new TypeError(`a PCI bus id must be a string, got ${describe(id)}`)
    return new Device(native.deviceByPciBusId(id))
  }

  /**
   * The device an address lives on, as the driver reports it (CuPy's `Device.from_pointer`):
   * device and managed memory their device's, page-locked host memory the device of its context.
   * @throws {TypeError} unless `ptr` is a bigint; {CudaError} `CUDA_ERROR_INVALID_VALUE` for an
   *   address the driver does not know.
   */
  static fromPointer(ptr: bigint): Device {
    if (typeof ptr !== 'bigint') throw new TypeError(`ptr must be a bigint, got ${describe(ptr)}`)
    return new Device((native.pointerGetAttributes(ptr) as { device: number }).device)
  }

  /**
   * Whether this device can reach `peer`'s memory directly (CuPy's `runtime.deviceCanAccessPeer`,
   * cuda.core's `Device.can_access_peer`).
   * False for the device itself. Copies between devices work either way.
   */
  canAccessPeer(peer: Device | number): boolean {
    return native.deviceCanAccessPeer(this.id, deviceOrdinal(peer))
  }

  /**
   * Lets this device's kernels reach `peer`'s memory directly (`cudaDeviceEnablePeerAccess`: CuPy's
   * `runtime.deviceEnablePeerAccess`, run with this device current).
   * Enabling again is nothing.
   * @throws {CudaError} `CUDA_ERROR_INVALID_DEVICE` for the device itself,
   *   `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED` where `canAccessPeer(peer)` is false.
   */
  enablePeerAccess(peer: Device | number): void {
    native.deviceEnablePeerAccess(this.id, deviceOrdinal(peer))
  }

  /** Stops this device reaching `peer`'s memory directly. Disabling what is not enabled is nothing. */
  disablePeerAccess(peer: Device | number): void {
    native.deviceDisablePeerAccess(this.id, deviceOrdinal(peer))
  }

  /**
   * The device's cuBLAS handle (CuPy's `Device.cublas_handle`): created on first use, the same for
   * every Device of this id, destroyed at exit. A bigint, for other native code.
   */
  get cublasHandle(): bigint {
    libraryHandlesCreated()
    return native.deviceCublasHandle(this.id)
  }

  /** The device's cuSOLVER (dense) handle (CuPy's `Device.cusolver_handle`), as `cublasHandle`. */
  get cusolverHandle(): bigint {
    libraryHandlesCreated()
    return native.deviceCusolverHandle(this.id)
  }

  /**
   * A limit of the device's context now (`cudaDeviceGetLimit`, CuPy's `runtime.deviceGetLimit`).
   * @throws {TypeError} for a name that is no limit (the message names them all).
   */
  getLimit(name: DeviceLimit): number {
    if (typeof name !== 'string') throw new TypeError(`a limit's name must be a string, got ${describe(name)}`)
    return native.deviceGetLimit(this.id, name)
  }

  /**
   * Asks for a limit of the device's context (`cudaDeviceSetLimit`, CuPy's `runtime.deviceSetLimit`).
   * The device may round the value up or clamp it: {@link getLimit} says what it chose. Setting
   * `stackSize` waits for the device's earlier work.
   * @throws {TypeError} for a name that is no limit or a non-number; {RangeError} unless `value`
   *   is a non-negative integer; {CudaError} `CUDA_ERROR_INVALID_VALUE` for a value the device
   *   refuses (`maxL2FetchGranularity` past 128, `persistingL2CacheSize` past the device's
   *   `maxPersistingL2CacheSize` attribute, a heap or `printfFifoSize` changed after a kernel used
   *   it), `CUDA_ERROR_UNSUPPORTED_LIMIT` for a limit the device does not have
   *   (`devRuntimeSyncDepth` on compute capability 9.0 and later).
   */
  setLimit(name: DeviceLimit, value: number): void {
    if (typeof name !== 'string') throw new TypeError(`a limit's name must be a string, got ${describe(name)}`)
    native.deviceSetLimit(this.id, name, value)
  }

  /**
   * The device's cuSPARSE handle (CuPy's `Device.cusparse_handle`), as `cublasHandle`: this
   * thread's, made on first use, destroyed at exit (a worker's when it ends).
   * @throws {CudaError} `CUSPARSE_STATUS_NOT_INITIALIZED` where cuSPARSE cannot be loaded.
   */
  get cusparseHandle(): bigint {
    libraryHandlesCreated()
    return native.deviceLibraryHandle(this.id, 'cusparse')
  }

  /**
   * The device's cuTENSOR (2.x) handle (CuPy's `cutensor` handle), as `cublasHandle`.
   * @throws {CudaError} `CUTENSOR_STATUS_NOT_INITIALIZED` where libcutensor.so.2 cannot be loaded.
   */
  get cutensorHandle(): bigint {
    libraryHandlesCreated()
    return native.deviceLibraryHandle(this.id, 'cutensor')
  }

  /**
   * The device's sparse cuSOLVER handle (CuPy's `Device.cusolver_sp_handle`, `cusolverSpCreate`), as `cublasHandle`.
   * @throws {CudaError} `CUSOLVER_STATUS_NOT_INITIALIZED` where cuSOLVER cannot be loaded.
   */
  get cusolverSpHandle(): bigint {
    libraryHandlesCreated()
    return native.deviceLibraryHandle(this.id, 'cusolverSp')
  }

  /** Free and total memory now (`cudaMemGetInfo`). */
  memInfo(): MemInfo {
    return native.deviceMemInfo(this.id)
  }

  /**
   * Makes this the current device for the rest of the current async context (CuPy's `use()`).
   * Prefer {@link Device.run}, which scopes the change.
   */
  use(): this {
    enterWith({ device: this.id })
    return this
  }

  /** Runs `fn` with this as the current device, for `fn` and everything it awaits (CuPy's `with dev:`). */
  run<T>(fn: () => T): T {
    return runWith({ device: this.id }, fn)
  }

  /** Blocks until all work on the device is done (`cudaDeviceSynchronize`). */
  synchronize(): void {
    native.deviceSynchronize(this.id)
  }

  /** Resolves once all work on the device is done, without blocking the event loop. */
  synchronizeAsync(): Promise<void> {
    return native.deviceSynchronizeAsync(this.id)
  }

  /** `'<CUDA Device 0>'`, as CuPy's `repr` writes it. */
  toString(): string {
    return `<CUDA Device ${this.id}>`
  }
}
