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

/** Builds the error the native layer throws: CUDA failures, type and range errors. */
export function makeError(kind: string, code: string | null | undefined, message: string): Error {
  switch (kind) {
    case 'cuda':
      return new CudaError(message, code ?? 'CUDA_ERROR_UNKNOWN')
    case 'type':
      return new TypeError(message)
    default:
      return new RangeError(message)
  }
}
