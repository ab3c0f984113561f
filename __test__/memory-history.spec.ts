// Memory history, snapshots and the snapshot written on OOM (issue 37, parts 1 and 2).
import test, { type ExecutionContext } from 'ava'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { alloc, AsyncMemoryPool, backend, mallocManaged, mallocPlain, memory, memoryChannels, MemoryPool, PinnedMemoryPool, registerHost, Stream, SNAPSHOT_SCHEMA, SNAPSHOT_VERSION, type MemorySnapshot } from '..'
import { nativeTest, onWasm, root, runJson, runNode, scratchDir } from './helpers'

// The history is process-wide: these tests run one after another.
const serial = test.serial

function frames(s: MemorySnapshot, id: number): string {
  return id < 0 ? '' : s.stacks[id]!.join('\n')
}

serial.afterEach(() => memory.recordHistory({ enabled: false }))

serial('off, nothing listens on the memory channels', (t) => {
  memory.recordHistory({ enabled: false })
  t.false(memoryChannels.alloc.hasSubscribers)
  t.false(memoryChannels.free.hasSubscribers)
  t.false(memoryChannels.grow.hasSubscribers)
  t.false(memoryChannels.allocFailed.hasSubscribers)
  t.is(memory.snapshot().history.events.length, 0)
})

serial('an allocation and its free are recorded with device, stream, sizes and the async stack', async (t) => {
  memory.recordHistory({ enabled: true, stacks: 'js' })
  const pool = new MemoryPool()
  async function loadBatch(): Promise<ReturnType<MemoryPool['malloc']>> {
    await new Promise((r) => setImmediate(r))
    return pool.malloc(1000)
  }
  async function trainStep(): Promise<void> {
    const p = await loadBatch()
    p.mem.free()
  }
  await trainStep()
  const s = memory.snapshot()
  const a = s.history.events.find((e) => e.action === 'alloc')!
  t.like(a, { device: 0, size: 1024, requested: 1000, source: 'pool', stream: 0 })
  t.regex(a.addr!, /^0x[0-9a-f]+$/)
  t.is(s.pools[a.pool]!.kind, 'MemoryPool')
  const stack = frames(s, a.stack)
  t.regex(stack, /loadBatch/)
  t.regex(stack, /async trainStep/, stack)
  t.notRegex(stack.split('\n')[0]!, /lib[\\/]memory|diagnostics_channel/, 'the first frame is the caller, not the recorder')
  const f = s.history.events.find((e) => e.action === 'free')!
  t.like(f, { addr: a.addr, size: 1024, device: 0 })
})

serial('pool growth and release are recorded as segment events', (t) => {
  memory.recordHistory({ enabled: true, stacks: 'none' })
  const pool = new MemoryPool()
  pool.malloc(4096).mem.free()
  pool.freeAllBlocks()
  const acts = memory.snapshot().history.events.map((e) => e.action)
  t.deepEqual(acts, ['segment_alloc', 'alloc', 'free', 'segment_free'])
})

serial("stacks: 'none' records no stack", (t) => {
  memory.recordHistory({ stacks: 'none' })
  mallocPlain(64).mem.free()
  const s = memory.snapshot()
  t.true(s.history.events.length >= 2)
  t.true(s.history.events.every((e) => e.stack === -1))
  t.is(s.stacks.length, 0)
})

/**
 * Measures, in a child, the JS heap bytes a MemoryPool alloc+free allocates with history off,
 * stacks: 'none' and stacks: 'js', and how many stacks were captured with 'none'. Bytes, not time:
 * a count that load does not change (a timing bound would flake on a shared machine), taken from
 * runs no GC interrupted, after the JIT compiled the path (synchronously: with the optimizing
 * compiler on a thread of its own, when it finishes depends on the load, and code it has not
 * compiled yet boxes numbers).
 */
const heapScript = `
const { GCProfiler } = require('node:v8')
const { memory, MemoryPool } = cuda
const pool = new MemoryPool()
const pair = () => pool.malloc(1024).mem.free()
function bytesPerPair() {
  for (let i = 0; i < 20000; i++) pair()
  let best = Infinity
  for (let tries = 0, clean = 0; tries < 200 && clean < 20; tries++) {
    const gc = new GCProfiler()
    gc.start()
    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < 1000; i++) pair()
    const after = process.memoryUsage().heapUsed
    if (gc.stop().statistics.length > 0) continue
    clean++
    best = Math.min(best, (after - before) / 1000)
  }
  return best
}
const capture = Error.captureStackTrace
let captures = 0
Error.captureStackTrace = function (...args) { captures++; return capture.apply(this, args) }
memory.recordHistory({ enabled: false })
const off = bytesPerPair()
memory.recordHistory({ stacks: 'none', maxEntries: 4096 })
const none = bytesPerPair()
const noneCaptures = captures
memory.recordHistory({ stacks: 'js', maxEntries: 4096 })
const js = bytesPerPair()
console.log(JSON.stringify({ off, none, js, noneCaptures, jsCaptures: captures - noneCaptures }))
`

// In a child: runs beside the serial tests.
nativeTest("its binding's calls allocate on the JS heap themselves")("stacks: 'none' captures no stack and allocates nothing on the JS heap per event", (t) => {
  const r = runJson(heapScript, {}, ['--no-concurrent-recompilation'])
  t.log(`JS heap bytes per alloc+free: off ${r.off}, stacks: 'none' ${r.none}, stacks: 'js' ${r.js}`)
  t.is(r.noneCaptures, 0, "stacks: 'none' captured a stack")
  t.true(Number.isFinite(r.off) && Number.isFinite(r.none), 'some runs had no GC')
  // An object per event is at least 24 B, two a pair: 48 B. A boxed double is 16 B: Node 20
  // measured 8.7 B a pair here, Node 24 32 B in CI's clean run (two doubles' worth), which pass.
  t.true(r.none - r.off < 48, `off: ${r.off} B a pair; stacks: 'none': ${r.none} B`)
  // The measure sees what an event allocates: a captured stack is an object and its frames.
  t.true(r.jsCaptures > 0)
  t.true(r.js - r.off > 64, `stacks: 'js': ${r.js} B a pair, off: ${r.off} B`)
})

serial('the history is a ring: past maxEntries the oldest entries go', (t) => {
  memory.recordHistory({ stacks: 'none', maxEntries: 4 })
  const pool = new MemoryPool()
  for (let i = 1; i <= 5; i++) pool.malloc(512 * i).mem.free()
  const s = memory.snapshot()
  t.is(s.history.events.length, 4)
  t.true(s.history.dropped > 0)
  const last = s.history.events.at(-1)!
  t.like(last, { action: 'free', size: 2560 })
  t.true(s.history.events.every((e, i, a) => i === 0 || e.t >= a[i - 1]!.t), 'oldest first')
})

serial('a snapshot lists live blocks by pool and device, with their stream and stack, under a versioned schema', (t) => {
  memory.recordHistory({})
  const pool = new MemoryPool()
  const s0 = new Stream({ nonBlocking: true })
  const keep = s0.run(() => pool.malloc(2048))
  const gone = pool.malloc(512)
  gone.mem.free()
  const s = memory.snapshot()
  t.is(s.schema, SNAPSHOT_SCHEMA)
  t.is(s.version, SNAPSHOT_VERSION)
  t.is(s.backend, backend().name)
  t.true(s.devices.length >= 1)
  const seg = s.segments.find((x) => s.pools[x.pool]?.kind === 'MemoryPool' && x.blocks.some((b) => b.size === 2048))!
  t.truthy(seg)
  t.is(seg.blocks.length, 1)
  const b = seg.blocks[0]!
  t.is(b.addr, `0x${keep.ptr.toString(16)}`)
  t.true(b.stream >= 2, 'a created stream gets its own id')
  t.regex(s.streams[b.stream]!.name, /^0x/)
  t.regex(frames(s, b.stack), /memory-history\.spec/)
  t.true(seg.totalBytes >= seg.usedBytes && seg.usedBytes >= 2048)
  t.notThrows(() => JSON.parse(JSON.stringify(s)))
  keep.mem.free()
})

serial('dumpSnapshot writes the snapshot as JSON and returns its path', (t) => {
  memory.recordHistory({ stacks: 'none' })
  alloc(100)
  const file = memory.dumpSnapshot(path.join(scratchDir('snap-'), 's.json'))
  const s = JSON.parse(readFileSync(file, 'utf8'))
  t.is(s.schema, SNAPSHOT_SCHEMA)
  t.true(s.history.events.some((e: { action: string }) => e.action === 'alloc'))
})

serial('bad options are typed errors', (t) => {
  t.throws(() => memory.recordHistory(null as never), { instanceOf: TypeError })
  t.throws(() => memory.recordHistory({ enabled: 'yes' as never }), { instanceOf: TypeError })
  t.throws(() => memory.recordHistory({ stacks: 'python' as never }), { instanceOf: TypeError, message: /'js' or 'none'/ })
  t.throws(() => memory.recordHistory({ maxEntries: 0 }), { instanceOf: RangeError })
  t.throws(() => memory.recordHistory({ maxEntries: 1.5 }), { instanceOf: RangeError })
  t.throws(() => memory.dumpSnapshot('' as never), { instanceOf: TypeError })
  t.false(memoryChannels.alloc.hasSubscribers)
})

/** The script that runs out of memory on purpose, with history on, from a function whose name is markup. */
const oomScript = `
const { memory, MemoryPool } = cuda
memory.recordHistory({ stacks: 'js' })
const pool = new MemoryPool()
pool.setLimit({ size: 1 << 20 })
const held = pool.malloc(600 << 10)
const o = { ['<img src=x onerror=alert(1)>']: async function () { await null; return pool.malloc(600 << 10) } }
async function trainStep() { return await o['<img src=x onerror=alert(1)>']() }
trainStep().then(() => console.log('no error'), (e) => { console.log(JSON.stringify({ code: e.code, message: e.message })) })
`

serial('CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM writes a snapshot when an allocation runs out, and the error names it', (t) => {
  const dir = scratchDir('oom-')
  const r = runNode(oomScript, { CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM: dir })
  t.is(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!)
  t.is(out.code, 'CUDA_ERROR_OUT_OF_MEMORY')
  const m = /memory snapshot: (\S+\.json)/.exec(out.message)
  t.truthy(m, out.message)
  const file = m![1]!
  t.true(existsSync(file))
  t.is(path.dirname(file), dir)
  const s = JSON.parse(readFileSync(file, 'utf8')) as MemorySnapshot
  t.like(s.oom, { device: 0, requested: 600 << 10, source: 'pool' })
  const failing = s.stacks[s.oom!.stack]!.join('\n')
  t.regex(failing, /<img src=x onerror=alert\(1\)>/)
  t.regex(failing, /async trainStep/)
  const oomEvent = s.history.events.find((e) => e.action === 'oom')!
  t.regex(oomEvent.message!, /OUT_OF_MEMORY|out of memory/i)
  t.true(s.segments.some((x) => x.blocks.some((b) => b.size === 600 << 10)), 'the held block is in the snapshot')
})

serial('without the variable an OOM writes nothing and its message is unchanged', (t) => {
  const r = runNode(oomScript, { CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM: undefined })
  t.is(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!)
  t.is(out.code, 'CUDA_ERROR_OUT_OF_MEMORY')
  t.notRegex(out.message, /memory snapshot/)
})

serial('hundreds of live blocks are recorded and freed: the live table is indexed by slot, not by the handle (a handle is slot · 2^21 + generation)', (t) => {
  memory.recordHistory({ stacks: 'none', maxEntries: 4096 })
  try {
    const blocks = Array.from({ length: 600 }, () => mallocPlain(64))
    const live = memory.snapshot().history.events.filter((e) => e.action === 'alloc').length
    t.true(live >= 600, `${live} allocations recorded`)
    for (const b of blocks) b.mem.free()
    const events = memory.snapshot().history.events
    t.true(events.filter((e) => e.action === 'free').length >= 600, 'each free found its block')
  } finally {
    memory.recordHistory({ enabled: false })
  }
})

serial("every allocator's alloc and free say the block's address and size, timed between the calls around them, in order", (t) => {
  const before = mallocPlain(256) // allocated before the history began
  const beforeAddr = `0x${before.ptr.toString(16)}`
  memory.recordHistory({ stacks: 'none' })
  const pools = { pool: new MemoryPool(), async: new AsyncMemoryPool(), pinned: new PinnedMemoryPool() }
  const made: [string, () => { addr: bigint; free: () => void }][] = [
    ['pool', () => { const p = pools.pool.malloc(1000); return { addr: p.ptr, free: () => p.mem.free() } }],
    ['async-pool', () => { const p = pools.async.malloc(3000); return { addr: p.ptr, free: () => p.mem.free() } }],
    ['plain', () => { const p = mallocPlain(700); return { addr: p.ptr, free: () => p.mem.free() } }],
    ['managed', () => { const p = mallocManaged(900); return { addr: p.ptr, free: () => p.mem.free() } }],
    ['pinned', () => { const p = pools.pinned.malloc(1500); return { addr: p.ptr, free: () => p.free() } }],
  ]
  for (const [source, make] of made) {
    const t0 = performance.now()
    const b = make()
    const t1 = performance.now()
    b.free()
    const t2 = performance.now()
    const ev = memory.snapshot().history.events
    const a = ev.findLast((e) => e.action === 'alloc')!
    const f = ev.at(-1)!
    const addr = `0x${b.addr.toString(16)}`
    t.like(a, { source, addr }, source)
    t.like(f, { action: 'free', addr, size: a.size }, source)
    t.true(t0 <= a.t + 0.01 && a.t <= t1 + 0.01 && t1 <= f.t + 0.01 && f.t <= t2 + 0.01, `${source}: ${t0} ≤ ${a.t} ≤ ${t1} ≤ ${f.t} ≤ ${t2}`)
  }
  before.mem.free()
  const s = memory.snapshot()
  t.like(s.history.events.at(-1), { action: 'free', addr: beforeAddr, size: 256, source: 'free' })
  t.true(s.history.events.every((e, i, a) => i === 0 || e.t >= a[i - 1]!.t), 'in time order')
  t.false(s.segments.some((g) => g.blocks.some((b) => b.t >= 0)), 'nothing recorded is live')
})

/** Each free in `ev` follows the allocation of the same `key`, and says what that allocation said. */
function freesFollowAllocs(t: ExecutionContext, ev: MemorySnapshot['history']['events'], key: (e: MemorySnapshot['history']['events'][number]) => string): void {
  const open = new Map<string, (typeof ev)[number]>()
  for (const e of ev) {
    if (e.action === 'alloc') open.set(key(e), e)
    else if (e.action === 'free') {
      const a = open.get(key(e))
      t.truthy(a, `free of ${e.addr} follows its alloc`)
      t.like(e, { size: a!.size, device: a!.device, stream: a!.stream, pool: a!.pool })
      open.delete(key(e))
    }
  }
}

serial("stacks: 'none': what the addon logs keeps its order with the rest, past the log's size, across streams and a change of stacks", (t) => {
  memory.recordHistory({ stacks: 'none', maxEntries: 100_000 })
  const pool = new MemoryPool()
  const pinned = new PinnedMemoryPool()
  const s0 = new Stream({ nonBlocking: true })
  const kept: ReturnType<MemoryPool['malloc']>[] = []
  // A free made twice is nothing, however often: it leaves the history nothing to lose.
  const twice = pool.malloc(64)
  twice.mem.free()
  for (let i = 0; i < 600; i++) twice.mem.free()
  // More pool allocations and frees than the log holds, on two streams, with pinned ones (recorded
  // in JS) between them, and blocks kept live across each change of stacks.
  for (let i = 0; i < 1500; i++) {
    const p = i % 3 === 0 ? s0.run(() => pool.malloc(1024)) : pool.malloc(512)
    if (i % 100 === 0) pinned.malloc(256).free()
    if (i % 500 === 0) kept.push(p)
    else p.mem.free()
  }
  memory.recordHistory({ stacks: 'js', maxEntries: 100_000 })
  kept.shift()!.mem.free() // allocated while the addon logged, freed while JS records
  kept.push(pool.malloc(2048))
  memory.recordHistory({ stacks: 'none', maxEntries: 100_000 })
  kept.pop()!.mem.free() // the other way round
  const s = memory.snapshot()
  const ev = s.history.events
  t.is(s.history.dropped, 0)
  t.true(ev.every((e, i, a) => i === 0 || e.t >= a[i - 1]!.t), 'in time order')
  const allocs = ev.filter((e) => e.action === 'alloc')
  const frees = ev.filter((e) => e.action === 'free')
  t.is(allocs.filter((e) => e.source === 'pool').length, 1 + 1501)
  t.is(allocs.filter((e) => e.source === 'pinned').length, 15)
  t.is(frees.length, 1 + 1500 - 3 + 2 + 15)
  const poolIds = new Set(allocs.filter((e) => e.source === 'pool').map((e) => e.pool))
  t.is(poolIds.size, 1, 'one pool')
  t.is(s.pools[[...poolIds][0]!]!.kind, 'MemoryPool')
  const streams = new Set(allocs.filter((e) => e.source === 'pool').map((e) => e.stream))
  t.is(streams.size, 2, 'two streams')
  t.true(allocs.filter((e) => e.size === 1024).every((e) => e.stream >= 2 && s.streams[e.stream]!.name.startsWith('0x')), 'the created stream')
  t.true(allocs.filter((e) => e.size === 512).every((e) => e.stream === 0), 'the default stream')
  // Each free follows the allocation of its address, and says what it said.
  freesFollowAllocs(t, ev, (e) => e.addr!)
  // What is still live is in the snapshot's segments, recorded (t ≥ 0).
  const live = s.segments.flatMap((g) => g.blocks).filter((b) => b.t >= 0)
  t.is(live.length, kept.length)
  t.deepEqual(live.map((b) => b.addr).sort(), kept.map((p) => `0x${p.ptr.toString(16)}`).sort())
  for (const p of kept) p.mem.free()
})

serial("stacks: 'none': pinned pools' records come through the log in order with the rest, past the log's size, across a change of stacks", (t) => {
  memory.recordHistory({ enabled: false })
  const pinnedA = new PinnedMemoryPool()
  const pinnedB = new PinnedMemoryPool()
  const before = pinnedA.malloc(128) // allocated before the history began
  const beforeAddr = `0x${before.ptr.toString(16)}`
  memory.recordHistory({ stacks: 'none', maxEntries: 100_000 })
  const pool = new MemoryPool()
  // Memory registerHost page-locked is JS's own bytes: its free records nothing (not on WebAssembly,
  // which registers none).
  const registered = onWasm ? undefined : registerHost(new Uint8Array(4096))
  const kept: ReturnType<PinnedMemoryPool['malloc']>[] = []
  // More pinned allocations and frees than the log holds, from two pools, with caching pool ones
  // (logged too) and plain ones (recorded in JS) between them, and blocks kept live across each
  // change of stacks.
  for (let i = 0; i < 1200; i++) {
    const p = (i % 2 === 0 ? pinnedA : pinnedB).malloc(256 + (i % 4) * 64)
    if (i % 7 === 0) pool.malloc(512).mem.free()
    if (i % 50 === 0) mallocPlain(256).mem.free()
    if (i % 400 === 0) kept.push(p)
    else p.free()
  }
  before.free()
  registered?.free()
  memory.recordHistory({ stacks: 'js', maxEntries: 100_000 })
  kept.shift()!.free() // allocated while the addon logged, freed while JS records
  kept.push(pinnedB.malloc(2048))
  memory.recordHistory({ stacks: 'none', maxEntries: 100_000 })
  kept.pop()!.free() // the other way round
  const s = memory.snapshot()
  const ev = s.history.events
  t.is(s.history.dropped, 0)
  t.true(ev.every((e, i, a) => i === 0 || e.t >= a[i - 1]!.t), 'in time order')
  const pinnedAllocs = ev.filter((e) => e.action === 'alloc' && e.source === 'pinned')
  t.is(pinnedAllocs.length, 1201)
  t.true(pinnedAllocs.every((e) => e.device === -1 && e.stream === -1 && e.size >= e.requested!), 'host memory, no stream')
  t.deepEqual(pinnedAllocs.slice(0, 4).map((e) => e.requested), [256, 320, 384, 448])
  const pinnedPools = [...new Set(pinnedAllocs.map((e) => e.pool))]
  t.is(pinnedPools.length, 2, 'two pinned pools')
  t.true(pinnedPools.every((id) => s.pools[id]!.kind === 'PinnedMemoryPool'))
  t.is(ev.filter((e) => e.action === 'alloc' && e.source === 'pool').length, 172)
  t.is(ev.filter((e) => e.action === 'alloc' && e.source === 'plain').length, 24)
  // The pinned frees: each but the 2 kept, and the block allocated before, with its address.
  const frees = ev.filter((e) => e.action === 'free')
  t.is(frees.filter((e) => e.device === -1).length, 1201 - 2 + 1)
  t.is(frees.filter((e) => e.addr === beforeAddr && e.device === -1 && e.pool === -1).length, 1)
  // Each free follows the allocation of its address (pinned and device memory apart), and says what it said.
  freesFollowAllocs(t, ev.filter((e) => e.addr !== beforeAddr), (e) => `${e.device}:${e.addr}`)
  // What is still live is in the snapshot's pinned allocations, recorded (t ≥ 0).
  const live = s.segments.filter((g) => g.device === -1).flatMap((g) => g.blocks).filter((b) => b.t >= 0)
  t.deepEqual(live.map((b) => b.addr).sort(), kept.map((p) => `0x${p.ptr.toString(16)}`).sort())
  for (const p of kept) p.free()
  memory.recordHistory({ enabled: false })
})

const workerScript = (root: string): string => `
const { Worker } = require('node:worker_threads')
const { memory, MemoryPool } = cuda
memory.recordHistory({ stacks: 'none' })
const pool = new MemoryPool()
const src = 'const { memory, MemoryPool } = require(' + JSON.stringify(${JSON.stringify(root)}) + '); memory.recordHistory({ stacks: "none" }); const p = new MemoryPool(); for (let i = 0; i < 1000; i++) p.malloc(4096).mem.free(); require("node:worker_threads").parentPort.postMessage(memory.snapshot().history.events.length); setInterval(() => p.malloc(4096).mem.free(), 1)'
const w = new Worker(src, { eval: true })
w.on('message', async (n) => {
  await w.terminate()
  for (let i = 0; i < 100; i++) pool.malloc(512).mem.free()
  const ev = memory.snapshot().history.events
  console.log(JSON.stringify({ worker: n, main: ev.length, sizes: [...new Set(ev.map((e) => e.size))] }))
})
`

// In a child: a worker's Node-API environment of its own.
nativeTest('it has no worker threads')('a worker records its own history, and its end leaves the main thread recording', (t) => {
  const r = runJson(workerScript(root))
  t.true(r.worker >= 2000, `the worker saw ${r.worker} events`)
  t.true(r.main >= 200, `the main thread saw ${r.main} events`)
  t.false(r.sizes.includes(4096), "the worker's blocks are not in the main thread's history")
})
