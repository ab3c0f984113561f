// Built-in kernels that both backends run, so tests and the tour can show order and overlap
// without a compiler.
import { native } from '../native'
import { own } from '../object'
import { MemoryPointer } from '../memory/pointer'
import type { Stream } from '../stream/stream'
import { currentStreamHandle, streamHandle, streamOption } from '../stream/handle'
import { scope } from '../context'
import { traced, tracing } from '../trace'
import { describe } from '../validate'
import { DTYPES, isDType, type DType } from './dtype'

/** The bits of `value` as `dtype`, little-endian, as a bigint (the encoding kernel arguments use). */
function bits(value: number | bigint, dtype: DType): bigint {
  const v = new DataView(new ArrayBuffer(8))
  if (typeof value !== 'number' && typeof value !== 'bigint') throw new TypeError(`fill value must be a number or bigint, got ${describe(value)}`)
  DTYPES[dtype].write(v, 0, value, dtype)
  return v.getBigUint64(0, true)
}

/**
 * Built-in kernels both backends run, so tests and the tour can show ordering and overlap
 * without a compiler (the GPU runs hand-written PTX the driver compiles; the simulator runs them
 * on its stream threads).
 */
export const kernels = {
  /**
   * Keeps `stream` (the current stream by default) busy for `ns` nanoseconds. GPU: a kernel
   * spinning on the global timer; sim: the stream's worker waits.
   * @throws {TypeError} for a non-number or a non-Stream, {RangeError} for a negative or fractional `ns`.
   */
  sleep(ns: number, stream?: Stream): void {
    if (typeof ns !== 'number') throw new TypeError(`ns must be a number, got ${describe(ns)}`)
    // The current device is looked up only where no stream is given, and the trace's closures
    // are made only while tracing: the empty launch is a hot call.
    const s = stream === undefined ? currentStreamHandle(scope().device) : streamHandle(stream)
    if (!tracing()) native.streamSleep(s, ns)
    else traced(s, () => `kernels.sleep ${ns / 1e6} ms`, 'kernel', () => native.streamSleep(s, ns))
  },

  /**
   * Writes `count` elements of `dtype` (default float32) equal to `value` at `ptr`, on `stream`
   * (the current stream by default).
   * @throws {TypeError} for a wrong kind of argument or an unknown dtype, {RangeError} for a bad
   *   count or a value that does not fit an integer dtype.
   */
  fill(ptr: MemoryPointer, value: number | bigint, count: number, dtype: DType = 'float32', stream?: Stream): void {
    if (!(ptr instanceof MemoryPointer)) throw new TypeError(`fill needs a MemoryPointer, got ${describe(ptr)}`)
    if (!isDType(dtype)) throw new TypeError(`unknown dtype ${describe(dtype)}: one of ${Object.keys(DTYPES).join(', ')}`)
    if (typeof count !== 'number') throw new TypeError(`count must be a number, got ${describe(count)}`)
    const s = streamOption(stream, ptr.deviceId)
    const b = bits(value, dtype)
    traced(s, () => `kernels.fill ${count} × ${dtype}`, 'kernel', () => native.memFill(s, own(ptr.mem), ptr.byteOffset, DTYPES[dtype].size, b, count))
  },
}
