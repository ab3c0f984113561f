// The element types the library knows, by CuPy's dtype names: each one's width and how a value
// of it is written little-endian. Kernel scalars (`Scalar`) and `kernels.fill` both use this one
// table.

/** The element types a scalar kernel argument or `kernels.fill` can have. */
export type DType = 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float32' | 'float64'

interface Layout {
  /** Bytes an element takes. */
  size: number
  /** Writes `value` at `at` of `v`, little-endian. @throws {RangeError} when it does not fit. */
  write(v: DataView, at: number, value: number | bigint, type: DType): void
}

function int(lo: number, hi: number, set: (v: DataView, at: number, n: number) => void): Layout['write'] {
  return (v, at, value, type) => {
    const n = Number(value)
    if (!Number.isInteger(n) || n < lo || n > hi) throw new RangeError(`${value} does not fit ${type}`)
    set(v, at, n)
  }
}

function int64(lo: bigint, hi: bigint, set: (v: DataView, at: number, n: bigint) => void): Layout['write'] {
  return (v, at, value, type) => {
    if (typeof value === 'number' && !Number.isInteger(value)) throw new RangeError(`${value} does not fit ${type}`)
    const n = BigInt(value)
    if (n < lo || n > hi) throw new RangeError(`${value} does not fit ${type}`)
    set(v, at, n)
  }
}

export const DTYPES: Readonly<Record<DType, Layout>> = {
  int8: { size: 1, write: int(-128, 127, (v, at, n) => v.setInt8(at, n)) },
  uint8: { size: 1, write: int(0, 255, (v, at, n) => v.setUint8(at, n)) },
  int16: { size: 2, write: int(-32768, 32767, (v, at, n) => v.setInt16(at, n, true)) },
  uint16: { size: 2, write: int(0, 65535, (v, at, n) => v.setUint16(at, n, true)) },
  int32: { size: 4, write: int(-(2 ** 31), 2 ** 31 - 1, (v, at, n) => v.setInt32(at, n, true)) },
  uint32: { size: 4, write: int(0, 2 ** 32 - 1, (v, at, n) => v.setUint32(at, n, true)) },
  int64: { size: 8, write: int64(-(2n ** 63n), 2n ** 63n - 1n, (v, at, n) => v.setBigInt64(at, n, true)) },
  uint64: { size: 8, write: int64(0n, 2n ** 64n - 1n, (v, at, n) => v.setBigUint64(at, n, true)) },
  float32: { size: 4, write: (v, at, value) => v.setFloat32(at, Number(value), true) },
  float64: { size: 8, write: (v, at, value) => v.setFloat64(at, Number(value), true) },
}

/** True for a name in the table. */
export function isDType(t: unknown): t is DType {
  return typeof t === 'string' && Object.prototype.hasOwnProperty.call(DTYPES, t)
}
