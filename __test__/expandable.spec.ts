import test from 'ava'
import { CudaError, Device, MemoryPool, memoryChannels, Stream, usingAllocator, alloc, type ReleaseMessage } from '..'
import { onGpu, runJson, runNode } from './helpers'

const MiB = 1 << 20

test('an expandable pool grows one segment in place and unmaps its free tail on freeAllBlocks', (t) => {
  const free0 = new Device().memInfo().free
  const pool = new MemoryPool({ expandable: true })
  t.true(pool.expandable)
  t.false(new MemoryPool().expandable, 'classic unless asked (or CUDA_NODE_ALLOC_CONF says)')
  const a = pool.malloc(1000)
  const g = pool.stats().totalBytes
  if (!onGpu) t.is(g, 2 * MiB, 'one granule mapped')
  t.like(pool.stats(), { usedBytes: 1024, segments: 1, mappedBytes: g })
  const b = pool.malloc(g)
  t.is(b.ptr, a.ptr + 1024n, 'the next block follows in the same range')
  t.is(pool.totalBytes(), 2 * g, 'grown by what the free tail lacked, rounded up to the granularity')
  t.is(pool.stats().segments, 1)
  b.free()
  const released: ReleaseMessage[] = []
  const listen = (m: unknown) => released.push(m as ReleaseMessage)
  memoryChannels.release.subscribe(listen)
  try {
    pool.freeAllBlocks()
  } finally {
    memoryChannels.release.unsubscribe(listen)
  }
  t.is(pool.totalBytes(), g, 'the mapping the free tail covered is unmapped')
  t.is(released[0]?.bytes, g)
  a.free()
  pool.freeAllBlocks()
  t.like(pool.stats(), { usedBytes: 0, totalBytes: 0, mappedBytes: 0, segments: 0, peakTotalBytes: 2 * g, releasedBytes: 2 * g })
  // memInfo is device-wide: on a GPU other test processes allocate at the same time.
  if (!onGpu) t.is(new Device().memInfo().free, free0, 'nothing left mapped')
})

test('blocks freed out of order: the expandable pool extends its free tail where the classic pool needs a new segment', (t) => {
  const peak = (pool: MemoryPool): number => {
    const x = pool.malloc(6 * MiB)
    const y = pool.malloc(6 * MiB)
    y.free()
    const z = pool.malloc(8 * MiB)
    x.free()
    z.free()
    const p = pool.stats().peakTotalBytes
    pool.freeAllBlocks()
    return p
  }
  t.is(peak(new MemoryPool()), 20 * MiB)
  const expandable = peak(new MemoryPool({ expandable: true }))
  t.true(expandable < 20 * MiB, `expandable peak ${expandable}`)
  if (!onGpu) t.is(expandable, 14 * MiB)
})

test('data in an expandable pool survives the segment growing, and blocks work across the seam of two mappings', (t) => {
  const pool = new MemoryPool({ expandable: true })
  const a = pool.malloc(MiB)
  a.memset(5, MiB)
  const big = pool.malloc(3 * MiB)
  t.true(big.ptr > a.ptr)
  const src = new Uint8Array(3 * MiB).map((_, i) => (i * 7) & 0xff)
  big.copyFromHost(src)
  const back = new Uint8Array(3 * MiB)
  big.copyToHost(back)
  t.deepEqual(back, src)
  const head = new Uint8Array(MiB)
  a.copyToHost(head)
  t.true(head.every((v) => v === 5))
  a.free()
  big.free()
  pool.freeAllBlocks()
})

test('the limit, the out-of-memory error and the allocator hook behave as for the classic pool', (t) => {
  const pool = new MemoryPool({ expandable: true })
  pool.setLimit({ size: 8 * MiB })
  const a = pool.malloc(6 * MiB)
  const e = t.throws(() => pool.malloc(4 * MiB), { instanceOf: CudaError })
  t.is(e?.code, 'CUDA_ERROR_OUT_OF_MEMORY')
  t.regex(e!.message, /limit set to 8388608/)
  t.is(pool.stats().oomRetries, 1)
  a.free()
  const p = usingAllocator((n) => pool.malloc(n), () => alloc(4 * MiB))
  t.is(pool.usedBytes(), 4 * MiB)
  p.free()
  pool.freeAllBlocks()
  t.is(pool.totalBytes(), 0)
  const other = new MemoryPool({ expandable: true })
  const s = new Stream({ nonBlocking: true })
  const probe = new MemoryPool({ expandable: true })
  const one = probe.malloc(1)
  const granule = probe.totalBytes()
  one.free()
  probe.freeAllBlocks()
  // Whole granules: no free tail another stream could take.
  const x = s.run(() => other.malloc(granule))
  const y = other.malloc(granule)
  x.free()
  y.free()
  t.is(other.stats().segments, 2, "each stream's arena grows a segment of its own")
  other.freeAllBlocks(s)
  t.is(other.stats().segments, 1, "freeAllBlocks(stream) unmaps that stream's tail only")
  other.freeAllBlocks()
  t.is(other.totalBytes(), 0)
})

test('bad options are a TypeError', (t) => {
  t.throws(() => new MemoryPool({ expandable: 'yes' as never }), { instanceOf: TypeError, message: /expandable must be a boolean/ })
  t.throws(() => new MemoryPool({ expandable: true, allocator: (n) => new MemoryPool().malloc(n) }), { instanceOf: TypeError, message: /takes no allocator/ })
  t.throws(() => new MemoryPool(42 as never), { instanceOf: TypeError })
  const withAllocator = new MemoryPool({ allocator: (n) => new MemoryPool().malloc(n) })
  t.false(withAllocator.expandable)
})

test('CUDA_NODE_ALLOC_CONF=expandable_segments:true makes the default pool expandable; an unknown key is an error naming it', (t) => {
  const on = runJson(`console.log(JSON.stringify({ d: cuda.getDefaultMemoryPool().expandable, n: new cuda.MemoryPool().expandable, c: new cuda.MemoryPool({ expandable: false }).expandable }))`, {
    CUDA_NODE_ALLOC_CONF: 'expandable_segments:true',
  })
  t.deepEqual(on, { d: true, n: true, c: false })
  const bad = runNode(`try { cuda.alloc(16) } catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message })) }`, {
    CUDA_NODE_ALLOC_CONF: 'expandable_segments:true,garbage_collection_threshold:0.6',
  })
  const r = JSON.parse(bad.stdout.trim().split('\n').pop()!)
  t.is(r.name, 'RangeError')
  t.regex(r.message, /CUDA_NODE_ALLOC_CONF: unknown key 'garbage_collection_threshold'/)
})
