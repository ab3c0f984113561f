// A device's current stream-ordered pool (CuPy's runtime.deviceGetMemPool, deviceSetMemPool,
// deviceGetDefaultMemPool): the default pool, or a pool of ours kept alive while current.
import test from 'ava'
import { AsyncMemoryPool, CudaError, Device, deviceGetDefaultMemPool, deviceGetMemPool, deviceSetMemPool } from '..'
import { gpuTest, onGpu } from './helpers'

// Every test here runs alone: they share the device's pools, and one changes which is current.
const gpuSerial: typeof test = onGpu ? test.serial : gpuTest

test.serial('the current pool is the default pool until another is set', (t) => {
  const d = deviceGetDefaultMemPool()
  t.true(d instanceof AsyncMemoryPool)
  t.is(deviceGetDefaultMemPool(), d)
  t.is(deviceGetMemPool(), d)
  t.is(deviceGetMemPool(0), d)
  t.is(deviceGetMemPool(new Device(0)), d)
})

test.serial('setting the default pool (or any pool that is not one of our own) keeps the default current', (t) => {
  deviceSetMemPool(deviceGetDefaultMemPool())
  deviceSetMemPool(new AsyncMemoryPool(), 0)
  t.is(deviceGetMemPool(), deviceGetDefaultMemPool())
  const p = deviceGetMemPool().malloc(1000)
  t.is(p.size, 1024)
  p.free()
})

test.serial('bad input: not a pool, a device that does not exist', (t) => {
  t.throws(() => deviceSetMemPool({} as any), { instanceOf: TypeError, message: /AsyncMemoryPool/ })
  t.throws(() => deviceSetMemPool(null as any), { instanceOf: TypeError })
  t.throws(() => deviceGetMemPool(99), { instanceOf: CudaError })
  t.throws(() => deviceSetMemPool(deviceGetDefaultMemPool(), 99), { instanceOf: CudaError })
})

test.serial('on the simulator no pool of our own can be made, so none can be set', (t) => {
  if (onGpu) return t.pass('a GPU makes pools of its own: see the GPU tests')
  t.like(t.throws(() => new AsyncMemoryPool({ shareable: true })), { code: 'CUDA_ERROR_NOT_SUPPORTED' })
  t.is(deviceGetMemPool(), deviceGetDefaultMemPool())
})

gpuSerial('a pool of ours made current is the current pool; the default pool\'s allocations stay its own', (t) => {
  const ours = new AsyncMemoryPool({ shareable: true })
  const def = deviceGetDefaultMemPool()
  deviceSetMemPool(ours)
  try {
    t.is(deviceGetMemPool(), ours)
    const oursBefore = ours.stats().usedBytes
    const defBefore = def.stats().usedBytes
    const p = def.malloc(1 << 20)
    t.is(ours.stats().usedBytes, oursBefore, 'nothing taken from ours')
    t.is(def.stats().usedBytes, defBefore + (1 << 20))
    p.free()
    const q = ours.malloc(1 << 20)
    t.is(ours.stats().usedBytes, oursBefore + (1 << 20))
    q.free()
  } finally {
    deviceSetMemPool(def)
  }
  t.is(deviceGetMemPool(), def)
})

gpuSerial('a current pool is kept alive while current, even destroyed', (t) => {
  const ours = new AsyncMemoryPool({ shareable: true })
  deviceSetMemPool(ours)
  ours.destroy()
  t.is(deviceGetMemPool(), ours, 'still the current pool')
  const p = deviceGetDefaultMemPool().malloc(4096)
  p.free()
  deviceSetMemPool(deviceGetDefaultMemPool())
  t.is(deviceGetMemPool(), deviceGetDefaultMemPool())
})

gpuSerial('typed errors: a pool of host memory, a pool of another device', (t) => {
  const host = new AsyncMemoryPool({ shareable: true, location: 'host' })
  t.like(t.throws(() => deviceSetMemPool(host)), { code: 'CUDA_ERROR_INVALID_VALUE' })
  host.destroy()
  if (Device.count() < 2) return
  const other = new AsyncMemoryPool({ shareable: true, device: 1 })
  const e = t.throws(() => deviceSetMemPool(other, 0), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_INVALID_DEVICE')
  t.regex(e!.message, /device 1/)
  other.destroy()
  t.is(deviceGetMemPool(0), deviceGetDefaultMemPool())
})

test.serial('trimTo gives back what the pool holds past the size kept, never what is in use', async (t) => {
  const pool = deviceGetDefaultMemPool()
  const kept = pool.malloc(1 << 20)
  const p = pool.malloc(4 << 20)
  p.free()
  await new Device(0).synchronizeAsync()
  const before = pool.stats()
  t.true(before.totalBytes >= 5 << 20)
  pool.trimTo(0)
  const after = pool.stats()
  t.true(after.totalBytes >= after.usedBytes && after.usedBytes >= 1 << 20, 'what is in use stays')
  t.true(after.totalBytes <= before.totalBytes)
  if (!onGpu) t.is(after.totalBytes, 1 << 20, 'the simulator trims to exactly what is in use')
  kept.free()
  await new Device(0).synchronizeAsync()
  pool.trimTo(0)
  t.throws(() => pool.trimTo(-1), { instanceOf: RangeError })
})

test.serial('on the simulator trimTo keeps the size asked', async (t) => {
  if (onGpu) return t.pass('the driver trims in its own granularity')
  const pool = deviceGetDefaultMemPool()
  pool.malloc(1 << 20).free()
  await new Device(0).synchronizeAsync()
  pool.trimTo(8 << 20)
  t.is(pool.stats().totalBytes, 8 << 20)
  pool.trimTo(0)
  t.is(pool.stats().totalBytes, 0)
})
