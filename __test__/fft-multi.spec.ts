import test from 'ava'
import { alloc, cufft, Device, FftPlan, getDefaultMemoryPool, Stream } from '..'
import { onGpu, runJson } from './helpers'
import { signal, relError } from './fft-reference'

// cuFFT plans over several devices (CuPy's Plan1d(..., devices=[…])). In-process tests need two
// devices (CUDA_NODE_SIM_DEVICES=2 or 4 on the simulator, as CI's multi-device passes run); the
// child-process ones run on 2 and 4 simulated devices in every pass.

const devices = Device.count()
const several: typeof test =
  devices >= 2 ? test : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs two or more devices: CUDA_NODE_SIM_DEVICES=2 on the simulator)`, ...rest)) as any)
const sim = (n: number, script: string) => runJson(script, { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: String(n) })

/** The single-device plan's result and the multi-device plan's, for the same input. */
function both(type: 'c2c' | 'z2z', n: number, batch: number, devs: number[], direction: 'forward' | 'inverse' = 'forward') {
  const T = type === 'z2z' ? Float64Array : Float32Array
  const x = T.from(signal(2 * n * batch, n + batch))
  const input = alloc(x.byteLength)
  input.copyFromHost(x)
  const [one, many] = [alloc(x.byteLength), alloc(x.byteLength)]
  new FftPlan({ shape: n, type, batch }).exec(input, one, { direction })
  using plan = new cufft.Plan1d(n, type, batch, { devices: devs })
  plan.exec(input, many, { direction })
  const [a, b] = [new T(2 * n * batch), new T(2 * n * batch)]
  one.copyToHost(a)
  many.copyToHost(b)
  return { single: a, multi: b, x }
}

several('a batch spread over two devices gives what one device gives', (t) => {
  for (const [type, batch] of [
    ['c2c', 4],
    ['z2z', 5],
  ] as const) {
    const { single, multi } = both(type, 96, batch, [0, 1])
    t.true(relError(multi, single) < (type === 'c2c' ? 1e-5 : 1e-12), `${type} x${batch}: ${relError(multi, single)}`)
  }
})

several('one transform spread over two devices comes back in natural order, both directions', (t) => {
  for (const direction of ['forward', 'inverse'] as const) {
    const { single, multi } = both('z2z', 256, 1, [0, 1], direction)
    t.true(relError(multi, single) < 1e-12, `${direction}: ${relError(multi, single)}`)
  }
})

several('a plan of devices [1, 0] runs from memory of device 1, and from host arrays', (t) => {
  const n = 64
  const x = Float32Array.from(signal(2 * n * 2, 1))
  const want = new Float32Array(x.length)
  {
    const input = alloc(x.byteLength)
    input.copyFromHost(x)
    const out = alloc(x.byteLength)
    new cufft.Plan1d(n, 'c2c', 2).exec(input, out)
    out.copyToHost(want)
  }
  using plan = new cufft.Plan1d(n, 'c2c', 2, { devices: [1, 0] })
  t.deepEqual(plan.devices, [1, 0])
  t.is(plan.workAreas.length, 2)
  const [input, output] = new Device(1).run(() => [alloc(x.byteLength), alloc(x.byteLength)])
  input.copyFromHost(x)
  plan.exec(input, output)
  const got = new Float32Array(x.length)
  output.copyToHost(got)
  t.true(relError(got, want) < 1e-5, 'from device 1')
  const host = new Float32Array(x.length)
  plan.exec(x, host)
  t.true(relError(host, want) < 1e-5, 'from the host')
  const inPlace = Float32Array.from(x)
  plan.exec(inPlace, inPlace)
  t.true(relError(inPlace, want) < 1e-5, 'in place on the host')
})

several('bad multi-device plans are typed errors', (t) => {
  t.throws(() => new cufft.Plan1d(64, 'c2c', 4, { devices: [0, 0] }), { code: 'CUFFT_INVALID_DEVICE', message: /twice/ })
  t.throws(() => new cufft.Plan1d(64, 'c2c', 4, { devices: [0] }), { code: 'CUFFT_INVALID_VALUE', message: /two or more/ })
  t.throws(() => new cufft.Plan1d(64, 'c2c', 4, { devices: [] }), { code: 'CUFFT_INVALID_VALUE' })
  t.throws(() => new cufft.Plan1d(64, 'c2c', 4, { devices: [0, devices] }), { code: 'CUDA_ERROR_INVALID_DEVICE' })
  t.throws(() => new cufft.Plan1d(64, 'r2c', 4, { devices: [0, 1] }), { code: 'CUFFT_INVALID_TYPE', message: /c2c or z2z/ })
  t.throws(() => new cufft.Plan1d(96, 'c2c', 1, { devices: [0, 1] }), { code: 'CUFFT_INVALID_SIZE', message: /power of 2/ })
  t.throws(() => new cufft.Plan1d(32, 'c2c', 1, { devices: [0, 1] }), { code: 'CUFFT_INVALID_SIZE', message: /at least 64/ })
  t.throws(() => new cufft.Plan1d(128, 'c2c', 1, { devices: [0, 1] }).exec(alloc(8), alloc(8)), { instanceOf: RangeError }, 'memory too small')
  t.throws(() => new FftPlan({ shape: [8, 8], type: 'c2c', devices: [0, 1] }), { instanceOf: RangeError, message: /one axis/ })
  t.throws(() => new FftPlan({ shape: 8, type: 'c2c', batch: 2, devices: [0, 1], input: { embed: [8] }, output: { embed: [8] } }), { instanceOf: TypeError })
  t.throws(() => new cufft.Plan1d(64, 'c2c', 2, { devices: 'all' as any }), { instanceOf: TypeError })
  t.throws(() => new cufft.Plan1d(64, 'c2c', 2, { gpus: [0, 1] } as any), { instanceOf: TypeError })
})

several('a run refuses memory of another device than its stream, a capture, host and device mixed', (t) => {
  using plan = new cufft.Plan1d(64, 'c2c', 2, { devices: [0, 1] })
  const a = alloc(64 * 2 * 8)
  const b = new Device(1).run(() => alloc(64 * 2 * 8))
  t.throws(() => plan.exec(a, b), { code: 'CUDA_ERROR_INVALID_VALUE', message: /device/ })
  t.throws(() => plan.exec(a, new Float32Array(256)), { instanceOf: TypeError })
  t.throws(() => plan.exec(new Float32Array(8), new Float32Array(8)), { instanceOf: RangeError })
  const s = new Stream({ nonBlocking: true })
  const e = t.throws(() => s.capture(() => plan.exec(a, a, { stream: s })))
  t.is((e as any)?.code, 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED', e?.message)
  s.destroy()
})

several('a destroyed plan is a typed error, and its buffers go back to the pools', (t) => {
  const pools = [0, 1].map((d) => new Device(d).run(() => getDefaultMemoryPool()))
  const before = pools.map((p) => p.usedBytes())
  const plan = new cufft.Plan1d(256, 'z2z', 1, { devices: [0, 1] })
  t.true(pools.every((p, k) => p.usedBytes() > before[k]), 'buffers and scratch on each device, from its pool')
  plan.destroy()
  plan.destroy()
  t.deepEqual(
    pools.map((p) => p.usedBytes()),
    before,
  )
  const m = alloc(256 * 16)
  t.throws(() => plan.exec(m, m), { code: 'CUDA_ERROR_INVALID_HANDLE' })
})

const compare = (devs: string, cases: string) => `
  function signal(n, seed) { let s = seed >>> 0; const out = new Float64Array(n); for (let i = 0; i < n; i++) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; out[i] = s / 2 ** 32 - 0.5 } return out }
  const out = []
  for (const [type, n, batch] of ${cases}) {
    const T = type === 'z2z' ? Float64Array : Float32Array
    const x = T.from(signal(2 * n * batch, n))
    const one = new T(x.length), many = new T(x.length)
    const input = cuda.alloc(x.byteLength); input.copyFromHost(x)
    const o = cuda.alloc(x.byteLength)
    new cuda.FftPlan({ shape: n, type, batch }).exec(input, o); o.copyToHost(one)
    const plan = new cuda.cufft.Plan1d(n, type, batch, { devices: ${devs} })
    plan.exec(x, many); plan.destroy()
    let num = 0, den = 0
    for (let i = 0; i < x.length; i++) { num += (many[i] - one[i]) ** 2; den += one[i] ** 2 }
    out.push(Math.sqrt(num / den))
  }
  const codes = []
  for (const f of [() => new cuda.cufft.Plan1d(1024, 'z2z', 1, { devices: [0, 1, 2] }), () => new cuda.cufft.Plan1d(64, 'z2z', 3, { devices: ${devs} })]) {
    try { f(); codes.push('none') } catch (e) { codes.push(e.code) }
  }
  console.log(JSON.stringify({ out, codes }))`

test('on 2 simulated devices: a batch and one transform give what one device gives', (t) => {
  const r = sim(2, compare('[0, 1]', "[['c2c', 128, 3], ['z2z', 64, 1], ['z2z', 512, 1]]"))
  for (const e of r.out) t.true(e < 1e-6, `relative error ${e}`)
  t.deepEqual(r.codes, ['CUDA_ERROR_INVALID_DEVICE', 'none'])
})

test('on 4 simulated devices: an uneven batch and one transform give what one device gives', (t) => {
  const r = sim(4, compare('4', "[['z2z', 40, 6], ['c2c', 1024, 1], ['z2z', 64, 4]]"))
  for (const e of r.out) t.true(e < 1e-6, `relative error ${e}`)
  t.deepEqual(r.codes, ['CUFFT_INVALID_VALUE', 'CUFFT_INVALID_SIZE'], 'three devices for one transform; fewer transforms than devices')
})

test('on one device, a plan over several is refused before any device is asked', (t) => {
  if (devices >= 2 && !onGpu) {
    t.pass('this pass has several devices: the tests above cover it')
    return
  }
  t.throws(() => new cufft.Plan1d(64, 'c2c', 2, { devices: [0] }), { code: 'CUFFT_INVALID_VALUE' })
})
