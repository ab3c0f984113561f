// The stream-ordered pool accounts as the driver's does (#32.4), on the simulator as on the GPU:
// it reserves in steps of its own, so small allocations after the first do not grow it (CuPy's
// test_total_bytes2, test_total_bytes_stream); memory freed to it stays the pool's, not the
// device's, until it is trimmed (test_free_all_blocks_large_chunk); and a limit given as a
// fraction is exact, `int(total × fraction)` as CuPy computes it. Each in a fresh process: the
// device's pool is shared by the process.
import test from 'ava'
import { runJson } from './helpers'

// The simulator's device is host memory: 256 MiB keeps 70% of it cheap to fill.

test('small allocations after the first do not grow what the pool reserves, on the same stream or another', (t) => {
  const r = runJson(`
    const pool = new cuda.AsyncMemoryPool(), unit = 512, out = {}
    const p1 = pool.malloc(unit * 2)
    out.first = pool.totalBytes()
    const p2 = pool.malloc(unit * 4)
    out.second = pool.totalBytes()
    p1.free(); p2.free()
    cuda.Stream.null.synchronize()
    const s = new cuda.Stream()
    const p3 = s.run(() => pool.malloc(unit * 2))
    out.stream = pool.totalBytes()
    out.used = pool.usedBytes()
    out.consistent = pool.usedBytes() + pool.freeBytes() === pool.totalBytes()
    p3.free()
    console.log(JSON.stringify(out))`)
  t.true(r.first >= 1024)
  t.is(r.second, r.first, 'the reserve stays: the driver grows it by steps, not by the allocation')
  t.is(r.stream, r.first, 'a block freed on one stream serves another once the free has passed')
  t.is(r.used, 1024)
  t.true(r.consistent)
})

test('memory freed to the pool stays its own until freeAllBlocks gives it back (CuPy test_free_all_blocks_large_chunk)', (t) => {
  const r = runJson(`
    const pool = new cuda.AsyncMemoryPool(), def = cuda.getDefaultMemoryPool(), out = {}
    const total = new cuda.Device().memInfo().total
    pool.malloc(Math.floor(0.7 * total)).free()
    try { def.malloc(Math.floor(0.3 * total)).free(); out.before = 'allocated' } catch (e) { out.before = e.code }
    pool.freeAllBlocks()
    try { def.malloc(Math.floor(0.3 * total)).free(); out.after = 'allocated' } catch (e) { out.after = e.code }
    def.freeAllBlocks()
    console.log(JSON.stringify(out))`, { CUDA_NODE_SIM_MEMORY: String(256 << 20) })
  t.deepEqual(r, { before: 'CUDA_ERROR_OUT_OF_MEMORY', after: 'allocated' })
})

test('a limit given as a fraction is int(total × fraction), not rounded', (t) => {
  const r = runJson(`
    const total = new cuda.Device().totalMemory, rows = []
    for (const f of [0.3, 0.123456, 1 / 3, 0.999999]) {
      const a = new cuda.AsyncMemoryPool(), m = new cuda.MemoryPool()
      a.setLimit({ fraction: f }); m.setLimit({ fraction: f })
      rows.push([a.getLimit(), m.getLimit(), Math.floor(total * f)])
      a.setLimit({})
    }
    console.log(JSON.stringify(rows))`)
  for (const [a, m, want] of r) {
    t.is(a, want)
    t.is(m, want)
  }
})
