import { describe } from '../validate'
import { DTYPES, isDType, type DType } from './dtype'

/** C types a scalar kernel argument can have (the {@link DType} names). */
export type ScalarType = DType

/** A scalar kernel argument with its C type stated (see `f32`, `i32`, ...). */
export class Scalar {
  /** @throws {TypeError} for an unknown type, or a value that is not a number (or bigint, for 64-bit integers). */
  constructor(
    /** The argument's C type. */
    readonly type: ScalarType,
    /** The value, checked against the type's range when the kernel is launched. */
    readonly value: number | bigint,
  ) {
    if (!isDType(type)) throw new TypeError(`unknown scalar type ${describe(type)}: one of ${Object.keys(DTYPES).join(', ')}`)
    const big = type === 'int64' || type === 'uint64'
    if (typeof value !== 'number' && !(big && typeof value === 'bigint')) {
      throw new TypeError(`a ${type} argument must be a number${big ? ' or bigint' : ''}, got ${describe(value)}`)
    }
  }

  /** Bytes the argument takes: 1, 2, 4 or 8. */
  get size(): number {
    return DTYPES[this.type].size
  }

  /**
   * The little-endian bytes the kernel receives.
   * @throws {RangeError} when an integer type's value is fractional or out of its range.
   */
  bytes(): Uint8Array {
    const b = new Uint8Array(this.size)
    writeScalar(this, new DataView(b.buffer), 0)
    return b
  }
}

/** Writes `s`'s bytes at `at` of `v` (a launch packs its arguments with no allocation). */
export function writeScalar(s: Scalar, v: DataView, at: number): void {
  DTYPES[s.type].write(v, at, s.value, s.type)
}

/** `x` as a `float` kernel argument: `new Scalar('float32', x)`. */
export const f32 = (x: number) => new Scalar('float32', x)
/** `x` as a `double` kernel argument: `new Scalar('float64', x)`. */
export const f64 = (x: number) => new Scalar('float64', x)
/** `x` as a `int8_t` (`signed char`) kernel argument: `new Scalar('int8', x)`. */
export const i8 = (x: number) => new Scalar('int8', x)
/** `x` as a `uint8_t` (`unsigned char`) kernel argument: `new Scalar('uint8', x)`. */
export const u8 = (x: number) => new Scalar('uint8', x)
/** `x` as a `int16_t` (`short`) kernel argument: `new Scalar('int16', x)`. */
export const i16 = (x: number) => new Scalar('int16', x)
/** `x` as a `uint16_t` (`unsigned short`) kernel argument: `new Scalar('uint16', x)`. */
export const u16 = (x: number) => new Scalar('uint16', x)
/** `x` as a `int32_t` (`int`) kernel argument: `new Scalar('int32', x)`. */
export const i32 = (x: number) => new Scalar('int32', x)
/** `x` as a `uint32_t` (`unsigned int`) kernel argument: `new Scalar('uint32', x)`. */
export const u32 = (x: number) => new Scalar('uint32', x)
/** `x` as a `int64_t` (`long long`) kernel argument: `new Scalar('int64', x)`. */
export const i64 = (x: number | bigint) => new Scalar('int64', x)
/** `x` as a `uint64_t` (`unsigned long long`) kernel argument: `new Scalar('uint64', x)`. */
export const u64 = (x: number | bigint) => new Scalar('uint64', x)
