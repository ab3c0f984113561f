// Device limits (`cuCtxSetLimit` / `cuCtxGetLimit`, CuPy's `runtime.deviceSetLimit` /
// `deviceGetLimit`): read and set by name, the device's rounding read back, and what it refuses.
// Serial: a limit is the device's, shared by every test of this file.
import test from 'ava'
import { CudaError, Device, type DeviceLimit } from '..'
import { gpuTest, onGpu } from './helpers'

const NAMES: DeviceLimit[] = [
  'stackSize', 'printfFifoSize', 'mallocHeapSize', 'devRuntimeSyncDepth', 'devRuntimePendingLaunchCount', 'maxL2FetchGranularity', 'persistingL2CacheSize',
]

test.serial('every limit reads as a non-negative integer', (t) => {
  const d = new Device(0)
  for (const name of NAMES) {
    let v: number
    try {
      v = d.getLimit(name)
    } catch (e) {
      // A device may not have a limit at all (the sync depth past compute capability 9.0).
      t.true(e instanceof CudaError && e.code === 'CUDA_ERROR_UNSUPPORTED_LIMIT', `${name}: ${e}`)
      continue
    }
    t.true(Number.isInteger(v) && v >= 0, `${name} = ${v}`)
  }
})

test.serial('a stack size set reads back at least as large, and the old one can be restored', (t) => {
  const d = new Device(0)
  const before = d.getLimit('stackSize')
  d.setLimit('stackSize', 4000)
  const now = d.getLimit('stackSize')
  t.true(now >= 4000 && now < 4000 + 512, `${now}`)
  d.setLimit('stackSize', before)
  t.is(d.getLimit('stackSize'), before)
})

test.serial('the malloc heap and printf FIFO take a size before any kernel uses them', (t) => {
  const d = new Device(0)
  d.setLimit('mallocHeapSize', 16 << 20)
  t.true(d.getLimit('mallocHeapSize') >= 16 << 20)
  d.setLimit('printfFifoSize', 2 << 20)
  t.true(d.getLimit('printfFifoSize') >= 2 << 20)
})

test.serial('an unknown limit is a TypeError naming the known ones', (t) => {
  const d = new Device(0)
  const e = t.throws(() => d.getLimit('stack_size' as DeviceLimit), { instanceOf: TypeError })
  for (const name of NAMES) t.true(e!.message.includes(`'${name}'`), e!.message)
  t.throws(() => d.setLimit('heap' as DeviceLimit, 1), { instanceOf: TypeError, message: /'mallocHeapSize'/ })
  t.throws(() => d.getLimit(7 as unknown as DeviceLimit), { instanceOf: TypeError })
})

test.serial('a value that is not a size is refused before the device sees it', (t) => {
  const d = new Device(0)
  t.throws(() => d.setLimit('stackSize', -1), { instanceOf: RangeError })
  t.throws(() => d.setLimit('stackSize', 1.5), { instanceOf: RangeError })
  t.throws(() => d.setLimit('stackSize', NaN), { instanceOf: RangeError })
  t.throws(() => d.setLimit('stackSize', '1024' as unknown as number), { instanceOf: TypeError })
})

test.serial('the L2 fetch granularity is a hint of at most 128 bytes', (t) => {
  const d = new Device(0)
  const e = t.throws(() => d.setLimit('maxL2FetchGranularity', 256), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_INVALID_VALUE')
  t.regex(e!.message, /0 to 128/)
  d.setLimit('maxL2FetchGranularity', 64)
  const g = d.getLimit('maxL2FetchGranularity')
  t.true(g >= 0 && g <= 128, `${g}`)
})

test.serial('the persisting L2 share is at most the device allows', (t) => {
  const d = new Device(0)
  const max = d.attributes.maxPersistingL2CacheSize ?? 0
  const e = t.throws(() => d.setLimit('persistingL2CacheSize', max + (1 << 20)), { instanceOf: CudaError })
  t.true(['CUDA_ERROR_INVALID_VALUE', 'CUDA_ERROR_UNSUPPORTED_LIMIT'].includes(e!.code), e!.code)
  if (max > 0) {
    d.setLimit('persistingL2CacheSize', Math.min(max, 1 << 20))
    t.true(d.getLimit('persistingL2CacheSize') <= max)
    d.setLimit('persistingL2CacheSize', 0)
  }
})

// The GPU reports its own defaults and rounding; these are the simulator's model of them.
const simSerial = onGpu ? (title: string, fn: any) => test.serial.skip(`${title} (the simulator only: backend is cuda)`, fn) : test.serial

simSerial('the simulator models the driver: defaults, rounding, and what it refuses', (t: any) => {
  const d = new Device(0)
  t.is(d.getLimit('printfFifoSize'), 2 << 20) // set by the test above
  t.is(d.getLimit('devRuntimePendingLaunchCount'), 2048)
  t.is(d.getLimit('devRuntimeSyncDepth'), 2)
  d.setLimit('stackSize', 1000)
  t.is(d.getLimit('stackSize'), 1008)
  d.setLimit('stackSize', 1024)
  d.setLimit('maxL2FetchGranularity', 65)
  t.is(d.getLimit('maxL2FetchGranularity'), 128)
  t.is(d.attributes.maxPersistingL2CacheSize, 3 << 20)
  const e = t.throws(() => d.setLimit('devRuntimeSyncDepth', 4), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_UNSUPPORTED_LIMIT')
  const big = t.throws(() => d.setLimit('mallocHeapSize', d.totalMemory + 1), { instanceOf: CudaError })
  t.is(big!.code, 'CUDA_ERROR_INVALID_VALUE')
  t.regex(big!.message, /setLimit\('mallocHeapSize'/)
})

gpuTest('on the GPU, a device of compute capability 9.0 or later has no sync depth to set', (t) => {
  const d = new Device(0)
  if (d.attributes.computeCapabilityMajor < 9) return t.pass('before Hopper the sync depth is settable')
  const e = t.throws(() => d.setLimit('devRuntimeSyncDepth', 4), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_UNSUPPORTED_LIMIT')
})
