import { native, libraryHandlesCreated } from './native'
import { own } from './object'
import { MemoryPointer } from './memory/pointer'
import type { Stream } from './stream/stream'
import { streamOption } from './stream/handle'
import { count, describe, options as checkOptions } from './validate'
import { scope } from './context'
import { type Device, deviceOrdinal } from './device'

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

/** The element types of {@link blas.gemm} and {@link blas.gemmStridedBatched} (cublasHgemm, Sgemm, Dgemm). */
export type GemmDtype = 'float16' | 'float32' | 'float64'

/** The element types {@link blas.gemmEx} reads and writes (`CUDA_R_16F`, `CUDA_R_16BF`, `CUDA_R_32F`, `CUDA_R_64F`). */
export type BlasDataType = 'float16' | 'bfloat16' | 'float32' | 'float64'

/**
 * cuBLAS's compute types (`cublasComputeType_t`) that {@link blas.gemmEx} offers: the precision of
 * the products and sums, and the type of alpha and beta (half, single, single, double).
 */
export type ComputeType = 'CUBLAS_COMPUTE_16F' | 'CUBLAS_COMPUTE_32F' | 'CUBLAS_COMPUTE_32F_FAST_TF32' | 'CUBLAS_COMPUTE_64F'

/** Options of {@link blas.gemm}: a {@link GemmOptions} with its element type. */
export interface TypedGemmOptions extends GemmOptions {
  /** A's, B's and C's element type: `'float16'` (cublasHgemm), `'float32'` (Sgemm) or `'float64'` (Dgemm). */
  dtype: GemmDtype
}

/** The batch of a strided-batched product: `batchCount` products, matrix i `stride*` elements after matrix i − 1. */
export interface BatchOptions {
  /** How many products. */
  batchCount: number
  /** Elements from one A to the next; by default one stored A (its stored rows × `lda` in row order). 0 uses one A for all. */
  strideA?: number
  /** Elements from one B to the next (see `strideA`). */
  strideB?: number
  /** Elements from one C to the next; by default one stored C. Results may not overlap. */
  strideC?: number
}

/** Options of {@link blas.gemmStridedBatched}. */
export interface StridedBatchedGemmOptions extends TypedGemmOptions, BatchOptions {}

/** Options of {@link blas.gemmEx}: A's, B's and C's types and the compute type, optionally a batch. */
export interface GemmExOptions extends GemmOptions, Partial<BatchOptions> {
  /** A's element type. */
  Atype: BlasDataType
  /** B's element type (cuBLAS wants A's). */
  Btype: BlasDataType
  /** C's element type. */
  Ctype: BlasDataType
  /** The compute type; alpha and beta are rounded to its scale type. */
  computeType: ComputeType
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

/** A product's shape, operands, transposes, order and scalars, checked in this order. */
function operands(o: GemmOptions) {
  const [m, n, k] = [count('m', o.m), count('n', o.n), count('k', o.k)]
  const [A, B, C] = [ptr('A', o.A), ptr('B', o.B), ptr('C', o.C)]
  const transA = o.transA ?? false
  const transB = o.transB ?? false
  if (typeof transA !== 'boolean' || typeof transB !== 'boolean') throw new TypeError('transA and transB must be booleans')
  const order = o.order ?? 'row'
  if (order !== 'row' && order !== 'column') throw new TypeError(`order must be 'row' or 'column', got ${describe(order)}`)
  const alpha = scalar('alpha', o.alpha ?? 1)
  const beta = scalar('beta', o.beta ?? 0)
  return { m, n, k, A, B, C, transA, transB, order, alpha, beta }
}

function gemm(dtype: 'float32' | 'float64', o: GemmOptions): void {
  checkOptions<GemmOptions>('gemm', o, ['m', 'n', 'k', 'A', 'B', 'C', 'alpha', 'beta', 'transA', 'transB', 'order', 'lda', 'ldb', 'ldc', 'stream'])
  const { m, n, k, A, B, C, transA, transB, order, alpha, beta } = operands(o)
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

const GEMM_KEYS = ['m', 'n', 'k', 'A', 'B', 'C', 'alpha', 'beta', 'transA', 'transB', 'order', 'lda', 'ldb', 'ldc', 'stream'] as const
const BATCH_KEYS = ['batchCount', 'strideA', 'strideB', 'strideC'] as const

function dataType(name: string, v: unknown, allowed: readonly string[]): string {
  if (typeof v !== 'string' || !allowed.includes(v)) throw new TypeError(`${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describe(v)}`)
  return v
}

const DATA_TYPES = ['float16', 'bfloat16', 'float32', 'float64'] as const
const COMPUTE_TYPES = ['CUBLAS_COMPUTE_16F', 'CUBLAS_COMPUTE_32F', 'CUBLAS_COMPUTE_32F_FAST_TF32', 'CUBLAS_COMPUTE_64F'] as const
const COMPUTE_OF: Record<GemmDtype, ComputeType> = { float16: 'CUBLAS_COMPUTE_16F', float32: 'CUBLAS_COMPUTE_32F', float64: 'CUBLAS_COMPUTE_64F' }

/**
 * One matrix product through `native.blasMatmul`: `entry` 'typed' (cublas<H|S|D>gemm) or 'ex'
 * (cublasGemmEx), `batch` present for the strided-batched entry points. Row order is mapped onto
 * column order as in {@link gemm}: the operands, their types and strides swapped.
 */
function matmul(entry: 'typed' | 'ex', types: [string, string, string, string], o: GemmOptions, batch: Partial<BatchOptions> | undefined): void {
  const { m, n, k, A, B, C, transA, transB, order, alpha, beta } = operands(o)
  const batched = batch !== undefined
  const batchCount = batched ? count('batchCount', batch.batchCount) : 1
  const s = streamOption(o.stream, C.deviceId)
  libraryHandlesCreated()
  const [at, bt, ct, compute] = types
  if (order === 'column') {
    const lda = count('lda', o.lda ?? (transA ? k : m))
    const ldb = count('ldb', o.ldb ?? (transB ? n : k))
    const ldc = count('ldc', o.ldc ?? m)
    const sa = count('strideA', batch?.strideA ?? lda * (transA ? m : k))
    const sb = count('strideB', batch?.strideB ?? ldb * (transB ? k : n))
    const sc = count('strideC', batch?.strideC ?? ldc * n)
    const dims = new Float64Array([m, n, k, alpha, beta, lda, ldb, ldc, A.byteOffset, B.byteOffset, C.byteOffset, batchCount, sa, sb, sc])
    const flags = (transA ? 1 : 0) | (transB ? 2 : 0) | (batched ? 4 : 0)
    native.blasMatmul(s, [entry, at, bt, ct, compute], flags, own(A.mem), own(B.mem), own(C.mem), dims)
  } else {
    const lda = count('lda', o.lda ?? (transA ? m : k))
    const ldb = count('ldb', o.ldb ?? (transB ? k : n))
    const ldc = count('ldc', o.ldc ?? n)
    const sa = count('strideA', batch?.strideA ?? lda * (transA ? k : m))
    const sb = count('strideB', batch?.strideB ?? ldb * (transB ? n : k))
    const sc = count('strideC', batch?.strideC ?? ldc * m)
    // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: the same bytes, operands swapped.
    const dims = new Float64Array([n, m, k, alpha, beta, ldb, lda, ldc, B.byteOffset, A.byteOffset, C.byteOffset, batchCount, sb, sa, sc])
    const flags = (transB ? 1 : 0) | (transA ? 2 : 0) | (batched ? 4 : 0)
    native.blasMatmul(s, [entry, bt, at, ct, compute], flags, own(B.mem), own(A.mem), own(C.mem), dims)
  }
}

function typedGemm(name: string, o: TypedGemmOptions, batch: boolean): void {
  checkOptions<StridedBatchedGemmOptions>(name, o, batch ? [...GEMM_KEYS, 'dtype', ...BATCH_KEYS] : [...GEMM_KEYS, 'dtype'])
  const dtype = dataType('dtype', o.dtype, ['float16', 'float32', 'float64']) as GemmDtype
  matmul('typed', [dtype, dtype, dtype, COMPUTE_OF[dtype]], o, batch ? (o as StridedBatchedGemmOptions) : undefined)
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
   * float16 `C = alpha · op(A) · op(B) + beta · C` (cublasHgemm; alpha and beta rounded to half),
   * as {@link blas.sgemm}.
   */
  hgemm(options: GemmOptions): void {
    checkOptions<GemmOptions>('hgemm', options, [...GEMM_KEYS])
    matmul('typed', ['float16', 'float16', 'float16', 'CUBLAS_COMPUTE_16F'], options, undefined)
  },
  /**
   * `C = alpha · op(A) · op(B) + beta · C` in `dtype` (cublasHgemm, Sgemm or Dgemm): row-major
   * unless `order: 'column'`, on the current stream of C's device unless `stream` is given.
   * @throws {TypeError} for a missing or wrong kind of option, {RangeError} for sizes, leading
   *   dimensions or offsets that are negative, inconsistent, misaligned or reach past the memory,
   *   {CudaError} `CUBLAS_STATUS_NOT_INITIALIZED` where cuBLAS cannot be loaded.
   */
  gemm(options: TypedGemmOptions): void {
    typedGemm('gemm', options, false)
  },
  /**
   * `batchCount` products `C[i] = alpha · op(A[i]) · op(B[i]) + beta · C[i]` in `dtype`
   * (cublas<H|S|D>gemmStridedBatched), matrix i `stride*` elements after matrix i − 1 of each
   * operand (one stored matrix by default; 0 reuses one A or B for the whole batch).
   * @throws as {@link blas.gemm}, and {RangeError} where `strideC` would make results overlap.
   */
  gemmStridedBatched(options: StridedBatchedGemmOptions): void {
    typedGemm('gemmStridedBatched', options, true)
  },
  /**
   * `C = alpha · op(A) · op(B) + beta · C` with A's, B's and C's types and the compute type
   * given (cublasGemmEx; with `batchCount`, cublasGemmStridedBatchedEx). The combinations are
   * cuBLAS's: `CUBLAS_COMPUTE_16F` all float16; `CUBLAS_COMPUTE_32F` A and B float16 with C
   * float16 or float32, bfloat16 with bfloat16 or float32, or all float32;
   * `CUBLAS_COMPUTE_32F_FAST_TF32` all float32; `CUBLAS_COMPUTE_64F` all float64.
   * @throws {CudaError} `CUBLAS_STATUS_NOT_SUPPORTED` for another combination; otherwise as
   *   {@link blas.gemmStridedBatched}.
   */
  gemmEx(options: GemmExOptions): void {
    checkOptions<GemmExOptions>('gemmEx', options, [...GEMM_KEYS, 'Atype', 'Btype', 'Ctype', 'computeType', ...BATCH_KEYS])
    const types: [string, string, string, string] = [
      dataType('Atype', options.Atype, DATA_TYPES),
      dataType('Btype', options.Btype, DATA_TYPES),
      dataType('Ctype', options.Ctype, DATA_TYPES),
      dataType('computeType', options.computeType, COMPUTE_TYPES),
    ]
    matmul('ex', types, options, options.batchCount === undefined ? undefined : options)
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

/** A cuBLAS operation (`cublasOperation_t`): op(A) is A, Aᵀ or Aᴴ. */
export type BlasOperation = 'N' | 'T' | 'C'
/** Which triangle a symmetric, Hermitian or triangular matrix is stored in (`cublasFillMode_t`). */
export type BlasFill = 'U' | 'L'
/** Which side a matrix multiplies from (`cublasSideMode_t`). */
export type BlasSide = 'L' | 'R'
/** Whether a triangular matrix's diagonal is taken as ones (`cublasDiagType_t`). */
export type BlasDiag = 'N' | 'U'
/** A complex scalar. */
export interface BlasComplex {
  /** The real part. */
  re: number
  /** The imaginary part. */
  im: number
}
/**
 * A scalar an entry point reads: a number (a complex one as `{ re, im }`) in host pointer mode,
 * or a MemoryPointer to it in device pointer mode.
 */
export type BlasScalar = number | BlasComplex | MemoryPointer

/** cuBLAS's typed entry points this library calls, by CuPy's names (`cupy_backends.cuda.libs.cublas`). */
export type CublasEntry =
  | 'isamax' | 'idamax' | 'icamax' | 'izamax' | 'isamin' | 'idamin' | 'icamin' | 'izamin' | 'sasum' | 'dasum'
  | 'scasum' | 'dzasum' | 'saxpy' | 'daxpy' | 'caxpy' | 'zaxpy' | 'scopy' | 'dcopy' | 'ccopy' | 'zcopy'
  | 'sdot' | 'ddot' | 'cdotu' | 'zdotu' | 'cdotc' | 'zdotc' | 'snrm2' | 'dnrm2' | 'scnrm2' | 'dznrm2'
  | 'srot' | 'drot' | 'csrot' | 'zdrot' | 'crot' | 'zrot' | 'srotg' | 'drotg' | 'crotg' | 'zrotg' | 'srotm'
  | 'drotm' | 'srotmg' | 'drotmg' | 'sscal' | 'dscal' | 'cscal' | 'zscal' | 'csscal' | 'zdscal' | 'sswap'
  | 'dswap' | 'cswap' | 'zswap' | 'sgemv' | 'dgemv' | 'cgemv' | 'zgemv' | 'sgbmv' | 'dgbmv' | 'cgbmv'
  | 'zgbmv' | 'sger' | 'dger' | 'cgeru' | 'zgeru' | 'cgerc' | 'zgerc' | 'ssymv' | 'dsymv' | 'csymv' | 'zsymv'
  | 'chemv' | 'zhemv' | 'ssbmv' | 'dsbmv' | 'chbmv' | 'zhbmv' | 'sspmv' | 'dspmv' | 'chpmv' | 'zhpmv'
  | 'ssyr' | 'dsyr' | 'csyr' | 'zsyr' | 'cher' | 'zher' | 'ssyr2' | 'dsyr2' | 'csyr2' | 'zsyr2' | 'cher2'
  | 'zher2' | 'sspr' | 'dspr' | 'chpr' | 'zhpr' | 'sspr2' | 'dspr2' | 'chpr2' | 'zhpr2' | 'strmv' | 'dtrmv'
  | 'ctrmv' | 'ztrmv' | 'stbmv' | 'dtbmv' | 'ctbmv' | 'ztbmv' | 'stpmv' | 'dtpmv' | 'ctpmv' | 'ztpmv'
  | 'strsv' | 'dtrsv' | 'ctrsv' | 'ztrsv' | 'stbsv' | 'dtbsv' | 'ctbsv' | 'ztbsv' | 'stpsv' | 'dtpsv'
  | 'ctpsv' | 'ztpsv' | 'sgemm' | 'dgemm' | 'cgemm' | 'zgemm' | 'cgemm3m' | 'zgemm3m' | 'sgemmStridedBatched'
  | 'dgemmStridedBatched' | 'cgemmStridedBatched' | 'zgemmStridedBatched' | 'cgemm3mStridedBatched' | 'ssymm'
  | 'dsymm' | 'csymm' | 'zsymm' | 'chemm' | 'zhemm' | 'ssyrk' | 'dsyrk' | 'csyrk' | 'zsyrk' | 'cherk'
  | 'zherk' | 'ssyr2k' | 'dsyr2k' | 'csyr2k' | 'zsyr2k' | 'cher2k' | 'zher2k' | 'ssyrkx' | 'dsyrkx'
  | 'csyrkx' | 'zsyrkx' | 'cherkx' | 'zherkx' | 'strmm' | 'dtrmm' | 'ctrmm' | 'ztrmm' | 'strsm' | 'dtrsm'
  | 'ctrsm' | 'ztrsm' | 'sgeam' | 'dgeam' | 'cgeam' | 'zgeam' | 'sdgmm' | 'ddgmm' | 'cdgmm' | 'zdgmm'
  | 'stpttr' | 'dtpttr' | 'ctpttr' | 'ztpttr' | 'strttp' | 'dtrttp' | 'ctrttp' | 'ztrttp'

/**
 * The typed entry points cuBLAS 12 has a 64-bit variant of (`cublasSgemv_v2_64`…): every one but
 * rotg, rotmg, the packed-format conversions (tpttr, trttp) and the batched LU and QR calls.
 */
export type CublasEntry64Base = Exclude<
  CublasEntry,
  | 'srotg' | 'drotg' | 'crotg' | 'zrotg' | 'srotmg' | 'drotmg' | 'stpttr' | 'dtpttr' | 'ctpttr' | 'ztpttr' | 'strttp'
  | 'dtrttp' | 'ctrttp' | 'ztrttp' | `${'s' | 'd' | 'c' | 'z'}${'getrf' | 'getrs' | 'getri' | 'matinv' | 'geqrf' | 'gels'}Batched`
>
/**
 * The 64-bit variants (`cublas.sgemv_64`, as nvmath-python names them; CuPy has none): the same
 * parameters, each size, increment and leading dimension an `int64_t` (up to 2^53 − 1 here), and
 * amax's and amin's index too; cuBLAS 12 or later.
 */
export type CublasEntry64 = `${CublasEntry64Base}_64`

/**
 * cuBLAS's mixed-precision entry points this library calls (CuPy's names): each takes the typed
 * entry's parameters, a `cudaDataType` for each operand (`xType`, `yType`, `resultType`,
 * `alphaType`, `csType`; the gemms' `Atype`, `Btype`, `Ctype`) and an `executionType` (none for
 * sgemmEx and cgemmEx; gemmBatchedEx's `computeType`: `'CUBLAS_COMPUTE_32F'` or
 * `'CUBLAS_COMPUTE_64F'`, with cuBLAS's default algorithm). The combinations are cuBLAS's tables of types (float16 and bfloat16
 * vectors computed in float32, …); any other throws `CUBLAS_STATUS_NOT_SUPPORTED`. On the
 * simulator each computes in the execution type's precision (the typed entry of it) and rounds
 * its outputs to their types.
 */
export type CublasExEntry = 'nrm2Ex' | 'dotEx' | 'dotcEx' | 'scalEx' | 'axpyEx' | 'rotEx' | 'sgemmEx' | 'cgemmEx' | 'gemmBatchedEx'

/** The types the `Ex` entry points take (`cudaDataType`'s names). */
export type CudaDataType = 'CUDA_R_16F' | 'CUDA_R_16BF' | 'CUDA_R_32F' | 'CUDA_R_64F' | 'CUDA_C_32F' | 'CUDA_C_64F'

/**
 * The parameters of a typed entry point, by their names in cuBLAS's header (`cublas_api.h`):
 * each takes those its C function takes. Sizes, leading dimensions and strides are required;
 * increments default to 1, operations to `'N'`, `side` and `mode` to `'L'`, `diag` to `'N'`.
 * Arrays are column-major, as in BLAS.
 */
export interface CublasOptions {
  /** Rows of op(A) and C (or of A, B and C where no op applies). */
  m?: number
  /** Columns of C, or the order of a square matrix, or the length of the vectors (Level 1). */
  n?: number
  /** The inner dimension of a product; the bands of a band matrix (sbmv, tbmv…). */
  k?: number
  /** Sub-diagonals of a general band matrix (gbmv). */
  kl?: number
  /** Super-diagonals of a general band matrix (gbmv). */
  ku?: number
  /** A's leading dimension, in elements (at least its rows, and 1). */
  lda?: number
  /** B's leading dimension, in elements. */
  ldb?: number
  /** C's leading dimension, in elements. */
  ldc?: number
  /** Elements between consecutive elements of x; 1 by default, at least 1. */
  incx?: number
  /** Elements between consecutive elements of y; 1 by default, at least 1. */
  incy?: number
  /** How many products (the strided- and pointer-batched entry points). */
  batchCount?: number
  /** Elements from one A to the next (strided-batched). */
  strideA?: number
  /** Elements from one B to the next (strided-batched). */
  strideB?: number
  /** Elements from one C to the next (strided-batched); the results may not overlap. */
  strideC?: number
  /** op(A): `'N'` (the default), `'T'` or `'C'`. */
  trans?: BlasOperation
  /** op(A) of a product: `'N'` (the default), `'T'` or `'C'`. */
  transa?: BlasOperation
  /** op(B) of a product: `'N'` (the default), `'T'` or `'C'`. */
  transb?: BlasOperation
  /** Which triangle of a symmetric, Hermitian, triangular or packed matrix is stored: `'U'` or `'L'` (required). */
  uplo?: BlasFill
  /** Whether A multiplies from the left (`'L'`, the default) or the right (`'R'`). */
  side?: BlasSide
  /** dgmm's side: `'L'` (diag(x)·A, the default) or `'R'` (A·diag(x)). */
  mode?: BlasSide
  /** Whether a triangular A's diagonal is taken as ones (`'U'`) or read (`'N'`, the default). */
  diag?: BlasDiag
  /** The scalar that scales the product (a number, `{ re, im }`, or a MemoryPointer in device pointer mode). */
  alpha?: BlasScalar
  /** The scalar that scales the output before the sum (as alpha). */
  beta?: BlasScalar
  /** A rotation's cosine (rot) or rotg's output in device pointer mode. */
  c?: BlasScalar
  /** A rotation's sine (rot) or rotg's output in device pointer mode. */
  s?: BlasScalar
  /** rotg's inputs. */
  a?: BlasScalar
  /** rotg's second input. */
  b?: BlasScalar
  /** rotmg's inputs. */
  d1?: BlasScalar
  /** rotmg's second scale factor. */
  d2?: BlasScalar
  /** rotmg's x coordinate. */
  x1?: BlasScalar
  /** rotmg's y coordinate. */
  y1?: BlasScalar
  /** rotm's five parameters (flag, h11, h21, h12, h22), or rotmg's output in device pointer mode. */
  param?: readonly number[] | MemoryPointer
  /** The vector x. */
  x?: MemoryPointer
  /** The vector y. */
  y?: MemoryPointer
  /** A matrix, or for the `Batched` entry points (gemmBatched, trsmBatched) one a batch. */
  A?: MemoryPointer | readonly MemoryPointer[]
  /** The matrix B (one a batch for the `Batched` entry points). */
  B?: MemoryPointer | readonly MemoryPointer[]
  /** The matrix C (one a batch for the `Batched` entry points). */
  C?: MemoryPointer | readonly MemoryPointer[]
  /** A packed triangle, column by column (n(n+1)/2 elements). */
  AP?: MemoryPointer
  /** getrfBatched's, getrsBatched's and getriBatched's pivots (ints, n a batch). */
  P?: MemoryPointer
  /** getrsBatched's pivots (ints, n a batch), as getrfBatched wrote them. */
  devIpiv?: MemoryPointer
  /** The batched LU calls' infos (ints, one a batch). */
  info?: MemoryPointer
  /** Right-hand sides: the columns of B (getrsBatched) or C (gelsBatched). */
  nrhs?: number
  /** How many matrices (the batched LU and QR calls). */
  batchSize?: number
  /** geqrfBatched's reflectors' taus (min(m, n) a batch). */
  TauArray?: readonly MemoryPointer[]
  /** gelsBatched's infos (ints, one a batch). */
  devInfoArray?: MemoryPointer
  /** matinvBatched's inverses (one a batch) and their leading dimension. */
  Ainv?: readonly MemoryPointer[]
  /** matinvBatched's inverses' leading dimension. */
  lda_inv?: number
  /** Where a result goes in device pointer mode (dot, nrm2, amax…). */
  result?: MemoryPointer
  /** The stream to run on; the current stream of the first array's device by default. */
  stream?: Stream
  /** An `Ex` entry point's type of x. */
  xType?: CudaDataType
  /** An `Ex` entry point's type of y. */
  yType?: CudaDataType
  /** An `Ex` entry point's type of its result (dotEx, nrm2Ex). */
  resultType?: CudaDataType
  /** An `Ex` entry point's type of alpha (scalEx, axpyEx). */
  alphaType?: CudaDataType
  /** rotEx's type of c and s. */
  csType?: CudaDataType
  /** The gemms' type of A. */
  Atype?: CudaDataType
  /** The gemms' type of B. */
  Btype?: CudaDataType
  /** The gemms' type of C. */
  Ctype?: CudaDataType
  /** An `Ex` entry point's execution type: the precision it computes in. */
  executionType?: CudaDataType
  /** gemmBatchedEx's compute type. */
  computeType?: 'CUBLAS_COMPUTE_32F' | 'CUBLAS_COMPUTE_64F'
}

/**
 * What an entry point returns in host pointer mode: its one result (a number; a complex one as
 * `{ re, im }`; amax's and amin's 1-based index), an object of its results by name (rotg,
 * rotmg), or nothing.
 */
export type CublasResult = undefined | number | BlasComplex | number[] | Record<string, number | BlasComplex | number[]>

interface ParamSpec {
  name: string
  kind: 'int' | 'long' | 'enum' | 'value' | 'array' | 'batch' | 'internal'
  choice?: 'op' | 'fill' | 'side' | 'diag'
  of?: 'elem' | 'real' | 'index'
  io?: 'in' | 'out' | 'inout'
  len?: number
}
interface EntrySpec {
  name: CublasEntry
  elem: 'float32' | 'float64' | 'complex64' | 'complex128'
  /** cuBLAS has its 64-bit variant (`<name>_64`). */
  has64: boolean
  params: ParamSpec[]
}

const CHOICES: Record<string, { values: readonly string[]; default?: string }> = {
  op: { values: ['N', 'T', 'C'], default: 'N' },
  fill: { values: ['L', 'U'] },
  side: { values: ['L', 'R'], default: 'L' },
  diag: { values: ['N', 'U'], default: 'N' },
}

function choice(entry: string, p: ParamSpec, v: unknown): number {
  const c = CHOICES[p.choice as string]
  const given = v ?? c.default
  const i = typeof given === 'string' ? c.values.indexOf(given) : -1
  if (i < 0) throw new TypeError(`${entry}: ${p.name} must be ${c.values.map((x) => `'${x}'`).join(', ')}, got ${describe(v)}`)
  return i
}

/** A host scalar's numbers: re (and im for a complex one), or `len` of them. */
function hostNumbers(entry: string, p: ParamSpec, complex: boolean, v: unknown): number[] {
  if ((p.len ?? 1) > 1) {
    if (!Array.isArray(v) || v.length !== p.len || v.some((x) => typeof x !== 'number')) {
      throw new TypeError(`${entry}: ${p.name} must be an array of ${p.len} numbers (or a MemoryPointer in device pointer mode), got ${describe(v)}`)
    }
    return v as number[]
  }
  if (typeof v === 'number') return complex ? [v, 0] : [v]
  if (complex && typeof v === 'object' && v !== null && typeof (v as BlasComplex).re === 'number' && typeof (v as BlasComplex).im === 'number') {
    return [(v as BlasComplex).re, (v as BlasComplex).im]
  }
  throw new TypeError(`${entry}: ${p.name} must be a number${complex ? ' or { re, im }' : ''} (or a MemoryPointer in device pointer mode), got ${describe(v)}`)
}

/**
 * Calls entry `e`, or its 64-bit variant where `name` is `<e.name>_64`, or (with `ex`) the `Ex`
 * entry point `name` that `e` computes, of the types given by the options `ex.keys`.
 */
function callEntry(e: EntrySpec, o: CublasOptions, name: string = e.name, ex?: { types: string[]; keys: string[] }): CublasResult {
  const keys = [...e.params.filter((p) => p.kind !== 'internal').map((p) => p.name), 'stream', ...(ex?.keys ?? [])] as (keyof CublasOptions & string)[]
  if (e.params.some((p) => p.kind === 'value' && p.io !== 'in')) keys.push(...e.params.filter((p) => p.kind === 'value' && p.io !== 'in').map((p) => p.name as keyof CublasOptions & string))
  checkOptions<CublasOptions>(name, o, keys)
  const complex = e.elem.startsWith('complex')
  const opts = o as Record<string, unknown>
  const ints: number[] = []
  const host: number[] = []
  const mems: number[] = []
  const offsets: number[] = []
  const deviceValues: MemoryPointer[] = []
  let device: number | undefined
  for (const p of e.params) {
    const v = opts[p.name]
    if (p.kind === 'internal') continue
    if (p.kind === 'int' || p.kind === 'long') {
      ints.push(count(p.name, v ?? (p.name.startsWith('inc') ? 1 : v)))
    } else if (p.kind === 'enum') {
      ints.push(choice(name, p, v))
    } else if (p.kind === 'array') {
      const m = ptr(p.name, v)
      device ??= m.deviceId
      mems.push(own(m.mem))
      offsets.push(m.byteOffset)
    } else if (p.kind === 'batch') {
      if (!Array.isArray(v)) throw new TypeError(`${name}: ${p.name} must be an array of MemoryPointers, one a batch, got ${describe(v)}`)
      v.forEach((x, i) => {
        const m = ptr(`${p.name}[${i}]`, x)
        device ??= m.deviceId
        mems.push(own(m.mem))
        offsets.push(m.byteOffset)
      })
    } else if (v instanceof MemoryPointer) {
      deviceValues.push(v)
    } else if (p.io !== 'out') {
      host.push(...hostNumbers(name, p, complex && p.of === 'elem', v))
    } else if (v !== undefined) {
      throw new TypeError(`${name}: ${p.name} is an output: give a MemoryPointer in device pointer mode, or nothing in host pointer mode (it is returned)`)
    }
  }
  for (const v of deviceValues) {
    mems.push(own(v.mem))
    offsets.push(v.byteOffset)
  }
  const s = streamOption(o.stream, device ?? deviceValues[0]?.deviceId ?? scope().device)
  libraryHandlesCreated()
  const out = ex
    ? native.blasCallEx(s, name, ex.types, new Float64Array(ints), new Float64Array(host), new Float64Array(mems), new Float64Array(offsets))
    : native.blasCall(s, name, new Float64Array(ints), new Float64Array(host), new Float64Array(mems), new Float64Array(offsets))
  if (out.length === 0) return undefined
  const results: Record<string, number | BlasComplex | number[]> = {}
  let at = 0
  for (const p of e.params) {
    if (p.kind !== 'value' || p.io === 'in') continue
    const len = p.len ?? 1
    if (complex && p.of === 'elem') {
      results[p.name] = { re: out[at], im: out[at + 1] }
      at += 2
    } else {
      results[p.name] = len > 1 ? out.slice(at, at + len) : out[at]
      at += len
    }
  }
  const names = Object.keys(results)
  return names.length === 1 ? results[names[0]] : results
}

interface ExSpec {
  name: CublasExEntry
  /** Each typed operand: its parameter and its type's option. */
  types: [string, string][]
  exec: boolean
  /** The option naming the execution: `executionType`, or gemmBatchedEx's `computeType`. */
  execOption: string
  /** The combinations cuBLAS computes: the operands' types, the execution type, and the typed entry computing it. */
  combos: [string[], string, string][]
}

/** An `Ex` entry point: its types read from the options, the typed entry computing them picked, called. */
function callEx(x: ExSpec, o: CublasOptions): CublasResult {
  const keys = [...x.types.map((t) => t[1]), ...(x.exec ? [x.execOption] : [])]
  const types = keys.map((k) => {
    const v = (o as Record<string, unknown>)?.[k]
    if (typeof v !== 'string') throw new TypeError(`${x.name}: ${k} must be a ${k === 'computeType' ? 'cublasComputeType_t' : 'cudaDataType'}'s name, got ${describe(v)}`)
    return v
  })
  const exec = types[types.length - 1]
  // A combination cuBLAS lacks is parsed as the first one's, and refused by the core naming it.
  const combo = x.combos.find(([ts, e]) => ts.every((t, i) => t === types[i]) && (!x.exec || e === exec)) ?? x.combos[0]
  return callEntry(ENTRIES.find((e) => e.name === combo[2]) as EntrySpec, o, x.name, { types, keys })
}

/** cuBLAS's math modes (`cublasMath_t`). */
export type BlasMathMode = 'default' | 'tensorOp' | 'pedantic' | 'tf32'
const MATH_MODES: readonly BlasMathMode[] = ['default', 'tensorOp', 'pedantic', 'tf32']

/** A cuBLAS handle's math mode. */
export interface MathMode {
  /** The mode: default, tensor-op (deprecated by cuBLAS), pedantic, or TF32 tensor cores. */
  mode: BlasMathMode
  /** `CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION` is set. */
  disallowReducedPrecisionReduction: boolean
}

/** Options of cuBLAS's math mode ({@link CublasSettings.setMathMode}). */
export interface MathModeOptions {
  /** `CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION`: reductions keep the compute type's precision. */
  disallowReducedPrecisionReduction?: boolean
}

function setting(name: string, device: unknown, value?: number): number {
  libraryHandlesCreated()
  return native.blasSetting(deviceOrdinal(device), name, value)
}

/** The calling thread's cuBLAS handle's settings, per device: part of {@link cublas}. */
export interface CublasSettings {
  /** The cuBLAS version (`cublasGetVersion`: major × 10000 + minor × 100 + patch; 0 on the simulator). */
  getVersion(device?: Device | number): number
  /**
   * Where the handle reads scalars and writes results (`cublasGetPointerMode`): `'host'`
   * (numbers in and out) or `'device'` (MemoryPointers).
   */
  getPointerMode(device?: Device | number): 'host' | 'device'
  /**
   * Sets the handle's pointer mode (`cublasSetPointerMode`). The `blas` products (gemm, axpy…)
   * take host scalars whatever it is.
   * @throws {TypeError} for another value.
   */
  setPointerMode(mode: 'host' | 'device', device?: Device | number): void
  /** The handle's math mode (`cublasGetMathMode`). */
  getMathMode(device?: Device | number): MathMode
  /**
   * Sets the handle's math mode (`cublasSetMathMode`).
   * @throws {TypeError} for an unknown mode.
   */
  setMathMode(mode: BlasMathMode, options?: MathModeOptions, device?: Device | number): void
  /** Whether the handle may use atomics (`cublasGetAtomicsMode`). */
  getAtomicsMode(device?: Device | number): boolean
  /**
   * Lets the handle use atomics, or not (`cublasSetAtomicsMode`).
   * @throws {TypeError} for a non-boolean.
   */
  setAtomicsMode(allowed: boolean, device?: Device | number): void
}

const handleSettings: CublasSettings = {
  /** The cuBLAS version (`cublasGetVersion`: major × 10000 + minor × 100 + patch; 0 on the simulator). */
  getVersion(device?: Device | number): number {
    return setting('version', device)
  },
  /**
   * Where the calling thread's handle for the device reads scalars and writes results
   * (`cublasGetPointerMode`): `'host'` (numbers in and out) or `'device'` (MemoryPointers).
   */
  getPointerMode(device?: Device | number): 'host' | 'device' {
    return setting('pointerMode', device) === 1 ? 'device' : 'host'
  },
  /**
   * Sets the handle's pointer mode (`cublasSetPointerMode`). The `blas` products (gemm, axpy…)
   * take host scalars whatever it is.
   * @throws {TypeError} for another value.
   */
  setPointerMode(mode: 'host' | 'device', device?: Device | number): void {
    if (mode !== 'host' && mode !== 'device') throw new TypeError(`the pointer mode must be 'host' or 'device', got ${describe(mode)}`)
    setting('pointerMode', device, mode === 'device' ? 1 : 0)
  },
  /** The handle's math mode (`cublasGetMathMode`). */
  getMathMode(device?: Device | number): MathMode {
    const v = setting('mathMode', device)
    return { mode: MATH_MODES[v & ~16] ?? 'default', disallowReducedPrecisionReduction: (v & 16) !== 0 }
  },
  /**
   * Sets the handle's math mode (`cublasSetMathMode`).
   * @throws {TypeError} for an unknown mode.
   */
  setMathMode(mode: BlasMathMode, options: MathModeOptions = {}, device?: Device | number): void {
    checkOptions<MathModeOptions>('setMathMode', options, ['disallowReducedPrecisionReduction'])
    const i = MATH_MODES.indexOf(mode)
    if (i < 0) throw new TypeError(`the math mode must be one of ${MATH_MODES.map((m) => `'${m}'`).join(', ')}, got ${describe(mode)}`)
    setting('mathMode', device, i | (options.disallowReducedPrecisionReduction ? 16 : 0))
  },
  /** Whether the handle may use atomics (`cublasGetAtomicsMode`). */
  getAtomicsMode(device?: Device | number): boolean {
    return setting('atomicsMode', device) === 1
  },
  /** Lets the handle use atomics, or not (`cublasSetAtomicsMode`). */
  setAtomicsMode(allowed: boolean, device?: Device | number): void {
    if (typeof allowed !== 'boolean') throw new TypeError(`allowed must be a boolean, got ${describe(allowed)}`)
    setting('atomicsMode', device, allowed ? 1 : 0)
  },
}

/** The typed entry points and the handle's settings: what {@link cublas} is. */
export type Cublas = { readonly [K in CublasEntry | CublasEntry64 | CublasExEntry]: (options: CublasOptions) => CublasResult } & CublasSettings

/** The table of entry points, read once from the addon (core's `ops/blas_table.rs`). */
const ENTRIES: readonly EntrySpec[] = JSON.parse(native.blasEntries())
/** The `Ex` entry points, read once from the addon. */
const EX_ENTRIES: readonly ExSpec[] = JSON.parse(native.blasExEntries())

/**
 * CuPy's flat cuBLAS (`cupy_backends.cuda.libs.cublas`): each typed entry point by its name
 * (`cublas.sgemv`, `cublas.zherk`, …), taking its header's parameters by name, on the calling
 * thread's handle for the first array's device, bound to the current stream (or `stream`). On
 * the simulator each runs a host reference in stream order.
 * @throws {TypeError} for a missing or wrong kind of option, {RangeError} for sizes, increments,
 *   leading dimensions or strides that are out of range or reach past the memory given, or
 *   scalars that do not match the handle's pointer mode, {CudaError} `CUBLAS_STATUS_NOT_SUPPORTED`
 *   where the cuBLAS loaded lacks the entry point.
 */
export const cublas: Cublas = Object.freeze(
  Object.assign(
    Object.fromEntries([
      ...ENTRIES.map((e) => [e.name, (o: CublasOptions) => callEntry(e, o)]),
      ...ENTRIES.filter((e) => e.has64).map((e) => [`${e.name}_64`, (o: CublasOptions) => callEntry(e, o, `${e.name}_64`)]),
      ...EX_ENTRIES.map((x) => [x.name, (o: CublasOptions) => callEx(x, o)]),
    ]),
    handleSettings,
  ) as unknown as Cublas,
)
