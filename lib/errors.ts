/**
 * A CUDA failure, real or simulated. `code` is the driver's name for it
 * (`'CUDA_ERROR_INVALID_VALUE'`, ...), the same on both backends. Mirrors CuPy's
 * `CUDADriverError` / `CUDARuntimeError`.
 */
export class CudaError extends Error {
  /** The CUDA name of the failure, e.g. `'CUDA_ERROR_INVALID_HANDLE'`. */
  readonly code: string

  constructor(message: string, code: string) {
    super(message)
    this.code = code
  }

  /** Always `'CudaError'`, so stack traces and `util.inspect` name the class. */
  override get name(): string {
    return 'CudaError'
  }
}
