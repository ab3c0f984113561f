// Issue 31, item 5: what differs between the GPU and the simulator is decided in core; these pin
// the simulator's answers and errors, which now come from the native calls.
import test from 'ava'
import { alloc, CudaError, Device, LaunchConfig, MemoryPool, RawKernel, RawModule, Stream } from '..'
import { simOnly } from './helpers'

const NOOP = `extern "C" __global__ void noop(int* p) {}`
const simTest = simOnly('simulator only: the GPU answers from the driver')

simTest('a simulated kernel has the device limits as its two attribute limits, no preference, and zeros', (t) => {
  const a = new RawKernel(NOOP, 'noop', { simulate: () => {} }).attributes
  const d = new Device().attributes
  t.is(a.maxThreadsPerBlock, d.maxThreadsPerBlock)
  t.is(a.maxDynamicSharedSizeBytes, d.maxSharedMemoryPerBlock)
  t.is(a.preferredSharedMemoryCarveout, -1)
  t.is(a.numRegs + a.sharedSizeBytes + a.constSizeBytes + a.localSizeBytes + a.ptxVersion + a.binaryVersion, 0)
})

simTest('the simulator refuses, from the native call: no host implementation, a capture, maxActiveClusters, getGlobal', (t) => {
  const p = alloc(4)
  const bare = new RawKernel(NOOP, 'noop')
  const e1 = t.throws(() => bare.launch(1, 1, [p]), { instanceOf: CudaError })!
  t.is(e1.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(e1.message, /cannot run the compiled kernel noop: give it a host implementation/)
  const k = new RawKernel(NOOP, 'noop', { simulate: () => {} })
  const s = new Stream({ nonBlocking: true })
  s.beginCapture()
  const e2 = t.throws(() => k.launch(1, 1, [p], { stream: s }), { instanceOf: CudaError })!
  s.endCapture()
  t.is(e2.code, 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED')
  t.regex(e2.message, /a simulated kernel \(noop\) cannot be captured into a graph/)
  const e3 = t.throws(() => k.maxActiveClusters(new LaunchConfig({ grid: 2, block: 1, cluster: 2 })), { instanceOf: CudaError })!
  t.is(e3.code, 'CUDA_ERROR_NOT_SUPPORTED')
  const e4 = t.throws(() => new RawModule({ code: '__device__ int x;' }).getGlobal('x'), { instanceOf: CudaError })!
  t.is(e4.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(e4.message, /the variable x has no device memory there/)
})

test('a pool limit given as a fraction is the share of the device memory, rounded down, checked in core', (t) => {
  const pool = new MemoryPool()
  pool.setLimit({ fraction: 0.3 })
  t.is(pool.getLimit(), Math.floor(new Device().totalMemory * 0.3))
  t.throws(() => pool.setLimit({ fraction: -0.1 }), { instanceOf: RangeError, message: 'fraction must lie in [0, 1], got -0.1' })
  pool.setLimit({})
})
