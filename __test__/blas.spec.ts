import test from 'ava'
import { alloc, blas, Device, kernels, mallocPlain, MemoryPointer, Stream } from '..'
import { onWasm, runJson, seededValues as random } from './helpers'

/** Row-major C = A·B in float64 on the host. */
function reference(a: Float64Array, b: Float64Array, m: number, n: number, k: number): Float64Array {
  const c = new Float64Array(m * n)
  for (let i = 0; i < m; i++) {
    for (let l = 0; l < k; l++) {
      const x = a[i * k + l]
      const row = l * n
      const out = i * n
      for (let j = 0; j < n; j++) c[out + j] += x * b[row + j]
    }
  }
  return c
}

function relError(got: ArrayLike<number>, want: Float64Array): number {
  let num = 0
  let den = 0
  for (let i = 0; i < want.length; i++) {
    num += (got[i] - want[i]) ** 2
    den += want[i] ** 2
  }
  return Math.sqrt(num / den)
}

function upload(values: ArrayLike<number>, dtype: 'float32' | 'float64'): MemoryPointer {
  const host = dtype === 'float32' ? Float32Array.from(values) : Float64Array.from(values)
  const p = alloc(host.byteLength)
  p.copyFromHost(host)
  return p
}

for (const dtype of ['float32', 'float64'] as const) {
  test.serial(`${dtype === 'float32' ? 'sgemm' : 'dgemm'} of random 1000×1000 matrices matches a float64 host reference`, (t) => {
    const N = 1000
    const a = random(N * N, 1)
    const b = random(N * N, 2)
    const want = reference(a, b, N, N, N)
    const A = upload(a, dtype)
    const B = upload(b, dtype)
    const C = alloc(N * N * (dtype === 'float32' ? 4 : 8))
    C.memset(0xff, C.size) // poisoned
    const gemm = dtype === 'float32' ? blas.sgemm : blas.dgemm
    gemm({ m: N, n: N, k: N, A, B, C })
    const got = dtype === 'float32' ? new Float32Array(N * N) : new Float64Array(N * N)
    C.copyToHost(got)
    const err = relError(got, want)
    t.true(err < (dtype === 'float32' ? 1e-5 : 1e-12), `relative error ${err}`)
    t.log(`${dtype}: relative error ${err.toExponential(2)}`)
  })
}

test('row- and column-major, transposes, alpha and beta give what BLAS defines', (t) => {
  const [m, n, k] = [3, 4, 5]
  const a = random(m * k, 3)
  const b = random(k * n, 4)
  const c0 = random(m * n, 5)
  const ab = reference(a, b, m, n, k)
  const want = ab.map((v, i) => 2 * v + 0.5 * c0[i])
  // Row-major, no transposes.
  const C = upload(c0, 'float64')
  blas.dgemm({ m, n, k, A: upload(a, 'float64'), B: upload(b, 'float64'), C, alpha: 2, beta: 0.5 })
  const got = new Float64Array(m * n)
  C.copyToHost(got)
  t.true(relError(got, want) < 1e-14)
  // Aᵀ and Bᵀ stored, transposed by the call.
  const at = new Float64Array(k * m)
  for (let i = 0; i < m; i++) for (let l = 0; l < k; l++) at[l * m + i] = a[i * k + l]
  const bt = new Float64Array(n * k)
  for (let l = 0; l < k; l++) for (let j = 0; j < n; j++) bt[j * k + l] = b[l * n + j]
  const C2 = upload(c0, 'float64')
  blas.dgemm({ m, n, k, A: upload(at, 'float64'), B: upload(bt, 'float64'), C: C2, alpha: 2, beta: 0.5, transA: true, transB: true })
  C2.copyToHost(got)
  t.true(relError(got, want) < 1e-14)
  // Column-major: the same product, with each matrix stored transposed (column-major of row-major data).
  const C3 = alloc(8 * m * n)
  blas.dgemm({ m, n, k, A: upload(at, 'float64'), B: upload(bt, 'float64'), C: C3, order: 'column' })
  const col = new Float64Array(m * n)
  C3.copyToHost(col)
  const back = new Float64Array(m * n)
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) back[i * n + j] = col[i + j * m]
  t.true(relError(back, ab) < 1e-14)
})

test('a gemm issued in s.run() is ordered after a fill on s, with no synchronize between', (t) => {
  const s = new Stream({ nonBlocking: true })
  const N = 64
  const A = alloc(4 * N * N)
  const B = alloc(4 * N * N)
  const C = alloc(4 * N * N)
  kernels.fill(B, 1, N * N, 'float32', s)
  s.run(() => {
    kernels.sleep(50e6)
    kernels.fill(A, 2, N * N, 'float32')
    blas.sgemm({ m: N, n: N, k: N, A, B, C })
  })
  s.synchronize()
  const out = new Float32Array(N * N)
  C.copyToHost(out)
  t.true(out.every((v) => v === 2 * N))
})

test('saxpy and daxpy compute y = alpha · x + y, strides included', (t) => {
  const x = upload([1, 2, 3, 4], 'float32')
  const y = upload([10, 20, 30, 40], 'float32')
  blas.saxpy(4, 2, x, y)
  const out = new Float32Array(4)
  y.copyToHost(out)
  t.deepEqual([...out], [12, 24, 36, 48])
  const xd = upload([1, 0, 2, 0, 3], 'float64')
  const yd = upload([1, 1, 1], 'float64')
  blas.daxpy(3, -1, xd, yd, { incx: 2 })
  const od = new Float64Array(3)
  yd.copyToHost(od)
  t.deepEqual([...od], [0, -1, -2])
})

test('two Device(0) objects return the same cuBLAS and cuSOLVER handles', (t) => {
  const h = new Device(0).cublasHandle
  t.is(typeof h, 'bigint')
  t.not(h, 0n)
  t.is(new Device(0).cublasHandle, h)
  t.is(new Device(0).cusolverHandle, new Device(0).cusolverHandle)
  t.not(new Device(0).cusolverHandle, h)
})

test('handles are per device on a multi-device simulator', (t) => {
  const r = runJson(
    `const a = new cuda.Device(0).cublasHandle, b = new cuda.Device(1).cublasHandle;
     console.log(JSON.stringify({ differ: a !== b, same: new cuda.Device(1).cublasHandle === b }))`,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.deepEqual(r, { differ: true, same: true })
})

const perInstance = ' (WebAssembly: each worker has its own module and memory, so its handles are addresses in its own memory and may equal the main thread\'s in value)'
test(`each thread has its own cuBLAS and cuSOLVER handles, as in CuPy, and a worker computes with its own (#19.11)${onWasm ? perInstance : ''}`, async (t) => {
  const { Worker } = await import('node:worker_threads')
  const main = { cublas: new Device(0).cublasHandle, cusolver: new Device(0).cusolverHandle }
  const w = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads')
     const cuda = require(workerData.root)
     const d = new cuda.Device(0)
     const x = cuda.alloc(16), y = cuda.alloc(16)
     x.copyFromHost(new Float32Array([1, 2, 3, 4])); y.copyFromHost(new Float32Array([1, 1, 1, 1]))
     cuda.blas.saxpy(4, 2, x, y)
     const out = new Float32Array(4); y.copyToHost(out)
     parentPort.postMessage({ cublas: d.cublasHandle, again: d.cublasHandle, cusolver: d.cusolverHandle, out: [...out] })`,
    { eval: true, workerData: { root: require('node:path').join(__dirname, '..') } },
  )
  const got = await new Promise<any>((resolve, reject) => w.once('message', resolve).once('error', reject))
  await w.terminate()
  if (!onWasm) {
    t.not(got.cublas, main.cublas)
    t.not(got.cusolver, main.cusolver)
  }
  t.is(got.again, got.cublas, 'stable within the worker')
  t.deepEqual(got.out, [3, 5, 7, 9])
  t.is(new Device(0).cublasHandle, main.cublas, "the main thread's handle is unchanged")
})

test('bad BLAS input is a typed error before anything runs', (t) => {
  // Exact sizes: a pool block (alloc) rounds up to 512 bytes.
  const A = mallocPlain(4 * 16)
  const B = mallocPlain(4 * 16)
  const C = mallocPlain(4 * 16)
  t.throws(() => blas.sgemm({ m: 8, n: 8, k: 8, A, B, C }), { instanceOf: RangeError, message: /matrix/ })
  t.throws(() => blas.sgemm({ m: 4, n: 4, k: 4, A, B, C, lda: 2 }), { instanceOf: RangeError, message: /leading dimension/ })
  t.throws(() => blas.sgemm({ m: 4, n: 4, k: 4, A: 1 as any, B, C }), { instanceOf: TypeError })
  t.throws(() => blas.sgemm({ m: -1, n: 4, k: 4, A, B, C }), { instanceOf: RangeError })
  t.throws(() => blas.sgemm({ m: 4, n: 4, k: 4, A, B, C, order: 'diagonal' as any }), { instanceOf: TypeError })
  t.throws(() => blas.saxpy(32, 1, A, B), { instanceOf: RangeError, message: /vector/ })
  t.throws(() => blas.saxpy(4, 1, A, B, { incx: 0 }), { instanceOf: RangeError, message: /stride/ })
  t.throws(() => blas.sgemm(null as any), { instanceOf: TypeError })
})
