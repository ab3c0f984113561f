import { native, libraryHandlesCreated } from './native'
import { own } from './object'
import { MemoryPointer } from './memory/pointer'
import type { Stream } from './stream/stream'
import { streamOption } from './stream/handle'
import { count, describe, options as checkOptions } from './validate'

/** Options of a matrix product `C = alpha · op(A) · op(B) + beta · C`. */
export interface GemmOptions {
  /** Rows of op(A) and C. */
  m: number
  /** Columns of op(B) and C. */
  n: number
  /** Columns of op(A), rows of op(B). */
  k: number
  /** The matrix A, stored as `transA` and `order` say. */
  A: MemoryPointer
  /** The matrix B, stored as `transB` and `order` say. */
  B: MemoryPointer
  /** The matrix C: the output, whose old contents `beta` scales. */
  C: MemoryPointer
  /** Scales op(A) · op(B); 1 by default. */
  alpha?: number
  /** Scales C before the sum; 0 by default. */
  beta?: number
  /** op(A) is A transposed (A is stored k × m); false by default. */
  transA?: boolean
  /** op(B) is B transposed (B is stored n × k); false by default. */
  transB?: boolean
  /**
   * How the matrices are laid out: `'row'` (the default: C, JS and NumPy order, element (i, j)
   * at i · ld + j) or `'column'` (BLAS and Fortran order, at i + j · ld).
   */
  order?: 'row' | 'column'
  /** Leading dimensions, in elements; by default the stored matrix's row length (row order) or column height (column order). */
  lda?: number
  /** B's leading dimension, in elements (see `lda`). */
  ldb?: number
  /** C's leading dimension, in elements (see `lda`). */
  ldc?: number
  /** The stream to run on; the current stream of C's device by default. */
  stream?: Stream
}

/** Options of `y = alpha · x + y`. */
export interface AxpyOptions {
  /** Elements between consecutive elements of x; 1 by default. */
  incx?: number
  /** Elements between consecutive elements of y; 1 by default. */
  incy?: number
  /** The stream to run on; the current stream of y's device by default. */
  stream?: Stream
}

function ptr(name: string, v: unknown): MemoryPointer {
  if (!(v instanceof MemoryPointer)) throw new TypeError(`${name} must be a MemoryPointer, got ${describe(v)}`)
  return v
}

function scalar(name: string, v: unknown): number {
  if (typeof v !== 'number') throw new TypeError(`${name} must be a number, got ${describe(v)}`)
  return v
}

function gemm(dtype: 'float32' | 'float64', o: GemmOptions): void {
  checkOptions<GemmOptions>('gemm', o, ['m', 'n', 'k', 'A', 'B', 'C', 'alpha', 'beta', 'transA', 'transB', 'order', 'lda', 'ldb', 'ldc', 'stream'])
  const [m, n, k] = [count('m', o.m), count('n', o.n), count('k', o.k)]
  const [A, B, C] = [ptr('A', o.A), ptr('B', o.B), ptr('C', o.C)]
  const transA = o.transA ?? false
  const transB = o.transB ?? false
  if (typeof transA !== 'boolean' || typeof transB !== 'boolean') throw new TypeError('transA and transB must be booleans')
  const order = o.order ?? 'row'
  if (order !== 'row' && order !== 'column') throw new TypeError(`order must be 'row' or 'column', got ${describe(order)}`)
  const alpha = scalar('alpha', o.alpha ?? 1)
  const beta = scalar('beta', o.beta ?? 0)
  const s = streamOption(o.stream, C.deviceId)
  libraryHandlesCreated()
  if (order === 'column') {
    const lda = count('lda', o.lda ?? (transA ? k : m))
    const ldb = count('ldb', o.ldb ?? (transB ? n : k))
    const ldc = count('ldc', o.ldc ?? m)
    const dims = new Float64Array([m, n, k, alpha, beta, lda, ldb, ldc, A.byteOffset, B.byteOffset, C.byteOffset])
    native.blasGemm(s, dtype, (transA ? 1 : 0) | (transB ? 2 : 0), own(A.mem), own(B.mem), own(C.mem), dims)
  } else {
    // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: the same bytes, operands swapped.
    const lda = count('lda', o.lda ?? (transA ? m : k))
    const ldb = count('ldb', o.ldb ?? (transB ? k : n))
    const ldc = count('ldc', o.ldc ?? n)
    const dims = new Float64Array([n, m, k, alpha, beta, ldb, lda, ldc, B.byteOffset, A.byteOffset, C.byteOffset])
    native.blasGemm(s, dtype, (transB ? 1 : 0) | (transA ? 2 : 0), own(B.mem), own(A.mem), own(C.mem), dims)
  }
}

function axpy(dtype: 'float32' | 'float64', n: number, alpha: number, x: MemoryPointer, y: MemoryPointer, o: AxpyOptions = {}): void {
  checkOptions<AxpyOptions>('axpy', o, ['incx', 'incy', 'stream'])
  const X = ptr('x', x)
  const Y = ptr('y', y)
  const s = streamOption(o.stream, Y.deviceId)
  libraryHandlesCreated()
  const dims = new Float64Array([count('n', n), scalar('alpha', alpha), count('incx', o.incx ?? 1), count('incy', o.incy ?? 1), X.byteOffset, Y.byteOffset])
  native.blasAxpy(s, dtype, own(X.mem), own(Y.mem), dims)
}

/**
 * A few BLAS calls on MemoryPointers, through the device's cuBLAS handle bound to the current
 * stream (or the one given); on the simulator they run on the host, in stream order.
 */
export const blas = {
  /**
   * float32 `C = alpha · op(A) · op(B) + beta · C` (row-major unless `order: 'column'`).
   * @throws {TypeError} for a missing or wrong kind of option, {RangeError} for sizes or leading
   *   dimensions that are negative, inconsistent, or reach past the memory given.
   */
  sgemm(options: GemmOptions): void {
    gemm('float32', options)
  },
  /**
   * float64 `C = alpha · op(A) · op(B) + beta · C` (row-major unless `order: 'column'`).
   * @throws {TypeError} for a missing or wrong kind of option, {RangeError} for sizes or leading
   *   dimensions that are negative, inconsistent, or reach past the memory given.
   */
  dgemm(options: GemmOptions): void {
    gemm('float64', options)
  },
  /**
   * float32 `y = alpha · x + y` over `n` elements.
   * @throws {TypeError} for a wrong kind of argument, {RangeError} for a bad `n` or stride, or
   *   vectors that reach past the memory given.
   */
  saxpy(n: number, alpha: number, x: MemoryPointer, y: MemoryPointer, options?: AxpyOptions): void {
    axpy('float32', n, alpha, x, y, options)
  },
  /**
   * float64 `y = alpha · x + y` over `n` elements.
   * @throws {TypeError} for a wrong kind of argument, {RangeError} for a bad `n` or stride, or
   *   vectors that reach past the memory given.
   */
  daxpy(n: number, alpha: number, x: MemoryPointer, y: MemoryPointer, options?: AxpyOptions): void {
    axpy('float64', n, alpha, x, y, options)
  },
}
