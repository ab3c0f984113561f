/** A stack frame of the binding itself: the WebAssembly module, emnapi, or its generated wrappers. */
const BINDING_FRAME = /wasm:\/\/|[\\/]@emnapi[\\/]|[\\/]@napi-rs[\\/]wasm-runtime[\\/]|makeDynamicFunction/

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
    // Made by the addon, the stack starts with the binding's own frames: on WebAssembly
    // emnapi's and the module's, enough to push the caller past V8's limit. Capture more, and
    // keep the limit's worth of frames that are not the binding's.
    const limit = Error.stackTraceLimit
    if (typeof limit === 'number') Error.stackTraceLimit = limit + 16
    try {
      super(message)
    } finally {
      Error.stackTraceLimit = limit
    }
    this.code = code
    if (typeof limit === 'number' && typeof this.stack === 'string') {
      const lines = this.stack.split('\n')
      const first = lines.findIndex((l) => /^\s+at /.test(l))
      if (first >= 0) {
        const frames = lines.slice(first).filter((l) => !BINDING_FRAME.test(l))
        this.stack = [...lines.slice(0, first), ...frames.slice(0, limit)].join('\n')
      }
    }
  }

  /** Always `'CudaError'`, so stack traces and `util.inspect` name the class. */
  override get name(): string {
    return 'CudaError'
  }
}
