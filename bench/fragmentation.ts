// `node --import tsx bench/fragmentation.ts`: how much memory a pool holds for what it hands out,
// on a fragmenting workload (mixed sizes freed out of order, the way a network's activations
// are), for the classic pool, the expandable pool (PyTorch's expandable segments, here
// `new MemoryPool({ expandable: true })`), and in the same run PyTorch without and with
// `expandable_segments:True` and CuPy's pool (bench/peers/fragmentation.py, each in a process of
// its own, replaying the same operations). Then the cost of growing by 1 GiB, warm
// alloc+free of the expandable pool against the classic one, and the cost of importing a shared
// allocation in another process (GPU only). The simulator runs a workload 16× smaller, unless
// FRAG_FULL=1 (with CUDA_NODE_SIM_MEMORY=40000000000): the ratios are the pool's policy, which runs
// the same there, and the full workload's match the GPU's.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { AsyncMemoryPool, backend, MemoryPool, Stream, type MemoryPointer } from './package'

const MiB = 1 << 20
const GiB = 1 << 30
const sim = backend().name === 'sim'
// FRAG_FULL=1 runs the full workload on the simulator too (its policy is the pool's, the same as on the GPU).
const scale = sim && process.env.FRAG_FULL !== '1' ? 1 / 16 : 1

/** `['a', id, bytes]` allocates, `['f', id]` frees. */
type Op = ['a', number, number] | ['f', number]

/**
 * A seeded workload: 40 steps of a 24-layer network whose batch (sequence length) changes every
 * step. Each layer keeps an activation and makes a temporary freed after the next layer's; at the
 * end of a step the activations go in a shuffled order, except one in eight, kept for a few steps
 * (a cache that lives across steps).
 */
function workload(): Op[] {
  let seed = 0x2545f491
  const rand = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed / 2 ** 32
  }
  const ops: Op[] = []
  let next = 0
  const cached: { id: number; until: number }[] = []
  const shapes = [6, 24, 6, 96, 12, 3].map((m) => m * MiB * scale)
  for (let step = 0; step < 40; step++) {
    const batch = 0.2 + 0.8 * rand()
    const acts: number[] = []
    let temp: number | undefined
    for (let layer = 0; layer < 24; layer++) {
      const bytes = Math.max(512, Math.round((shapes[layer % shapes.length] * batch) / 512) * 512)
      const id = next++
      ops.push(['a', id, bytes])
      acts.push(id)
      const t = next++
      ops.push(['a', t, Math.round(bytes * (0.5 + rand()))])
      if (temp !== undefined) ops.push(['f', temp])
      temp = t
    }
    if (temp !== undefined) ops.push(['f', temp])
    for (let i = acts.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1))
      ;[acts[i], acts[j]] = [acts[j], acts[i]]
    }
    for (const id of acts) {
      if (rand() < 0.125) cached.push({ id, until: step + 1 + Math.floor(rand() * 4) })
      else ops.push(['f', id])
    }
    for (const c of cached.filter((c) => c.until === step)) ops.push(['f', c.id])
    cached.splice(0, cached.length, ...cached.filter((c) => c.until !== step))
  }
  for (const c of cached) ops.push(['f', c.id])
  return ops
}

function replay(pool: MemoryPool, ops: Op[]): { peakUsed: number; peakReserved: number; ratio: number } {
  const live = new Map<number, MemoryPointer>()
  pool.resetPeakStats()
  for (const op of ops) {
    if (op[0] === 'a') live.set(op[1], pool.malloc(op[2]))
    else {
      live.get(op[1])!.free()
      live.delete(op[1])
    }
  }
  const s = pool.stats()
  pool.freeAllBlocks()
  return { peakUsed: s.peakUsedBytes, peakReserved: s.peakTotalBytes, ratio: s.peakTotalBytes / s.peakUsedBytes }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

/** ms to grow by `bytes` (the pool already holding a block, so an expandable pool extends its segment). */
function growMs(pool: MemoryPool, bytes: number): number {
  const times: number[] = []
  for (let i = 0; i < 5; i++) {
    const first = pool.malloc(MiB)
    const t0 = process.hrtime.bigint()
    const big = pool.malloc(bytes)
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
    big.free()
    first.free()
    pool.freeAllBlocks()
  }
  return median(times)
}

/** ns per warm alloc+free of `bytes`, median of 9 batches of 2000. */
function warmNs(pool: MemoryPool, bytes: number): number {
  for (let i = 0; i < 2000; i++) pool.malloc(bytes).free()
  const batches: number[] = []
  for (let b = 0; b < 9; b++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < 2000; i++) pool.malloc(bytes).free()
    batches.push(Number(process.hrtime.bigint() - t0) / 2000)
  }
  return median(batches)
}

interface PeerRow {
  name: string
  ratio?: number
  peakUsed?: number
  peakReserved?: number
  growMs?: number
  error?: string
}

function peers(opsFile: string, grow: number): PeerRow[] {
  const script = path.join(__dirname, 'peers', 'fragmentation.py')
  const runs: [string, string, Record<string, string>][] = [
    ['PyTorch', 'torch', { PYTORCH_CUDA_ALLOC_CONF: '' }],
    ['PyTorch expandable_segments', 'torch', { PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' }],
    ['CuPy', 'cupy', {}],
  ]
  return runs.map(([name, lib, env]) => {
    const r = spawnSync('python3', [script, lib, opsFile, String(grow)], { encoding: 'utf8', timeout: 600_000, env: { ...process.env, ...env } })
    const line = (r.stdout ?? '').split('\n').filter((l) => l.startsWith('{')).pop()
    if (line === undefined) return { name, error: (r.stderr ?? '').trim().split('\n').slice(-1)[0] || `exit ${r.status}` }
    return { name, ...JSON.parse(line) }
  })
}

interface ImportCost {
  connectMs: number
  importUs: number
  freeUs: number
  n: number
}

/** A child process connects to a shared pool and imports `n` of its 1 MiB allocations, one at a time. */
async function importCost(dir: string, n = 100): Promise<ImportCost | string> {
  if (sim) return 'not measured: the simulator cannot share memory between processes'
  const pool = new AsyncMemoryPool({ shareable: true })
  const ptrs = Array.from({ length: n }, () => pool.malloc(MiB))
  Stream.null.synchronize()
  const { path: sock } = await pool.share()
  const file = path.join(dir, 'exports.json')
  writeFileSync(file, JSON.stringify({ sock, data: ptrs.map((p) => p.exportPointer().toString('hex')) }))
  const child = `
    const cuda = require(${JSON.stringify(path.join(__dirname, 'package.js'))})
    const { sock, data } = JSON.parse(require('node:fs').readFileSync(${JSON.stringify(file)}, 'utf8'))
    const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6
    const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
    ;(async () => {
      let t0 = process.hrtime.bigint()
      const pool = await cuda.AsyncMemoryPool.connect(sock)
      const connectMs = ms(t0)
      const imports = [], frees = []
      for (const d of data) {
        const bytes = Buffer.from(d, 'hex')
        t0 = process.hrtime.bigint()
        const q = pool.importPointer(bytes)
        imports.push(ms(t0) * 1000)
        t0 = process.hrtime.bigint()
        q.free()
        frees.push(ms(t0) * 1000)
      }
      pool.destroy()
      console.log(JSON.stringify({ connectMs, importUs: median(imports), freeUs: median(frees), n: data.length }))
    })()
  `
  const r = spawnSync(process.execPath, ['-e', child], { encoding: 'utf8', timeout: 120_000 })
  for (const p of ptrs) p.free()
  pool.destroy()
  const line = (r.stdout ?? '').split('\n').filter((l) => l.startsWith('{')).pop()
  return line === undefined ? `not measured: ${(r.stderr ?? '').trim().split('\n').slice(-1)[0] || `exit ${r.status}`}` : JSON.parse(line)
}

const ops = workload()
const dir = mkdtempSync(path.join(tmpdir(), 'cuda-node-frag-'))
const opsFile = path.join(dir, 'ops.json')
writeFileSync(opsFile, JSON.stringify(ops))
const grow = sim ? 64 * MiB : GiB
async function main(): Promise<void> {
  const classic = new MemoryPool({ expandable: false })
  const expandable = new MemoryPool({ expandable: true })
  const rows: PeerRow[] = [
    { name: 'cuda-node MemoryPool', ...replay(classic, ops), growMs: growMs(classic, grow) },
    { name: 'cuda-node MemoryPool expandable', ...replay(expandable, ops), growMs: growMs(expandable, grow) },
    ...(sim ? [] : peers(opsFile, grow)),
  ]
  const mb = (n?: number): string => (n === undefined ? '' : (n / MiB).toFixed(0))
  console.log(`fragmentation on ${backend().name}: ${ops.filter((o) => o[0] === 'a').length} allocations${scale !== 1 ? ' (16× smaller on the simulator)' : ''}`)
  console.log(`| allocator | peak used MiB | peak reserved MiB | reserved ÷ used | grow by ${grow / MiB} MiB, ms |`)
  console.log('|---|---|---|---|---|')
  for (const r of rows) {
    if (r.error !== undefined) console.log(`| ${r.name} | not measured: ${r.error} | | | |`)
    else console.log(`| ${r.name} | ${mb(r.peakUsed)} | ${mb(r.peakReserved)} | ${r.ratio?.toFixed(2)} | ${r.growMs?.toFixed(2) ?? ''} |`)
  }
  const warmC = warmNs(classic, MiB)
  const warmE = warmNs(expandable, MiB)
  console.log(`\nwarm alloc+free of 1 MiB: classic ${warmC.toFixed(0)} ns, expandable ${warmE.toFixed(0)} ns (${((warmE / warmC - 1) * 100).toFixed(1)}%; the goal is within 10%)`)
  const imported = await importCost(dir)
  if (typeof imported === 'string') console.log(`importing a shared allocation: ${imported}`)
  else {
    console.log(
      `importing a shared allocation (1 MiB, another process, median of ${imported.n}): connect ${imported.connectMs.toFixed(2)} ms once, ` +
        `importPointer ${imported.importUs.toFixed(1)} µs, free ${imported.freeUs.toFixed(1)} µs`,
    )
  }
  console.log(JSON.stringify({ rows, warm: { classicNs: warmC, expandableNs: warmE }, import: imported }))
}

main()
  .catch((e) => {
    console.error(e)
    process.exitCode = 1
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }))
