// The cost of memory history (issue 37): host ns per pool alloc+free with history off, on without
// stacks, and on with JavaScript stacks (the default frames and others), in a synchronous loop and
// in the issue's async shape (trainStep → await loadBatch → malloc); V8's own cost of capturing a
// stack from the same place; and what a snapshot of 10^5 entries takes.
// `node --import tsx bench/memory-history.ts` after `npm run build` (the package as it ships, through
// ./package; CUDA_NODE_BACKEND=sim or on the GPU; the difference between rows is the history's
// cost). Times are the process's CPU time (on a shared machine, time others took is not counted).
// The modes take turns, a batch each, round after round, and each row is its fastest batch.
import { memory, MemoryPool, PinnedMemoryPool, type HistoryOptions } from './package'
import { readFileSync } from 'node:fs'

const batch = Number(process.env.BENCH_BATCH ?? 20_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 9)

function cpuNs(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) * 1000
}

function nsPer(f: () => void): number {
  const t0 = cpuNs()
  for (let i = 0; i < batch; i++) f()
  return (cpuNs() - t0) / batch
}

const pool = new MemoryPool()
const pinned = new PinnedMemoryPool()
const poolPair = (): void => pool.malloc(1024).mem.free()
const pinnedPair = (): void => pinned.malloc(1024).free()
async function loadBatch(): Promise<ReturnType<MemoryPool['malloc']>> {
  await Promise.resolve()
  return pool.malloc(1024)
}
async function trainStep(): Promise<void> {
  const p = await loadBatch()
  p.mem.free()
}
async function asyncNsPer(): Promise<number> {
  const t0 = cpuNs()
  for (let i = 0; i < batch; i++) await trainStep()
  return (cpuNs() - t0) / batch
}

const DEFAULT: HistoryOptions = {}
const modes: [string, HistoryOptions | undefined][] = [
  ['off', undefined],
  ["stacks: 'none'", { stacks: 'none' }],
  ["stacks: 'js' (default frames)", DEFAULT],
  ["stacks: 'js', frames: 1", { frames: 1 }],
  ["stacks: 'js', frames: 3", { frames: 3 }],
  ["stacks: 'js', frames: 10", { frames: 10 }],
]
const set = (o: HistoryOptions | undefined): void => memory.recordHistory(o === undefined ? { enabled: false } : { maxEntries: 100_000, ...o })

async function main(): Promise<void> {
  set(undefined)
  nsPer(poolPair) // warm up: the pool's first segment, the JIT
  nsPer(pinnedPair)
  await asyncNsPer()
  const rows = { pool: new Map<string, number>(), async: new Map<string, number>(), pinned: new Map<string, number>() }
  const keep = (m: Map<string, number>, name: string, ns: number): void => void m.set(name, Math.min(m.get(name) ?? Infinity, ns))
  for (let r = 0; r < rounds; r++) {
    for (const [name, o] of modes) {
      set(o)
      keep(rows.pool, name, nsPer(poolPair))
      keep(rows.async, name, await asyncNsPer())
      keep(rows.pinned, name, nsPer(pinnedPair))
    }
  }
  set(undefined)

  // V8's own cost of capturing a stack from where the history captures one (the caller of
  // MemoryPool.prototype.malloc, in poolPair), into a fresh object never formatted: what
  // stacks: 'js' costs beyond the history's bookkeeping.
  const captureAt = (frames: number): (() => void) => {
    const fake = function malloc(): void {
      const o = {}
      const limit = Error.stackTraceLimit
      Error.stackTraceLimit = frames
      Error.captureStackTrace(o, fake)
      Error.stackTraceLimit = limit
    }
    return () => fake()
  }
  const captures = new Map<number, number>()
  for (let r = 0; r < rounds; r++) for (const n of [1, 3, 10]) captures.set(n, Math.min(captures.get(n) ?? Infinity, nsPer(captureAt(n))))

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

  const us = (ns: number): string => `${(ns / 1000).toFixed(3)} µs`
  console.log(`memory history, host CPU time per alloc+free of 1 KiB (fastest of ${rounds} batches of ${batch}; node ${process.version}):`)
  // The addon's clock reads the time-stamp counter where the CPU says it is invariant, else the
  // kernel's clock at each record (crates/node/src/history.rs, Clock): what this machine offers.
  const read = (f: string): string => {
    try {
      return readFileSync(f, 'utf8')
    } catch {
      return ''
    }
  }
  const flags = (/^flags\s*:(.*)$/m.exec(read('/proc/cpuinfo'))?.[1] ?? '').split(' ').filter((f) => f === 'constant_tsc' || f === 'nonstop_tsc')
  console.log(`  kernel clock source: ${read('/sys/devices/system/clocksource/clocksource0/current_clocksource').trim() || 'unknown'}; CPU flags: ${flags.join(' ') || 'no invariant TSC'}`)
  const what = { pool: 'MemoryPool, sync loop', async: 'MemoryPool, trainStep → await loadBatch → malloc', pinned: 'PinnedMemoryPool, sync loop' }
  for (const [key, m] of Object.entries(rows) as [keyof typeof rows, Map<string, number>][]) {
    console.log(`  ${what[key]}:`)
    const off = m.get('off')!
    for (const [name, ns] of m) console.log(`    ${name.padEnd(32)} ${us(ns)}${name === 'off' ? '' : `   (+${us(ns - off)} over off)`}`)
  }
  console.log(`  Error.captureStackTrace alone, from poolPair's malloc call: ${[...captures].map(([n, ns]) => `${n} frame${n > 1 ? 's' : ''} ${us(ns)}`).join(', ')}`)
  console.log(`  snapshot of ${snap.history.events.length} events with ${snap.stacks.length} distinct stacks: ${snapMs.toFixed(1)} ms (again: ${againMs.toFixed(1)} ms; JSON.stringify: ${jsonMs.toFixed(1)} ms, ${(json.length / 1e6).toFixed(1)} MB)`)
}

void main()
