import test from 'ava'
import { spawnSync } from 'node:child_process'
import { AsyncMemoryPool, CudaError, Device, getDefaultMemoryPool, kernels, mallocManaged, MemoryPool, MemoryPointer, pointerGetAttributes, Stream } from '..'
import { onGpu, runJson } from './helpers'

test('sizes round up to 512-byte bins', (t) => {
  const pool = new MemoryPool()
  const p = pool.malloc(400)
  t.is(p.size, 512)
  t.is(pool.usedBytes(), 512)
  t.is(pool.totalBytes(), 512)
  t.is(pool.malloc(0).size, 0)
  t.is(pool.usedBytes(), 512)
})

test('a freed block is reused on its stream with no new allocation', (t) => {
  const pool = new MemoryPool()
  const s = new Stream()
  s.run(() => {
    const a = pool.malloc(4096)
    const ptr = a.ptr
    a.free()
    t.is(pool.nFreeBlocks(), 1)
    t.is(pool.freeBytes(), 4096)
    const b = pool.malloc(4096)
    t.is(b.ptr, ptr)
    t.is(pool.totalBytes(), 4096)
    t.is(pool.usedBytes(), 4096)
    t.is(pool.freeBytes(), 0)
  })
})

test('a larger free block is split, and the pieces merge back', (t) => {
  const pool = new MemoryPool()
  const big = pool.malloc(8192)
  const base = big.ptr
  big.free()
  const a = pool.malloc(1024)
  const b = pool.malloc(1024)
  t.is(a.ptr, base)
  t.is(b.ptr, base + 1024n)
  t.is(pool.totalBytes(), 8192)
  a.free()
  b.free()
  t.is(pool.nFreeBlocks(), 1)
  pool.freeAllBlocks()
  t.is(pool.totalBytes(), 0)
  t.is(pool.nFreeBlocks(), 0)
})

test('a block freed on one stream is reused on another only once the first has passed the free', (t) => {
  const pool = new MemoryPool()
  const s1 = new Stream({ nonBlocking: true })
  const s2 = new Stream({ nonBlocking: true })
  const a = s1.run(() => pool.malloc(1 << 20))
  const ptr = a.ptr
  kernels.sleep(300e6, s1)
  a.free()
  const early = s2.run(() => pool.malloc(1 << 20))
  t.not(early.ptr, ptr, 's1 has not passed the free yet')
  s1.synchronize()
  const late = s2.run(() => pool.malloc(1 << 20))
  t.is(late.ptr, ptr)
})

test('freeAllBlocks can be limited to one stream', (t) => {
  const pool = new MemoryPool()
  const s1 = new Stream()
  const s2 = new Stream()
  s1.run(() => pool.malloc(1024)).free()
  s2.run(() => pool.malloc(2048)).free()
  t.is(pool.totalBytes(), 3072)
  pool.freeAllBlocks(s1)
  t.is(pool.totalBytes(), 2048)
})

test('past the limit the pool frees its blocks, retries, then says what was asked, used and held', (t) => {
  const pool = new MemoryPool()
  pool.setLimit({ size: 1 << 20 })
  t.is(pool.getLimit(), 1 << 20)
  const a = pool.malloc(512 * 1024)
  pool.malloc(512 * 1024).free()
  const b = pool.malloc(512 * 1024) // the cached block is reused
  t.is(pool.totalBytes(), 1 << 20)
  const e = t.throws(() => pool.malloc(1), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_OUT_OF_MEMORY')
  t.regex(e!.message, /allocating 512 bytes/)
  t.regex(e!.message, /1048576 bytes in use and holds 1048576 bytes, limit set to 1048576/)
  a.free()
  b.free()
  t.is(pool.malloc(1).size, 512)
})

test('setLimit takes a fraction of the device memory, and 0 removes the limit', (t) => {
  const pool = new MemoryPool()
  pool.setLimit({ fraction: 0.25 })
  t.is(pool.getLimit(), Math.floor(new Device().totalMemory * 0.25))
  pool.setLimit({ size: 0 })
  t.is(pool.getLimit(), 0)
  pool.setLimit({})
  t.is(pool.getLimit(), 0)
})

test('bad limits are typed errors', (t) => {
  const pool = new MemoryPool()
  t.throws(() => pool.setLimit({ size: 1, fraction: 0.5 }), { instanceOf: TypeError })
  t.throws(() => pool.setLimit({ size: -1 }), { instanceOf: RangeError })
  t.throws(() => pool.setLimit({ fraction: 1.5 }), { instanceOf: RangeError })
  t.throws(() => pool.setLimit({ fraction: NaN }), { instanceOf: RangeError })
  t.throws(() => pool.setLimit(5 as any), { instanceOf: TypeError })
})

test('out of device memory the pool throws CUDA_ERROR_OUT_OF_MEMORY', (t) => {
  const e = t.throws(() => new MemoryPool().malloc(2 ** 52), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_OUT_OF_MEMORY')
  t.regex(e!.message, /allocating 4503599627370496 bytes/)
})

test('a pool block returns to its pool once, however often it is freed; use after free is a typed error', (t) => {
  const pool = new MemoryPool()
  const p = pool.malloc(64)
  const q = pool.malloc(64)
  p.free()
  t.notThrows(() => p.free())
  t.is(pool.usedBytes(), 512, 'the second free gave back nothing more: q is still in use')
  t.throws(() => p.copyFromHost(new Uint8Array(8)), { instanceOf: CudaError, message: /freed/ })
  q.free()
  t.is(pool.usedBytes(), 0)
})

test('AsyncMemoryPool allocates on the current stream and counts a block free when it is freed', async (t) => {
  const pool = new AsyncMemoryPool()
  const s = new Stream({ nonBlocking: true })
  const before = pool.usedBytes()
  const p = s.run(() => pool.malloc(1 << 20))
  t.is(p.size, 1 << 20)
  t.true(pool.usedBytes() >= before + (1 << 20))
  p.copyFromHost(new Uint8Array(1 << 20).fill(9))
  const out = new Uint8Array(16)
  p.copyToHost(out)
  t.true(out.every((b) => b === 9))
  kernels.sleep(100e6, s)
  p.free()
  // As the driver counts it: free at the call, though the memory is released in stream order.
  t.is(pool.usedBytes(), before)
  t.false(s.done)
  await s.synchronizeAsync()
  t.is(pool.usedBytes(), before)
  pool.freeAllBlocks()
  t.true(pool.totalBytes() >= pool.usedBytes())
})

// One sequence of allocations, run in a fresh process, as CuPy's MemoryAsyncPool would see it
// (#19.14): sizes rounded to 512, used = live rounded sizes, free = total - used.
const ASYNC_SEQUENCE = [100, 1000, 1 << 20, 3, 5 << 20]

test('AsyncMemoryPool counts bytes as CuPy\'s MemoryAsyncPool does on the same sequence (#19.14)', (t) => {
  const ours = runJson(`
    const pool = new cuda.AsyncMemoryPool(), s = cuda.Stream.null, rows = []
    const count = () => ({ used: pool.usedBytes(), total: pool.totalBytes(), free: pool.freeBytes() })
    const live = ${JSON.stringify(ASYNC_SEQUENCE)}.map((n) => pool.malloc(n))
    rows.push({ sizes: live.map((p) => p.size), ...count() })
    live[1].free(); live[3].free()
    s.synchronize()
    rows.push(count())
    live.forEach((p) => p.free())
    s.synchronize()
    pool.freeAllBlocks()
    rows.push(count())
    console.log(JSON.stringify(rows))`)
  const rounded = ASYNC_SEQUENCE.map((n) => Math.ceil(n / 512) * 512)
  t.deepEqual(ours[0].sizes, rounded)
  t.is(ours[0].used, rounded.reduce((a, b) => a + b))
  t.is(ours[1].used, rounded[0] + rounded[2] + rounded[4])
  for (const r of ours) {
    t.is(r.free, r.total - r.used)
    t.true(r.total >= r.used)
  }
  t.is(ours[2].used, 0)
  if (!onGpu) return
  const py = spawnSync('python3', ['-c', `
import json, cupy
from cupy.cuda import memory
pool = memory.MemoryAsyncPool(); s = cupy.cuda.Stream.null; rows = []
count = lambda: dict(used=pool.used_bytes(), total=pool.total_bytes(), free=pool.free_bytes())
live = [pool.malloc(n) for n in ${JSON.stringify(ASYNC_SEQUENCE)}]
rows.append(dict(sizes=[p.mem.size for p in live], **count()))
live[1] = None; live[3] = None
s.synchronize(); rows.append(count())
live = None
s.synchronize(); pool.free_all_blocks(); rows.append(count())
print(json.dumps(rows))`], { encoding: 'utf8' })
  if (py.status !== 0) return t.log(`CuPy not available here, compared with the model only: ${py.stderr.split('\n').slice(-2).join(' ')}`)
  t.deepEqual(ours, JSON.parse(py.stdout.trim()), 'the same counts as CuPy')
})

test('a MemoryPool grows from the allocator it is given and caches what comes back (CuPy\'s MemoryPool(allocator))', (t) => {
  const base = new MemoryPool()
  const asked: number[] = []
  const pool = new MemoryPool((n) => {
    asked.push(n)
    return base.malloc(n)
  })
  const a = pool.malloc(1000)
  t.is(a.size, 1024)
  t.is(base.usedBytes(), 1024)
  a.copyFromHost(new Uint8Array(1024).fill(7))
  const out = new Uint8Array(4)
  a.copyToHost(out)
  t.deepEqual([...out], [7, 7, 7, 7])
  a.free()
  pool.malloc(512).free()
  t.deepEqual(asked, [1024], 'the second allocation came from the cache')
  pool.freeAllBlocks()
  t.is(base.usedBytes(), 0, 'released back to the base allocator')
  t.is(pool.stats().releasedBytes, 1024)
})

test('a MemoryPool over mallocManaged hands out managed memory', (t) => {
  const pool = new MemoryPool(mallocManaged)
  const p = pool.malloc(4096)
  t.is(pointerGetAttributes(p.ptr).kind, 'managed')
  p.free()
  t.is(pool.totalBytes(), 4096)
})

test('a base allocator out of memory makes the pool release its cache and ask once more', (t) => {
  let calls = 0
  const pool = new MemoryPool((n) => {
    calls++
    throw new CudaError(`no ${n} bytes`, 'CUDA_ERROR_OUT_OF_MEMORY')
  })
  const e = t.throws(() => pool.malloc(512), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_OUT_OF_MEMORY')
  t.is(calls, 2)
  t.is(pool.stats().oomRetries, 1)
})

test('what a base allocator throws is thrown as it was; a wrong result is a TypeError', (t) => {
  const boom = new Error('boom')
  t.is(t.throws(() => new MemoryPool(() => { throw boom }).malloc(8)), boom)
  t.throws(() => new MemoryPool(() => 5 as any).malloc(8), { instanceOf: TypeError, message: /must return a MemoryPointer/ })
  const base = new MemoryPool()
  t.throws(() => new MemoryPool((n) => base.malloc(n + 512).offset(512)).malloc(8), { instanceOf: TypeError, message: /byteOffset 0/ })
  t.throws(() => new MemoryPool(() => base.malloc(1)).malloc(4096), { instanceOf: RangeError, message: /gave 512 bytes when the pool asked for 4096/ })
  t.throws(() => new MemoryPool(42 as any), { instanceOf: TypeError })
  t.true(new MemoryPool(null).malloc(1) instanceof MemoryPointer)
})

test('MemoryPool statistics keep their high-water marks until resetPeakStats', (t) => {
  const pool = new MemoryPool()
  const a = pool.malloc(4096)
  const b = pool.malloc(1024)
  a.free()
  t.like(pool.stats(), { usedBytes: 1024, totalBytes: 5120, peakUsedBytes: 5120, peakTotalBytes: 5120, nFreeBlocks: 1 })
  pool.freeAllBlocks()
  pool.resetPeakStats()
  t.like(pool.stats(), { usedBytes: 1024, totalBytes: 1024, peakUsedBytes: 1024, peakTotalBytes: 1024, releasedBytes: 4096 })
  b.free()
})

// The device's stream-ordered pool is shared by the process: its limits are tried in children.
test('AsyncMemoryPool.setLimit sets the release threshold: growing past it is refused, and 0 removes it', (t) => {
  const r = runJson(`
    const pool = new cuda.AsyncMemoryPool(), out = {}
    out.initial = pool.getLimit()
    pool.setLimit({ size: 1 << 20 })
    out.limit = pool.getLimit()
    const a = pool.malloc(512 * 1024)
    // Past what the pool holds free and its limit, as CuPy checks it: the GPU's pool reserves in
    // steps of its own (32 MiB and more), so ask past what it reserved.
    try { pool.malloc(pool.totalBytes() - pool.usedBytes() + (4 << 20)) } catch (e) { out.code = e.code; out.message = e.message }
    a.free()
    cuda.Stream.null.synchronize()
    out.afterSync = pool.totalBytes()
    pool.setLimit({ fraction: 0.5 })
    out.half = pool.getLimit() === Math.floor(new cuda.Device().totalMemory / 2)
    pool.setLimit({})
    out.none = pool.getLimit()
    console.log(JSON.stringify(out))`)
  t.is(r.initial, 0, 'a new pool keeps everything, as CuPy sets it')
  t.is(r.limit, 1 << 20)
  t.is(r.code, 'CUDA_ERROR_OUT_OF_MEMORY')
  t.regex(r.message, /limit is 1048576 bytes/)
  t.true(r.afterSync <= 1 << 20, 'what it held past the threshold went back at the synchronization')
  t.true(r.half)
  t.is(r.none, 0)
})

test('AsyncMemoryPool statistics report used and reserved bytes, current and high-water, resettable', (t) => {
  const r = runJson(`
    const pool = new cuda.AsyncMemoryPool(), rows = []
    const a = pool.malloc(1 << 20), b = pool.malloc(1 << 20)
    a.free(); b.free()
    cuda.Stream.null.synchronize()
    rows.push(pool.stats())
    pool.freeAllBlocks()
    pool.resetPeakStats()
    rows.push(pool.stats())
    console.log(JSON.stringify(rows))`)
  t.is(r[0].usedBytes, 0)
  t.true(r[0].peakUsedBytes >= 2 << 20)
  t.true(r[0].totalBytes >= 2 << 20, 'a new pool keeps what it reserved')
  t.true(r[0].peakTotalBytes >= r[0].totalBytes)
  t.is(r[1].totalBytes, 0, 'freeAllBlocks gave it back')
  t.true(r[1].peakUsedBytes < 2 << 20, 'the marks start again')
  t.true(r[1].peakTotalBytes < 2 << 20)
})

test('CUDA_NODE_GPU_MEMORY_LIMIT limits the default pool and every pool, in bytes or as a percentage', (t) => {
  const script = `
    const total = new cuda.Device().totalMemory, out = {}
    out.pool = cuda.getDefaultMemoryPool().getLimit() / total
    out.async = new cuda.AsyncMemoryPool().getLimit() / total
    try { cuda.alloc(total) } catch (e) { out.code = e.code }
    console.log(JSON.stringify(out))`
  const half = runJson(script, { CUDA_NODE_GPU_MEMORY_LIMIT: '50%' })
  t.deepEqual(half, { pool: 0.5, async: 0.5, code: 'CUDA_ERROR_OUT_OF_MEMORY' })
  const bytes = runJson(`console.log(JSON.stringify([cuda.getDefaultMemoryPool().getLimit(), new cuda.MemoryPool().getLimit()]))`, { CUDA_NODE_GPU_MEMORY_LIMIT: '1048576' })
  t.deepEqual(bytes, [1 << 20, 1 << 20])
  const bad = runJson(`try { cuda.alloc(8) } catch (e) { console.log(JSON.stringify([e.name, e.message])) }`, { CUDA_NODE_GPU_MEMORY_LIMIT: 'lots' })
  t.is(bad[0], 'RangeError')
  t.regex(bad[1], /CUDA_NODE_GPU_MEMORY_LIMIT must be a number of bytes or a percentage/)
  t.is(getDefaultMemoryPool().getLimit(), 0, 'unset here')
})
