// cuBLAS's typed entry points (`cublas.*`): each against a plain JS reference of BLAS's
// definitions on small random inputs, on whichever backend runs (the simulator in CI, cuBLAS
// on the GPU), and bad sizes refused before anything runs.
import test from 'ava'
import fc from 'fast-check'
import { alloc, blas, cublas, MemoryPointer, Stream, type CublasEntry, type CublasOptions } from '..'
import { gpuTest } from './helpers'

type C = { re: number; im: number }
const c = (re: number, im = 0): C => ({ re, im })
const add = (a: C, b: C): C => c(a.re + b.re, a.im + b.im)
const sub = (a: C, b: C): C => c(a.re - b.re, a.im - b.im)
const mul = (a: C, b: C): C => c(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
const div = (a: C, b: C): C => {
  const d = b.re * b.re + b.im * b.im
  return c((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d)
}
const conj = (a: C): C => c(a.re, -a.im)
const ZERO = c(0)
const ONE = c(1)
const isZero = (a: C) => a.re === 0 && a.im === 0

type Elem = 's' | 'd' | 'c' | 'z'
const complexOf = (e: Elem) => e === 'c' || e === 'z'
const singleOf = (e: Elem) => e === 's' || e === 'c'

/** A seeded generator of uniform numbers in [-0.5, 0.5). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32 - 0.5
  }
}

/** An array of elements on the host and on the device. */
class Arr {
  readonly mem: MemoryPointer
  constructor(
    readonly elem: Elem,
    public v: C[],
  ) {
    const words = complexOf(elem) ? v.flatMap((x) => [x.re, x.im]) : v.map((x) => x.re)
    const host = singleOf(elem) ? Float32Array.from(words) : Float64Array.from(words)
    // Rounded to the element type, so the reference starts from what the device holds.
    this.v = complexOf(elem) ? v.map((_, i) => c(host[2 * i], host[2 * i + 1])) : v.map((_, i) => c(host[i]))
    this.mem = alloc(Math.max(host.byteLength, 1))
    if (host.byteLength > 0) this.mem.copyFromHost(host)
  }
  read(): C[] {
    const n = this.v.length * (complexOf(this.elem) ? 2 : 1)
    const host = singleOf(this.elem) ? new Float32Array(n) : new Float64Array(n)
    if (n > 0) this.mem.copyToHost(host)
    return complexOf(this.elem) ? this.v.map((_, i) => c(host[2 * i], host[2 * i + 1])) : this.v.map((_, i) => c(host[i]))
  }
}

/** Where element (i, j) of a matrix is stored, or -1 where its storage has none. */
type Store = (i: number, j: number) => number
const full =
  (ld: number): Store =>
  (i, j) =>
    i + j * ld
const band =
  (kl: number, ku: number, ld: number): Store =>
  (i, j) =>
    i + ku >= j && i <= j + kl ? ku + i - j + j * ld : -1
const packed =
  (upper: boolean, n: number): Store =>
  (i, j) =>
    upper ? (i <= j ? i + (j * (j + 1)) / 2 : -1) : i >= j ? i + ((2 * n - j - 1) * j) / 2 : -1
const inTri = (upper: boolean, i: number, j: number) => (upper ? i <= j : i >= j)

/** A random case of one entry point: its options, its arrays, and what the reference says. */
interface Case {
  options: CublasOptions
  arrays: Record<string, Arr>
  /** The reference: the outputs' expected contents, and the returned result. */
  expect(): { arrays: Record<string, C[]>; result?: unknown; problem?: string }
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor((r() + 0.5) * xs.length) % xs.length]
}

/** A random scalar of the type (real for real types or where `real`). */
function scalar(r: () => number, e: Elem, real = false): C {
  return complexOf(e) && !real ? c(r() * 4, r() * 4) : c(r() * 4)
}
function hostScalar(v: C, e: Elem, real = false): number | C {
  return complexOf(e) && !real ? v : v.re
}
/** A scalar rounded to the element type's precision, as the call reads it. */
function rounded(v: C, e: Elem): C {
  return singleOf(e) ? c(Math.fround(v.re), Math.fround(v.im)) : v
}

function vecOf(r: () => number, e: Elem, len: number, inc: number): Arr {
  const span = len === 0 ? 0 : (len - 1) * inc + 1
  return new Arr(e, Array.from({ length: span + 1 }, () => scalar(r, e)))
}
function matOf(r: () => number, e: Elem, ld: number, cols: number): Arr {
  return new Arr(e, Array.from({ length: Math.max(ld * cols, 1) }, () => scalar(r, e)))
}
/** The dense rows×cols matrix `s` stores (0 where it stores nothing). */
function dense(a: C[], s: Store, rows: number, cols: number): C[][] {
  return Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (s(i, j) >= 0 ? a[s(i, j)] : ZERO)))
}
/** op(M) of a matrix of `cols` columns. */
function opOf(m: C[][], t: string, cols: number): C[][] {
  if (t === 'N') return m
  return Array.from({ length: cols }, (_, i) => m.map((row) => (t === 'C' ? conj(row[i]) : row[i])))
}
function symmetricOf(a: C[], s: Store, n: number, upper: boolean, herm: boolean): C[][] {
  const d = dense(a, s, n, n)
  return d.map((row, i) =>
    row.map((_, j) => (i === j && herm ? c(d[i][i].re) : inTri(upper, i, j) ? d[i][j] : herm ? conj(d[j][i]) : d[j][i])),
  )
}
function triangularOf(a: C[], s: Store, n: number, upper: boolean, unit: boolean, t: string): C[][] {
  const d = dense(a, s, n, n).map((row, i) => row.map((v, j) => (!inTri(upper, i, j) ? ZERO : i === j && unit ? ONE : v)))
  return opOf(d, t, n)
}
function matvec(m: C[][], x: C[]): C[] {
  return m.map((row) => row.reduce((s, v, j) => add(s, mul(v, x[j])), ZERO))
}
/** A·B, B of `cols` columns. */
function matmul(a: C[][], b: C[][], cols: number): C[][] {
  return a.map((row) => Array.from({ length: cols }, (_, j) => row.reduce((s, v, l) => add(s, mul(v, b[l][j])), ZERO)))
}
function solveTri(m: C[][], b: C[]): C[] {
  const n = b.length
  const lower = m.every((row, i) => row.every((v, j) => j <= i || isZero(v)))
  const x = b.slice()
  const order = lower ? [...Array(n).keys()] : [...Array(n).keys()].reverse()
  for (const i of order) {
    let s = x[i]
    for (let j = 0; j < n; j++) if (j !== i && (lower ? j < i : j > i)) s = sub(s, mul(m[i][j], x[j]))
    x[i] = div(s, m[i][i])
  }
  return x
}
const getV = (a: C[], inc: number, n: number) => Array.from({ length: n }, (_, i) => a[i * inc])
const setV = (a: C[], inc: number, v: C[]) => v.forEach((x, i) => (a[i * inc] = x))
const axb = (alpha: C, s: C, beta: C, old: C) => (isZero(beta) ? mul(alpha, s) : add(mul(alpha, s), mul(beta, old)))
/** Makes the diagonal of a stored triangular matrix large, so solves are well conditioned. */
function boostDiagonal(a: Arr, s: Store, n: number): Arr {
  const v = a.v.slice()
  for (let i = 0; i < n; i++) v[s(i, i)] = add(v[s(i, i)], c(3))
  return new Arr(a.elem, v)
}

/** The entry points named by two type letters (a complex vector, a real scalar or result). */
const MIXED: string[] = ['csscal', 'zdscal', 'scasum', 'dzasum', 'scnrm2', 'dznrm2', 'csrot', 'zdrot']
function elemOf(name: string): Elem {
  if (name.startsWith('i')) return name[1] as Elem
  if (MIXED.includes(name)) return (name.startsWith('s') || name.startsWith('c') ? 'c' : 'z') as Elem
  return name[0] as Elem
}

/** LAPACK's getf2 on a dense matrix: L\U and the 1-based pivots (the largest |re| + |im| first). */
function luOf(m0: C[][]): { lu: C[][]; piv: number[] } {
  const m = m0.map((row) => row.slice())
  const n = m.length
  const piv: number[] = []
  const abs1 = (z: C) => Math.abs(z.re) + Math.abs(z.im)
  for (let j = 0; j < n; j++) {
    let p = j
    for (let i = j + 1; i < n; i++) if (abs1(m[i][j]) > abs1(m[p][j])) p = i
    piv.push(p + 1)
    ;[m[j], m[p]] = [m[p], m[j]]
    for (let i = j + 1; i < n; i++) {
      m[i][j] = div(m[i][j], m[j][j])
      for (let k = j + 1; k < n; k++) m[i][k] = sub(m[i][k], mul(m[i][j], m[j][k]))
    }
  }
  return { lu: m, piv }
}
/** LAPACK's geqr2: R above the diagonal, the reflectors below, and their taus. */
function qrOf(a0: C[][]): { qr: C[][]; tau: C[] } {
  const a = a0.map((row) => row.slice())
  const m = a.length
  const n = m ? a[0].length : 0
  const tau: C[] = []
  for (let j = 0; j < Math.min(m, n); j++) {
    const alpha = a[j][j]
    let xnorm2 = 0
    for (let i = j + 1; i < m; i++) xnorm2 += a[i][j].re ** 2 + a[i][j].im ** 2
    if (xnorm2 === 0 && alpha.im === 0) {
      tau.push(ZERO)
      continue
    }
    const norm = Math.sqrt(alpha.re ** 2 + alpha.im ** 2 + xnorm2)
    const beta = c(alpha.re >= 0 ? -norm : norm)
    const t = div(sub(beta, alpha), beta)
    tau.push(t)
    const scale = div(ONE, sub(alpha, beta))
    for (let i = j + 1; i < m; i++) a[i][j] = mul(a[i][j], scale)
    a[j][j] = beta
    const v = (i: number) => (i === j ? ONE : a[i][j])
    for (let k = j + 1; k < n; k++) {
      let w = ZERO
      for (let i = j; i < m; i++) w = add(w, mul(conj(v(i)), a[i][k]))
      for (let i = j; i < m; i++) a[i][k] = sub(a[i][k], mul(mul(conj(t), v(i)), w))
    }
  }
  return { qr: a, tau }
}
function identityOf(n: number): C[][] {
  return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? ONE : ZERO)))
}
/** X with M·X = B, by Gauss–Jordan elimination with partial pivoting. */
function gaussSolve(m0: C[][], b0: C[][]): C[][] {
  const n = m0.length
  const m = m0.map((row, i) => [...row, ...b0[i]])
  const abs = (z: C) => Math.hypot(z.re, z.im)
  for (let j = 0; j < n; j++) {
    let p = j
    for (let i = j + 1; i < n; i++) if (abs(m[i][j]) > abs(m[p][j])) p = i
    ;[m[j], m[p]] = [m[p], m[j]]
    const d = m[j][j]
    m[j] = m[j].map((v) => div(v, d))
    for (let i = 0; i < n; i++) if (i !== j) {
      const f = m[i][j]
      m[i] = m[i].map((v, k) => sub(v, mul(f, m[j][k])))
    }
  }
  return m.map((row) => row.slice(n))
}

/** A random case of `name` (its routine after the type letter(s)). */
function makeCase(name: CublasEntry, seed: number): Case {
  const r = rng(seed)
  const e = elemOf(name)
  const routine = name.startsWith('i') || MIXED.includes(name) ? name.slice(2) : name.slice(1)
  const dim = () => pick(r, [0, 1, 2, 3, 4])
  const inc = () => pick(r, [1, 1, 2])
  const [m, n, k] = [dim(), dim(), dim()]
  const upper = r() > 0
  const uplo = upper ? 'U' : 'L'
  const realScalar = ['csscal', 'zdscal'].includes(name)
  const alpha = scalar(r, e, realScalar || ['cher', 'zher', 'chpr', 'zhpr', 'cherk', 'zherk'].includes(name))
  const betaReal = ['cherk', 'zherk', 'cher2k', 'zher2k', 'cherkx', 'zherkx'].includes(name)
  const beta = pick(r, [0, 1]) === 0 ? ZERO : scalar(r, e, betaReal)
  const A = (a: Arr) => a.v.slice()
  const cplx = complexOf(e)
  const trans = pick(r, cplx ? ['N', 'T', 'C'] : ['N', 'T'])
  const diag = pick(r, ['N', 'U'])
  const side = pick(r, ['L', 'R'])
  const al = rounded(alpha, e)
  const be = rounded(beta, e)

  switch (routine) {
    case 'amax':
    case 'amin':
    case 'asum':
    case 'nrm2': {
      const incx = inc()
      const x = vecOf(r, e, n, incx)
      return {
        options: { n, x: x.mem, incx },
        arrays: { x },
        expect: () => {
          const v = getV(x.v, incx, n)
          const a1 = v.map((z) => Math.abs(z.re) + Math.abs(z.im))
          if (routine === 'asum') return { arrays: {}, result: a1.reduce((s, z) => s + z, 0) }
          if (routine === 'nrm2') return { arrays: {}, result: Math.sqrt(v.reduce((s, z) => s + z.re * z.re + z.im * z.im, 0)) }
          let best = -1
          a1.forEach((z, i) => {
            if (best < 0 || (routine === 'amax' ? z > a1[best] : z < a1[best])) best = i
          })
          return { arrays: {}, result: best + 1 }
        },
      }
    }
    case 'axpy':
    case 'copy':
    case 'dot':
    case 'dotu':
    case 'dotc':
    case 'swap':
    case 'rot':
    case 'rotm': {
      const [incx, incy] = [inc(), inc()]
      const x = vecOf(r, e, n, incx)
      const y = vecOf(r, e, n, incy)
      const cs = c(Math.cos(r() * 6))
      const sn = name === 'crot' || name === 'zrot' ? c(r(), r()) : c(Math.sin(r() * 6))
      const param = [pick(r, [-2, -1, 0, 1]), r() * 4, r() * 4, r() * 4, r() * 4]
      const options: CublasOptions = { n, x: x.mem, incx, y: y.mem, incy }
      if (routine === 'axpy') options.alpha = hostScalar(alpha, e)
      if (routine === 'rot') Object.assign(options, { c: cs.re, s: name === 'crot' || name === 'zrot' ? sn : sn.re })
      if (routine === 'rotm') options.param = param
      return {
        options,
        arrays: { x, y },
        expect: () => {
          const [xv, yv] = [getV(x.v, incx, n), getV(y.v, incy, n)]
          const [xo, yo] = [A(x), A(y)]
          if (routine.startsWith('dot')) {
            const s = xv.reduce((s, z, i) => add(s, mul(routine === 'dotc' ? conj(z) : z, yv[i])), ZERO)
            return { arrays: {}, result: cplx ? s : s.re }
          }
          if (routine === 'axpy') setV(yo, incy, xv.map((z, i) => add(mul(al, z), yv[i])))
          if (routine === 'copy') setV(yo, incy, xv)
          if (routine === 'swap') {
            setV(xo, incx, yv)
            setV(yo, incy, xv)
          }
          if (routine === 'rot') {
            const [cr, sr] = [rounded(cs, e), rounded(sn, e)]
            setV(xo, incx, xv.map((z, i) => add(mul(cr, z), mul(sr, yv[i]))))
            setV(yo, incy, xv.map((z, i) => sub(mul(cr, yv[i]), mul(conj(sr), z))))
          }
          if (routine === 'rotm') {
            const p = param.map((v) => rounded(c(v), e).re)
            const h =
              p[0] === -1 ? [p[1], p[2], p[3], p[4]] : p[0] === 0 ? [1, p[2], p[3], 1] : p[0] === 1 ? [p[1], -1, 1, p[4]] : undefined
            if (h) {
              setV(xo, incx, xv.map((z, i) => c(h[0] * z.re + h[2] * yv[i].re)))
              setV(yo, incy, xv.map((z, i) => c(h[1] * z.re + h[3] * yv[i].re)))
            }
          }
          return { arrays: { x: xo, y: yo } }
        },
      }
    }
    case 'scal': {
      const incx = inc()
      const x = vecOf(r, e, n, incx)
      return {
        options: { n, alpha: hostScalar(alpha, e, realScalar), x: x.mem, incx },
        arrays: { x },
        expect: () => {
          const xo = A(x)
          setV(xo, incx, getV(x.v, incx, n).map((z) => mul(al, z)))
          return { arrays: { x: xo } }
        },
      }
    }
    case 'gemv':
    case 'gbmv': {
      const [kl, ku] = [pick(r, [0, 1, 2]), pick(r, [0, 1, 2])]
      const rows = routine === 'gbmv' ? kl + ku + 1 : m
      const lda = Math.max(rows, 1) + pick(r, [0, 1])
      const a = matOf(r, e, lda, n)
      const [xl, yl] = trans === 'N' ? [n, m] : [m, n]
      const [incx, incy] = [inc(), inc()]
      const x = vecOf(r, e, xl, incx)
      const y = vecOf(r, e, yl, incy)
      const options: CublasOptions = { trans, m, n, alpha: hostScalar(alpha, e), A: a.mem, lda, x: x.mem, incx, beta: hostScalar(beta, e), y: y.mem, incy }
      if (routine === 'gbmv') Object.assign(options, { kl, ku })
      return {
        options,
        arrays: { A: a, x, y },
        expect: () => {
          // BLAS returns at once where A is empty: y stays as it was (not β·y).
          if (m === 0 || n === 0) return { arrays: { y: A(y) } }
          const s = routine === 'gbmv' ? band(kl, ku, lda) : full(lda)
          const mm = opOf(dense(a.v, s, m, n), trans, n)
          const ax = matvec(mm, getV(x.v, incx, xl))
          const yo = A(y)
          const yv = getV(y.v, incy, yl)
          setV(yo, incy, ax.map((z, i) => axb(al, z, be, yv[i])))
          return { arrays: { y: yo } }
        },
      }
    }
    case 'ger':
    case 'geru':
    case 'gerc': {
      const lda = m + pick(r, [0, 1])
      const [incx, incy] = [inc(), inc()]
      const [x, y, a] = [vecOf(r, e, m, incx), vecOf(r, e, n, incy), matOf(r, e, Math.max(lda, 1), n)]
      return {
        options: { m, n, alpha: hostScalar(alpha, e), x: x.mem, incx, y: y.mem, incy, A: a.mem, lda: Math.max(lda, 1) },
        arrays: { x, y, A: a },
        expect: () => {
          const ao = A(a)
          const [xv, yv] = [getV(x.v, incx, m), getV(y.v, incy, n)]
          for (let j = 0; j < n; j++)
            for (let i = 0; i < m; i++) {
              const at = i + j * Math.max(lda, 1)
              ao[at] = add(ao[at], mul(al, mul(xv[i], routine === 'gerc' ? conj(yv[j]) : yv[j])))
            }
          return { arrays: { A: ao } }
        },
      }
    }
    case 'symv':
    case 'hemv':
    case 'sbmv':
    case 'hbmv':
    case 'spmv':
    case 'hpmv': {
      const kk = pick(r, [0, 1, 2])
      const isBand = routine.endsWith('bmv')
      const isPacked = routine.endsWith('pmv')
      const lda = Math.max(isBand ? kk + 1 : n, 1) + pick(r, [0, 1])
      const a = isPacked ? new Arr(e, Array.from({ length: Math.max((n * (n + 1)) / 2, 1) }, () => scalar(r, e))) : matOf(r, e, lda, n)
      const [incx, incy] = [inc(), inc()]
      const [x, y] = [vecOf(r, e, n, incx), vecOf(r, e, n, incy)]
      const options: CublasOptions = { uplo, n, alpha: hostScalar(alpha, e), x: x.mem, incx, beta: hostScalar(beta, e), y: y.mem, incy }
      if (isPacked) options.AP = a.mem
      else Object.assign(options, { A: a.mem, lda })
      if (isBand) options.k = kk
      return {
        options,
        arrays: { A: a, x, y },
        expect: () => {
          const s = isPacked ? packed(upper, n) : isBand ? (upper ? band(0, kk, lda) : band(kk, 0, lda)) : full(lda)
          const mm = symmetricOf(a.v, s, n, upper, routine.startsWith('h'))
          const ax = matvec(mm, getV(x.v, incx, n))
          const yo = A(y)
          const yv = getV(y.v, incy, n)
          setV(yo, incy, ax.map((z, i) => axb(al, z, be, yv[i])))
          return { arrays: { y: yo } }
        },
      }
    }
    case 'syr':
    case 'her':
    case 'spr':
    case 'hpr':
    case 'syr2':
    case 'her2':
    case 'spr2':
    case 'hpr2': {
      const isPacked = routine.startsWith('sp') || routine.startsWith('hp')
      const two = routine.endsWith('2')
      const herm = routine.startsWith('h')
      const lda = Math.max(n, 1) + pick(r, [0, 1])
      const a = isPacked ? new Arr(e, Array.from({ length: Math.max((n * (n + 1)) / 2, 1) }, () => scalar(r, e))) : matOf(r, e, lda, n)
      const [incx, incy] = [inc(), inc()]
      const [x, y] = [vecOf(r, e, n, incx), vecOf(r, e, n, incy)]
      const options: CublasOptions = { uplo, n, alpha: hostScalar(alpha, e, herm && !two), x: x.mem, incx }
      if (two) Object.assign(options, { y: y.mem, incy })
      if (isPacked) options.AP = a.mem
      else Object.assign(options, { A: a.mem, lda })
      return {
        options,
        arrays: { [isPacked ? 'AP' : 'A']: a, x, y },
        expect: () => {
          const s = isPacked ? packed(upper, n) : full(lda)
          const ao = A(a)
          const [xv, yv] = [getV(x.v, incx, n), getV(y.v, incy, n)]
          const cj = (z: C) => (herm ? conj(z) : z)
          for (let j = 0; j < n; j++)
            for (let i = 0; i < n; i++) {
              if (!inTri(upper, i, j)) continue
              const d = two ? add(mul(al, mul(xv[i], cj(yv[j]))), mul(cj(al), mul(yv[i], cj(xv[j])))) : mul(al, mul(xv[i], cj(xv[j])))
              const v = add(ao[s(i, j)], d)
              ao[s(i, j)] = herm && i === j ? c(v.re) : v
            }
          return { arrays: { [isPacked ? 'AP' : 'A']: ao } }
        },
      }
    }
    case 'trmv':
    case 'tbmv':
    case 'tpmv':
    case 'trsv':
    case 'tbsv':
    case 'tpsv': {
      const kk = pick(r, [0, 1, 2])
      const isBand = routine[1] === 'b'
      const isPacked = routine[1] === 'p'
      const lda = Math.max(isBand ? kk + 1 : n, 1) + pick(r, [0, 1])
      const s = isPacked ? packed(upper, n) : isBand ? (upper ? band(0, kk, lda) : band(kk, 0, lda)) : full(lda)
      let a = isPacked ? new Arr(e, Array.from({ length: Math.max((n * (n + 1)) / 2, 1) }, () => scalar(r, e))) : matOf(r, e, lda, n)
      if (routine.endsWith('sv')) a = boostDiagonal(a, s, n)
      const incx = inc()
      const x = vecOf(r, e, n, incx)
      const options: CublasOptions = { uplo, trans, diag, n, x: x.mem, incx }
      if (isPacked) options.AP = a.mem
      else Object.assign(options, { A: a.mem, lda })
      if (isBand) options.k = kk
      return {
        options,
        arrays: { A: a, x },
        expect: () => {
          const t = triangularOf(a.v, s, n, upper, diag === 'U', trans)
          const xv = getV(x.v, incx, n)
          const xo = A(x)
          setV(xo, incx, routine.endsWith('mv') ? matvec(t, xv) : solveTri(t, xv))
          return { arrays: { x: xo } }
        },
      }
    }
    case 'gemm':
    case 'gemm3m':
    case 'gemmStridedBatched':
    case 'gemm3mStridedBatched': {
      const [ta, tb] = [pick(r, cplx ? ['N', 'T', 'C'] : ['N', 'T']), pick(r, cplx ? ['N', 'T', 'C'] : ['N', 'T'])]
      const [ar, ac] = ta === 'N' ? [m, k] : [k, m]
      const [br, bc] = tb === 'N' ? [k, n] : [n, k]
      const [lda, ldb, ldc] = [Math.max(ar, 1) + pick(r, [0, 1]), Math.max(br, 1) + pick(r, [0, 1]), Math.max(m, 1) + pick(r, [0, 1])]
      const batched = routine.endsWith('Batched')
      const batchCount = batched ? pick(r, [0, 1, 2, 3]) : 1
      const [sa, sb, sc] = [lda * ac + pick(r, [0, 2]), ldb * bc, ldc * n + pick(r, [0, 1])]
      const nb = Math.max(batchCount, 1)
      const a = matOf(r, e, sa, nb)
      const b = matOf(r, e, sb, nb)
      const cm = matOf(r, e, sc, nb)
      const options: CublasOptions = { transa: ta, transb: tb, m, n, k, alpha: hostScalar(alpha, e), A: a.mem, lda, B: b.mem, ldb, beta: hostScalar(beta, e), C: cm.mem, ldc }
      if (batched) Object.assign(options, { strideA: sa, strideB: sb, strideC: sc, batchCount })
      return {
        options,
        arrays: { A: a, B: b, C: cm },
        expect: () => {
          const co = A(cm)
          for (let q = 0; q < batchCount; q++) {
            const am = opOf(dense(a.v.slice(q * sa), full(lda), ar, ac), ta, ac)
            const bm = opOf(dense(b.v.slice(q * sb), full(ldb), br, bc), tb, bc)
            const p = matmul(am, bm, n)
            for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) co[q * sc + i + j * ldc] = axb(al, p[i][j], be, co[q * sc + i + j * ldc])
          }
          return { arrays: { C: co } }
        },
      }
    }
    case 'symm':
    case 'hemm':
    case 'trmm':
    case 'trsm': {
      const ka = side === 'L' ? m : n
      const lda = Math.max(ka, 1) + pick(r, [0, 1])
      const [ldb, ldc] = [Math.max(m, 1) + pick(r, [0, 1]), Math.max(m, 1) + pick(r, [0, 1])]
      let a = matOf(r, e, lda, ka)
      if (routine === 'trsm') a = boostDiagonal(a, full(lda), ka)
      const b = matOf(r, e, ldb, n)
      const cm = matOf(r, e, ldc, n)
      const options: CublasOptions = { side, uplo, m, n, alpha: hostScalar(alpha, e), A: a.mem, lda, B: b.mem, ldb }
      if (routine === 'symm' || routine === 'hemm') Object.assign(options, { beta: hostScalar(beta, e), C: cm.mem, ldc })
      if (routine === 'trmm') Object.assign(options, { trans, diag, C: cm.mem, ldc })
      if (routine === 'trsm') Object.assign(options, { trans, diag })
      return {
        options,
        arrays: { A: a, B: b, C: cm },
        expect: () => {
          const bm = dense(b.v, full(ldb), m, n)
          const am =
            routine === 'symm' || routine === 'hemm'
              ? symmetricOf(a.v, full(lda), ka, upper, routine === 'hemm')
              : triangularOf(a.v, full(lda), ka, upper, diag === 'U', trans)
          if (routine === 'trsm') {
            const bo = A(b)
            if (side === 'L') {
              for (let j = 0; j < n; j++) {
                const col = solveTri(am, bm.map((row) => mul(al, row[j])))
                col.forEach((v, i) => (bo[i + j * ldb] = v))
              }
            } else {
              const amt = opOf(am, 'T', n)
              for (let i = 0; i < m; i++) {
                const row = solveTri(amt, bm[i].map((v) => mul(al, v)))
                row.forEach((v, j) => (bo[i + j * ldb] = v))
              }
            }
            return { arrays: { B: bo } }
          }
          const p = side === 'L' ? matmul(am, bm, n) : matmul(bm, am, n)
          const co = A(cm)
          for (let j = 0; j < n; j++)
            for (let i = 0; i < m; i++) co[i + j * ldc] = routine === 'trmm' ? mul(al, p[i][j]) : axb(al, p[i][j], be, co[i + j * ldc])
          return { arrays: { C: co } }
        },
      }
    }
    case 'syrk':
    case 'herk':
    case 'syr2k':
    case 'her2k':
    case 'syrkx':
    case 'herkx': {
      const herm = routine.startsWith('h')
      const t = herm ? pick(r, ['N', 'C']) : pick(r, ['N', 'T'])
      const [rows, cols] = t === 'N' ? [n, k] : [k, n]
      const [lda, ldb, ldc] = [Math.max(rows, 1) + pick(r, [0, 1]), Math.max(rows, 1) + pick(r, [0, 1]), Math.max(n, 1) + pick(r, [0, 1])]
      const [a, b, cm] = [matOf(r, e, lda, cols), matOf(r, e, ldb, cols), matOf(r, e, ldc, n)]
      const options: CublasOptions = { uplo, trans: t, n, k, alpha: hostScalar(alpha, e, routine === 'herk'), A: a.mem, lda, beta: hostScalar(beta, e, herm), C: cm.mem, ldc }
      if (routine !== 'syrk' && routine !== 'herk') Object.assign(options, { B: b.mem, ldb })
      return {
        options,
        arrays: { A: a, B: b, C: cm },
        expect: () => {
          const opA = opOf(dense(a.v, full(lda), rows, cols), t, cols) // n×k
          const opB = routine === 'syrk' || routine === 'herk' ? opA : opOf(dense(b.v, full(ldb), rows, cols), t, cols)
          const cj = (z: C) => (herm ? conj(z) : z)
          const dot = (x: C[][], y: C[][], i: number, j: number) => x[i].reduce((s, v, l) => add(s, mul(v, cj(y[j][l]))), ZERO)
          const co = A(cm)
          for (let j = 0; j < n; j++)
            for (let i = 0; i < n; i++) {
              if (!inTri(upper, i, j)) continue
              const s =
                routine === 'syr2k'
                  ? mul(al, add(dot(opA, opB, i, j), dot(opB, opA, i, j)))
                  : routine === 'her2k'
                    ? add(mul(al, dot(opA, opB, i, j)), mul(conj(al), dot(opB, opA, i, j)))
                    : mul(al, dot(opA, opB, i, j))
              const at = i + j * ldc
              const v = isZero(be) ? s : add(s, mul(be, co[at]))
              co[at] = herm && i === j ? c(v.re) : v
            }
          return { arrays: { C: co } }
        },
      }
    }
    case 'geam':
    case 'dgmm': {
      const [ta, tb] = [pick(r, cplx ? ['N', 'T', 'C'] : ['N', 'T']), pick(r, cplx ? ['N', 'T', 'C'] : ['N', 'T'])]
      if (routine === 'dgmm') {
        const lda = Math.max(m, 1) + pick(r, [0, 1])
        const ldc = Math.max(m, 1) + pick(r, [0, 1])
        const incx = inc()
        const [a, x, cm] = [matOf(r, e, lda, n), vecOf(r, e, side === 'L' ? m : n, incx), matOf(r, e, ldc, n)]
        return {
          options: { mode: side, m, n, A: a.mem, lda, x: x.mem, incx, C: cm.mem, ldc },
          arrays: { A: a, x, C: cm },
          expect: () => {
            const xv = getV(x.v, incx, side === 'L' ? m : n)
            const co = A(cm)
            for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) co[i + j * ldc] = mul(a.v[i + j * lda], xv[side === 'L' ? i : j])
            return { arrays: { C: co } }
          },
        }
      }
      const [ar, ac] = ta === 'N' ? [m, n] : [n, m]
      const [br, bc] = tb === 'N' ? [m, n] : [n, m]
      const [lda, ldb, ldc] = [Math.max(ar, 1) + pick(r, [0, 1]), Math.max(br, 1) + pick(r, [0, 1]), Math.max(m, 1) + pick(r, [0, 1])]
      const [a, b, cm] = [matOf(r, e, lda, ac), matOf(r, e, ldb, bc), matOf(r, e, ldc, n)]
      return {
        options: { transa: ta, transb: tb, m, n, alpha: hostScalar(alpha, e), A: a.mem, lda, beta: hostScalar(beta, e), B: b.mem, ldb, C: cm.mem, ldc },
        arrays: { A: a, B: b, C: cm },
        expect: () => {
          const am = opOf(dense(a.v, full(lda), ar, ac), ta, ac)
          const bm = opOf(dense(b.v, full(ldb), br, bc), tb, bc)
          const co = A(cm)
          for (let j = 0; j < n; j++)
            for (let i = 0; i < m; i++) co[i + j * ldc] = add(isZero(al) ? ZERO : mul(al, am[i][j]), isZero(be) ? ZERO : mul(be, bm[i][j]))
          return { arrays: { C: co } }
        },
      }
    }
    case 'gemmBatched':
    case 'gemm3mBatched':
    case 'trsmBatched': {
      // One random case of gemm or trsm a batch, each matrix in its own allocation.
      const batchCount = pick(r, [0, 1, 2, 3])
      const one = name.replace('Batched', '') as CublasEntry
      const cases = Array.from({ length: batchCount }, (_, q) => makeCase(one, seed + q))
      // The batch shares the first case's sizes and scalars: remake the others with its options.
      const first = makeCase(one, seed)
      const keys = routine === 'trsmBatched' ? ['A', 'B'] : ['A', 'B', 'C']
      const batch = Array.from({ length: batchCount }, (_, q) => (q === 0 ? first : sameShape(first, cases[q], keys)))
      const options: CublasOptions = { ...first.options, batchCount }
      for (const k of keys) (options as Record<string, unknown>)[k] = batch.map((b) => b.arrays[k].mem)
      const arrays: Record<string, Arr> = {}
      batch.forEach((b, q) => keys.forEach((k) => (arrays[`${k}${q}`] = b.arrays[k])))
      return {
        options,
        arrays,
        expect: () => {
          const out: Record<string, C[]> = {}
          batch.forEach((b, q) => Object.entries(b.expect().arrays).forEach(([k, v]) => (out[`${k}${q}`] = v)))
          return { arrays: out }
        },
      }
    }
    case 'getrfBatched':
    case 'getrsBatched':
    case 'getriBatched':
    case 'matinvBatched': {
      // At least 1×1: cuBLAS's batched LU and QR calls are not asked of empty matrices here.
      const n = Math.max(dim(), 1)
      const batchSize = pick(r, [0, 1, 2, 3])
      const lda = Math.max(n, 1) + pick(r, [0, 1])
      const ldOut = Math.max(n, 1) + pick(r, [0, 1])
      const nrhs = pick(r, [1, 2, 3])
      const t = pick(r, cplx ? ['N', 'T', 'C'] : ['N', 'T'])
      // Well conditioned: a strong diagonal, so each solve is accurate in single precision.
      // Complex ones strongly so: the pivots are then the same whether the largest element is
      // measured as |re| + |im| (LAPACK's) or |z|.
      const boost = (a: Arr) => (cplx ? boostDiagonal(boostDiagonal(boostDiagonal(a, full(lda), n), full(lda), n), full(lda), n) : boostDiagonal(a, full(lda), n))
      const originals = Array.from({ length: batchSize }, () => boost(matOf(r, e, lda, n)))
      const factored = originals.map((a) => {
        const { lu } = luOf(dense(a.v, full(lda), n, n))
        const v = a.v.slice()
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v[i + j * lda] = lu[i][j]
        return new Arr(e, v)
      })
      const pivots = originals.flatMap((a) => luOf(dense(a.v, full(lda), n, n)).piv)
      const ints = (v: number[]) => {
        const m = alloc(Math.max(v.length * 4, 4))
        if (v.length) m.copyFromHost(Int32Array.from(v))
        return m
      }
      const readInts = (m: MemoryPointer, len: number) => {
        const h = new Int32Array(len)
        if (len) m.copyToHost(h)
        return Array.from(h)
      }
      const P = ints(routine === 'getrfBatched' ? pivots.map(() => -7) : pivots)
      const info = ints(Array.from({ length: batchSize }, () => -7))
      const outs = Array.from({ length: batchSize }, () => matOf(r, e, ldOut, Math.max(n, nrhs)))
      const rhs = Array.from({ length: batchSize }, () => matOf(r, e, ldOut, nrhs))
      const arrays: Record<string, Arr> = {}
      const inverse = (a: Arr) => gaussSolve(dense(a.v, full(lda), n, n), identityOf(n))
      let options: CublasOptions
      if (routine === 'getrfBatched') {
        originals.forEach((a, q) => (arrays[`A${q}`] = a))
        options = { n, A: originals.map((a) => a.mem), lda, P, info, batchSize }
      } else if (routine === 'getrsBatched') {
        rhs.forEach((b, q) => (arrays[`B${q}`] = b))
        options = { trans: t, n, nrhs, A: factored.map((a) => a.mem), lda, devIpiv: P, B: rhs.map((b) => b.mem), ldb: ldOut, batchSize }
      } else if (routine === 'getriBatched') {
        outs.forEach((o, q) => (arrays[`C${q}`] = o))
        options = { n, A: factored.map((a) => a.mem), lda, P, C: outs.map((o) => o.mem), ldc: ldOut, info, batchSize }
      } else {
        outs.forEach((o, q) => (arrays[`Ainv${q}`] = o))
        options = { n, A: originals.map((a) => a.mem), lda, Ainv: outs.map((o) => o.mem), lda_inv: ldOut, info, batchSize }
      }
      return {
        options,
        arrays,
        expect: () => {
          const out: Record<string, C[]> = {}
          const put = (name: string, base: Arr, m: C[][], ld: number) => {
            const v = base.v.slice()
            m.forEach((row, i) => row.forEach((x, j) => (v[i + j * ld] = x)))
            out[name] = v
          }
          originals.forEach((a, q) => {
            if (routine === 'getrfBatched') put(`A${q}`, a, luOf(dense(a.v, full(lda), n, n)).lu, lda)
            if (routine === 'getrsBatched') put(`B${q}`, rhs[q], gaussSolve(opOf(dense(a.v, full(lda), n, n), t, n), dense(rhs[q].v, full(ldOut), n, nrhs)), ldOut)
            if (routine === 'getriBatched') put(`C${q}`, outs[q], inverse(a), ldOut)
            if (routine === 'matinvBatched') put(`Ainv${q}`, outs[q], inverse(a), ldOut)
          })
          // Read after the call: the pivots and infos the device wrote.
          const got = { P: readInts(P, pivots.length), info: readInts(info, batchSize) }
          let problem: string | undefined
          if (routine === 'getrfBatched' && JSON.stringify(got.P) !== JSON.stringify(pivots)) problem = `pivots ${got.P}, want ${pivots}`
          if (routine !== 'getrsBatched' && got.info.some((v) => v !== 0)) problem = `infos ${got.info}, want zeros`
          return { arrays: out, problem }
        },
      }
    }
    case 'geqrfBatched':
    case 'gelsBatched': {
      const [m, n] = [Math.max(dim(), 1), Math.max(dim(), 1)]
      const batchSize = pick(r, [0, 1, 2])
      const rows = routine === 'gelsBatched' ? n + pick(r, [0, 1, 2]) : m
      const lda = Math.max(rows, 1) + pick(r, [0, 1])
      const ldc = Math.max(rows, 1) + pick(r, [0, 1])
      const nrhs = pick(r, [1, 2])
      const as = Array.from({ length: batchSize }, () => matOf(r, e, lda, n))
      if (routine === 'gelsBatched') as.forEach((a, q) => (as[q] = boostDiagonal(a, full(lda), n)))
      const taus = Array.from({ length: batchSize }, () => new Arr(e, Array.from({ length: Math.max(Math.min(rows, n), 1) }, () => scalar(r, e))))
      const cs = Array.from({ length: batchSize }, () => matOf(r, e, ldc, nrhs))
      const info = alloc(Math.max(batchSize * 4, 4))
      const arrays: Record<string, Arr> = {}
      as.forEach((a, q) => (arrays[`A${q}`] = a))
      const options: CublasOptions =
        routine === 'geqrfBatched'
          ? { m: rows, n, A: as.map((a) => a.mem), lda, TauArray: taus.map((t) => t.mem), batchSize }
          : { trans: 'N', m: rows, n, nrhs, A: as.map((a) => a.mem), lda, C: cs.map((x) => x.mem), ldc, devInfoArray: info, batchSize }
      if (routine === 'geqrfBatched') taus.forEach((t, q) => (arrays[`T${q}`] = t))
      else cs.forEach((x, q) => (arrays[`C${q}`] = x))
      return {
        options,
        arrays,
        expect: () => {
          const out: Record<string, C[]> = {}
          let problem: string | undefined
          as.forEach((a, q) => {
            const { qr, tau } = qrOf(dense(a.v, full(lda), rows, n))
            const v = a.v.slice()
            qr.forEach((row, i) => row.forEach((x, j) => (v[i + j * lda] = x)))
            out[`A${q}`] = v
            if (routine === 'geqrfBatched') {
              out[`T${q}`] = taus[q].v.map((x, i) => (i < tau.length ? tau[i] : x))
              return
            }
            // Qᴴ·C, then R·X = (Qᴴ·C)[..n]; rows n.. keep the residual's components.
            const x = dense(cs[q].v, full(ldc), rows, nrhs)
            tau.forEach((t, j) => {
              const vj = (i: number) => (i < j ? ZERO : i === j ? ONE : qr[i][j])
              for (let k = 0; k < nrhs; k++) {
                let w = ZERO
                for (let i = j; i < rows; i++) w = add(w, mul(conj(vj(i)), x[i][k]))
                for (let i = j; i < rows; i++) x[i][k] = sub(x[i][k], mul(mul(conj(t), vj(i)), w))
              }
            })
            for (let k = 0; k < nrhs; k++) {
              const col = solveTri(
                qr.slice(0, n).map((row, i) => row.map((z, j) => (j >= i ? z : ZERO))),
                x.slice(0, n).map((row) => row[k]),
              )
              col.forEach((z, i) => (x[i][k] = z))
            }
            const vc = cs[q].v.slice()
            x.forEach((row, i) => row.forEach((z, k) => (vc[i + k * ldc] = z)))
            out[`C${q}`] = vc
            // The least-squares solution, independently: Aᴴ·A·X = Aᴴ·C.
            const ad = dense(a.v, full(lda), rows, n)
            const ah = opOf(ad, 'C', n)
            const ne = gaussSolve(matmul(ah, ad, n), matmul(ah, dense(cs[q].v, full(ldc), rows, nrhs), nrhs))
            const scale = 1 + Math.max(0, ...ne.flat().map((z) => Math.abs(z.re) + Math.abs(z.im)))
            ne.forEach((row, i) =>
              row.forEach((z, k) => {
                if (!close(x[i][k], z, e, scale * 10)) problem = `C${q} row ${i}: QR gives ${JSON.stringify(x[i][k])}, normal equations ${JSON.stringify(z)}`
              }),
            )
          })
          if (routine === 'gelsBatched') {
            const h = new Int32Array(batchSize)
            if (batchSize) info.copyToHost(h)
            if (h.some((v) => v !== 0)) problem = `devInfoArray ${Array.from(h)}, want zeros`
          }
          return { arrays: out, problem }
        },
      }
    }
    case 'tpttr':
    case 'trttp': {
      const lda = Math.max(n, 1) + pick(r, [0, 1])
      const ap = new Arr(e, Array.from({ length: Math.max((n * (n + 1)) / 2, 1) }, () => scalar(r, e)))
      const a = matOf(r, e, lda, n)
      return {
        options: { uplo, n, AP: ap.mem, A: a.mem, lda },
        arrays: { AP: ap, A: a },
        expect: () => {
          const [p, f] = [packed(upper, n), full(lda)]
          const out = routine === 'tpttr' ? A(a) : A(ap)
          for (let j = 0; j < n; j++)
            for (let i = 0; i < n; i++) {
              if (!inTri(upper, i, j)) continue
              if (routine === 'tpttr') out[f(i, j)] = ap.v[p(i, j)]
              else out[p(i, j)] = a.v[f(i, j)]
            }
          return { arrays: { [routine === 'tpttr' ? 'A' : 'AP']: out } }
        },
      }
    }
  }
  throw new Error(`no reference for ${name}`)
}

/** `other`'s arrays refilled at random in `first`'s shapes: a case of the same sizes and scalars. */
function sameShape(first: Case, other: Case, keys: string[]): Case {
  const r = rng(other.arrays[keys[0]]?.v.length ?? 7)
  const arrays: Record<string, Arr> = {}
  for (const k of keys) {
    const a = first.arrays[k]
    arrays[k] = new Arr(a.elem, a.v.map((v, i) => (i % 3 === 0 ? v : scalar(r, a.elem))))
  }
  if ('diag' in first.options && !('beta' in first.options) && !('C' in first.options)) {
    // A trsm: keep the solve well conditioned, as the first case's A is.
    arrays.A = new Arr(arrays.A.elem, first.arrays.A.v.map((v) => add(v, c(r() * 0.1))))
  }
  const options = { ...first.options } as Record<string, unknown>
  for (const k of keys) options[k] = arrays[k].mem
  return { options: options as CublasOptions, arrays, expect: reference(first, arrays) }
}

/** `first`'s reference, run on other arrays of the same shapes. */
function reference(first: Case, arrays: Record<string, Arr>): Case['expect'] {
  return () => {
    const saved = Object.fromEntries(Object.keys(arrays).map((k) => [k, first.arrays[k].v]))
    Object.keys(arrays).forEach((k) => (first.arrays[k].v = arrays[k].v))
    try {
      return first.expect()
    } finally {
      Object.keys(arrays).forEach((k) => (first.arrays[k].v = saved[k]))
    }
  }
}

/** |got − want| within the type's precision, relative to the inputs' scale. */
function close(got: C, want: C, e: Elem, scale: number): boolean {
  const tol = (singleOf(e) ? 1e-4 : 1e-11) * (1 + scale)
  return Math.abs(got.re - want.re) <= tol && Math.abs(got.im - want.im) <= tol
}
const asC = (v: unknown): C => (typeof v === 'number' ? c(v) : (v as C))

/** Runs one random case of `name` (its 64-bit variant with `suffix` '_64'); a message where it differs from the reference. */
function check(name: CublasEntry, seed: number, suffix: '' | '_64' = ''): string | undefined {
  const cs = makeCase(name, seed)
  const e = elemOf(name)
  const result = ((cublas as unknown as Record<string, (o: CublasOptions) => unknown>)[name + suffix])(cs.options)
  // The reference reads the inputs' host copies (and, for the LU calls, what the device wrote).
  const want = cs.expect()
  if (want.problem) return `${name} seed ${seed}: ${want.problem}`
  const scale = Math.max(1, ...Object.values(want.arrays).flatMap((v) => v.map((z) => Math.abs(z.re) + Math.abs(z.im))))
  if (want.result !== undefined) {
    const ok = name.startsWith('i') ? result === want.result : close(asC(result), asC(want.result), e, scale)
    if (!ok) return `${name} seed ${seed}: result ${JSON.stringify(result)}, want ${JSON.stringify(want.result)}`
  }
  for (const [arr, v] of Object.entries(want.arrays)) {
    const got = cs.arrays[arr].read()
    for (let i = 0; i < v.length; i++) {
      if (!close(got[i], v[i], e, scale)) return `${name} seed ${seed}: ${arr}[${i}] is ${JSON.stringify(got[i])}, want ${JSON.stringify(v[i])}`
    }
  }
  return undefined
}

const REFERENCED: CublasEntry[] = Object.keys(cublas).filter((k) => !/^(get|set)/.test(k) && !k.endsWith('_64') && !k.endsWith('Ex')) as CublasEntry[]
/** The entry points cuBLAS has a 64-bit variant of (`<name>_64`). */
const HAS_64: CublasEntry[] = REFERENCED.filter((k) => `${k}_64` in cublas)

test('every typed entry point has a method, by CuPy name', (t) => {
  t.is(REFERENCED.length, 218)
  for (const name of ['isamax', 'zdotc', 'csrot', 'drotmg', 'sgbmv', 'chpr2', 'ztbsv', 'cgemm3m', 'zherkx', 'dgeam', 'ctpttr', 'zgemmStridedBatched'] as const) {
    t.is(typeof cublas[name], 'function', name)
  }
})

for (const group of [
  ['amax', 'amin', 'asum', 'nrm2', 'axpy', 'copy', 'dot', 'scal', 'swap', 'rot', 'rotm'],
  ['gemv', 'gbmv', 'ger', 'symv', 'hemv', 'sbmv', 'hbmv', 'spmv', 'hpmv'],
  ['syr', 'her', 'spr', 'hpr', 'trmv', 'tbmv', 'tpmv', 'trsv', 'tbsv', 'tpsv'],
  ['gemm', 'symm', 'hemm', 'syrk', 'herk', 'syr2k', 'her2k', 'trmm', 'trsm', 'Batched'],
  ['geam', 'dgmm', 'tpttr', 'trttp'],
  ['getrfBatched', 'getrsBatched', 'getriBatched', 'matinvBatched', 'geqrfBatched', 'gelsBatched'],
]) {
  const names = REFERENCED.filter((n) => group.some((g) => n.includes(g)) && !/rotg|rotmg/.test(n))
  test(`${group.join(', ')}: each entry point matches the BLAS reference on random inputs`, (t) => {
    // Twelve random cases an entry point (fast-check's seeds: the run's seed is in its report).
    const seeds = fc.sample(fc.integer({ min: 1, max: 2 ** 31 - 1 }), 12)
    const failures = names.flatMap((name) => seeds.map((seed) => check(name, seed)).filter((why) => why !== undefined))
    t.deepEqual(failures.slice(0, 8), [], `${failures.length} cases differ`)
  })
}

test('rotg and rotmg compute the reference BLAS rotations', (t) => {
  const r = cublas.drotg({ a: 3, b: 4 }) as Record<string, number>
  t.true(Math.abs(r.a - 5) < 1e-12 && Math.abs(r.c - 0.6) < 1e-12 && Math.abs(r.s - 0.8) < 1e-12)
  // The rotation zeroes b: c·a + s·b = r, −s·a + c·b = 0.
  for (const [a, b] of [
    [1, 2],
    [-3, 0.5],
    [0, 0],
  ]) {
    const g = cublas.srotg({ a, b }) as Record<string, number>
    t.true(Math.abs(g.c * a + g.s * b - g.a) < 1e-5, `${a}, ${b}`)
    t.true(Math.abs(-g.s * a + g.c * b) < 1e-5, `${a}, ${b}`)
  }
  const z = cublas.zrotg({ a: { re: 1, im: 1 }, b: { re: 2, im: 0 } }) as Record<string, C & number>
  // [c s; −conj(s) c]·[a; b] = [r; 0].
  const [za, zb] = [c(1, 1), c(2, 0)]
  const zero = sub(mul(c(z.c), zb), mul(conj(z.s), za))
  t.true(Math.abs(zero.re) < 1e-12 && Math.abs(zero.im) < 1e-12)
  const m = cublas.drotmg({ d1: 1, d2: 1, x1: 1, y1: 2 }) as { d1: number; d2: number; x1: number; param: number[] }
  // Flag 1: h11 and h22 given, h21 = −1 and h12 = 1 implied (param[2], param[3] unspecified).
  t.deepEqual([m.param[0], m.param[1], m.param[4]].map((v) => Math.round(v * 1e12) / 1e12), [1, 0.5, 0.5])
  t.true(Math.abs(m.d1 - 0.8) < 1e-12 && Math.abs(m.d2 - 0.8) < 1e-12 && Math.abs(m.x1 - 2.5) < 1e-12)
})

test('complex results return as { re, im }, indices 1-based, real results as numbers', (t) => {
  const x = new Arr('z', [c(1, 2), c(3, 4)])
  const y = new Arr('z', [c(1, 0), c(0, 1)])
  t.deepEqual(cublas.zdotc({ n: 2, x: x.mem, y: y.mem }), { re: 5, im: 1 })
  t.deepEqual(cublas.zdotu({ n: 2, x: x.mem, y: y.mem }), { re: -3, im: 5 })
  t.is(cublas.izamax({ n: 2, x: x.mem }), 2)
  t.is(cublas.dzasum({ n: 2, x: x.mem }), 10)
  t.is(cublas.izamax({ n: 0, x: x.mem }), 0)
})

test('gemv and gbmv of an empty A leave y as it was (BLAS returns at once; not β·y)', (t) => {
  // cuBLAS as reference BLAS: m = 0 or n = 0 returns before y is read or written, whatever β is.
  const beta = { re: 2, im: -1 }
  const want = [c(1, 2), c(-3, 0.5), c(0.25, -4)]
  for (const [name, trans, m, n] of [
    ['zgemv', 'N', 3, 0],
    ['cgemv', 'T', 0, 3],
    ['zgbmv', 'C', 0, 3],
    ['cgbmv', 'N', 3, 0],
  ] as const) {
    const [a, x, y] = [new Arr(name[0] as Elem, [c(1)]), new Arr(name[0] as Elem, [c(1)]), new Arr(name[0] as Elem, want)]
    const band = name.endsWith('gbmv') ? { kl: 0, ku: 0, lda: 1 } : { lda: Math.max(m, 1) }
    cublas[name]({ trans, m, n, ...band, alpha: { re: 1, im: 1 }, A: a.mem, x: x.mem, beta, y: y.mem })
    t.deepEqual(y.read(), want, name)
  }
  const [a, x, y] = [new Arr('d', [c(1)]), new Arr('d', [c(1)]), new Arr('d', [c(5), c(6)])]
  cublas.dgemv({ trans: 'N', m: 2, n: 0, alpha: 1, A: a.mem, lda: 2, x: x.mem, beta: 0, y: y.mem })
  t.deepEqual(y.read(), [c(5), c(6)], 'β = 0 does not zero y either')
})

test('bad sizes, increments and leading dimensions are refused before anything runs', (t) => {
  const x = alloc(4096)
  const y = alloc(4096)
  const a = alloc(4096)
  // 4096 bytes: 512 doubles.
  t.throws(() => cublas.ddot({ n: 513, x, y }), { instanceOf: RangeError, message: /vector x|x/ })
  t.throws(() => cublas.ddot({ n: 300, x, y, incx: 2 }), { instanceOf: RangeError })
  t.throws(() => cublas.ddot({ n: 3, x, y, incx: 0 }), { instanceOf: RangeError, message: /incx is 0/ })
  t.throws(() => cublas.ddot({ n: -1, x, y }), { instanceOf: RangeError })
  t.throws(() => cublas.ddot({ n: 2 ** 31, x, y }), { instanceOf: RangeError })
  t.throws(() => cublas.dgemv({ m: 4, n: 4, alpha: 1, A: a, lda: 3, x, beta: 0, y }), { instanceOf: RangeError, message: /lda \(3\) is less than A's 4 rows/ })
  t.throws(() => cublas.dgemv({ m: 30, n: 30, alpha: 1, A: a, lda: 30, x, beta: 0, y }), { instanceOf: RangeError, message: /A/ })
  t.throws(() => cublas.zgemv({ m: 2, n: 2, alpha: { re: 1, im: 0 }, A: a, lda: 2, x: x.offset(8), beta: 0, y }), { instanceOf: RangeError, message: /16-byte elements/ })
  t.throws(() => cublas.dgemm({ m: 2, n: 2, k: 2, alpha: 1, A: a, lda: 2, B: a, ldb: 2, beta: 0, C: a, ldc: 1 }), { instanceOf: RangeError, message: /ldc/ })
  t.throws(() => cublas.cherk({ uplo: 'U', trans: 'T', n: 2, k: 2, alpha: 1, A: a, lda: 2, beta: 0, C: y, ldc: 2 }), { instanceOf: RangeError, message: /'N' or 'C'/ })
  t.throws(() => cublas.dgemmStridedBatched({ m: 2, n: 2, k: 2, alpha: 1, A: a, lda: 2, strideA: 4, B: a, ldb: 2, strideB: 4, beta: 0, C: y, ldc: 2, strideC: 3, batchCount: 2 }), {
    instanceOf: RangeError,
    message: /overlap/,
  })
  t.throws(() => cublas.dgemmBatched({ m: 2, n: 2, k: 2, alpha: 1, A: [a], lda: 2, B: [a, a], ldb: 2, beta: 0, C: [x, y], ldc: 2, batchCount: 2 }), {
    instanceOf: RangeError,
    message: /a matrix a batch/,
  })
  t.throws(() => cublas.dgemmBatched({ m: 30, n: 30, k: 2, alpha: 1, A: [a, a], lda: 30, B: [a, a], ldb: 2, beta: 0, C: [x, y], ldc: 30, batchCount: 2 }), {
    instanceOf: RangeError,
    message: /C\[0\]/,
  })
  t.throws(() => cublas.dgemmBatched({ m: 2, n: 2, k: 2, alpha: 1, A: a as never, lda: 2, B: [a], ldb: 2, beta: 0, C: [x], ldc: 2, batchCount: 1 }), {
    instanceOf: TypeError,
    message: /array of MemoryPointers/,
  })
  t.throws(() => cublas.dgelsBatched({ trans: 'T', m: 2, n: 2, nrhs: 1, A: [a], lda: 2, C: [x], ldc: 2, devInfoArray: y, batchSize: 1 }), {
    instanceOf: RangeError,
    message: /m ≥ n/,
  })
  t.throws(() => cublas.dgelsBatched({ m: 1, n: 2, nrhs: 1, A: [a], lda: 1, C: [x], ldc: 1, devInfoArray: y, batchSize: 1 }), { instanceOf: RangeError, message: /m ≥ n/ })
  t.throws(() => cublas.smatinvBatched({ n: 33, A: [a], lda: 33, Ainv: [x], lda_inv: 33, info: y, batchSize: 1 }), { instanceOf: RangeError, message: /at most 32/ })
  t.throws(() => cublas.dgetrfBatched({ n: 2, A: [a, a], lda: 2, P: y, info: x.offset(4094), batchSize: 2 }), { instanceOf: RangeError, message: /info/ })
  t.throws(() => cublas.dsymv({ n: 2, alpha: 1, A: a, lda: 2, x, beta: 0, y } as never), { instanceOf: TypeError, message: /uplo/ })
  t.throws(() => cublas.dgemv({ trans: 'X' as never, m: 1, n: 1, alpha: 1, A: a, lda: 1, x, beta: 0, y }), { instanceOf: TypeError, message: /trans/ })
  t.throws(() => cublas.dgemv({ m: 1, n: 1, alpha: { re: 1, im: 1 }, A: a, lda: 1, x, beta: 0, y }), { instanceOf: TypeError, message: /alpha/ })
  t.throws(() => cublas.ddot({ n: 1, x, y, z: 1 } as never), { instanceOf: TypeError, message: /takes no option 'z'/ })
  t.throws(() => cublas.ddot({ n: 1, x: 5 as never, y }), { instanceOf: TypeError, message: /x must be a MemoryPointer/ })
  t.throws(() => cublas.ddot({ n: 1, x, y, result: y }), { instanceOf: RangeError, message: /memory operands in host pointer mode/ })
})

test('the handle settings read back what was set, per device, and reject other values', (t) => {
  t.is(typeof cublas.getVersion(), 'number')
  t.is(cublas.getPointerMode(), 'host')
  cublas.setMathMode('pedantic', { disallowReducedPrecisionReduction: true })
  t.deepEqual(cublas.getMathMode(), { mode: 'pedantic', disallowReducedPrecisionReduction: true })
  cublas.setMathMode('default')
  t.deepEqual(cublas.getMathMode(), { mode: 'default', disallowReducedPrecisionReduction: false })
  const atomics = cublas.getAtomicsMode()
  cublas.setAtomicsMode(!atomics)
  t.is(cublas.getAtomicsMode(), !atomics)
  cublas.setAtomicsMode(atomics)
  t.throws(() => cublas.setPointerMode('gpu' as never), { instanceOf: TypeError })
  t.throws(() => cublas.setMathMode('fast' as never), { instanceOf: TypeError })
  t.throws(() => cublas.setAtomicsMode(1 as never), { instanceOf: TypeError })
})

test('in device pointer mode scalars and results are device memory, in stream order', (t) => {
  const x = new Arr('d', [c(1), c(2), c(3)])
  const y = new Arr('d', [c(4), c(5), c(6)])
  const result = alloc(8)
  const alpha = alloc(8)
  alpha.copyFromHost(Float64Array.of(2))
  cublas.setPointerMode('device')
  try {
    t.is(cublas.ddot({ n: 3, x: x.mem, y: y.mem, result }), undefined)
    cublas.daxpy({ n: 3, alpha, x: x.mem, y: y.mem })
    t.throws(() => cublas.ddot({ n: 3, x: x.mem, y: y.mem }), { instanceOf: RangeError, message: /memory operands in device pointer mode/ })
    t.throws(() => cublas.dscal({ n: 3, alpha: 2, x: x.mem }), { instanceOf: RangeError, message: /pointer mode is device/ })
    t.is(cublas.drotg({ a: alloc(8), b: alloc(8), c: alloc(8), s: alloc(8) }), undefined)
  } finally {
    cublas.setPointerMode('host')
  }
  const got = new Float64Array(1)
  result.copyToHost(got)
  t.is(got[0], 4 + 10 + 18)
  t.deepEqual(
    y.read().map((v) => v.re),
    [6, 9, 12],
  )
  t.is(cublas.ddot({ n: 3, x: x.mem, y: y.mem }), 6 + 18 + 36)
})

test('the blas products take host scalars whatever the pointer mode', (t) => {
  const a = new Arr('d', [c(1), c(2), c(3), c(4)])
  const out = new Arr('d', [c(0), c(0), c(0), c(0)])
  cublas.setPointerMode('device')
  try {
    blas.dgemm({ m: 2, n: 2, k: 2, A: a.mem, B: a.mem, C: out.mem, alpha: 2, order: 'column' })
  } finally {
    cublas.setPointerMode('host')
  }
  t.deepEqual(
    out.read().map((v) => v.re),
    [14, 20, 30, 44],
  )
})

test('an entry point that returns to the host is refused while its stream captures', (t) => {
  const s = new Stream()
  const x = new Arr('d', [c(1), c(2)])
  s.beginCapture()
  t.throws(() => cublas.dnrm2({ n: 2, x: x.mem, stream: s }), { message: /capture/ })
  const m = alloc(64)
  t.throws(() => cublas.dgemmBatched({ m: 1, n: 1, k: 1, alpha: 1, A: [m], lda: 1, B: [m], ldb: 1, beta: 0, C: [m], ldc: 1, batchCount: 1, stream: s }), {
    message: /arrays of pointers/,
  })
  s.endCapture()
  s.destroy()
})

test('the 64-bit variants: every entry point but rotg, rotmg, tpttr, trttp and the batched LU and QR calls, each matching the reference', (t) => {
  t.is(HAS_64.length, 180)
  for (const name of ['srotg', 'drotmg', 'ctpttr', 'ztrttp', 'sgetrfBatched', 'dgetrsBatched', 'cgetriBatched', 'zmatinvBatched', 'sgeqrfBatched', 'dgelsBatched']) {
    t.false(`${name}_64` in cublas, name)
  }
  const seeds = fc.sample(fc.integer({ min: 1, max: 2 ** 31 - 1 }), 3)
  const failures = HAS_64.filter((n) => !/rotg|rotmg/.test(n)).flatMap((name) => seeds.map((seed) => check(name, seed, '_64')).filter((why) => why !== undefined))
  t.deepEqual(failures.slice(0, 8), [], `${failures.length} cases differ`)
})

test('a 64-bit variant computes what its 32-bit entry point does, on the same inputs', (t) => {
  const call = (name: string, o: CublasOptions) => (cublas as unknown as Record<string, (o: CublasOptions) => unknown>)[name](o)
  for (const name of ['isamax', 'izamin', 'dasum', 'cdotc', 'zaxpy', 'srotm', 'sgemv', 'zgbmv', 'chpr2', 'dtbsv', 'cgemm', 'zgemmStridedBatched', 'dgemmBatched', 'strsmBatched', 'zherk', 'dgeam', 'cdgmm'] as CublasEntry[]) {
    for (const seed of [7, 1234]) {
      const [a, b] = [makeCase(name, seed), makeCase(name, seed)]
      const r32 = call(name, a.options)
      const r64 = call(`${name}_64`, b.options)
      const e = elemOf(name)
      if (name.startsWith('i')) t.is(r64, r32, name)
      else if (r32 !== undefined) t.true(close(asC(r64), asC(r32), e, 1 + Math.abs(asC(r32).re) + Math.abs(asC(r32).im)), `${name}: ${JSON.stringify(r64)} vs ${JSON.stringify(r32)}`)
      for (const k of Object.keys(a.arrays)) {
        const [x, y] = [a.arrays[k].read(), b.arrays[k].read()]
        const scale = Math.max(1, ...x.map((z) => Math.abs(z.re) + Math.abs(z.im)))
        t.true(
          x.every((v, i) => close(y[i], v, e, scale)),
          `${name} seed ${seed}: ${k} differs`,
        )
      }
    }
  }
})

test('a size past 2^31 − 1: the 32-bit entry point refuses it naming its _64 variant, which takes it', (t) => {
  const a = alloc(64)
  const x = alloc(64)
  const y = alloc(64)
  a.copyFromHost(Float32Array.from([1, 2, 3, 4]))
  x.copyFromHost(Float32Array.from([5, 0, 0, 0]))
  // One column of two rows, its leading dimension past 2^31: the matrix spans two elements.
  const big = 2 ** 31 + 5
  t.throws(() => cublas.sgemv({ m: 2, n: 1, alpha: 1, A: a, lda: big, x, beta: 0, y }), { instanceOf: RangeError, message: /lda is 2147483653.*call sgemv_64 \(cublasSgemv_v2_64/ })
  t.throws(() => cublas.isamax({ n: 1, x, incx: 2 ** 31 }), { instanceOf: RangeError, message: /isamax_64/ })
  cublas.sgemv_64({ m: 2, n: 1, alpha: 2, A: a, lda: big, x, beta: 0, y })
  const out = new Float32Array(2)
  y.copyToHost(out)
  t.deepEqual([...out], [10, 20])
  t.is(cublas.isamax_64({ n: 1, x, incx: 2 ** 31 }), 1)
  t.is(cublas.isamax_64({ n: 4, x: a, incx: 1 }), 4)
  // The 32-bit range's own limit still holds where there is no 64-bit variant.
  t.throws(() => cublas.sgetrfBatched({ n: 2 ** 31, A: [a], lda: 2 ** 31, P: x, info: y, batchSize: 1 }), { instanceOf: RangeError, message: /cuBLAS's 32-bit sizes/ })
  t.throws(() => cublas.dnrm2_64({ n: 2 ** 53, x }), { instanceOf: RangeError })
})

test('in device pointer mode a 64-bit amax writes a 64-bit index', (t) => {
  const x = alloc(16)
  x.copyFromHost(Float32Array.from([1, -7, 3, 2]))
  const r = alloc(8)
  r.copyFromHost(new BigInt64Array([-1n]))
  cublas.setPointerMode('device')
  try {
    cublas.isamax_64({ n: 4, x, result: r })
  } finally {
    cublas.setPointerMode('host')
  }
  const out = new BigInt64Array(1)
  r.copyToHost(out)
  t.is(out[0], 2n)
})

gpuTest('on the GPU the _64 symbols of cuBLAS 12 compute what the 32-bit ones do (dgemm, zgemv, icamax, sgemmStridedBatched)', (t) => {
  for (const name of ['dgemm', 'zgemv', 'icamax', 'sgemmStridedBatched'] as CublasEntry[]) {
    for (const seed of [3, 99, 4242]) {
      const [a, b] = [makeCase(name, seed), makeCase(name, seed)]
      const r32 = (cublas[name] as (o: CublasOptions) => unknown)(a.options)
      const r64 = (cublas as unknown as Record<string, (o: CublasOptions) => unknown>)[`${name}_64`](b.options)
      t.deepEqual(r64, r32, name)
      for (const k of Object.keys(a.arrays)) {
        const [x, y] = [a.arrays[k].read(), b.arrays[k].read()]
        const scale = Math.max(1, ...x.map((z) => Math.abs(z.re) + Math.abs(z.im)))
        t.true(x.every((v, i) => close(y[i], v, elemOf(name), scale)), `${name} seed ${seed}: ${k}`)
      }
    }
  }
})
