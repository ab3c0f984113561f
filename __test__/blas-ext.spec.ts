import test from 'ava'
import { alloc, blas, CudaError, mallocPlain, MemoryPointer } from '..'
import { onGpu, runJson } from './helpers'

// cuBLAS beyond sgemm/dgemm (#38 item 5): gemm in half, single and double, strided batches, and
// gemmEx with its compute types. The same tests run on the simulator (host results) and on the
// GPU (cuBLAS), each compared with a float64 host reference. Inputs are small integers so half
// and bfloat16 hold them, and the products' sums, exactly.

type Dt = 'float16' | 'bfloat16' | 'float32' | 'float64'
const SIZE: Record<Dt, number> = { float16: 2, bfloat16: 2, float32: 4, float64: 8 }

/** IEEE half bits of `v` (exact for the small integers these tests use). */
function toHalf(v: number): number {
  if (v === 0) return Object.is(v, -0) ? 0x8000 : 0
  const sign = v < 0 ? 0x8000 : 0
  const a = Math.abs(v)
  const e = Math.floor(Math.log2(a))
  const man = Math.round((a / 2 ** e - 1) * 1024)
  return sign | ((e + 15) << 10) | man
}

function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1
  const e = (h >> 10) & 0x1f
  const m = h & 0x3ff
  if (e === 0) return sign * m * 2 ** -24
  if (e === 0x1f) return m ? NaN : sign * Infinity
  return sign * (1 + m / 1024) * 2 ** (e - 15)
}

function encode(values: ArrayLike<number>, dt: Dt): Uint8Array {
  switch (dt) {
    case 'float64':
      return new Uint8Array(Float64Array.from(values).buffer)
    case 'float32':
      return new Uint8Array(Float32Array.from(values).buffer)
    case 'float16':
      return new Uint8Array(Uint16Array.from(Array.from(values, toHalf)).buffer)
    case 'bfloat16': {
      const f = Float32Array.from(values)
      return new Uint8Array(Uint16Array.from(new Uint32Array(f.buffer), (w) => w >>> 16).buffer)
    }
  }
}

function decode(bytes: Uint8Array, dt: Dt): number[] {
  const b = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  switch (dt) {
    case 'float64':
      return [...new Float64Array(b)]
    case 'float32':
      return [...new Float32Array(b)]
    case 'float16':
      return Array.from(new Uint16Array(b), fromHalf)
    case 'bfloat16':
      return Array.from(new Uint16Array(b), (h) => new Float32Array(new Uint32Array([h << 16]).buffer)[0])
  }
}

function upload(values: ArrayLike<number>, dt: Dt): MemoryPointer {
  const bytes = encode(values, dt)
  const p = alloc(bytes.byteLength)
  p.copyFromHost(bytes)
  return p
}

function download(p: MemoryPointer, n: number, dt: Dt): number[] {
  const out = new Uint8Array(n * SIZE[dt])
  p.copyToHost(out)
  return decode(out, dt)
}

/** Small integers in [-3, 3], from a seed. */
function ints(n: number, seed: number): number[] {
  let s = seed >>> 0
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return (s >>> 29) - 3
  })
}

/** Row-major C = alpha · A·B + beta · C0 on the host, in float64. */
function reference(a: number[], b: number[], c0: number[], m: number, n: number, k: number, alpha = 1, beta = 0): number[] {
  const c: number[] = Array.from({ length: m * n }, () => 0)
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
    let acc = 0
    for (let l = 0; l < k; l++) acc += a[i * k + l] * b[l * n + j]
    c[i * n + j] = alpha * acc + (beta === 0 ? 0 : beta * c0[i * n + j])
  }
  return c
}

for (const dtype of ['float16', 'float32', 'float64'] as const) {
  test(`blas.gemm in ${dtype} (cublas${dtype[5] === '1' ? 'H' : dtype === 'float32' ? 'S' : 'D'}gemm) matches the host, with alpha, beta and transposes`, (t) => {
    const [m, n, k] = [7, 5, 16]
    const a = ints(m * k, 1)
    const b = ints(k * n, 2)
    const c0 = ints(m * n, 3)
    const C = upload(c0, dtype)
    blas.gemm({ dtype, m, n, k, A: upload(a, dtype), B: upload(b, dtype), C, alpha: 2, beta: -1 })
    t.deepEqual(download(C, m * n, dtype), reference(a, b, c0, m, n, k, 2, -1))
    // Column order, A given as Aᵀ (k×m column-major: the bytes of row-major A): the same product.
    const bCol: number[] = Array.from({ length: k * n }, () => 0)
    for (let l = 0; l < k; l++) for (let j = 0; j < n; j++) bCol[l + j * k] = b[l * n + j]
    const C2 = alloc(m * n * SIZE[dtype])
    blas.gemm({ dtype, m, n, k, A: upload(a, dtype), B: upload(bCol, dtype), C: C2, transA: true, order: 'column' })
    const col = download(C2, m * n, dtype)
    const want = reference(a, b, c0, m, n, k)
    t.deepEqual(Array.from({ length: m * n }, (_, x) => col[Math.floor(x / n) + (x % n) * m]), want)
  })
}

test('blas.hgemm is gemm in float16, and alpha is rounded to half', (t) => {
  const A = upload([1, 2, 3, 4], 'float16')
  const B = upload([1, 0, 0, 1], 'float16')
  const C = alloc(8)
  blas.hgemm({ m: 2, n: 2, k: 2, A, B, C, alpha: 1 / 3 })
  const third = fromHalf(toHalf(1 / 3)) // 0.333251953125
  const got = download(C, 4, 'float16')
  const want = [1, 2, 3, 4].map((v) => fromHalf(toHalf(v * third)))
  t.true(got.every((v, i) => Math.abs(v - want[i]) <= 2 ** -10 * Math.abs(want[i])), `${got} vs ${want}`)
})

for (const dtype of ['float16', 'float32', 'float64'] as const) {
  test(`gemmStridedBatched in ${dtype}: each product of the batch, default and explicit strides, A shared with stride 0`, (t) => {
    const [m, n, k, batch] = [4, 3, 8, 3]
    const as = Array.from({ length: batch }, (_, i) => ints(m * k, 10 + i))
    const bs = Array.from({ length: batch }, (_, i) => ints(k * n, 20 + i))
    const C = alloc(batch * m * n * SIZE[dtype])
    blas.gemmStridedBatched({ dtype, m, n, k, A: upload(as.flat(), dtype), B: upload(bs.flat(), dtype), C, batchCount: batch })
    const got = download(C, batch * m * n, dtype)
    for (let i = 0; i < batch; i++) t.deepEqual(got.slice(i * m * n, (i + 1) * m * n), reference(as[i], bs[i], [], m, n, k), `product ${i}`)
    // Padded C (stride m·n + 5) and one A for all (stride 0).
    const stride = m * n + 5
    const C2 = alloc(batch * stride * SIZE[dtype])
    C2.memset(0, C2.size)
    blas.gemmStridedBatched({ dtype, m, n, k, A: upload(as[0], dtype), B: upload(bs.flat(), dtype), C: C2, batchCount: batch, strideA: 0, strideC: stride })
    const got2 = download(C2, batch * stride, dtype)
    for (let i = 0; i < batch; i++) t.deepEqual(got2.slice(i * stride, i * stride + m * n), reference(as[0], bs[i], [], m, n, k), `product ${i}, A shared`)
    t.deepEqual(got2.slice(m * n, stride), [0, 0, 0, 0, 0], 'the padding is untouched')
  })
}

const EX_CASES: [Dt, Dt, string][] = [
  ['float16', 'float16', 'CUBLAS_COMPUTE_16F'],
  ['float16', 'float16', 'CUBLAS_COMPUTE_32F'],
  ['float16', 'float32', 'CUBLAS_COMPUTE_32F'],
  ['bfloat16', 'bfloat16', 'CUBLAS_COMPUTE_32F'],
  ['bfloat16', 'float32', 'CUBLAS_COMPUTE_32F'],
  ['float32', 'float32', 'CUBLAS_COMPUTE_32F'],
  ['float32', 'float32', 'CUBLAS_COMPUTE_32F_FAST_TF32'],
  ['float64', 'float64', 'CUBLAS_COMPUTE_64F'],
]

for (const [ab, c, compute] of EX_CASES) {
  test(`gemmEx: A and B ${ab}, C ${c}, ${compute} matches the host`, (t) => {
    const [m, n, k] = [6, 9, 32]
    const a = ints(m * k, 31)
    const b = ints(k * n, 32)
    const c0 = ints(m * n, 33)
    const C = upload(c0, c)
    blas.gemmEx({ Atype: ab, Btype: ab, Ctype: c, computeType: compute as any, m, n, k, A: upload(a, ab), B: upload(b, ab), C, alpha: 1, beta: 2 })
    t.deepEqual(download(C, m * n, c), reference(a, b, c0, m, n, k, 1, 2))
  })
}

test('gemmEx with batchCount is cublasGemmStridedBatchedEx', (t) => {
  const [m, n, k, batch] = [3, 4, 5, 4]
  const as = Array.from({ length: batch }, (_, i) => ints(m * k, 40 + i))
  const bs = Array.from({ length: batch }, (_, i) => ints(k * n, 50 + i))
  const C = alloc(batch * m * n * 4)
  blas.gemmEx({ Atype: 'float16', Btype: 'float16', Ctype: 'float32', computeType: 'CUBLAS_COMPUTE_32F', m, n, k, A: upload(as.flat(), 'float16'), B: upload(bs.flat(), 'float16'), C, batchCount: batch })
  const got = download(C, batch * m * n, 'float32')
  for (let i = 0; i < batch; i++) t.deepEqual(got.slice(i * m * n, (i + 1) * m * n), reference(as[i], bs[i], [], m, n, k), `product ${i}`)
})

test('float32 values beyond TF32 are rounded under CUBLAS_COMPUTE_32F_FAST_TF32 and kept under CUBLAS_COMPUTE_32F', (t) => {
  const v = 1 + 2 ** -20 // not a TF32 value (10 bits of mantissa)
  const A = upload([v], 'float32')
  const B = upload([1], 'float32')
  const C = alloc(4)
  blas.gemmEx({ Atype: 'float32', Btype: 'float32', Ctype: 'float32', computeType: 'CUBLAS_COMPUTE_32F', m: 1, n: 1, k: 1, A, B, C })
  t.is(download(C, 1, 'float32')[0], v)
  blas.gemmEx({ Atype: 'float32', Btype: 'float32', Ctype: 'float32', computeType: 'CUBLAS_COMPUTE_32F_FAST_TF32', m: 1, n: 1, k: 1, A, B, C })
  const got = download(C, 1, 'float32')[0]
  // cuBLAS may keep full precision for a 1×1×1 product (it need not use tensor cores); the simulator rounds.
  t.true(got === 1 || (onGpu && got === v), `got ${got}`)
})

test('a large float32 gemmEx agrees with sgemm', (t) => {
  const N = 128
  const a = ints(N * N, 61)
  const b = ints(N * N, 62)
  const [A, B] = [upload(a, 'float32'), upload(b, 'float32')]
  const C1 = alloc(N * N * 4)
  const C2 = alloc(N * N * 4)
  blas.sgemm({ m: N, n: N, k: N, A, B, C: C1 })
  blas.gemmEx({ Atype: 'float32', Btype: 'float32', Ctype: 'float32', computeType: 'CUBLAS_COMPUTE_32F', m: N, n: N, k: N, A, B, C: C2 })
  t.deepEqual(download(C2, N * N, 'float32'), download(C1, N * N, 'float32'))
  t.deepEqual(download(C1, N * N, 'float32'), reference(a, b, [], N, N, N))
})

test('type combinations cuBLAS refuses are CUBLAS_STATUS_NOT_SUPPORTED, before anything runs', (t) => {
  const A = mallocPlain(64)
  const B = mallocPlain(64)
  const C = mallocPlain(64)
  const base = { m: 2, n: 2, k: 2, A, B, C }
  for (const [Atype, Btype, Ctype, computeType] of [
    ['float32', 'float16', 'float32', 'CUBLAS_COMPUTE_32F'],
    ['float16', 'float16', 'float32', 'CUBLAS_COMPUTE_16F'],
    ['float32', 'float32', 'float32', 'CUBLAS_COMPUTE_16F'],
    ['float16', 'float16', 'float16', 'CUBLAS_COMPUTE_32F_FAST_TF32'],
    ['bfloat16', 'bfloat16', 'float16', 'CUBLAS_COMPUTE_32F'],
    ['float32', 'float32', 'float64', 'CUBLAS_COMPUTE_64F'],
    ['float64', 'float64', 'float64', 'CUBLAS_COMPUTE_32F'],
  ] as const) {
    const e = t.throws(() => blas.gemmEx({ ...base, Atype, Btype, Ctype, computeType }), { instanceOf: CudaError }, `${Atype} ${Btype} ${Ctype} ${computeType}`)
    t.is((e as any).code, 'CUBLAS_STATUS_NOT_SUPPORTED')
    t.regex(e!.message, /cuBLAS has no gemm/)
  }
})

test('bad gemm, gemmStridedBatched and gemmEx input is a typed error', (t) => {
  const A = mallocPlain(64)
  const B = mallocPlain(64)
  const C = mallocPlain(64)
  const ex = { Atype: 'float32', Btype: 'float32', Ctype: 'float32', computeType: 'CUBLAS_COMPUTE_32F' } as const
  // Kinds and names.
  t.throws(() => blas.gemm({ dtype: 'bfloat16' as any, m: 2, n: 2, k: 2, A, B, C }), { instanceOf: TypeError, message: /dtype/ })
  t.throws(() => blas.gemm({ dtype: 'float32', m: 2, n: 2, k: 2, A, B, C, batchCount: 2 } as any), { instanceOf: TypeError, message: /batchCount/ })
  t.throws(() => blas.gemmEx({ ...ex, computeType: 'CUBLAS_COMPUTE_32I' as any, m: 2, n: 2, k: 2, A, B, C }), { instanceOf: TypeError, message: /computeType/ })
  t.throws(() => blas.gemmEx({ ...ex, Atype: 'int8' as any, m: 2, n: 2, k: 2, A, B, C }), { instanceOf: TypeError, message: /Atype/ })
  t.throws(() => blas.gemmStridedBatched({ dtype: 'float32', m: 2, n: 2, k: 2, A, B, C } as any), { instanceOf: TypeError, message: /batchCount/ })
  t.throws(() => blas.gemm({ dtype: 'float32', m: 2, n: 2, k: 2, A: {} as any, B, C }), { instanceOf: TypeError })
  // Shapes not matching memory: 64 bytes hold 16 floats.
  t.throws(() => blas.gemm({ dtype: 'float32', m: 5, n: 5, k: 5, A, B, C }), { instanceOf: RangeError, message: /matrix A/ })
  t.throws(() => blas.gemm({ dtype: 'float64', m: 4, n: 4, k: 1, A, B, C }), { instanceOf: RangeError, message: /matrix C/ })
  t.throws(() => blas.gemmEx({ ...ex, m: 4, n: 4, k: 4, A, B, C, lda: 3 }), { instanceOf: RangeError, message: /leading dimension/ })
  t.throws(() => blas.gemmStridedBatched({ dtype: 'float32', m: 2, n: 2, k: 2, A, B, C, batchCount: 5 }), { instanceOf: RangeError, message: /matrix/ })
  t.throws(() => blas.gemmStridedBatched({ dtype: 'float32', m: 2, n: 2, k: 2, A, B, C, batchCount: 2, strideC: 3 }), { instanceOf: RangeError, message: /overlap/ })
  t.throws(() => blas.gemmStridedBatched({ dtype: 'float32', m: 2, n: 2, k: 2, A, B, C, batchCount: -1 }), { instanceOf: RangeError })
  // An operand that does not start on an element.
  t.throws(() => blas.gemm({ dtype: 'float32', m: 2, n: 2, k: 2, A: A.offset(2), B, C }), { instanceOf: RangeError, message: /multiple of its 4-byte elements/ })
  // Nothing to compute is nothing.
  blas.gemmStridedBatched({ dtype: 'float32', m: 2, n: 2, k: 2, A, B, C, batchCount: 0 })
  blas.gemm({ dtype: 'float16', m: 0, n: 2, k: 2, A, B, C })
})

test('a gemm on freed memory is a typed error, not a crash', (t) => {
  const A = mallocPlain(64)
  const B = mallocPlain(64)
  const C = mallocPlain(64)
  C.free()
  const e = t.throws(() => blas.gemm({ dtype: 'float32', m: 2, n: 2, k: 2, A, B, C }))
  t.true(e instanceof CudaError || e instanceof TypeError || e instanceof RangeError, `${e}`)
  t.regex(e!.message, /freed|free/)
  const e2 = t.throws(() => blas.gemmEx({ Atype: 'float16', Btype: 'float16', Ctype: 'float16', computeType: 'CUBLAS_COMPUTE_16F', m: 2, n: 2, k: 2, A, B: C, C: A }))
  t.regex(e2!.message, /freed|free/)
})

test('operands on another device than the stream are refused (two simulated devices)', (t) => {
  const r = runJson(
    `const A = cuda.alloc(64), B = cuda.alloc(64)
     const C = new cuda.Device(1).run(() => cuda.alloc(64))
     let error
     try { cuda.blas.gemm({ dtype: 'float32', m: 2, n: 2, k: 2, A, B, C, stream: cuda.Stream.null }) } catch (e) { error = e.constructor.name + ': ' + e.message }
     console.log(JSON.stringify({ error }))`,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.regex(r.error, /device/)
})
