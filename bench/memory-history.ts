// The cost of memory history (issue 37): host ns per pool alloc+free with history off, on without
// stacks, and on with JavaScript stacks, and what a snapshot of 10^5 entries takes.
// `node --import tsx bench/memory-history.ts` after `npm run build` (the package as it ships, through
// ./package; CUDA_NODE_BACKEND=sim or on the GPU; the
// difference between rows is the history's cost). The modes take turns, a batch each, round after
// round, and each row is its fastest batch: on a shared machine the slow batches are other work.
import { memory, MemoryPool, PinnedMemoryPool } from './package'

const batch = Number(process.env.BENCH_BATCH ?? 20_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 9)

function nsPer(f: () => void): number {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < batch; i++) f()
  return Number(process.hrtime.bigint() - t0) / batch
}

const pool = new MemoryPool()
const pinned = new PinnedMemoryPool()
const poolPair = (): void => pool.malloc(1024).mem.free()
const pinnedPair = (): void => pinned.malloc(1024).free()
nsPer(poolPair) // warm up: the pool's first segment, the JIT
nsPer(pinnedPair)

const modes: [string, () => void][] = [
  ['history off', () => memory.recordHistory({ enabled: false })],
  ["history on, stacks: 'none'", () => memory.recordHistory({ stacks: 'none', maxEntries: 100_000 })],
  ["history on, stacks: 'js'", () => memory.recordHistory({ stacks: 'js', maxEntries: 100_000 })],
]
const best = new Map<string, number>()
const pinnedBest = new Map<string, number>()
for (let r = 0; r < rounds; r++) {
  for (const [name, set] of modes) {
    set()
    best.set(name, Math.min(best.get(name) ?? Infinity, nsPer(poolPair)))
    pinnedBest.set(name, Math.min(pinnedBest.get(name) ?? Infinity, nsPer(pinnedPair)))
  }
}
// The ring now holds 10^5 entries with their stacks: what a snapshot of them takes, the first
// time (each distinct stack formatted) and again.
memory.recordHistory({ stacks: 'js', maxEntries: 100_000 })
for (let i = 0; i < 50_000; i++) poolPair()
let t0 = process.hrtime.bigint()
const snap = memory.snapshot()
const snapMs = Number(process.hrtime.bigint() - t0) / 1e6
t0 = process.hrtime.bigint()
memory.snapshot()
const againMs = Number(process.hrtime.bigint() - t0) / 1e6
t0 = process.hrtime.bigint()
const json = JSON.stringify(snap)
const jsonMs = Number(process.hrtime.bigint() - t0) / 1e6
memory.recordHistory({ enabled: false })

// V8's own cost of capturing a stack from about here (what `stacks: 'js'` adds beyond the
// history's bookkeeping): an object filled in by Error.captureStackTrace, never formatted.
let captureNs = Infinity
for (let r = 0; r < rounds; r++) {
  captureNs = Math.min(captureNs, nsPer(() => {
    const o = {}
    Error.captureStackTrace(o)
  }))
}

const us = (ns: number): string => `${(ns / 1000).toFixed(3)} µs`
console.log(`memory history, host time per alloc+free of 1 KiB (fastest of ${rounds} batches of ${batch}):`)
for (const [rowsOf, what] of [[best, 'MemoryPool'], [pinnedBest, 'PinnedMemoryPool']] as const) {
  const off = rowsOf.get('history off')!
  for (const [name, ns] of rowsOf) console.log(`  ${what.padEnd(16)} ${name.padEnd(28)} ${us(ns)}   (+${us(ns - off)} over off)`)
}
console.log(`  Error.captureStackTrace alone, from the bench loop: ${us(captureNs)} (Error.stackTraceLimit ${Error.stackTraceLimit})`)
console.log(`  snapshot of ${snap.history.events.length} events with ${snap.stacks.length} distinct stacks: ${snapMs.toFixed(1)} ms (again: ${againMs.toFixed(1)} ms; JSON.stringify: ${jsonMs.toFixed(1)} ms, ${(json.length / 1e6).toFixed(1)} MB)`)
