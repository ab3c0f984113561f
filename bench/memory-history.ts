// The cost of memory history (issue 37): host ns per pool alloc+free with history off, on without
// stacks, and on with JavaScript stacks, median over batches. `node --import tsx bench/memory-history.ts`
// (CUDA_NODE_BACKEND=sim or on the GPU; the difference between rows is the history's cost).
import { memory, MemoryPool } from '..'

const batch = Number(process.env.BENCH_BATCH ?? 20_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 7)

function nsPerAllocFree(pool: MemoryPool): number {
  const times: number[] = []
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < batch; i++) pool.malloc(1024).mem.free()
    times.push(Number(process.hrtime.bigint() - t0) / batch)
  }
  times.sort((a, b) => a - b)
  return times[times.length >> 1]!
}

const pool = new MemoryPool()
nsPerAllocFree(pool) // warm up: the pool's first segment, the JIT
const rows: [string, number][] = []
memory.recordHistory({ enabled: false })
rows.push(['history off', nsPerAllocFree(pool)])
memory.recordHistory({ stacks: 'none', maxEntries: 100_000 })
rows.push(["history on, stacks: 'none'", nsPerAllocFree(pool)])
memory.recordHistory({ stacks: 'js', maxEntries: 100_000 })
rows.push(["history on, stacks: 'js'", nsPerAllocFree(pool)])
const snapT0 = process.hrtime.bigint()
const snap = memory.snapshot()
const snapMs = Number(process.hrtime.bigint() - snapT0) / 1e6
memory.recordHistory({ enabled: false })
rows.push(['history off again', nsPerAllocFree(pool)])

const off = rows[0]![1]
console.log(`memory history, pool alloc+free of 1 KiB (${batch} a batch, median of ${rounds}):`)
for (const [name, ns] of rows) console.log(`  ${name.padEnd(28)} ${(ns / 1000).toFixed(3)} µs   (+${((ns - off) / 1000).toFixed(3)} µs over off)`)
console.log(`  snapshot of ${snap.history.events.length} events: ${snapMs.toFixed(1)} ms`)
