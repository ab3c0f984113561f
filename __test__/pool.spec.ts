import test from 'ava'
import { spawnSync } from 'node:child_process'
import { AsyncMemoryPool, CudaError, Device, kernels, MemoryPool, Stream } from '..'
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
