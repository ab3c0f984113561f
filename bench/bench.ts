// `npm run bench`: our table, then — where the GPU machine's tools are here — the same operations
// on the driver API from C++ (the floor) and in CuPy and PyTorch (the peers), in the same run,
// with each operation's ratio to the floor and to the best peer. GPU results go to bench/results/
// (kept in the repository); simulator figures to a fresh temporary directory, printed at the end.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { backend, Device } from '..'
import { bench, benchRounds, firstUse, measure, median, medianRows, report, type Row } from './lib'

interface Peer {
  peer?: string
  key: string
  value: number
  unit: string
  error?: string
}

/**
 * The goals of issue #8 (µs: at most; GB/s: at least), each with the reference it was set
 * against and that reference's figure on the H100 when it was set. These machines are noisy
 * (the same floor measured 0.20 and 0.41 µs on two days), so a goal is also judged scaled to
 * the reference measured in this run: goal × (this run's reference / the figure).
 */
const GOALS: Record<string, { goal: number; ref: 'floor' | 'cupy'; was: number; refKey?: string }> = {
  event_record_query: { goal: 0.6, ref: 'floor', was: 0.49 },
  idle_stream_sync: { goal: 0.3, ref: 'floor', was: 0.2 },
  pool_alloc_free: { goal: 0.5, ref: 'cupy', was: 0.54 },
  empty_kernel_launch: { goal: 3.8, ref: 'floor', was: 3.48 },
  graph_100: { goal: 80, ref: 'floor', was: 79 },
  eager_100: { goal: 380, ref: 'floor', was: 346 },
  h2d_pinned: { goal: 54, ref: 'floor', was: 54.7 },
  h2d_pageable: { goal: 15, ref: 'floor', was: 7.8 },
  host_callback: { goal: 20, ref: 'cupy', was: 49 },
  nvtx_push_pop: { goal: 0.15, ref: 'cupy', was: 0.28 },
}

function have(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0
}

/** Builds the floor (C++ on the driver API) in `dir`; undefined where there is no nvcc. */
function buildFloor(dir: string): string | undefined {
  if (!have('nvcc')) return undefined
  const exe = path.join(dir, 'driver_bench')
  execFileSync('nvcc', ['-O2', '-std=c++17', '-I', path.join(__dirname, '..', 'crates', 'core'), '-o', exe, path.join(__dirname, 'peers', 'driver.cpp'), '-lcuda'], { stdio: 'inherit' })
  return exe
}

function floor(exe: string | undefined): Peer[] {
  if (exe === undefined) return []
  return lines(execFileSync(exe, { encoding: 'utf8', maxBuffer: 1 << 24 })).map((p) => ({ ...p, peer: 'floor' }))
}

function peers(): Peer[] {
  if (!have('python3')) return []
  const r = spawnSync('python3', [path.join(__dirname, 'peers', 'peers.py')], { encoding: 'utf8', maxBuffer: 1 << 24, timeout: 600_000 })
  for (const p of lines(r.stdout)) if (p.error) console.log(`${p.peer}: not measured (${p.error})`)
  return lines(r.stdout).filter((p) => !p.error)
}

function lines(out: string): Peer[] {
  return out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
}

/** Each (peer, operation)'s median over rounds. */
function medianPeers(rounds: Peer[][]): Peer[] {
  const groups = new Map<string, Peer[]>()
  for (const p of rounds.flat()) {
    const k = `${p.peer}\u0000${p.key}`
    groups.set(k, [...(groups.get(k) ?? []), p])
  }
  return [...groups.values()].map((g) => ({ ...g[0], value: median(g.map((p) => p.value)) }))
}

async function main(): Promise<void> {
  const rounds = benchRounds()
  if (backend().name !== 'cuda') {
    await bench(undefined, rounds)
    return
  }
  const dir = path.join(__dirname, 'results')
  // Rounds alternate ours, the floor and the peers, and every figure is a median over rounds:
  // the machine drifts by 2× within minutes, and alternating lets a slow minute touch all alike.
  const tmp = mkdtempSync(path.join(tmpdir(), 'cuda-node-floor-'))
  const ourRounds: Row[][] = []
  const otherRounds: Peer[][] = []
  try {
    const exe = buildFloor(tmp)
    for (let r = 0; r < rounds; r++) {
      console.log(`round ${r + 1} of ${rounds}: cuda-node, the floor, the peers`)
      ourRounds.push(await measure())
      otherRounds.push([...floor(exe), ...peers()])
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  const ours = [...medianRows(ourRounds), ...firstUse()]
  report(ours, dir, rounds)
  const others = medianPeers(otherRounds)
  const get = (peer: string, key: string) => others.find((p) => p.peer === peer && p.key === key)?.value
  const better = (unit: string, a: number, b: number) => (unit === 'GB/s' ? a >= b : a <= b)
  const fmt = (v: number | undefined, unit: string) => (v === undefined ? '—' : v.toFixed(unit === 'GB/s' ? 1 : v < 10 ? 3 : 1))
  const table = ours
    .filter((r: Row) => r.unit !== 'ms')
    .map((r: Row) => {
      const f = get('floor', r.key)
      const peerValues = ['cupy', 'torch'].map((p) => get(p, r.key)).filter((v): v is number => v !== undefined)
      const best = peerValues.length ? (r.unit === 'GB/s' ? Math.max(...peerValues) : Math.min(...peerValues)) : undefined
      // Ratio > 1 means slower (or less bandwidth) than the reference.
      const ratio = (ref: number | undefined) => (ref === undefined ? '—' : (r.unit === 'GB/s' ? ref / r.value : r.value / ref).toFixed(2))
      const g = GOALS[r.key]
      const cmp = r.unit === 'GB/s' ? '≥' : '≤'
      let goal = ''
      let scaled = ''
      if (g !== undefined) {
        goal = `${cmp} ${g.goal} (${better(r.unit, r.value, g.goal) ? 'met' : 'missed'})`
        const now = g.ref === 'floor' ? f : get('cupy', r.key)
        if (now !== undefined) {
          const s = (g.goal * now) / g.was
          scaled = `${cmp} ${fmt(s, r.unit)} (${better(r.unit, r.value, s) ? 'met' : 'missed'})`
        }
      }
      return { r, f, cupy: get('cupy', r.key), torch: get('torch', r.key), vsFloor: ratio(f), vsPeer: ratio(best), goal, scaled }
    })
  const head = ['operation', 'unit', 'cuda-node', 'C++ driver (floor)', 'CuPy', 'PyTorch', '× floor', '× best peer', 'goal', 'goal scaled to this run', 'bare driver in this process, interleaved: µs (× ours)']
  const inProcess = (r: Row) => (r.inProcess === undefined ? '' : `${fmt(r.inProcess.floor, r.unit)} (×${r.inProcess.ratio.toFixed(2)})`)
  const rowsMd = table.map((x) => [x.r.op, x.r.unit, fmt(x.r.value, x.r.unit), fmt(x.f, x.r.unit), fmt(x.cupy, x.r.unit), fmt(x.torch, x.r.unit), x.vsFloor, x.vsPeer, x.goal, x.scaled, inProcess(x.r)])
  const when = new Date().toISOString()
  const title = `${new Device().name}, ${when.slice(0, 10)}, medians of ${rounds} alternating rounds — ratios above 1 are slower than the reference`
  const md = [`**${title}**`, '', `| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rowsMd.map((r) => `| ${r.join(' | ')} |`), ''].join('\n')
  console.log('\n' + md)
  const stem = `compare-${when.slice(0, 10)}`
  writeFileSync(path.join(dir, `${stem}.md`), md)
  writeFileSync(path.join(dir, `${stem}.json`), JSON.stringify({ device: new Device().name, when, rounds, ours, others, ourRounds, otherRounds }, null, 2))
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
