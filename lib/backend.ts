import { native } from './native'

/** Which backend runs this process, and why. */
export interface BackendInfo {
  /** `'cuda'`: the real GPU through the driver; `'sim'`: the host simulator. */
  readonly name: 'cuda' | 'sim'
  /** Why this backend was chosen (the variable that forced it, or what loading the driver found). */
  readonly reason: string
  /** The driver's version as `cuDriverGetVersion` reports it (13000 is 13.0); cuda only. */
  readonly driverVersion?: number
}

let compiled: boolean | undefined

/** @internal Whether compiled kernels run here (the simulator runs a kernel's host implementation instead). */
export function compiledKernels(): boolean {
  return (compiled ??= native.backendInfo().compiledKernels)
}

let cached: BackendInfo | undefined

/**
 * The backend in use, chosen once per process: `CUDA_NODE_BACKEND=cuda|sim` forces one;
 * otherwise `cuda` when the driver loads and a device exists, else `sim`.
 * @throws {CudaError} when `cuda` is forced and cannot load (`CUDA_ERROR_NOT_INITIALIZED`,
 *   `CUDA_ERROR_NO_DEVICE`), saying why. @throws {RangeError} for an unknown backend name.
 */
export function backend(): BackendInfo {
  if (cached === undefined) {
    const info = native.backendInfo()
    cached = Object.freeze({
      name: info.name as 'cuda' | 'sim',
      reason: info.reason,
      ...(info.driverVersion == null ? {} : { driverVersion: info.driverVersion }),
    })
  }
  return cached
}

/**
 * Whether work here runs on a GPU (CuPy's `cupy.is_available()`): the `cuda` backend with a
 * device. False on the simulator, which runs everything else the same.
 * @throws as {@link backend} does, where `cuda` is forced and cannot load.
 */
export function isAvailable(): boolean {
  return backend().name === 'cuda'
}
