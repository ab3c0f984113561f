// `npm run bench`: per-operation host time, median over batches, in one run.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { allocPinned, alloc, AsyncMemoryPool, backend, Device, Event, getElapsedTime, kernels, mallocPlain, MemoryPool, memoryChannels, native, nvtx, own, register, registerHost, registrationCache, Stream } from './package'

/**
 * The rows to measure: `BENCH_ONLY`, a comma-separated list of row keys (`pipeline` for the
 * pipeline's rows, `first_use` for a kernel's first use), or every row. For profiling one call
 * (bench/profile.sh), and for telling whether other rows in the same process change a row.
 */
export function selected(key: string): boolean {
  const only = process.env.BENCH_ONLY
  if (only === undefined || only.trim() === '') return true
  return only.split(',').some((k) => k.trim() === key)
}

/** The in-process floor's ops (`driverFloor`, crates/node/src/floor.rs). */
export type FloorOp = 0 | 1 | 2 | 3 | 4 | 5

/** What the addon the bench builds with the `floor` feature (bench/run.js) exports beside the package's own. */
interface FloorExports {
  driverFloor(op: FloorOp, s: number, e: number, n: number): number
  floorWake(id: number): void
  floorCrossing(): void
}

/** The floor feature's exports; an Error where the addon loaded was built without it. */
export function floorAddon(): FloorExports {
  const f = native as unknown as Partial<FloorExports>
  if (f.driverFloor === undefined || f.floorWake === undefined || f.floorCrossing === undefined) {
    throw new Error('the in-process floor needs the addon built with the floor feature (npm run bench builds bench/addon)')
  }
  return f as FloorExports
}

/**
 * The in-process driver floor, ns per operation: op 0 record+query, 1 idle synchronize, 2 an
 * empty kernel's launch (`n` launches then one synchronize), 3 a host function's round trip
 * spinning, 4 the event pair (`e` must time), 5 a stream created, queried and destroyed.
 */
export function driverFloor(op: FloorOp, s: Stream, e: Event, n: number): number {
  return floorAddon().driverFloor(op, own(s), own(e), n)
}

/** The floor addon's wake into JS from a thread of its own (`floorWake`), for the callback registered as `id`. */
function floorWake(id: number): void {
  floorAddon().floorWake(id)
}

/** One raw Node-API call into the floor addon that does nothing. */
function crossing(): () => void {
  return floorAddon().floorCrossing
}

export interface Row {
  /** The operation's key, shared with the floor (C++) and the peers (CuPy, PyTorch). */
  key: string
  op: string
  value: number
  /** µs and ms: lower is better; GB/s and × (an overlap factor): higher is better. */
  unit: 'µs' | 'GB/s' | 'ms' | '×'
  /**
   * Where measured: the same operation as bare driver calls (the core's calls on sim) in this
   * process, each batch right after one of ours: µs per call, and the median of the per-batch
   * ratios ours / floor.
   */
  inProcess?: { floor: number; ratio: number }
}

let rows: Row[] = []

/** The median of `xs` (the upper middle one for an even count). */
export function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[xs.length >> 1]
}

/**
 * Median of `batches` batches of `n` calls of `f`, in µs per call. With `floor` (µs per call
 * over `n` bare driver calls in this process, `native.driverFloor`), each batch of ours is
 * followed by a batch of the floor: the machine's drift touches both alike, so the ratio is what
 * the binding adds.
 */
function time(key: string, op: string, n: number, f: () => void, batches = 15, floor?: (n: number) => number): void {
  if (!selected(key)) return
  for (let i = 0; i < Math.min(n, 1000); i++) f()
  floor?.(Math.min(n, 1000))
  const per: number[] = []
  const floors: number[] = []
  const ratios: number[] = []
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < n; i++) f()
    const us = Number(process.hrtime.bigint() - t0) / 1e3 / n
    per.push(us)
    if (floor !== undefined) {
      const bare = floor(n)
      floors.push(bare)
      ratios.push(us / bare)
    }
  }
  const row: Row = { key, op, value: median(per), unit: 'µs' }
  if (floor !== undefined) row.inProcess = { floor: median(floors), ratio: median(ratios) }
  rows.push(row)
}

/**
 * Median bandwidth of a copy of `bytes` on `s`: the wall time of the copy and a synchronize, as
 * the floor (bench/peers/driver.cpp) times it, so the two compare like for like.
 */
function bandwidth(key: string, op: string, bytes: number, s: Stream, copy: () => void, reps = 7): void {
  if (!selected(key)) return
  copy()
  s.synchronize()
  const gbs: number[] = []
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint()
    copy()
    s.synchronize()
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9
    gbs.push(bytes / seconds / 1e9)
  }
  rows.push({ key, op, value: median(gbs), unit: 'GB/s' })
}

/** Median µs of `batches` runs of an async `f`. */
async function timeAsync(key: string, op: string, n: number, f: () => Promise<void>, batches = 15): Promise<void> {
  if (!selected(key)) return
  for (let i = 0; i < 10; i++) await f()
  const per: number[] = []
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < n; i++) await f()
    per.push(Number(process.hrtime.bigint() - t0) / 1e3 / n)
  }
  rows.push({ key, op, value: median(per), unit: 'µs' })
}

/**
 * For reference beside the host callback: the same kind of round trip with no GPU in it. This
 * thread wakes a worker (Atomics.notify), which wakes this event loop (postMessage). A host
 * callback also crosses threads twice (the driver's callback thread, then this event loop), so
 * this is what Node itself charges for the trip; the C++ floor pays a condition variable instead.
 */
async function eventLoopWake(): Promise<void> {
  if (!selected('event_loop_wake')) return
  const flag = new Int32Array(new SharedArrayBuffer(4))
  const w = new Worker(
    `const { parentPort, workerData: a } = require('node:worker_threads')
     for (let seen = 0; ; ) { Atomics.wait(a, 0, seen); seen = Atomics.load(a, 0); if (seen < 0) break; parentPort.postMessage(seen) }`,
    { eval: true, workerData: flag },
  )
  let wake = (): void => {}
  let fail: (e: Error) => void = () => {}
  w.on('message', () => wake())
  w.on('error', (e) => fail(e))
  w.on('exit', (code) => fail(new Error(`the wake-up worker exited (code ${code})`)))
  let k = 0
  try {
    await timeAsync('event_loop_wake', 'for reference, no GPU: a worker thread wakes this event loop (round trip)', 200, () => new Promise<void>((resolve, reject) => {
      wake = resolve
      fail = reject
      Atomics.store(flag, 0, ++k)
      Atomics.notify(flag, 0)
    }))
  } finally {
    fail = () => {}
    Atomics.store(flag, 0, -1)
    Atomics.notify(flag, 0)
    await w.terminate()
  }
}

/** One row of the benchmark table. */
export type BenchRow = Row

/** One round of the per-operation measurements (all but a kernel's first use). */
export async function measure(): Promise<Row[]> {
  rows = []
  const pool = new MemoryPool()
  const s = new Stream({ nonBlocking: true })

  const ev = new Event({ disableTiming: true })
  const cross = crossing()
  time('napi_crossing', 'for reference: one raw Node-API call that does nothing', 100_000, () => cross())
  // A stream never used makes nothing native (as PyTorch's events): the row after it pays for one.
  time('stream_create_destroy', 'stream create+destroy', 500, () => new Stream().destroy())
  time('stream_create_use_destroy', 'stream create+first use (a query)+destroy', 500, () => {
    const t = new Stream()
    void t.done
    t.destroy()
  }, 15, (n) => driverFloor(5, s, ev, n) / 1e3)
  time('event_create_destroy', 'event create+destroy', 500, () => new Event().destroy())
  time('event_record_query', 'event record+query', 5000, () => {
    ev.record(s)
    void ev.done
  }, 15, (n) => driverFloor(0, s, ev, n) / 1e3)
  const [e1, e2] = [new Event(), new Event()]
  time('event_pair_sync_elapsed', 'event pair + synchronize + elapsed', 2000, () => {
    e1.record(s)
    e2.record(s)
    e2.synchronize()
    getElapsedTime(e1, e2)
  }, 15, (n) => driverFloor(4, s, e2, n) / 1e3)
  time('idle_stream_sync', 'idle stream synchronize', 5000, () => s.synchronize(), 15, (n) => driverFloor(1, s, ev, n) / 1e3)
  await timeAsync('sync_async_idle', 'synchronizeAsync on an idle stream', 500, () => s.synchronizeAsync())
  time('malloc_free', 'cudaMalloc+cudaFree 1 MiB, no pool', 500, () => mallocPlain(1 << 20).free())
  s.run(() => {
    time('pool_alloc_free', 'pool alloc+free 1 MiB (MemoryPool)', 2000, () => pool.malloc(1 << 20).free())
    // The same, observed: a subscriber on the allocation and free channels gets a message for
    // each. The row above has none, which is what "zero cost without a subscriber" is judged by.
    const observe = () => {}
    const observed = [memoryChannels.alloc, memoryChannels.free]
    for (const c of observed) c.subscribe(observe)
    try {
      time('pool_alloc_free_observed', 'pool alloc+free 1 MiB, diagnostics_channel subscribed', 2000, () => pool.malloc(1 << 20).free())
    } finally {
      for (const c of observed) c.unsubscribe(observe)
    }
    const asyncPool = new AsyncMemoryPool()
    time('pool_async_alloc_free', 'pool alloc+free 1 MiB (AsyncMemoryPool)', 2000, () => asyncPool.malloc(1 << 20).free())
  })
  // The floor: the same launches bare (cuLaunchKernel of the same empty kernel), then one synchronize.
  time('empty_kernel_launch', 'empty kernel ×5000 then synchronize (per launch)', 1, () => {
    for (let i = 0; i < 5000; i++) kernels.sleep(0, s)
    s.synchronize()
  }, 7, () => (driverFloor(2, s, ev, 5000) * 5000) / 1e3)
  const last = rows[rows.length - 1]
  if (last?.key === 'empty_kernel_launch') {
    last.value /= 5000
    if (last.inProcess !== undefined) last.inProcess.floor /= 5000
  }
  time('eager_100', '100 eager launches then synchronize', 1, () => {
    for (let i = 0; i < 100; i++) kernels.sleep(0, s)
    s.synchronize()
  }, 31, () => (driverFloor(2, s, ev, 100) * 100) / 1e3)
  const graph = s.capture(() => {
    for (let i = 0; i < 100; i++) kernels.sleep(0)
  })
  if (selected('graph_100')) graph.upload(s)
  time('graph_100', 'graph of 100 empty kernels, launched then synchronize', 1, () => {
    graph.launch(s)
    s.synchronize()
  }, 31)
  time('nvtx_push_pop', 'NVTX push+pop', 100_000, () => {
    nvtx.rangePush('r')
    nvtx.rangePop()
  })
  await timeAsync('host_callback', 'host callback round trip into JS', 200, () => new Promise<void>((resolve) => s.launchHostFunc(() => resolve())))
  // Its two parts apart: the driver's (a host function setting a flag this thread spins on,
  // no event loop), and ours (a thread of the addon waking this event loop through the same
  // threadsafe function and dispatcher, no GPU). Beside Node's own wake (the next row).
  time('host_fn_spin', 'for reference: host function round trip, bare driver, spinning (no JS)', 200, () => void driverFloor(3, s, ev, 1))
  await timeAsync('host_wake', 'for reference, no GPU: a thread of the addon wakes this event loop (round trip)', 200, () =>
    new Promise<void>((resolve) => floorWake(register(() => resolve(), undefined))))
  await eventLoopWake()
  // Released here, not by the GC during a later round's hot calls.
  for (const x of [graph, ev, e1, e2]) x.destroy()

  const copies = ['h2d_pinned', 'd2h_pinned', 'h2d_pageable', 'd2h_pageable', 'h2d_registered', 'd2h_registered', 'h2d_pageable_again', 'd2h_pageable_again']
  if (!copies.some(selected)) {
    pool.freeAllBlocks()
    s.destroy()
    return rows
  }
  const n = 256 << 20
  const d = alloc(n)
  const pinned = allocPinned(n)
  try {
    const pageable = Buffer.alloc(n, 1)
    bandwidth('h2d_pinned', '256 MiB H2D pinned', n, s, () => d.copyFromHostAsync(pinned, n, s))
    bandwidth('d2h_pinned', '256 MiB D2H pinned', n, s, () => d.copyToHostAsync(pinned, n, s))
    // A Buffer as its first copy sees it: the registration cache off (#32.7), staged copies.
    const limit = registrationCache.stats().limit
    registrationCache.setLimit(0)
    try {
      bandwidth('h2d_pageable', '256 MiB H2D from a Buffer', n, s, () => d.copyFromHostAsync(pageable, n, s))
      bandwidth('d2h_pageable', '256 MiB D2H into a Buffer', n, s, () => d.copyToHostAsync(pageable, n, s))
    } finally {
      registrationCache.setLimit(limit)
    }
    // The same Buffer page-locked in place (registerHost): its copies are pinned copies.
    const registered = registerHost(pageable)
    try {
      bandwidth('h2d_registered', '256 MiB H2D from a registered Buffer (registerHost)', n, s, () => d.copyFromHostAsync(registered, n, s))
      bandwidth('d2h_registered', '256 MiB D2H into a registered Buffer (registerHost)', n, s, () => d.copyToHostAsync(registered, n, s))
    } finally {
      s.synchronize()
      registered.free()
    }
    // The same Buffer copied again and again: from its second copy on, the registration cache
    // holds it page-locked (#32.7); a fresh Buffer, so the first copy is the one that notes it.
    const again = Buffer.alloc(n, 2)
    bandwidth('h2d_pageable_again', '256 MiB H2D from the same Buffer again (registration cache)', n, s, () => d.copyFromHostAsync(again, n, s))
    bandwidth('d2h_pageable_again', '256 MiB D2H into the same Buffer again (registration cache)', n, s, () => d.copyToHostAsync(again, n, s))
  } finally {
    // The 256 MiB buffers go back now, not at the next GC (a later round allocates them again).
    s.synchronize()
    d.free()
    pinned.free()
    pool.freeAllBlocks()
    s.destroy()
  }
  return rows
}

/** A kernel's first use in a process: compiled by NVRTC, then (second process) from the disk cache. GPU only. */
export function firstUse(): Row[] {
  const out: Row[] = []
  if (backend().name === 'cuda' && selected('first_use')) {
    // A kernel's first use in a process: compiled by NVRTC, then (second process) from the disk cache.
    const dir = mkdtempSync(path.join(tmpdir(), 'cuda-node-bench-cache-'))
    const code = 'extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }'
    const script = `const cuda = require(${JSON.stringify(path.join(__dirname, '..', 'index.js'))}); cuda.Device.count();
      const t0 = process.hrtime.bigint(); new cuda.RawKernel(${JSON.stringify(code)}, 'saxpy').attributes;
      console.log(Number(process.hrtime.bigint() - t0) / 1e6)`
    const run = () => Number(spawnSync(process.execPath, ['-e', script], { env: { ...process.env, CUDA_NODE_CACHE_DIR: dir }, encoding: 'utf8' }).stdout.trim())
    out.push({ key: 'kernel_first_use_compile', op: 'kernel first use: NVRTC compile + load', value: run(), unit: 'ms' })
    out.push({ key: 'kernel_first_use_cached', op: 'kernel first use: disk cache + load (2nd process)', value: run(), unit: 'ms' })
    rmSync(dir, { recursive: true, force: true })
  }
  return out
}

/** The number of rounds: `BENCH_ROUNDS` (a positive integer), 3 by default. */
export function benchRounds(): number {
  const v = process.env.BENCH_ROUNDS
  if (v === undefined || v === '') return 3
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`BENCH_ROUNDS must be a positive integer, got ${JSON.stringify(v)}`)
  return n
}

/** Each operation's median over rounds (a list of rounds, each a list of rows in the same order). */
export function medianRows(rounds: Row[][]): Row[] {
  return rounds[0].map((first) => {
    const same = rounds.map((r) => r.find((x) => x.key === first.key)!)
    const row: Row = { ...first, value: median(same.map((x) => x.value)) }
    if (first.inProcess !== undefined) {
      row.inProcess = { floor: median(same.map((x) => x.inProcess!.floor)), ratio: median(same.map((x) => x.inProcess!.ratio)) }
    }
    return row
  })
}

/** Prints the table and writes it as JSON and markdown to `resultsDir`. */
export function report(rows: Row[], resultsDir: string, rounds: number): void {
  const b = backend()
  const dev = new Device()

  const when = new Date().toISOString()
  const title = `${b.name === 'sim' ? 'SIMULATOR figures (no GPU): ' : ''}${dev.name}, backend ${b.name}, ${when}, median of ${rounds} round${rounds === 1 ? '' : 's'}`
  const width = Math.max(...rows.map((r) => r.op.length))
  console.log(title)
  const floorNote = (r: Row): string =>
    r.inProcess === undefined ? '' : `${b.name === 'cuda' ? 'bare driver' : 'core, no JS'} in this process ${r.inProcess.floor.toFixed(3)} µs, ×${r.inProcess.ratio.toFixed(2)}`
  for (const r of rows) console.log(`${r.op.padEnd(width)}  ${r.value.toFixed(r.unit === 'GB/s' ? 2 : 3).padStart(10)} ${r.unit}  ${floorNote(r)}`.trimEnd())

  const dir = resultsDir
  mkdirSync(dir, { recursive: true })
  const stem = `${b.name}-${when.slice(0, 10)}`
  writeFileSync(path.join(dir, `${stem}.json`), JSON.stringify({ backend: b.name, device: dev.name, when, rounds, rows }, null, 2))
  const md = [`**${title}**`, '', '| operation | value | in-process floor |', '| --- | --- | --- |', ...rows.map((r) => `| ${r.op} | ${r.value.toFixed(r.unit === 'GB/s' ? 2 : 3)} ${r.unit} | ${floorNote(r)} |`), '']
  writeFileSync(path.join(dir, `${stem}.md`), md.join('\n'))
  console.log(`results: ${path.join(dir, stem)}.json and .md`)
}

/**
 * Runs the benchmark `rounds` times (each operation's figure is its median over the rounds:
 * these machines drift by 2× within minutes), prints the table, and writes JSON and markdown
 * to `resultsDir` (by default a fresh temporary directory: a run leaves nothing where it started).
 */
export async function bench(resultsDir = mkdtempSync(path.join(tmpdir(), 'cuda-node-bench-')), rounds = benchRounds()): Promise<BenchRow[]> {
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`rounds must be a positive integer, got ${rounds}`)
  const all: Row[][] = []
  for (let r = 0; r < rounds; r++) all.push(await measure())
  const rows = [...medianRows(all), ...firstUse()]
  report(rows, resultsDir, rounds)
  return rows
}
