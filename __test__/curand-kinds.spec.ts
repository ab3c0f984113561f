// cuRAND's other generator kinds (MTGP32, MT19937, the Sobols of 64 bits and the scrambled
// ones), 64-bit words (`generateLongLong`) and orderings (`setGeneratorOrdering`).
import test from 'ava'
import { alloc, curand, CudaError, type MemoryPointer } from '..'
import { doubles, floats, gpuTest, onGpu, simTest } from './helpers'

function longs(p: MemoryPointer, n: number): BigUint64Array {
  const out = new BigUint64Array(n)
  p.copyToHost(out)
  return out
}

function mean(v: ArrayLike<number>): number {
  let s = 0
  for (let i = 0; i < v.length; i++) s += v[i]
  return s / v.length
}

test('hostGenerate gives Sobol64\'s first dimension as 64-bit words', (t) => {
  const w = curand.hostGenerate('sobol64', 4)
  t.true(w instanceof BigUint64Array)
  t.deepEqual([...(w as BigUint64Array)], [0n, 1n << 63n, 3n << 62n, 1n << 62n])
})

test('Sobol64 writes 64-bit words with generateLongLong, the ones hostGenerate gives, continuing where it stopped', (t) => {
  using g = curand.createGenerator('sobol64')
  t.is(g.kind, 'sobol64')
  const p = alloc(8 * 64)
  g.generateLongLong(p, 32)
  g.generateLongLong(p.offset(8 * 32), 32)
  t.deepEqual([...longs(p, 64)], [...(curand.hostGenerate('sobol64', 64) as BigUint64Array)])
})

test('Sobol64 uniforms are its words\' high bits, in float32 and float64', (t) => {
  using g = curand.createGenerator(203)
  t.is(g.kind, 'sobol64')
  const p = alloc(8 * 16)
  g.generateUniform(p, 16)
  t.deepEqual([...floats(p, 16)], [...(curand.hostGenerate('sobol64', 16, { distribution: 'uniform' }) as Float32Array)])
  g.setOffset(0)
  g.generateUniform(p, 16, { dtype: 'float64' })
  const d = doubles(p, 16)
  t.deepEqual([...d], [...(curand.hostGenerate('sobol64', 16, { distribution: 'uniform', dtype: 'float64' }) as Float64Array)])
  t.is(d[1], 0.5 + 2 ** -54)
})

test('32- and 64-bit words are each their own generators\' (CURAND_STATUS_TYPE_ERROR)', (t) => {
  using s64 = curand.createGenerator('sobol64')
  using ph = curand.createGenerator('philox')
  const p = alloc(64)
  t.like(t.throws(() => s64.generate(p, 4), { instanceOf: CudaError }), { code: 'CURAND_STATUS_TYPE_ERROR' })
  const e = t.throws(() => ph.generateLongLong(p, 4), { instanceOf: CudaError })
  t.is(e!.code, 'CURAND_STATUS_TYPE_ERROR')
  t.regex(e!.message, /Sobol64/)
})

test('generateLongLong wants its output aligned to 8 bytes and inside the allocation', (t) => {
  using g = curand.createGenerator('sobol64')
  const p = alloc(64)
  t.throws(() => g.generateLongLong(p.offset(4), 2), { instanceOf: RangeError })
  t.throws(() => g.generateLongLong(p.offset(p.size - 8), 2), { instanceOf: RangeError })
})

test('Philox\'s default, best and legacy orderings write cuRAND\'s host layout', (t) => {
  const want = curand.hostGenerate('philox', 64, { seed: 77 })
  for (const o of ['pseudoDefault', 'pseudoBest', 'pseudoLegacy', 101] as const) {
    using g = curand.createGenerator('philox').setSeed(77).setOrdering(o)
    const p = alloc(4 * 64)
    g.generate(p, 64)
    const got = new Uint32Array(64)
    p.copyToHost(got)
    t.deepEqual([...got], [...want], String(o))
  }
})

test('Philox\'s dynamic ordering writes uniforms of the right distribution', (t) => {
  using g = curand.createGenerator('philox').setSeed(5).setOrdering('pseudoDynamic')
  const n = 1 << 16
  const p = alloc(4 * n)
  g.generateUniform(p, n)
  const v = floats(p, n)
  t.true(Math.abs(mean(v) - 0.5) < 0.01)
  t.true(v.every((x) => x > 0 && x <= 1))
})

simTest('on the simulator the dynamic ordering is the default layout (the GPU\'s own differs by model)', (t) => {
  using g = curand.createGenerator('philox').setSeed(5).setOrdering('pseudoDynamic')
  const p = alloc(4 * 16)
  g.generate(p, 16)
  const got = new Uint32Array(16)
  p.copyToHost(got)
  t.deepEqual([...got], [...(curand.hostGenerate('philox', 16, { seed: 5 }) as Uint32Array)])
})

test('an ordering of the other class of generator, or none of cuRAND\'s, is refused', (t) => {
  using ph = curand.createGenerator('philox')
  using sob = curand.createGenerator('sobol32')
  t.like(t.throws(() => ph.setOrdering('quasiDefault'), { instanceOf: CudaError }), { code: 'CURAND_STATUS_OUT_OF_RANGE' })
  t.like(t.throws(() => sob.setOrdering('pseudoBest'), { instanceOf: CudaError }), { code: 'CURAND_STATUS_OUT_OF_RANGE' })
  t.like(t.throws(() => ph.setOrdering(999), { instanceOf: CudaError }), { code: 'CURAND_STATUS_OUT_OF_RANGE' })
  t.throws(() => ph.setOrdering('fastest' as any), { instanceOf: TypeError })
  t.throws(() => ph.setOrdering(-1), { instanceOf: RangeError })
  sob.setOrdering('quasiDefault')
  t.pass()
})

test('the new kinds are named by cuRAND\'s numbers too', (t) => {
  for (const [n, name] of [[141, 'mtgp32'], [142, 'mt19937'], [202, 'scrambled_sobol32'], [203, 'sobol64'], [204, 'scrambled_sobol64']] as const) {
    try {
      using g = curand.createGenerator(n)
      t.is(g.kind, name)
    } catch (e) {
      t.false(onGpu, String(e))
      t.is((e as CudaError).code, 'CURAND_STATUS_TYPE_ERROR')
      t.regex((e as Error).message, new RegExp(name))
    }
  }
})

simTest('the simulator refuses the kinds it does not simulate, naming what it does', (t) => {
  for (const k of ['mtgp32', 'mt19937', 'scrambled_sobol32', 'scrambled_sobol64'] as const) {
    const e = t.throws(() => curand.createGenerator(k), { instanceOf: CudaError })
    t.is(e!.code, 'CURAND_STATUS_TYPE_ERROR')
    t.regex(e!.message, /not simulate.*'philox'/)
    t.like(t.throws(() => curand.hostGenerate(k, 4), { instanceOf: CudaError }), { code: 'CURAND_STATUS_TYPE_ERROR' })
  }
})

simTest('the simulator refuses the seeded ordering (XORWOW\'s), saying so', (t) => {
  using g = curand.createGenerator('philox')
  const e = t.throws(() => g.setOrdering('pseudoSeeded'), { instanceOf: CudaError })
  t.is(e!.code, 'CURAND_STATUS_TYPE_ERROR')
  t.regex(e!.message, /seeded/)
})

gpuTest('MTGP32, MT19937 and the scrambled Sobols write uniforms on (0, 1]', (t) => {
  for (const k of ['mtgp32', 'mt19937', 'scrambled_sobol32', 'scrambled_sobol64'] as const) {
    using g = curand.createGenerator(k)
    const n = 1 << 14
    const p = alloc(4 * n)
    g.generateUniform(p, n)
    const v = floats(p, n)
    t.true(Math.abs(mean(v) - 0.5) < 0.02, `${k}: mean ${mean(v)}`)
    t.true(v.every((x) => x > 0 && x <= 1), k)
  }
})

gpuTest('scrambled Sobol64 writes 64-bit words; XORWOW takes the seeded ordering', (t) => {
  using s = curand.createGenerator('scrambled_sobol64')
  const p = alloc(8 * 16)
  s.generateLongLong(p, 16)
  t.true(new Set(longs(p, 16)).size > 1)
  using x = curand.createGenerator('xorwow').setOrdering('pseudoSeeded')
  x.generateUniform(p, 16)
  t.true(floats(p, 16).every((v) => v > 0 && v <= 1))
})
