import test from 'ava'
import { alloc, CudaError, Device, MemoryPool, usingAllocator, VirtualMemoryResource } from '..'
import { onGpu } from './helpers'

const MiB = 1 << 20

test('a resource reserves once and maps each allocation, rounded up to the granularity', (t) => {
  const free0 = new Device().memInfo().free
  const vmr = new VirtualMemoryResource({ reserve: 64 * MiB })
  const g = vmr.granularity
  if (!onGpu) t.is(g, 2 * MiB, "the simulator's granularity is an H100's")
  t.true(g > 0 && (g & (g - 1)) === 0, `a power of two, got ${g}`)
  t.is(vmr.reservedBytes, Math.ceil((64 * MiB) / g) * g)
  t.is(vmr.mappedBytes, 0)
  const a = vmr.malloc(100)
  const b = vmr.malloc(g + 1)
  t.is(a.size, 100)
  t.is(vmr.mappedBytes, 3 * g)
  t.is(b.ptr - a.ptr, BigInt(g), 'the next allocation maps right after the first')
  t.is(a.ptr, BigInt(vmr.base))
  a.free()
  t.is(vmr.mappedBytes, 2 * g, 'unmapped when freed')
  const c = vmr.malloc(g)
  t.is(c.ptr, BigInt(vmr.base), 'the hole is mapped again')
  b.free()
  c.free()
  vmr.destroy()
  // memInfo is device-wide: on a GPU other test processes allocate at the same time.
  if (!onGpu) t.is(new Device().memInfo().free, free0, 'nothing leaked')
})

test('mapped memory holds data: copies, memset and a kernel see it', (t) => {
  const vmr = new VirtualMemoryResource({ reserve: 16 * MiB })
  const p = vmr.malloc(4096)
  const src = new Uint8Array(4096).map((_, i) => i & 0xff)
  p.copyFromHost(src)
  const back = new Uint8Array(4096)
  p.copyToHost(back)
  t.deepEqual(back, src)
  p.memset(7, 16)
  p.copyToHost(back)
  t.deepEqual([...back.subarray(0, 17)], [...Array(16).fill(7), 16])
  const q = vmr.malloc(4096)
  q.copyFromDevice(p, 4096)
  const out = new Uint8Array(4096)
  q.copyToHost(out)
  t.deepEqual(out, back)
  vmr.destroy()
})

test('it is an allocator: alloc() under usingAllocator(vmr.malloc), and a pool grows from it', (t) => {
  const vmr = new VirtualMemoryResource({ reserve: 32 * MiB })
  const p = usingAllocator(vmr.malloc, () => alloc(1000))
  t.is(vmr.mappedBytes, vmr.granularity)
  p.free()
  t.is(vmr.mappedBytes, 0)
  const pool = new MemoryPool(vmr.malloc)
  const q = pool.malloc(4096)
  t.is(vmr.mappedBytes, vmr.granularity)
  q.free()
  pool.freeAllBlocks()
  t.is(vmr.mappedBytes, 0, 'the pool gave the block back, and it was unmapped')
  vmr.destroy()
})

test('a range with no room, or a device with none, is out of memory; the range goes after destroy and the last free', (t) => {
  const free0 = new Device().memInfo().free
  const vmr = new VirtualMemoryResource({ reserve: 8 * MiB })
  const g = vmr.granularity
  const size = vmr.reservedBytes - g
  const a = vmr.malloc(size)
  const e = t.throws(() => vmr.malloc(2 * g), { instanceOf: CudaError })
  t.is(e?.code, 'CUDA_ERROR_OUT_OF_MEMORY')
  t.regex(e!.message, /reservation has no room/)
  vmr.destroy()
  const e2 = t.throws(() => vmr.malloc(1), { instanceOf: CudaError })
  t.is(e2?.code, 'CUDA_ERROR_INVALID_HANDLE')
  const host = new Uint8Array(16).fill(3)
  a.copyFromHost(host)
  const back = new Uint8Array(16)
  a.copyToHost(back)
  t.deepEqual(back, host, 'an allocation outlives destroy')
  t.is(a.size, size)
  a.free()
  // memInfo is device-wide: on a GPU other test processes allocate at the same time.
  if (!onGpu) t.is(new Device().memInfo().free, free0, 'unmapped and the range freed: nothing leaked')
})

test('bad input is a typed error', (t) => {
  t.throws(() => new VirtualMemoryResource({ reserve: 0 }), { instanceOf: RangeError, message: /above 0 bytes/ })
  t.throws(() => new VirtualMemoryResource({ reserve: -1 }), { instanceOf: RangeError })
  t.throws(() => new VirtualMemoryResource({ granularity: 'huge' as never }), { instanceOf: RangeError, message: /'minimum' or 'recommended'/ })
  t.throws(() => new VirtualMemoryResource(null as never), { instanceOf: TypeError })
  t.throws(() => new VirtualMemoryResource({ device: 99 }), { instanceOf: CudaError })
  const vmr = new VirtualMemoryResource({ reserve: 8 * MiB })
  t.throws(() => vmr.malloc(-1), { instanceOf: RangeError })
  t.throws(() => vmr.malloc('1' as never), { instanceOf: TypeError })
  t.throws(() => vmr.setAccess(0, 'x' as never), { instanceOf: RangeError, message: /'rw', 'r' or 'none'/ })
  const own = t.throws(() => vmr.setAccess(vmr.device, 'r'), { instanceOf: CudaError })
  t.is(own?.code, 'CUDA_ERROR_INVALID_VALUE')
  vmr.setAccess(new Device(vmr.device), 'rw')
  t.throws(() => vmr.setAccess(99, 'rw'), { instanceOf: CudaError })
  t.is(vmr.malloc(0).size, 0)
  vmr.destroy()
  vmr.destroy()
})

test('granularity recommended is at least the minimum', (t) => {
  const min = new VirtualMemoryResource({ reserve: 8 * MiB })
  const rec = new VirtualMemoryResource({ reserve: 8 * MiB, granularity: 'recommended' })
  t.true(rec.granularity >= min.granularity)
  min.destroy()
  rec.destroy()
})
