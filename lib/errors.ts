/**
 * A CUDA failure, real or simulated. `code` is the driver's name for it
 * (`'CUDA_ERROR_INVALID_VALUE'`, ...), the same on both backends. Mirrors CuPy's
 * `CUDADriverError` / `CUDARuntimeError`.
 */
export class CudaError extends Error {
  /** The CUDA name of the failure, e.g. `'CUDA_ERROR_INVALID_HANDLE'`. */
  readonly code: string

  /**
   * @throws {TypeError} unless both are strings: converting anything else may run user code or
   *   take unbounded time (an array of length 2**32 - 1 is joined element by element), and a
   *   CudaError without a code is no CudaError.
   */
  constructor(message: string, code: string) {
    if (typeof message !== 'string') throw new TypeError(`CudaError takes its message as a string, got ${typeof message}`)
    if (typeof code !== 'string') throw new TypeError(`CudaError takes its code as a string (such as 'CUDA_ERROR_INVALID_VALUE'), got ${typeof code}`)
    super(message)
    this.code = code
  }

  /** Always `'CudaError'`, so stack traces and `util.inspect` name the class. */
  override get name(): string {
    return 'CudaError'
  }
}
