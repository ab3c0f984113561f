// Built-in kernels that both backends run, so tests and the tour can show order and overlap
// without a compiler.
import { native } from './native'
import { getCurrentStream, Stream, streamOr } from './stream'
import { MemoryPointer } from './memory'
import { Scalar } from './kernel'
import { traced } from './trace'
import { describe } from './validate'

/** The element types `fill` writes. */
export type DType = 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'float32' | 'float64' | 'int64' | 'uint64'

const widths: Record<DType, number> = {
  int8: 1, uint8: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, float32: 4, float64: 8, int64: 8, uint64: 8,
}

/** The bits of `value` as `dtype`, little-endian, as a bigint (the encoding kernel arguments use). */
function bits(value: number | bigint, dtype: DType): bigint {
  const v = new DataView(new ArrayBuffer(8))
  new Uint8Array(v.buffer).set(new Scalar(dtype, value).bytes())
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
    if (!Number.isSafeInteger(ns) || ns < 0) throw new RangeError(`ns must be a non-negative integer, got ${ns}`)
    const s = stream === undefined ? getCurrentStream() : streamOr(stream, 0)
    traced(s, () => `kernels.sleep ${ns / 1e6} ms`, 'kernel', () => native.streamSleep(s._id, ns))
  },

  /**
   * Writes `count` elements of `dtype` (default float32) equal to `value` at `ptr`, on `stream`
   * (the current stream by default).
   * @throws {TypeError} for a wrong kind of argument or an unknown dtype, {RangeError} for a bad
   *   count or a value that does not fit an integer dtype.
   */
  fill(ptr: MemoryPointer, value: number | bigint, count: number, dtype: DType = 'float32', stream?: Stream): void {
    if (!(ptr instanceof MemoryPointer)) throw new TypeError(`fill needs a MemoryPointer, got ${describe(ptr)}`)
    if (!(dtype in widths)) throw new TypeError(`unknown dtype ${describe(dtype)}: one of ${Object.keys(widths).join(', ')}`)
    if (typeof count !== 'number') throw new TypeError(`count must be a number, got ${describe(count)}`)
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`)
    const s = streamOr(stream, ptr.deviceId)
    const b = bits(value, dtype)
    traced(s, () => `kernels.fill ${count} × ${dtype}`, 'kernel', () => s._native.fill(ptr.mem._handle, ptr.byteOffset, widths[dtype], b, count))
  },
}
