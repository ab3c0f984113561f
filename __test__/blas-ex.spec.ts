// cuBLAS's mixed-precision `Ex` entry points (`cublas.dotEx`, `cublas.sgemmEx`, …): every
// combination of types of cuBLAS's tables against a JS reference that computes in float64 from
// what the device holds and rounds each output to its type, on whichever backend runs (the
// simulator computes in the execution type's precision, cuBLAS on the GPU).
import test from 'ava'
import { alloc, cublas, CudaError, MemoryPointer, type CublasExEntry, type CublasOptions, type CudaDataType } from '..'
import { gpuTest } from './helpers'

type C = { re: number; im: number }
const c = (re: number, im = 0): C => ({ re, im })

/** float32's bits → float16's, to nearest even (normal numbers, as these tests use). */
function f16Bits(v: number): number {
  const u = new Uint32Array(new Float32Array([v]).buffer)[0]
  const sign = (u >>> 16) & 0x8000
  const e = ((u >>> 23) & 0xff) - 127 + 15
  if ((u & 0x7fffffff) === 0 || e <= 0) return sign
  let h = (e << 10) | ((u & 0x7fffff) >>> 13)
  const rem = u & 0x1fff
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1) === 1)) h++
  return sign | h
}
function fromF16(h: number): number {
  const e = (h >>> 10) & 0x1f
  const v = e === 0 ? (h & 0x3ff) * 2 ** -24 : (1 + (h & 0x3ff) / 1024) * 2 ** (e - 15)
  return h & 0x8000 ? -v : v
}
function bf16Bits(v: number): number {
  const u = new Uint32Array(new Float32Array([v]).buffer)[0]
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff
}
const fromBf16 = (h: number) => new Float32Array(new Uint32Array([h << 16]).buffer)[0]

const complexOf = (t: CudaDataType) => t.startsWith('CUDA_C')
/** `v` rounded to the real type of `t`. */
function round(t: CudaDataType, v: number): number {
  if (t === 'CUDA_R_16F') return fromF16(f16Bits(v))
  if (t === 'CUDA_R_16BF') return fromBf16(bf16Bits(v))
  if (t === 'CUDA_R_32F' || t === 'CUDA_C_32F') return Math.fround(v)
  return v
}
/** One unit in the last place of `t` at `v`. */
function ulp(t: CudaDataType, v: number): number {
  const bits = { CUDA_R_16F: 10, CUDA_R_16BF: 7, CUDA_R_32F: 23, CUDA_C_32F: 23, CUDA_R_64F: 52, CUDA_C_64F: 52 }[t]
  return 2 ** (Math.floor(Math.log2(Math.max(Math.abs(v), 2 ** -14))) - bits)
}

/** The words of `v` in type `t`, as a typed array. */
function encode(t: CudaDataType, v: C[]): ArrayBufferView {
  const words = complexOf(t) ? v.flatMap((x) => [x.re, x.im]) : v.map((x) => x.re)
  if (t === 'CUDA_R_16F') return Uint16Array.from(words.map(f16Bits))
  if (t === 'CUDA_R_16BF') return Uint16Array.from(words.map(bf16Bits))
  if (t === 'CUDA_R_32F' || t === 'CUDA_C_32F') return Float32Array.from(words)
  return Float64Array.from(words)
}
function decode(t: CudaDataType, b: ArrayBufferView): C[] {
  const w: number[] =
    t === 'CUDA_R_16F' ? [...(b as Uint16Array)].map(fromF16) : t === 'CUDA_R_16BF' ? [...(b as Uint16Array)].map(fromBf16) : [...(b as Float32Array | Float64Array)]
  return complexOf(t) ? Array.from({ length: w.length / 2 }, (_, i) => c(w[2 * i], w[2 * i + 1])) : w.map((x) => c(x))
}

/** An array of type `t` on the device, and what it holds. */
class Arr {
  readonly mem: MemoryPointer
  readonly v: C[]
  constructor(
    readonly t: CudaDataType,
    v: C[],
  ) {
    const b = encode(t, v)
    this.v = decode(t, b)
    this.mem = alloc(Math.max(b.byteLength, 16))
    this.mem.copyFromHost(b)
  }
  read(): C[] {
    const n = this.v.length * (complexOf(this.t) ? 2 : 1)
    const b = this.t.includes('16') ? new Uint16Array(n) : this.t.endsWith('32F') ? new Float32Array(n) : new Float64Array(n)
    this.mem.copyToHost(b)
    return decode(this.t, b)
  }
}

/** Seeded numbers k/16, |k| ≤ 32: exact in every type, their products' sums exact in float32. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return Math.round((s / 2 ** 32 - 0.5) * 64) / 16
  }
}
const add = (a: C, b: C) => c(a.re + b.re, a.im + b.im)
const mul = (a: C, b: C) => c(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
const conj = (a: C) => c(a.re, -a.im)

const call = (name: CublasExEntry, o: CublasOptions) => cublas[name](o)
type Compute = 'CUBLAS_COMPUTE_32F' | 'CUBLAS_COMPUTE_64F'

/** Combinations per entry point: the operands' types, then the execution type (cuBLAS's tables). */
const R16F = 'CUDA_R_16F'
const R16BF = 'CUDA_R_16BF'
const R32F = 'CUDA_R_32F'
const R64F = 'CUDA_R_64F'
const C32F = 'CUDA_C_32F'
const C64F = 'CUDA_C_64F'
const TABLES: Record<Exclude<CublasExEntry, 'gemmBatchedEx'>, CudaDataType[][]> = {
  nrm2Ex: [[R16F, R16F, R32F], [R16BF, R16BF, R32F], [R32F, R32F, R32F], [C32F, R32F, R32F], [R64F, R64F, R64F], [C64F, R64F, R64F]],
  dotEx: [[R16F, R16F, R16F, R32F], [R16BF, R16BF, R16BF, R32F], [R32F, R32F, R32F, R32F], [R64F, R64F, R64F, R64F], [C32F, C32F, C32F, C32F], [C64F, C64F, C64F, C64F]],
  dotcEx: [[C32F, C32F, C32F, C32F], [C64F, C64F, C64F, C64F]],
  scalEx: [[R32F, R16F, R32F], [R32F, R16BF, R32F], [R32F, R32F, R32F], [R64F, R64F, R64F], [C32F, C32F, C32F], [C64F, C64F, C64F]],
  axpyEx: [[R32F, R16F, R16F, R32F], [R32F, R16BF, R16BF, R32F], [R32F, R32F, R32F, R32F], [R64F, R64F, R64F, R64F], [C32F, C32F, C32F, C32F], [C64F, C64F, C64F, C64F]],
  rotEx: [[R16F, R16F, R16F, R32F], [R16BF, R16BF, R16BF, R32F], [R32F, R32F, R32F, R32F], [R64F, R64F, R64F, R64F], [C32F, C32F, R32F, C32F], [C64F, C64F, R64F, C64F]],
  sgemmEx: [[R16F, R16F, R16F], [R16F, R16F, R32F], [R16BF, R16BF, R16BF], [R16BF, R16BF, R32F], [R32F, R32F, R32F]],
  cgemmEx: [[C32F, C32F, C32F]],
}

/** Whether `got` is `want` rounded to `t` (within one unit in its last place, and the execution's error). */
function near(t: CudaDataType, got: C, want: C, scale = 1): boolean {
  const tol = (v: number) => ulp(t, v) + ulp(t.endsWith('64F') ? R64F : R32F, scale) * 8
  return Math.abs(got.re - want.re) <= tol(want.re) && Math.abs(got.im - want.im) <= tol(want.im)
}

/** Runs one case of `name` with types `ts`; the differences from the reference. */
function check(name: CublasExEntry, ts: CudaDataType[], seed: number): string[] {
  const r = rng(seed)
  const n = 7
  const vec = (t: CudaDataType, len = n) => new Arr(t, Array.from({ length: len }, () => (complexOf(t) ? c(r(), r()) : c(r()))))
  const bad: string[] = []
  const expect = (what: string, t: CudaDataType, got: C[], want: C[], scale = 1) =>
    got.forEach((g, i) => {
      if (!near(t, g, want[i], scale)) bad.push(`${name} ${ts.join(' ')}: ${what}[${i}] ${JSON.stringify(g)}, want ${JSON.stringify(want[i])}`)
    })
  const asC = (v: unknown): C => (typeof v === 'number' ? c(v) : (v as C))
  const roundC = (t: CudaDataType, v: C) => c(round(t, v.re), round(t, v.im))
  const exec = ts[ts.length - 1]
  if (name === 'nrm2Ex') {
    const x = vec(ts[0])
    const got = call(name, { n, x: x.mem, xType: ts[0], resultType: ts[1], executionType: exec })
    expect('result', ts[1], [asC(got)], [c(round(ts[1], Math.sqrt(x.v.reduce((s, v) => s + v.re * v.re + v.im * v.im, 0))))])
  } else if (name === 'dotEx' || name === 'dotcEx') {
    const [x, y] = [vec(ts[0]), vec(ts[1])]
    const got = call(name, { n, x: x.mem, xType: ts[0], y: y.mem, yType: ts[1], resultType: ts[2], executionType: exec })
    const want = x.v.reduce((s, v, i) => add(s, mul(name === 'dotcEx' ? conj(v) : v, y.v[i])), c(0))
    expect('result', ts[2], [asC(got)], [roundC(ts[2], want)])
  } else if (name === 'scalEx') {
    const x = vec(ts[1])
    const alpha = complexOf(ts[0]) ? c(r(), r()) : c(r())
    call(name, { n, alpha: complexOf(ts[0]) ? alpha : alpha.re, alphaType: ts[0], x: x.mem, xType: ts[1], executionType: exec })
    expect('x', ts[1], x.read(), x.v.map((v) => roundC(ts[1], mul(alpha, v))))
  } else if (name === 'axpyEx') {
    const [x, y] = [vec(ts[1]), vec(ts[2])]
    const alpha = complexOf(ts[0]) ? c(r(), r()) : c(r())
    call(name, { n, alpha: complexOf(ts[0]) ? alpha : alpha.re, alphaType: ts[0], x: x.mem, xType: ts[1], y: y.mem, yType: ts[2], executionType: exec })
    expect('y', ts[2], y.read(), y.v.map((v, i) => roundC(ts[2], add(mul(alpha, x.v[i]), v))))
  } else if (name === 'rotEx') {
    const [x, y] = [vec(ts[0]), vec(ts[1])]
    // c and s as the device holds them (rounded to csType).
    const [cs, sn] = [round(ts[2], 0.6), round(ts[2], 0.8)]
    call(name, { n, x: x.mem, xType: ts[0], y: y.mem, yType: ts[1], c: cs, s: sn, csType: ts[2], executionType: exec })
    const wantX = x.v.map((v, i) => roundC(ts[0], add(mul(c(cs), v), mul(c(sn), y.v[i]))))
    const wantY = y.v.map((v, i) => roundC(ts[1], add(mul(c(cs), v), mul(c(-sn), x.v[i]))))
    expect('x', ts[0], x.read(), wantX, 4)
    expect('y', ts[1], y.read(), wantY, 4)
  } else {
    // C (m×n) = alpha·A (m×k) · B (k×n) + beta·C, column-major.
    const [m, nn, k] = [3, 4, 5]
    const [A, B, Cm] = [vec(ts[0], m * k), vec(ts[1], k * nn), vec(ts[2], m * nn)]
    const [alpha, beta] = name === 'cgemmEx' ? [c(0.5, 0.25), c(-1, 0.5)] : [c(0.5), c(-1)]
    const scalar = (v: C) => (name === 'cgemmEx' ? v : v.re)
    call(name, { m, n: nn, k, alpha: scalar(alpha), A: A.mem, Atype: ts[0], lda: m, B: B.mem, Btype: ts[1], ldb: k, beta: scalar(beta), C: Cm.mem, Ctype: ts[2], ldc: m })
    const want = Cm.v.map((old, at) => {
      const [i, j] = [at % m, Math.floor(at / m)]
      let s = c(0)
      for (let l = 0; l < k; l++) s = add(s, mul(A.v[i + l * m], B.v[l + j * k]))
      return roundC(ts[2], add(mul(alpha, s), mul(beta, old)))
    })
    expect('C', ts[2], Cm.read(), want, 16)
  }
  return bad
}

test('every combination of types of each Ex entry point matches the reference rounded to its output types', (t) => {
  const failures: string[] = []
  for (const [name, combos] of Object.entries(TABLES) as [Exclude<CublasExEntry, 'gemmBatchedEx'>, CudaDataType[][]][]) {
    for (const ts of combos) for (const seed of [1, 77, 2024]) failures.push(...check(name, ts, seed))
  }
  t.deepEqual(failures.slice(0, 8), [], `${failures.length} differ`)
})

test('a float16 result is rounded once, from the float32 execution: dotEx and nrm2Ex of halves', (t) => {
  const x = new Arr(R16F, [c(1), c(2), c(3), c(4)])
  const y = new Arr(R16F, [c(1), c(1), c(1), c(0.5)])
  t.is(cublas.dotEx({ n: 4, x: x.mem, xType: R16F, y: y.mem, yType: R16F, resultType: R16F, executionType: R32F }), 8)
  // √30 = 5.4772…: float16's nearest is 5.4765625.
  t.is(cublas.nrm2Ex({ n: 4, x: x.mem, xType: R16F, resultType: R16F, executionType: R32F }), 5.4765625)
})

test('a combination cuBLAS lacks is its NOT_SUPPORTED, naming the types; a missing or unknown type a TypeError', (t) => {
  const x = new Arr(R16F, [c(1), c(2)])
  const e = t.throws(() => cublas.nrm2Ex({ n: 2, x: x.mem, xType: R16F, resultType: R64F, executionType: R32F }), { instanceOf: CudaError })
  t.is(e?.code, 'CUBLAS_STATUS_NOT_SUPPORTED')
  t.regex(e?.message ?? '', /nrm2Ex of xType CUDA_R_16F, resultType CUDA_R_64F, executionType CUDA_R_32F/)
  t.throws(() => cublas.dotEx({ n: 2, x: x.mem, xType: R16F, y: x.mem, yType: R16F, resultType: R16F, executionType: R16F }), { instanceOf: CudaError, message: /dotEx/ })
  t.throws(() => cublas.sgemmEx({ m: 1, n: 1, k: 1, alpha: 1, A: x.mem, Atype: R16F, lda: 1, B: x.mem, Btype: R16BF, ldb: 1, beta: 0, C: x.mem, Ctype: R32F, ldc: 1 }), {
    instanceOf: CudaError,
    message: /sgemmEx of Atype CUDA_R_16F, Btype CUDA_R_16BF, Ctype CUDA_R_32F/,
  })
  t.throws(() => cublas.nrm2Ex({ n: 2, x: x.mem, resultType: R16F, executionType: R32F }), { instanceOf: TypeError, message: /xType/ })
  t.throws(() => cublas.nrm2Ex({ n: 2, x: x.mem, xType: 'CUDA_R_8I' as never, resultType: R16F, executionType: R32F }), { instanceOf: TypeError, message: /xType must be/ })
  t.throws(() => cublas.nrm2Ex({ n: 2, x: x.mem, xType: R16F, resultType: R16F, executionType: R32F, yType: R16F }), { instanceOf: TypeError, message: /yType/ })
})

test('sizes are checked in the operands own types: halves are 2 bytes, and start on 2-byte boundaries', (t) => {
  const x = alloc(4096)
  x.copyFromHost(new Uint8Array(4096))
  // 4096 bytes: 2048 halves, 1024 floats.
  t.notThrows(() => cublas.nrm2Ex({ n: 2048, x, xType: R16F, resultType: R16F, executionType: R32F }))
  t.throws(() => cublas.nrm2Ex({ n: 2049, x, xType: R16F, resultType: R16F, executionType: R32F }), { instanceOf: RangeError })
  t.throws(() => cublas.nrm2Ex({ n: 1025, x, xType: R32F, resultType: R32F, executionType: R32F }), { instanceOf: RangeError })
  t.throws(() => cublas.nrm2Ex({ n: 2, x: x.offset(1), xType: R16F, resultType: R16F, executionType: R32F }), { instanceOf: RangeError, message: /2-byte elements/ })
})

test('in device pointer mode an Ex result is written in its own type', (t) => {
  const x = new Arr(R16BF, [c(1.5), c(2), c(-3)])
  const y = new Arr(R16BF, [c(2), c(0.5), c(1)])
  const r = alloc(8)
  r.copyFromHost(new Uint16Array([0xffff, 0xffff, 0xffff, 0xffff]))
  cublas.setPointerMode('device')
  try {
    cublas.dotEx({ n: 3, x: x.mem, xType: R16BF, y: y.mem, yType: R16BF, result: r, resultType: R16BF, executionType: R32F })
  } finally {
    cublas.setPointerMode('host')
  }
  const out = new Uint16Array(4)
  r.copyToHost(out)
  // 3 + 1 − 3 = 1, as bfloat16; the next half untouched.
  t.deepEqual([fromBf16(out[0]), out[1]], [1, 0xffff])
})

gpuTest('on the GPU sgemmEx of halves into floats matches the reference at 64×48×40', (t) => {
  const [m, n, k] = [64, 48, 40]
  const r = rng(5)
  const A = new Arr(R16F, Array.from({ length: m * k }, () => c(r())))
  const B = new Arr(R16F, Array.from({ length: k * n }, () => c(r())))
  const Cm = new Arr(R32F, Array.from({ length: m * n }, () => c(0)))
  cublas.sgemmEx({ m, n, k, alpha: 1, A: A.mem, Atype: R16F, lda: m, B: B.mem, Btype: R16F, ldb: k, beta: 0, C: Cm.mem, Ctype: R32F, ldc: m })
  const got = Cm.read()
  let worst = 0
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      let s = 0
      for (let l = 0; l < k; l++) s += A.v[i + l * m].re * B.v[l + j * k].re
      worst = Math.max(worst, Math.abs(got[i + j * m].re - s))
    }
  }
  // Sums of 40 products of sixteenths: exact in float32.
  t.is(worst, 0)
})

test('the Ex entry points are methods of cublas, by CuPy name', (t) => {
  for (const name of Object.keys(TABLES)) t.is(typeof cublas[name as CublasExEntry], 'function', name)
})

/** gemmBatchedEx's combinations: A, B and C's types and the compute type. */
const BATCHED: [CudaDataType, CudaDataType, CudaDataType, Compute][] = [
  [R16F, R16F, R16F, 'CUBLAS_COMPUTE_32F'],
  [R16F, R16F, R32F, 'CUBLAS_COMPUTE_32F'],
  [R16BF, R16BF, R16BF, 'CUBLAS_COMPUTE_32F'],
  [R16BF, R16BF, R32F, 'CUBLAS_COMPUTE_32F'],
  [R32F, R32F, R32F, 'CUBLAS_COMPUTE_32F'],
  [R64F, R64F, R64F, 'CUBLAS_COMPUTE_64F'],
  [C32F, C32F, C32F, 'CUBLAS_COMPUTE_32F'],
  [C64F, C64F, C64F, 'CUBLAS_COMPUTE_64F'],
]

test('gemmBatchedEx: each combination of types, a batch of three, matches the reference rounded to C', (t) => {
  const [m, n, k, batch] = [3, 2, 4, 3]
  const bad: string[] = []
  for (const [ta, tb, tc, compute] of BATCHED) {
    const r = rng(11)
    const vec = (ty: CudaDataType, len: number) => new Arr(ty, Array.from({ length: len }, () => (complexOf(ty) ? c(r(), r()) : c(r()))))
    const As = Array.from({ length: batch }, () => vec(ta, m * k))
    const Bs = Array.from({ length: batch }, () => vec(tb, k * n))
    const Cs = Array.from({ length: batch }, () => vec(tc, m * n))
    const complex = complexOf(tc)
    const [alpha, beta] = complex ? [c(0.5, -0.25), c(0.25, 1)] : [c(-0.5), c(2)]
    cublas.gemmBatchedEx({
      m, n, k,
      alpha: complex ? alpha : alpha.re,
      A: As.map((a) => a.mem), Atype: ta, lda: m,
      B: Bs.map((b) => b.mem), Btype: tb, ldb: k,
      beta: complex ? beta : beta.re,
      C: Cs.map((x) => x.mem), Ctype: tc, ldc: m,
      batchCount: batch, computeType: compute,
    })
    Cs.forEach((Cm, b) => {
      const got = Cm.read()
      Cm.v.forEach((old, at) => {
        const [i, j] = [at % m, Math.floor(at / m)]
        let s = c(0)
        for (let l = 0; l < k; l++) s = add(s, mul(As[b].v[i + l * m], Bs[b].v[l + j * k]))
        const want = add(mul(alpha, s), mul(beta, old))
        const w = c(round(tc, want.re), round(tc, want.im))
        if (!near(tc, got[at], w, 16)) bad.push(`${ta} ${tb} ${tc} ${compute}: C[${b}][${at}] ${JSON.stringify(got[at])}, want ${JSON.stringify(w)}`)
      })
    })
  }
  t.deepEqual(bad.slice(0, 8), [])
  const x = alloc(64)
  t.throws(() => cublas.gemmBatchedEx({ m: 1, n: 1, k: 1, alpha: 1, A: [x], Atype: R16F, lda: 1, B: [x], Btype: R16F, ldb: 1, beta: 0, C: [x], Ctype: R32F, ldc: 1, batchCount: 1, computeType: 'CUBLAS_COMPUTE_64F' }), {
    instanceOf: CudaError,
    message: /gemmBatchedEx of Atype CUDA_R_16F, Btype CUDA_R_16F, Ctype CUDA_R_32F, computeType CUBLAS_COMPUTE_64F/,
  })
  t.throws(() => cublas.gemmBatchedEx({ m: 1, n: 1, k: 1, alpha: 1, A: [x], Atype: R16F, lda: 1, B: [x], Btype: R16F, ldb: 1, beta: 0, C: [x], Ctype: R16F, ldc: 1, batchCount: 1, computeType: 'CUBLAS_COMPUTE_16F' as never }), {
    instanceOf: TypeError,
    message: /computeType must be/,
  })
})
