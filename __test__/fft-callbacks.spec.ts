import test from 'ava'
import { alloc, cufft, FftPlan, XtPlanNd } from '..'
import { gpuTest, simTest } from './helpers'
import { signal, relError } from './fft-reference'

// cuFFT's LTO callbacks (CuPy's set_cufft_callbacks, the CUDA 12.8+ way): CUDA C compiled by
// NVRTC with -dlto, set with cufftXtSetJITCallback before the plan is made. The simulator runs no
// CUDA C: it refuses callbacks with CUFFT_NOT_SUPPORTED, saying why.

const LOAD_TIMES_2 = `
__device__ float2 times_two(void *dataIn, unsigned long long offset, void *callerInfo, void *sharedPtr) {
  float2 v = ((float2 *)dataIn)[offset];
  float2 r;
  r.x = 2.0f * v.x;
  r.y = 2.0f * v.y;
  return r;
}`

const STORE_SCALED = `
__device__ void scaled(void *dataOut, unsigned long long offset, double2 v, void *callerInfo, void *sharedPtr) {
  double s = *(double *)callerInfo;
  double2 r;
  r.x = s * v.x;
  r.y = s * v.y;
  ((double2 *)dataOut)[offset] = r;
}`

simTest('the simulator refuses CUDA C callbacks with CUFFT_NOT_SUPPORTED, saying why', (t) => {
  t.throws(() => new FftPlan({ shape: 64, type: 'c2c', callbacks: { load: { name: 'times_two', source: LOAD_TIMES_2 } } }), {
    code: 'CUFFT_NOT_SUPPORTED',
    message: /simulator runs no CUDA C/,
  })
})

test('callbacks are checked before anything is compiled', (t) => {
  const plan = (callbacks: any, more: any = {}) => () => new FftPlan({ shape: 64, type: 'c2c', callbacks, ...more })
  t.throws(plan({ load: { name: 'not a name', source: LOAD_TIMES_2 } }), { instanceOf: TypeError, message: /__device__ function's name/ })
  t.throws(plan({ load: { name: 'times_two', source: '' } }), { instanceOf: TypeError })
  t.throws(plan({ load: { name: 'times_two' } }), { instanceOf: TypeError })
  t.throws(plan({ load: { name: 'times_two', source: LOAD_TIMES_2, shared: 4 } }), { instanceOf: TypeError }, 'an unknown key')
  t.throws(plan({ both: {} }), { instanceOf: TypeError })
  t.throws(plan({ load: { name: 'times_two', source: LOAD_TIMES_2, callerInfo: 8 } }), { instanceOf: TypeError })
  t.throws(plan({ load: { name: 'times_two', source: LOAD_TIMES_2 } }, { devices: [0, 1] }), { instanceOf: TypeError, message: /no layouts or callbacks/ })
  t.throws(
    () =>
      new XtPlanNd({
        shape: 64,
        inputType: 'CUDA_C_16F',
        outputType: 'CUDA_C_16F',
        executionType: 'CUDA_C_16F',
        callbacks: { load: { name: 'times_two', source: LOAD_TIMES_2 } },
      }),
    { code: 'CUFFT_NOT_SUPPORTED', message: /single and double/ },
  )
})

gpuTest('a load callback changes what the plan reads: twice the input gives twice the transform', (t) => {
  const [n, batch] = [128, 2]
  const x = Float32Array.from(signal(2 * n * batch, 3))
  const input = alloc(x.byteLength)
  input.copyFromHost(x)
  const [plain, called] = [alloc(x.byteLength), alloc(x.byteLength)]
  new cufft.Plan1d(n, 'c2c', batch).exec(input, plain)
  using plan = new FftPlan({ shape: n, type: 'c2c', batch, callbacks: { load: { name: 'times_two', source: LOAD_TIMES_2 } } })
  plan.exec(input, called)
  const [a, b] = [new Float32Array(x.length), new Float32Array(x.length)]
  plain.copyToHost(a)
  called.copyToHost(b)
  t.true(relError(b, a.map((v) => 2 * v)) < 1e-5)
  const again = new Float32Array(x.length)
  input.copyToHost(again)
  t.deepEqual(again, x, 'the input itself is not changed')
})

gpuTest('a store callback reads its callerInfo: the output scaled by the number there', (t) => {
  const n = 256
  const x = Float64Array.from(signal(2 * n, 8))
  const input = alloc(x.byteLength)
  input.copyFromHost(x)
  const info = alloc(8)
  info.copyFromHost(new Float64Array([-0.5]))
  const [plain, called] = [alloc(x.byteLength), alloc(x.byteLength)]
  new cufft.Plan1d(n, 'z2z').exec(input, plain)
  using plan = new FftPlan({ shape: n, type: 'z2z', callbacks: { store: { name: 'scaled', source: STORE_SCALED, callerInfo: info } } })
  plan.exec(input, called)
  const [a, b] = [new Float64Array(x.length), new Float64Array(x.length)]
  plain.copyToHost(a)
  called.copyToHost(b)
  t.true(relError(b, a.map((v) => -0.5 * v)) < 1e-12)
})

gpuTest('a callback that does not compile is NVRTC_ERROR_COMPILATION with the log', (t) => {
  const e = t.throws(() => new FftPlan({ shape: 64, type: 'c2c', callbacks: { load: { name: 'broken', source: '__device__ float2 broken( {' } } }))
  t.is((e as any)?.code, 'NVRTC_ERROR_COMPILATION', e?.message)
})
