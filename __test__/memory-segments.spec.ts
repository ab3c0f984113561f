// Memory history, second stop (issue 37): the snapshot draws each caching pool's real segments
// (MemoryPool.segments(), from the core pool's layout) with live and free blocks; the pinned pool
// is recorded; a snapshot's cost grows with its entries, not their square.
import test from 'ava'
import { allocPinned, AsyncMemoryPool, memory, MemoryPool, PinnedMemoryPool, Stream, SNAPSHOT_VERSION, type MemorySnapshot } from '..'

// The history is process-wide: these tests run one after another.
const serial = test.serial

serial.afterEach(() => memory.recordHistory({ enabled: false }))

const hex = (p: bigint): string => `0x${p.toString(16)}`

serial('MemoryPool.segments() lays out each allocation the pool took, its blocks in address order, in use and free', (t) => {
  const pool = new MemoryPool()
  const big = pool.malloc(4096)
  const base = big.ptr
  big.mem.free()
  const a = pool.malloc(1024)
  const s = new Stream({ nonBlocking: true })
  const other = s.run(() => pool.malloc(8192))
  const segs = pool.segments()
  t.is(segs.length, 2)
  const first = segs.find((g) => g.address === base)!
  t.like(first, { size: 4096, expandable: false, stream: 0n })
  t.deepEqual(first.blocks.map((b) => [b.address - base, b.size, b.inUse]), [[0n, 1024, true], [1024n, 3072, false]])
  const second = segs.find((g) => g.address === other.ptr)!
  t.is(second.stream, s.handle)
  t.deepEqual(second.blocks.map((b) => [b.size, b.inUse, b.stream]), [[8192, true, s.handle]])
  a.mem.free()
  other.mem.free()
  s.synchronize()
  t.true(pool.segments().every((g) => g.blocks.every((b) => !b.inUse)))
  pool.freeAllBlocks()
  t.deepEqual(pool.segments(), [])
})

serial("a snapshot draws a pool's real segments: live blocks with their stack, cached free blocks, the stream", (t) => {
  memory.recordHistory({ stacks: 'js' })
  const pool = new MemoryPool()
  const big = pool.malloc(4096)
  const base = big.ptr
  big.mem.free()
  const keep = pool.malloc(1000)
  const s = memory.snapshot()
  t.is(s.version, SNAPSHOT_VERSION)
  t.is(SNAPSHOT_VERSION, 2)
  const seg = s.segments.find((g) => g.kind === 'segment' && g.address === hex(base))!
  t.truthy(seg, 'the segment is in the snapshot at its address')
  t.like(seg, { device: 0, totalBytes: 4096, usedBytes: 1024, expandable: false, stream: 0 })
  t.is(s.pools[seg.pool]!.kind, 'MemoryPool')
  t.is(seg.blocks.length, 1)
  t.like(seg.blocks[0], { addr: hex(keep.ptr), size: 1024, requested: 1000, source: 'pool' })
  t.regex(s.stacks[seg.blocks[0]!.stack]!.join('\n'), /memory-segments\.spec/)
  t.deepEqual(seg.free, [{ addr: hex(base + 1024n), size: 3072, stream: 0 }])
  keep.mem.free()
})

serial('a block allocated before the history began is in its segment, with no stack', (t) => {
  const pool = new MemoryPool()
  const before = pool.malloc(2048)
  memory.recordHistory({ stacks: 'js' })
  const s = memory.snapshot()
  // The pool made no allocation while recording: the snapshot does not know it.
  t.false(s.segments.some((g) => g.blocks.some((b) => b.addr === hex(before.ptr))))
  pool.malloc(512).mem.free()
  const s2 = memory.snapshot()
  const b = s2.segments.flatMap((g) => g.blocks).find((x) => x.addr === hex(before.ptr))!
  t.like(b, { size: 2048, t: -1, stack: -1, requested: 2048 })
  const free = s2.history.events.filter((e) => e.action === 'free')
  before.mem.free()
  const s3 = memory.snapshot()
  const last = s3.history.events.at(-1)!
  t.like(last, { action: 'free', addr: b.addr, size: 2048, stream: -1 }, 'its free is recorded with its address')
  t.is(s3.history.events.filter((e) => e.action === 'free').length, free.length + 1)
})

serial("the pinned pool's allocations and frees are recorded like the others", (t) => {
  memory.recordHistory({ stacks: 'js' })
  const pool = new PinnedMemoryPool()
  function stagingBuffer(): ReturnType<PinnedMemoryPool['malloc']> {
    return pool.malloc(3000)
  }
  const p = stagingBuffer()
  const q = allocPinned(100)
  const qAddr = hex(q.ptr)
  const s = memory.snapshot()
  const a = s.history.events.find((e) => e.action === 'alloc' && e.source === 'pinned' && e.requested === 3000)!
  t.truthy(a)
  t.like(a, { device: -1, stream: -1, addr: hex(p.ptr) })
  t.is(s.pools[a.pool]!.kind, 'PinnedMemoryPool')
  t.regex(s.stacks[a.stack]![0]!, /stagingBuffer/, 'the first frame is the caller')
  const seg = s.segments.find((g) => g.pool === a.pool && g.device === -1)!
  t.truthy(seg, 'the live pinned blocks are a group of their own')
  t.is(seg.kind, 'allocations')
  t.deepEqual(seg.blocks.map((b) => b.addr), [hex(p.ptr)])
  t.true(s.segments.some((g) => g.blocks.some((b) => b.addr === qAddr && b.source === 'pinned')), 'allocPinned, through the default pinned pool, too')
  p.free()
  q.free()
  p.free() // twice is nothing, and records nothing
  const s2 = memory.snapshot()
  const frees = s2.history.events.filter((e) => e.action === 'free' && e.device === -1)
  t.deepEqual(frees.map((e) => e.addr).sort(), [a.addr, qAddr].sort())
  t.false(s2.segments.some((g) => g.device === -1))
})

/** The fastest of three snapshots of `pairs` allocations and frees, each recorded afresh from a few sites, and the fastest recording of them. */
function snapshotMs(pairs: number): { ms: number; recordMs: number; snap: MemorySnapshot } {
  let best = Infinity
  let recordMs = Infinity
  let snap: MemorySnapshot | undefined
  for (let r = 0; r < 3; r++) {
    memory.recordHistory({ stacks: 'js', maxEntries: 2 * pairs + 64 })
    const pool = new MemoryPool()
    const sites = [(n: number) => pool.malloc(n), (n: number) => pool.malloc(n + 512), (n: number) => pool.malloc(n * 2)]
    const r0 = performance.now()
    for (let i = 0; i < pairs; i++) sites[i % 3]!(512).mem.free()
    recordMs = Math.min(recordMs, performance.now() - r0)
    const t0 = performance.now()
    snap = memory.snapshot()
    best = Math.min(best, performance.now() - t0)
    memory.recordHistory({ enabled: false })
  }
  return { ms: best, recordMs, snap: snap! }
}

serial('a snapshot of 10^5 entries takes time in proportion to them, less than recording them took', (t) => {
  const small = snapshotMs(10_000)
  const large = snapshotMs(50_000)
  t.true(large.snap.history.events.length >= 100_000, `${large.snap.history.events.length} entries`)
  t.is(large.snap.stacks.length, 3, 'three sites, three stacks')
  const ratio = large.ms / Math.max(small.ms, 1)
  t.log(`snapshot of ${small.snap.history.events.length} entries: ${small.ms.toFixed(0)} ms; of ${large.snap.history.events.length}: ${large.ms.toFixed(0)} ms (ratio ${ratio.toFixed(1)}); recording them: ${large.recordMs.toFixed(0)} ms`)
  // Five times the entries: linear work takes about five times as long, quadratic twenty-five.
  t.true(ratio < 12, `ratio ${ratio.toFixed(1)}`)
  // Against the machine's own speed, which a loaded machine (two cores shared by many) slows for
  // both alike: the snapshot costs less than recording the entries with their stacks did (it took
  // four to ten times longer before each distinct stack was formatted once).
  t.true(large.ms < 2 * large.recordMs, `${large.ms.toFixed(0)} ms to snapshot, ${large.recordMs.toFixed(0)} ms to record`)
})

serial('a request refused for its size is recorded without converting what was passed (a hostile object runs no code)', (t) => {
  memory.recordHistory({ stacks: 'none' })
  let converted = 0
  const hostile = { valueOf: () => ++converted, toString: () => String(++converted) }
  t.throws(() => new MemoryPool().malloc(hostile as never), { instanceOf: TypeError })
  t.throws(() => new AsyncMemoryPool().malloc(hostile as never), { instanceOf: TypeError })
  t.is(converted, 0)
  const failed = memory.snapshot().history.events.filter((e) => e.action === 'oom')
  t.is(failed.length, 2)
  t.true(failed.every((e) => e.requested === undefined && /must be a number/.test(e.message!)))
})
