import test from 'ava'
import { alloc, cufft, FftPlan, MemoryPointer, XtPlanNd } from '..'
import { onGpu } from './helpers'
import { signal, dft, relError } from './fft-reference'

// cuFFT's Xt plans (CuPy's XtPlanNd): half, bfloat16, single and double by cudaDataType. On the
// simulator the transform is computed in double and each output rounded to the plan's precision.

/** IEEE half's bits for `v` (round to nearest even, through single). */
function toHalf(v: number): number {
  const f = new Float32Array([v])
  const x = new Uint32Array(f.buffer)[0]
  const sign = (x >>> 16) & 0x8000
  const exp = ((x >>> 23) & 0xff) - 127 + 15
  let man = x & 0x7fffff
  if (exp >= 0x1f) return sign | 0x7c00
  if (exp <= 0) {
    if (exp < -10) return sign
    man |= 0x800000
    const shift = 14 - exp
    const half = 1 << (shift - 1)
    let r = man >>> shift
    const rest = man & ((1 << shift) - 1)
    if (rest > half || (rest === half && r & 1)) r++
    return sign | r
  }
  let r = (exp << 10) | (man >>> 13)
  const rest = man & 0x1fff
  if (rest > 0x1000 || (rest === 0x1000 && r & 1)) r++
  return sign | r
}

function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1
  const exp = (h >>> 10) & 0x1f
  const man = h & 0x3ff
  if (exp === 0) return sign * man * 2 ** -24
  if (exp === 0x1f) return man ? NaN : sign * Infinity
  return sign * (1 + man / 1024) * 2 ** (exp - 15)
}

const toBf16 = (v: number) => {
  const x = new Uint32Array(new Float32Array([v]).buffer)[0]
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff
}
const fromBf16 = (h: number) => new Float32Array(new Uint32Array([h << 16]).buffer)[0]

const PRECISIONS = {
  half: { c: 'CUDA_C_16F', r: 'CUDA_R_16F', to: toHalf, from: fromHalf, tol: 5e-3 },
  bfloat16: { c: 'CUDA_C_16BF', r: 'CUDA_R_16BF', to: toBf16, from: fromBf16, tol: 4e-2 },
} as const

function upload16(values: ArrayLike<number>, to: (v: number) => number) {
  const host = Uint16Array.from(Array.from(values, to))
  const p = alloc(host.byteLength)
  p.copyFromHost(host)
  return p
}

function download16(p: ReturnType<typeof alloc>, n: number, from: (h: number) => number): Float64Array {
  const host = new Uint16Array(n)
  p.copyToHost(host)
  return Float64Array.from(host, from)
}

for (const [name, P] of Object.entries(PRECISIONS)) {
  // bfloat16 needs compute capability 8.0; the GPU test machines have it.
  test(`${name} c2c: a batched plan matches a DFT of the rounded input, to ${name}'s precision`, (t) => {
    const [n, batch] = [64, 3]
    const x = signal(2 * n * batch, 5).map((v) => P.from(P.to(v)))
    const input = upload16(x, P.to)
    const output = alloc(input.size)
    using plan = new XtPlanNd({ shape: [n], batch, inputType: P.c, outputType: P.c, executionType: P.c })
    t.is(plan.type, 'c2c')
    t.deepEqual(plan.xtTypes, [P.c, P.c, P.c])
    plan.exec(input, output)
    const got = download16(output, 2 * n * batch, P.from)
    const e = relError(got, dft(x, n, -1, batch))
    t.true(e < P.tol, `relative error ${e}`)
    plan.exec(output, input, { direction: 'inverse' })
    const back = download16(input, 2 * n * batch, P.from)
    t.true(relError(back, x.map((v) => v * n)) < 2 * P.tol, 'inverse of forward is n·x')
  })

  test(`${name} r2c then c2r: the half spectrum, and n·x back`, (t) => {
    const [n, batch] = [32, 2]
    const h = n / 2 + 1
    const x = signal(n * batch, 9).map((v) => P.from(P.to(v)))
    const input = upload16(x, P.to)
    const spectrum = alloc(2 * h * batch * 2)
    new XtPlanNd({ shape: n, batch, inputType: P.r, outputType: P.c, executionType: P.c }).exec(input, spectrum)
    const complex = new Float64Array(2 * n * batch)
    x.forEach((v, i) => (complex[2 * i] = v))
    const full = dft(complex, n, -1, batch)
    const want = new Float64Array(2 * h * batch)
    for (let b = 0; b < batch; b++) want.set(full.subarray(2 * b * n, 2 * (b * n + h)), 2 * b * h)
    t.true(relError(download16(spectrum, 2 * h * batch, P.from), want) < P.tol)
    const back = alloc(n * batch * 2)
    const inverse = new XtPlanNd({ shape: n, batch, inputType: P.c, outputType: P.r, executionType: P.c })
    t.is(inverse.type, 'c2r')
    inverse.exec(spectrum, back)
    t.true(relError(download16(back, n * batch, P.from), x.map((v) => v * n)) < 2 * P.tol)
  })
}

test('a 2-D half plan matches the DFT along both axes', (t) => {
  const [r, c] = [8, 16]
  const x = signal(2 * r * c, 4).map((v) => fromHalf(toHalf(v)))
  const input = upload16(x, toHalf)
  const output = alloc(input.size)
  new XtPlanNd({ shape: [r, c], inputType: 'CUDA_C_16F', outputType: 'CUDA_C_16F', executionType: 'CUDA_C_16F' }).exec(input, output)
  const rows = dft(x, c, -1, r)
  const want = new Float64Array(rows.length)
  for (let j = 0; j < c; j++) {
    const col = new Float64Array(2 * r)
    for (let i = 0; i < r; i++) col.set(rows.subarray(2 * (i * c + j), 2 * (i * c + j) + 2), 2 * i)
    const f = dft(col, r, -1)
    for (let i = 0; i < r; i++) want.set(f.subarray(2 * i, 2 * i + 2), 2 * (i * c + j))
  }
  t.true(relError(download16(output, 2 * r * c, fromHalf), want) < 5e-3)
})

for (const [type, ctype, T] of [
  ['c2c', 'CUDA_C_32F', Float32Array],
  ['z2z', 'CUDA_C_64F', Float64Array],
] as const) {
  test(`an Xt plan of ${ctype} gives what the ${type} plan gives`, (t) => {
    const [n, batch] = [48, 2]
    const x = T.from(signal(2 * n * batch, 3))
    const input = alloc(x.byteLength)
    input.copyFromHost(x)
    const [a, b] = [alloc(x.byteLength), alloc(x.byteLength)]
    new FftPlan({ shape: n, type, batch }).exec(input, a)
    const xt = new XtPlanNd({ shape: n, batch, inputType: ctype, outputType: ctype, executionType: ctype })
    t.is(xt.type, type)
    xt.exec(input, b)
    const [ga, gb] = [new T(2 * n * batch), new T(2 * n * batch)]
    a.copyToHost(ga)
    b.copyToHost(gb)
    if (onGpu) t.true(relError(gb, ga) < (type === 'c2c' ? 1e-6 : 1e-14))
    else t.deepEqual(gb, ga, 'the simulator computes both the same way')
  })
}

test('Xt types that make no transform, and half sizes cuFFT refuses, are typed errors', (t) => {
  const xt = (i: string, o: string, e: string, shape: number | number[] = 64) => () =>
    new XtPlanNd({ shape, inputType: i as any, outputType: o as any, executionType: e as any })
  t.throws(xt('CUDA_C_16F', 'CUDA_C_32F', 'CUDA_C_32F'), { code: 'CUFFT_INVALID_TYPE' }, 'mixed precisions')
  t.throws(xt('CUDA_C_16F', 'CUDA_C_16F', 'CUDA_R_16F'), { code: 'CUFFT_INVALID_TYPE' }, 'a real execution type')
  t.throws(xt('CUDA_R_32F', 'CUDA_R_32F', 'CUDA_C_32F'), { code: 'CUFFT_INVALID_TYPE' }, 'real to real')
  t.throws(xt('CUDA_C_8I', 'CUDA_C_16F', 'CUDA_C_16F'), { code: 'CUFFT_INVALID_TYPE', message: /CUDA_C_16BF/ }, 'an unknown name lists the known')
  t.throws(xt('CUDA_C_16F', 'CUDA_C_16F', 'CUDA_C_16F', 48), { code: 'CUFFT_NOT_SUPPORTED', message: /powers of 2/ })
  t.throws(xt('CUDA_R_16BF', 'CUDA_C_16BF', 'CUDA_C_16BF', [8, 12]), { code: 'CUFFT_NOT_SUPPORTED' })
  t.notThrows(xt('CUDA_C_32F', 'CUDA_C_32F', 'CUDA_C_32F', 48), 'single takes any size')
  t.throws(xt('CUDA_C_16F', 'CUDA_C_16F', 'CUDA_C_16F', 0), { code: 'CUFFT_INVALID_SIZE' })
  t.throws(() => new XtPlanNd({ shape: 64, inputType: 5, outputType: 'CUDA_C_16F', executionType: 'CUDA_C_16F' } as any), { instanceOf: TypeError })
  t.throws(() => new XtPlanNd({ shape: 64, inputType: 'CUDA_C_16F', outputType: 'CUDA_C_16F', executionType: 'CUDA_C_16F', type: 'c2c' } as any), {
    instanceOf: TypeError,
  })
  t.is(cufft.XtPlanNd, XtPlanNd)
})

test('half data must be aligned to its elements and hold what the plan reads', (t) => {
  using plan = new XtPlanNd({ shape: 64, inputType: 'CUDA_C_16F', outputType: 'CUDA_C_16F', executionType: 'CUDA_C_16F' })
  const big = alloc(64 * 4 * 2)
  // 4 bytes short of what the plan reads: the last bytes of an allocation (pools round sizes up).
  const whole = alloc(4096)
  const small = new MemoryPointer(whole.mem, whole.mem.size - (64 * 4 - 4))
  t.throws(() => plan.exec(small, big), { instanceOf: RangeError, message: /runs past the end/ })
  t.throws(() => plan.exec(big.offset(2), big), { code: 'CUFFT_UNALIGNED_DATA' })
})
