import { isMainThread } from 'node:worker_threads'
import { native } from './native'
import { MemoryPointer } from './memory'
import { Stream, streamOr } from './stream'
import { count, describe } from './validate'

let exitHook = false

/** Makes sure the handles are destroyed when the main thread exits (CuPy does this at exit). */
export function handlesCreated(): void {
  if (!exitHook && isMainThread) {
    exitHook = true
    process.once('exit', () => native.releaseLibraryHandles())
  }
}

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
  if (typeof o !== 'object' || o === null) throw new TypeError('gemm takes an options object')
  const [m, n, k] = [count('m', o.m), count('n', o.n), count('k', o.k)]
  const [A, B, C] = [ptr('A', o.A), ptr('B', o.B), ptr('C', o.C)]
  const transA = o.transA ?? false
  const transB = o.transB ?? false
  const order = o.order ?? 'row'
  if (order !== 'row' && order !== 'column') throw new TypeError(`order must be 'row' or 'column', got ${describe(order)}`)
  const alpha = scalar('alpha', o.alpha ?? 1)
  const beta = scalar('beta', o.beta ?? 0)
  const s = streamOr(o.stream, C.deviceId)
  handlesCreated()
  if (order === 'column') {
    const lda = count('lda', o.lda ?? (transA ? k : m))
    const ldb = count('ldb', o.ldb ?? (transB ? n : k))
    const ldc = count('ldc', o.ldc ?? m)
    native.blasGemm(s._native, {
      dtype, transA, transB, m, n, k, alpha, beta,
      a: A.mem._handle, aOffset: A.byteOffset, lda, b: B.mem._handle, bOffset: B.byteOffset, ldb, c: C.mem._handle, cOffset: C.byteOffset, ldc,
    })
  } else {
    // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: the same bytes, operands swapped.
    const lda = count('lda', o.lda ?? (transA ? m : k))
    const ldb = count('ldb', o.ldb ?? (transB ? k : n))
    const ldc = count('ldc', o.ldc ?? n)
    native.blasGemm(s._native, {
      dtype, transA: transB, transB: transA, m: n, n: m, k, alpha, beta,
      a: B.mem._handle, aOffset: B.byteOffset, lda: ldb, b: A.mem._handle, bOffset: A.byteOffset, ldb: lda, c: C.mem._handle, cOffset: C.byteOffset, ldc,
    })
  }
}

function axpy(dtype: 'float32' | 'float64', n: number, alpha: number, x: MemoryPointer, y: MemoryPointer, o: AxpyOptions = {}): void {
  const X = ptr('x', x)
  const Y = ptr('y', y)
  const s = streamOr(o.stream, Y.deviceId)
  handlesCreated()
  native.blasAxpy(s._native, {
    dtype, n: count('n', n), alpha: scalar('alpha', alpha),
    x: X.mem._handle, xOffset: X.byteOffset, incx: count('incx', o.incx ?? 1), y: Y.mem._handle, yOffset: Y.byteOffset, incy: count('incy', o.incy ?? 1),
  })
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
