import { native } from '../native'
import { Device, deviceOrdinal } from '../device'
import { INTERNAL } from '../object'
import { Stream } from './stream'

/**
 * A stream created by other code (CuPy's `ExternalStream`), wrapped without owning it: it is
 * never destroyed here (`destroy()` releases only this wrapper). The handle is checked with the
 * driver (`cuStreamGetCtx`) before it is used.
 */
export class ExternalStream extends Stream {
  /**
   * @throws {TypeError} unless `handle` is a bigint; {RangeError} for 0, 1 and 2 (the default
   *   streams) or a value no address can have; {CudaError} where the driver rejects it.
   */
  constructor(handle: bigint, device?: number | Device) {
    if (typeof handle !== 'bigint') throw new TypeError('ExternalStream takes the stream handle as a bigint')
    const dev = deviceOrdinal(device)
    super(INTERNAL, (owner) => native.streamExternal(owner, dev, handle), dev)
  }
}
