import { native } from './native'
import { deviceOrdinal } from './device'

/**
 * Driver-level handles for interop with other native code (CuPy's `cupy.cuda.driver`): pass them
 * to an addon that calls the CUDA driver itself, so both work in the same context.
 */
export const driver = {
  /**
   * The current device's context (`CUcontext`, its primary context, in which all of this
   * library's work on the device runs) as a bigint, made current on the calling thread first —
   * as CuPy's `Device.use()` does before `driver.ctxGetCurrent()` — so native code called next
   * from this thread finds it current. The same for every call on a device, from any thread.
   * On the simulator, a stable fake per device (never 0n) that means nothing to a driver.
   * @throws {CudaError} where the device's context cannot be made current.
   */
  ctxGetCurrent(): bigint {
    return native.ctxGetCurrent(deviceOrdinal(undefined))
  },
}
