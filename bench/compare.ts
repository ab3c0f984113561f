// Before and after in one run: `node --import tsx bench/compare.ts BEFORE_DIR [AFTER_DIR]` times
// our rows (bench/round.ts, a fresh process each) in two built checkouts of the package, rounds
// alternating between them, and prints each row's median beside the other's with their ratio. For
// a change that must leave the hot calls where they were (a refactor): both trees need their
// compiled JS and bench/addon (`npm run bench` builds it; `bash scripts/gpu-build.sh` packs it).
// BENCH_ROUNDS (default 3) and BENCH_ONLY (default: the hot-call rows) as for `npm run bench`.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

interface Row {
  key: string
  op: string
  value: number
  unit: string
}

const HOT = [
  'stream_create_destroy',
  'stream_create_use_destroy',
  'event_create_destroy',
  'event_record_query',
  'event_pair_sync_elapsed',
  'idle_stream_sync',
  'malloc_free',
  'pool_alloc_free',
  'pool_async_alloc_free',
  'empty_kernel_launch',
  'eager_100',
  'graph_100',
  'nvtx_push_pop',
  'host_callback',
]

function addon(dir: string): string {
  const out = path.join(dir, 'bench', 'addon')
  const found = existsSync(out) ? readdirSync(out).find((f) => f.endsWith('.node')) : undefined
  if (found === undefined) throw new Error(`${dir} has no bench/addon/*.node: run npm run bench there first (it builds one)`)
  return path.join(out, found)
}

function round(dir: string, out: string): Row[] {
  const env = { ...process.env, BENCH_ONLY: process.env.BENCH_ONLY ?? HOT.join(','), NAPI_RS_NATIVE_LIBRARY_PATH: addon(dir) }
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, 'bench', 'round.ts'), out], { cwd: dir, stdio: 'inherit', env })
  if (r.status !== 0) throw new Error(`a round in ${dir} failed (exit ${r.status ?? r.signal})`)
  return JSON.parse(readFileSync(out, 'utf8')).rows
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

function main(): void {
  const [before, after = process.cwd()] = process.argv.slice(2).map((d) => path.resolve(d))
  if (before === undefined) throw new Error('usage: node --import tsx bench/compare.ts BEFORE_DIR [AFTER_DIR]')
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
  const tmp = mkdtempSync(path.join(tmpdir(), 'cuda-node-compare-'))
  const got: Record<'before' | 'after', Row[][]> = { before: [], after: [] }
  try {
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so neither always runs on a machine the other just warmed.
      const order = r % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)
      for (const which of order) got[which].push(round(which === 'before' ? before : after, path.join(tmp, `${which}-${r}.json`)))
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  const keys = [...new Set(got.after.flat().map((x) => x.key))]
  console.log(`\n${rounds} rounds each, alternating; medians. before: ${before}\n after: ${after}`)
  console.log(`${'row'.padEnd(58)} ${'before'.padStart(10)} ${'after'.padStart(10)}  after/before`)
  for (const key of keys) {
    const b = got.before.flat().filter((x) => x.key === key)
    const a = got.after.flat().filter((x) => x.key === key)
    if (a.length === 0 || b.length === 0) continue
    const mb = median(b.map((x) => x.value))
    const ma = median(a.map((x) => x.value))
    console.log(`${a[0].op.slice(0, 58).padEnd(58)} ${mb.toFixed(3).padStart(10)} ${ma.toFixed(3).padStart(10)}  ×${(ma / mb).toFixed(2)} ${a[0].unit}`)
  }
}

main()
