// The simulator checks what the GPU checks (#32.5): a kernel name its module does not declare is
// CUDA_ERROR_NOT_FOUND at the first use on both backends; a scalar of the wrong kind for the
// declared type is a TypeError before the launch; a wrong endCapture on a stream forked into a
// capture invalidates the capture, as the driver does (CuPy's test_stream_capture_failure2); and
// RawModule.getLoweredName works on the simulator wherever NVRTC is found.
import test from 'ava'
import { alloc, CudaError, f32, f64, i32, Event, RawKernel, RawModule, Stream } from '..'
import { nvrtcTest, onGpu } from './helpers'

const SAXPY = `extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }`
const simulate = () => {}

nvrtcTest('a kernel name the source does not declare is CUDA_ERROR_NOT_FOUND at the first launch', (t) => {
  const k = new RawKernel(SAXPY, 'saxpi', { simulate })
  const [x, y] = [alloc(64), alloc(64)]
  const e = t.throws(() => k.launch(1, 16, [f32(2), x, y, i32(16)]), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_NOT_FOUND')
  t.regex(e!.message, /saxpi/)
  t.notThrows(() => new RawKernel(SAXPY, 'saxpy', { simulate }).launch(1, 16, [f32(2), x, y, i32(16)]))
})

test('a scalar of the wrong kind for the declared type is a TypeError, though of the same width', (t) => {
  const k = new RawKernel(SAXPY, 'saxpy', { simulate })
  const [x, y] = [alloc(64), alloc(64)]
  t.throws(() => k.launch(1, 16, [f32(2), x, y, f32(16)]), { instanceOf: TypeError, message: /argument 3 of saxpy is `int n`, an integer type, but a float32 was given/ })
  t.throws(() => k.launch(1, 16, [i32(2), x, y, i32(16)]), { instanceOf: TypeError, message: /argument 0 of saxpy is `float a`, a floating-point type, but a int32 was given/ })
  const d = new RawKernel(`extern "C" __global__ void d(double v, long long n) {}`, 'd', { simulate })
  t.throws(() => d.launch(1, 1, [f64(1), f64(2)]), { instanceOf: TypeError, message: /an integer type/ })
})

test('ending a capture on a stream forked into it invalidates the capture (CuPy test_stream_capture_failure2)', (t) => {
  const s1 = new Stream({ nonBlocking: true }), s2 = new Stream({ nonBlocking: true })
  const e2 = new Event()
  const a = alloc(512)
  s1.beginCapture()
  // The simulator says the stream is not capturing; the driver answers CUDA_ERROR_ILLEGAL_STATE.
  const idle = t.throws(() => s2.endCapture(), { instanceOf: CudaError })
  t.regex(`${idle!.code} ${idle!.message}`, /not capturing|ILLEGAL_STATE/i)
  e2.record(s1)
  s2.waitEvent(e2)
  a.memsetAsync(3, 512, s2)
  const unmatched = t.throws(() => s2.endCapture(), { instanceOf: CudaError })
  t.is(unmatched!.code, 'CUDA_ERROR_STREAM_CAPTURE_UNMATCHED')
  const invalidated = t.throws(() => s1.endCapture(), { instanceOf: CudaError })
  t.is(invalidated!.code, 'CUDA_ERROR_STREAM_CAPTURE_INVALIDATED')
  t.false(s1.isCapturing())
  t.notThrows(() => s1.synchronize())
})

nvrtcTest('RawModule.getLoweredName works wherever NVRTC is found, the simulator included', (t) => {
  const tmpl = `template<typename T> __global__ void fill_t(T* p, T v, int n) { int i = threadIdx.x; if (i < n) p[i] = v; }`
  const m = new RawModule({ code: tmpl, nameExpressions: ['fill_t<double>'] })
  t.regex(m.getLoweredName('fill_t<double>'), /^_Z\d+fill_tIdEvPT_S0_i$/)
  t.log(onGpu ? 'GPU' : 'simulator')
})
