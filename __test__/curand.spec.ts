import test from 'ava'
import { alloc, curand, CudaError, mallocPlain, Stream, type MemoryPointer } from '..'
import { doubles, floats, gpuTest, nativeTest, root, runJson, simTest } from './helpers'

function words(p: MemoryPointer, n: number): Uint32Array {
  const out = new Uint32Array(n)
  p.copyToHost(out)
  return out
}

/** cuRAND's float uniform of a word: x · 2^-32 + 2^-33, in float32 arithmetic. */
function uniform32(x: number): number {
  return Math.fround(Math.fround(x) * 2 ** -32 + 2 ** -33)
}

/** cuRAND's double uniform of two words (`_curand_uniform_double_hq`). */
function uniform64(x: number, y: number): number {
  const z = BigInt(x) ^ (BigInt(y) << 21n)
  return Number(z) * 2 ** -53 + 2 ** -54
}

function stats(v: ArrayLike<number>): { mean: number; std: number } {
  let s = 0
  for (let i = 0; i < v.length; i++) s += v[i]
  const mean = s / v.length
  let q = 0
  for (let i = 0; i < v.length; i++) q += (v[i] - mean) ** 2
  return { mean, std: Math.sqrt(q / v.length) }
}

const SEED = 1234n

/** What cuRAND's host-API Philox writes: `count` words from `offset` (hostGenerate). */
function host(seed: bigint | number, count: number, offset = 0): Uint32Array {
  return curand.hostGenerate('philox', count, { seed, offset }) as Uint32Array
}

test('Philox writes cuRAND Philox4x32-10 words for the same seed (hostGenerate), then continues where it stopped', (t) => {
  using g = curand.createGenerator('philox')
  g.setSeed(SEED)
  const p = alloc(4 * 64)
  g.generate(p, 32)
  g.generate(p.offset(4 * 32), 32)
  const got = words(p, 64)
  const want = host(SEED, 64)
  t.deepEqual(Array.from(got.subarray(0, 32)), Array.from(want.subarray(0, 32)), 'the first call is the sequence from 0')
  t.deepEqual(Array.from(got.subarray(32)), Array.from(want.subarray(32)), 'the second call continues it')
  p.free()
})

test('Philox float uniforms are the same words scaled as cuRAND scales them, in (0, 1]', (t) => {
  using g = curand.createGenerator('philox')
  g.setSeed(SEED)
  const p = alloc(4 * 1024)
  g.generateUniform(p, 1024)
  const got = floats(p, 1024)
  const w = host(SEED, 1024)
  for (let i = 0; i < 1024; i++) {
    if (got[i] !== uniform32(w[i])) return t.fail(`element ${i}: ${got[i]} where ${uniform32(w[i])} was expected`)
    if (!(got[i] > 0 && got[i] <= 1)) return t.fail(`element ${i} (${got[i]}) is outside (0, 1]`)
  }
  t.pass()
  p.free()
})

test('Philox double uniforms take two words each, four doubles from two blocks of a step\'s subsequence', (t) => {
  using g = curand.createGenerator('philox')
  g.setSeed(SEED)
  const p = alloc(8 * 256)
  g.generateUniform(p, 256, { dtype: 'float64' })
  const got = doubles(p, 256)
  t.deepEqual(Array.from(got), Array.from(curand.hostGenerate('philox', 256, { seed: SEED, distribution: 'uniform', dtype: 'float64' })))
  for (let k = 0; k < 256; k++) {
    const block = curand.philoxWords(SEED, 4, { subsequence: k >> 2, offset: 4 * ((k & 3) >> 1) })
    const want = uniform64(block[2 * (k & 1)], block[2 * (k & 1) + 1])
    if (got[k] !== want) return t.fail(`element ${k}: ${got[k]} where ${want} was expected`)
  }
  p.free()
})

test('the host layout: 65536 subsequences, four words each, then each one\'s next block', (t) => {
  using g = curand.createGenerator('philox')
  g.setSeed(SEED)
  const n = 4 * 65536 + 64
  const p = alloc(4 * n)
  g.generate(p, n)
  const got = words(p, n)
  p.free()
  const want = host(SEED, n)
  const first = got.findIndex((x, i) => x !== want[i])
  t.is(first, -1, `the first word that differs is word ${first}`)
  t.deepEqual(Array.from(got.subarray(4, 8)), Array.from(curand.philoxWords(SEED, 4, { subsequence: 1 })), 'words 4-7: subsequence 1')
  t.deepEqual(Array.from(got.subarray(4 * 65536, 4 * 65536 + 4)), Array.from(curand.philoxWords(SEED, 4, { offset: 4 })), 'step 65536: subsequence 0, second block')
})

test('a call moves the offset by its count: the next call goes on mid-step, as cuRAND does', (t) => {
  using g = curand.createGenerator('philox')
  g.setSeed(SEED)
  const p = alloc(4 * 16)
  g.generate(p, 6)
  g.generate(p.offset(4 * 6), 4)
  const got = words(p, 10)
  const want = host(SEED, 10)
  t.deepEqual(Array.from(got.subarray(0, 6)), Array.from(want.subarray(0, 6)))
  t.deepEqual(Array.from(got.subarray(6, 10)), Array.from(want.subarray(6, 10)), 'the second call starts at word 6 (an H200 read it so), not rounded up to 8')
  p.free()
})

test('setOffset starts the next call that many words in', (t) => {
  using g = curand.createGenerator('philox')
  g.setSeed(7).setOffset(8n)
  const p = alloc(4 * 16)
  g.generate(p, 16)
  t.deepEqual(Array.from(words(p, 16)), Array.from(host(7, 24).subarray(8)))
  p.free()
})

test('normals (Box-Muller, in pairs) match the host Box-Muller of the same words and have their mean and stddev', (t) => {
  using g = curand.createGenerator('philox')
  g.setSeed(SEED)
  const n = 1 << 16
  const p = alloc(4 * n)
  g.generateNormal(p, n, 2, 3)
  const got = floats(p, n)
  const w = host(SEED, 64)
  for (let i = 0; i < 32; i++) {
    const u = uniform32(w[2 * i])
    const v = Math.fround(w[2 * i + 1]) * ((2 * Math.PI) / 2 ** 32) + Math.PI / 2 ** 32
    const s = Math.sqrt(-2 * Math.log(u))
    const want = [2 + 3 * Math.sin(v) * s, 2 + 3 * Math.cos(v) * s]
    for (const j of [0, 1]) {
      if (Math.abs(got[2 * i + j] - want[j]) > 1e-4 * Math.max(1, Math.abs(want[j]))) {
        return t.fail(`normal ${2 * i + j}: ${got[2 * i + j]} where ${want[j]} was expected`)
      }
    }
  }
  const model = curand.hostGenerate('philox', 4096, { seed: SEED, distribution: 'normal', mean: 2, stddev: 3 })
  const worst = Math.max(...Array.from(model, (x, i) => Math.abs(x - got[i])))
  t.true(worst < 1e-3, `hostGenerate's normals differ by up to ${worst}`)
  const { mean, std } = stats(got)
  t.true(Math.abs(mean - 2) < 0.05, `mean ${mean}`)
  t.true(Math.abs(std - 3) < 0.05, `stddev ${std}`)
  p.free()
})

test('float64 normals, log-normals and Poisson counts have their distributions', (t) => {
  using g = curand.createGenerator('philox')
  g.setSeed(99)
  const n = 1 << 15
  const p = alloc(8 * n)
  g.generateNormal(p, n, -1, 0.5, { dtype: 'float64' })
  const normal = stats(doubles(p, n))
  t.true(Math.abs(normal.mean + 1) < 0.02 && Math.abs(normal.std - 0.5) < 0.02, `normal ${JSON.stringify(normal)}`)
  g.generateLogNormal(p, n, 0.25, 0.5)
  const ln = floats(p, n)
  t.true(ln.every((x) => x > 0))
  const logs = stats(Array.from(ln, Math.log))
  t.true(Math.abs(logs.mean - 0.25) < 0.02 && Math.abs(logs.std - 0.5) < 0.02, `log-normal ${JSON.stringify(logs)}`)
  for (const lambda of [3, 200]) {
    g.generatePoisson(p, n, lambda)
    const k = stats(words(p, n))
    t.true(Math.abs(k.mean - lambda) < 0.05 * lambda, `Poisson(${lambda}) mean ${k.mean}`)
    t.true(Math.abs(k.std - Math.sqrt(lambda)) < 0.1 * Math.sqrt(lambda), `Poisson(${lambda}) stddev ${k.std}`)
  }
  p.free()
})

test('Sobol32 in one dimension is the van der Corput sequence in Gray-code order', (t) => {
  using g = curand.createGenerator('sobol32')
  const p = alloc(4 * 4)
  g.generateUniform(p, 4)
  t.deepEqual(Array.from(floats(p, 4)), [0, 0.5, 0.75, 0.25].map((x) => Math.fround(x + 2 ** -33)))
  t.is(g.kind, 'sobol32')
  p.free()
})

test('a generator runs on the current stream at each call, or on the one setStream gave', (t) => {
  using g = curand.createGenerator(161)
  t.is(g.kind, 'philox')
  g.setSeed(SEED)
  const p = alloc(4 * 8)
  const s = new Stream()
  s.run(() => g.generate(p, 4))
  s.synchronize()
  g.setStream(s)
  t.is(g.stream, s)
  g.generate(p.offset(16), 4)
  s.synchronize()
  t.deepEqual(Array.from(words(p, 8)), Array.from(host(SEED, 8)))
  g.setStream(null)
  t.is(g.stream, undefined)
  p.free()
  s.destroy()
})

test('bad input is a typed error, and the generator still works after it', (t) => {
  const g = curand.createGenerator('philox')
  const p = mallocPlain(4 * 8)
  t.throws(() => curand.createGenerator('mersenne' as any), { instanceOf: TypeError, message: /unknown generator kind 'mersenne'/ })
  t.throws(() => curand.createGenerator(12345), { instanceOf: TypeError, message: /unknown generator kind '12345'/ })
  t.throws(() => g.generate(p, 0), { instanceOf: RangeError, message: /count must be at least 1/ })
  t.throws(() => g.generateNormal(p, 3, 0, 1), { instanceOf: CudaError, message: /CURAND_STATUS_LENGTH_NOT_MULTIPLE|must be even/ })
  t.is((t.throws(() => g.generateNormal(p, 3, 0, 1)) as CudaError).code, 'CURAND_STATUS_LENGTH_NOT_MULTIPLE')
  t.throws(() => g.generate(p, 9), { instanceOf: RangeError, message: /runs past the end/ })
  t.throws(() => g.generateUniform(p, 5, { dtype: 'float64' }), { instanceOf: RangeError, message: /runs past the end/ })
  t.throws(() => g.generateUniform(p.offset(2), 1), { instanceOf: RangeError, message: /aligned to 4 bytes/ })
  t.throws(() => g.generateNormal(p.offset(4), 2, 0, 1), { instanceOf: RangeError, message: /aligned to 8 bytes/ })
  t.throws(() => g.generateUniform(p, 1, { dtype: 'int8' as any }), { instanceOf: TypeError })
  t.throws(() => g.generateUniform(p, 1, { dtyp: 'float32' } as any), { instanceOf: TypeError })
  for (const lambda of [0, -1, Number.NaN, Infinity]) {
    t.is((t.throws(() => g.generatePoisson(p, 1, lambda)) as CudaError).code, 'CURAND_STATUS_OUT_OF_RANGE', `lambda ${lambda}`)
  }
  t.throws(() => g.generateNormal(p, 2, 0, -1), { instanceOf: RangeError, message: /stddev/ })
  t.throws(() => g.generate({} as any, 1), { instanceOf: TypeError, message: /MemoryPointer/ })
  t.throws(() => g.setSeed(-1), { instanceOf: RangeError })
  t.throws(() => g.setSeed(1n << 64n), { instanceOf: RangeError })
  t.throws(() => g.setSeed('1' as any), { instanceOf: TypeError })
  t.is((t.throws(() => g.setDimensions(2)) as CudaError).code, 'CURAND_STATUS_TYPE_ERROR')
  t.throws(() => g.setStream({} as any), { instanceOf: TypeError })
  const q = curand.createGenerator('sobol32')
  t.is((t.throws(() => q.setSeed(1)) as CudaError).code, 'CURAND_STATUS_TYPE_ERROR')
  t.is((t.throws(() => q.setDimensions(0)) as CudaError).code, 'CURAND_STATUS_OUT_OF_RANGE')
  t.is((t.throws(() => q.setDimensions(20001)) as CudaError).code, 'CURAND_STATUS_OUT_OF_RANGE')
  q.destroy()
  // Still fine after all that.
  g.setSeed(SEED)
  g.generate(p, 8)
  t.deepEqual(Array.from(words(p, 8)), Array.from(host(SEED, 8)))
  const freed = alloc(64)
  freed.free()
  t.throws(() => g.generate(freed, 4), { instanceOf: CudaError, message: /freed/ })
  g.destroy()
  g.destroy()
  t.throws(() => g.generate(p, 4), { instanceOf: CudaError, message: /generator was destroyed/ })
  t.throws(() => g.setSeed(1), { instanceOf: CudaError, message: /generator was destroyed/ })
  p.free()
})

test('a generator made with using is destroyed at the end of its block', (t) => {
  let kept: ReturnType<typeof curand.createGenerator>
  {
    using g = curand.createGenerator('philox')
    kept = g
    t.is(typeof g.handle, 'bigint')
    t.is(g.deviceId, 0)
  }
  t.throws(() => kept.handle, { instanceOf: CudaError, message: /generator was destroyed/ })
})

nativeTest('a child process with --expose-gc')('generators nobody holds are released by the GC, destroyed ones at once', (t) => {
  const r = runJson(
    `const { native } = require(${JSON.stringify(root + '/lib/native.js')});
     (async () => {
       const live0 = native.randLive();
       const kept = [];
       for (let i = 0; i < 50; i++) kept.push(cuda.curand.createGenerator('philox'));
       const made = native.randLive() - live0;
       kept.forEach((g) => g.destroy());
       const afterDestroy = native.randLive() - live0;
       for (let i = 0; i < 200; i++) cuda.curand.createGenerator('philox').setSeed(i);
       for (let i = 0; i < 6; i++) { global.gc(); await new Promise((r) => setTimeout(r, 5)); }
       console.log(JSON.stringify({ made, afterDestroy, afterGc: native.randLive() - live0 }));
     })().catch((e) => { console.error(e); process.exit(1) });`,
    {},
    ['--expose-gc'],
  )
  t.deepEqual(r, { made: 50, afterDestroy: 0, afterGc: 0 })
})

test('philoxWords and hostGenerate check their arguments', (t) => {
  t.throws(() => curand.philoxWords(1, (1 << 24) + 1), { instanceOf: RangeError })
  t.throws(() => curand.philoxWords(1, 4, { offst: 1 } as any), { instanceOf: TypeError })
  t.is(curand.philoxWords(1, 0).length, 0)
  t.is(curand.philoxWords(0xffffffffffffffffn, 4, { subsequence: 0xffffffffffffffffn, offset: 0xffffffffffffffffn }).length, 4)
  t.throws(() => curand.hostGenerate('philox', (1 << 24) + 1), { instanceOf: RangeError })
  t.throws(() => curand.hostGenerate('philox', 0), { instanceOf: RangeError })
  t.throws(() => curand.hostGenerate('philox', 3, { distribution: 'normal' }), { instanceOf: CudaError, message: /must be even/ })
  t.throws(() => curand.hostGenerate('philox', 4, { distribution: 'gamma' as any }), { instanceOf: TypeError })
  t.throws(() => curand.hostGenerate('philox', 4, { distribution: 'poisson' }), { instanceOf: TypeError, message: /lambda/ })
  t.is((t.throws(() => curand.hostGenerate('xorwow', 4)) as CudaError).code, 'CURAND_STATUS_TYPE_ERROR')
  t.true(curand.hostGenerate('philox', 4, { distribution: 'poisson', lambda: 2 }) instanceof Uint32Array)
  t.true(curand.hostGenerate('sobol32', 4, { distribution: 'uniform', dtype: 'float64' }) instanceof Float64Array)
})

simTest('the simulator says which generators it does not simulate', (t) => {
  for (const kind of ['xorwow', 'mrg32k3a'] as const) {
    const e = t.throws(() => curand.createGenerator(kind)) as CudaError
    t.is(e.code, 'CURAND_STATUS_TYPE_ERROR')
    t.regex(e.message, new RegExp(`does not simulate cuRAND's ${kind}`))
  }
  using q = curand.createGenerator('sobol32')
  t.is((t.throws(() => q.setDimensions(2)) as CudaError).code, 'CURAND_STATUS_TYPE_ERROR')
  const p = alloc(16)
  t.is((t.throws(() => q.generateNormal(p, 2, 0, 1)) as CudaError).code, 'CURAND_STATUS_TYPE_ERROR')
  t.is((t.throws(() => q.generatePoisson(p, 2, 1)) as CudaError).code, 'CURAND_STATUS_TYPE_ERROR')
  p.free()
})

gpuTest('on the GPU, XORWOW and MRG32k3a make uniforms and normals of their distributions', (t) => {
  const n = 1 << 16
  const p = alloc(4 * n)
  for (const kind of ['xorwow', 'mrg32k3a'] as const) {
    using g = curand.createGenerator(kind)
    g.setSeed(5)
    g.generateUniform(p, n)
    const u = stats(floats(p, n))
    t.true(Math.abs(u.mean - 0.5) < 0.01, `${kind} uniform mean ${u.mean}`)
    g.generateNormal(p, n, 0, 1)
    const z = stats(floats(p, n))
    t.true(Math.abs(z.mean) < 0.02 && Math.abs(z.std - 1) < 0.02, `${kind} normal ${JSON.stringify(z)}`)
  }
  p.free()
})

gpuTest('on the GPU, a 3-dimensional Sobol32 takes whole points only', (t) => {
  using q = curand.createGenerator('sobol32')
  q.setDimensions(3)
  const p = alloc(4 * 12)
  t.is((t.throws(() => q.generateUniform(p, 10)) as CudaError).code, 'CURAND_STATUS_LENGTH_NOT_MULTIPLE')
  q.generateUniform(p, 12)
  t.true(floats(p, 12).every((x) => x > 0 && x <= 1))
  p.free()
})

gpuTest('on the GPU, float64 uniforms and normals past the first 65536 steps follow the host model (its guessed part: a step\'s counters)', (t) => {
  using g = curand.createGenerator('philox')
  g.setSeed(SEED)
  const n = 4 * 65536 + 64
  const p = alloc(8 * n)
  g.generateUniform(p, n, { dtype: 'float64' })
  const got = doubles(p, n)
  const want = curand.hostGenerate('philox', n, { seed: SEED, distribution: 'uniform', dtype: 'float64' })
  const first = got.findIndex((x, i) => x !== want[i])
  t.is(first, -1, `uniform double ${first} differs: ${got[first]} where the model has ${want[first]}`)
  g.setOffset(0).generateNormal(p, n, 0, 1, { dtype: 'float64' })
  const z = doubles(p, n)
  const zw = curand.hostGenerate('philox', n, { seed: SEED, distribution: 'normal', dtype: 'float64' })
  const bad = z.findIndex((x, i) => Math.abs(x - zw[i]) > 1e-9 * Math.max(1, Math.abs(zw[i])))
  t.is(bad, -1, `normal double ${bad} differs: ${z[bad]} where the model has ${zw[bad]}`)
  p.free()
})
