// The fuzzer's driver: runs batches of cases in child processes (fuzz/child.ts), so that a crash
// (a signal, an abort) or a hang (the batch's time bound) is caught and reported with the case
// that caused it, and prints each failure as a one-line repro.
//
//   npm run fuzz                                   # FUZZ_SECONDS (default 300) of all modes
//   FUZZ_SEED=7 FUZZ_MODES=api,raw npm run fuzz    # another seed, some modes
//   FUZZ_REPLAY=api:1234:17:3 npm run fuzz         # one case again: mode:seed:path
//   FUZZ_PRINT=api:1234:17 npm run fuzz            # print that case's repro, without running it
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import path from 'node:path'
import { reproScript } from './script'

export type Mode = 'api' | 'raw' | 'model'
export const MODES: Mode[] = ['api', 'raw', 'model']

export interface Failure {
  kind: 'crash' | 'hang' | 'violation' | 'harness'
  mode: Mode
  seed: number
  path?: string
  error: string
  repro: string
}

export interface Options {
  seed: number
  /** Cases per batch (one child process). */
  runs: number
  /** Batches per mode. */
  batches: number
  modes: Mode[]
  /** A batch that runs longer is a hang. */
  batchTimeoutMs: number
  /** A case that runs longer is a hang. */
  caseTimeoutMs: number
  /** Stop starting batches after this long (0: run them all). */
  totalMs: number
  parallel: number
  /** Replays one case: the counterexample path within the batch of `seed`. */
  path?: string
  log?: (line: string) => void
}

export interface Report {
  batches: number
  cases: number
  /** Worker threads terminated by the api mode's worker move (helpers.js `terminated`). */
  workers: number
  failures: Failure[]
  ms: number
}

const root = path.join(__dirname, '..')

interface BatchResult {
  cases: number
  workers?: number
  failure?: Failure
}

function batch(mode: Mode, seed: number, o: Options): Promise<BatchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cuda-node-fuzz-'))
  const progress = path.join(dir, 'progress.jsonl')
  const env = {
    ...process.env,
    CUDA_NODE_SIM_DEVICES: process.env.CUDA_NODE_SIM_DEVICES ?? '2',
    CUDA_NODE_SIM_MEMORY: process.env.CUDA_NODE_SIM_MEMORY ?? String(256 << 20),
    FUZZ_MODE: mode,
    FUZZ_SEED: String(seed),
    FUZZ_RUNS: String(o.runs),
    FUZZ_PATH: o.path ?? '',
    FUZZ_PROGRESS: progress,
    FUZZ_CWD: dir,
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(__dirname, 'child.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err = (err + d).slice(-4000)))
    let hung = false
    let why = ''
    const kill = (reason: string): void => {
      hung = true
      why = reason
      child.kill('SIGKILL')
    }
    const timer = setTimeout(() => kill(`no exit within ${o.batchTimeoutMs} ms`), o.batchTimeoutMs)
    // A case that runs longer than caseTimeoutMs is a hang: the progress file stops growing.
    let size = -1
    let since = Date.now()
    const watch = setInterval(() => {
      const now = existsSync(progress) ? statSync(progress).size : 0
      if (now !== size) {
        size = now
        since = Date.now()
      } else if (Date.now() - since > o.caseTimeoutMs) kill(`one case ran for more than ${o.caseTimeoutMs} ms`)
    }, 500)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      clearInterval(watch)
      const lines = existsSync(progress) ? readFileSync(progress, 'utf8').trim().split('\n').filter(Boolean) : []
      rmSync(dir, { recursive: true, force: true })
      const last = lines.length > 0 ? (JSON.parse(lines[lines.length - 1]) as { run: number; what: string }) : undefined
      const result = out.trim().split('\n').filter((l) => l.startsWith('{')).pop()
      const parsed = result ? (JSON.parse(result) as { failed: boolean; runs?: number; workers?: number; path?: string; error?: string; repro?: string }) : undefined
      if (!hung && signal === null && code === 0 && parsed && !parsed.failed) return resolve({ cases: parsed.runs ?? lines.length, workers: parsed.workers })
      if (!hung && parsed?.failed) {
        const kind = parsed.error?.startsWith('harness:') ? 'harness' : 'violation'
        return resolve({ cases: lines.length, failure: { kind, mode, seed, path: parsed.path, error: parsed.error ?? '', repro: parsed.repro ?? '' } })
      }
      // Killed, crashed or silent: the case that was running is the last one it announced.
      const kind = hung ? 'hang' : 'crash'
      if (!hung) why = `exit ${code}${signal ? `, signal ${signal}` : ''}: ${err.trim().split('\n').slice(-3).join(' | ')}`
      resolve({ cases: lines.length, failure: { kind, mode, seed, path: last ? String(last.run) : undefined, error: why, repro: last?.what ?? '(before the first case)' } })
    })
  })
}

/** The one line a failure is reported as. */
export function describeFailure(f: Failure): string {
  const replay = f.path !== undefined ? `FUZZ_REPLAY=${f.mode}:${f.seed}:${f.path} npm run fuzz` : `FUZZ_SEED=${f.seed} FUZZ_MODES=${f.mode} npm run fuzz`
  return `FUZZ ${f.kind.toUpperCase()} [${f.mode} seed ${f.seed} path ${f.path ?? '?'}] ${f.error}\n  replay: ${replay}\n  repro:  ${f.repro}`
}

/** Runs the batches; resolves with what they found. */
export async function fuzz(o: Options): Promise<Report> {
  const started = Date.now()
  const queue: [Mode, number][] = []
  for (let b = 0; b < o.batches; b++) for (const [k, m] of o.modes.entries()) queue.push([m, o.seed + b * MODES.length + k])
  const report: Report = { batches: 0, cases: 0, workers: 0, failures: [], ms: 0 }
  const seen = new Set<string>()
  async function worker(): Promise<void> {
    for (;;) {
      if (o.totalMs > 0 && Date.now() - started > o.totalMs) return
      const next = queue.shift()
      if (next === undefined) return
      const r = await batch(next[0], next[1], o)
      report.batches++
      report.cases += r.cases
      report.workers += r.workers ?? 0
      if (r.failure) {
        // One report per distinct failure (the same message from another seed is the same bug).
        const key = `${r.failure.kind}:${r.failure.mode}:${r.failure.error.replace(/\d+/g, 'N').slice(0, 120)}`
        if (!seen.has(key)) {
          seen.add(key)
          report.failures.push(r.failure)
          o.log?.(describeFailure(r.failure))
        }
      }
      o.log?.(`batch ${next[0]} seed ${next[1]}: ${r.cases} cases${r.failure ? ` — ${r.failure.kind}` : ''}`)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, o.parallel) }, worker))
  report.ms = Date.now() - started
  return report
}

/**
 * The repro of one case (`mode:seed:path`, as `replay` names it), generated and not run: the
 * generator is seeded and depends on neither the backend nor the devices, so a case a GPU run
 * reported prints the same here. Its statements follow the repro, one a line.
 */
export function printCase(spec: string): string {
  return printCases(spec)
    .map((c) => (c.lines ? `${c.print}\n\n${c.lines.join('\n')}` : c.print))
    .join('\n\n')
}

/**
 * The cases `mode:seed:path` names, generated and not run; `mode:seed:..N` names every case of
 * the batch up to the N-th, in order: what the child had run when it reached that one (a crash or
 * hang reported at case N may need the state the earlier cases left).
 */
export function printCases(spec: string): { print: string; lines?: string[] }[] {
  const [mode, seed, ...p] = spec.split(':')
  const upTo = /^\.\.(\d+)$/.exec(p.join(':'))
  const dir = mkdtempSync(path.join(tmpdir(), 'cuda-node-fuzz-'))
  try {
    const batch = upTo ? { FUZZ_RUNS: String(Number(upTo[1]) + 1), FUZZ_PATH: '' } : { FUZZ_RUNS: '1000000', FUZZ_PATH: p.join(':') }
    const env = { ...process.env, CUDA_NODE_SIM_DEVICES: process.env.CUDA_NODE_SIM_DEVICES ?? '2', FUZZ_MODE: mode, FUZZ_SEED: seed, ...batch, FUZZ_PRINT: '1', FUZZ_CWD: dir }
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(__dirname, 'child.ts')], { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 28 })
    const out = r.stdout.split('\n').filter((l) => l.startsWith('{"print"')).map((l) => JSON.parse(l) as { print: string; lines?: string[] })
    if (out.length === 0) throw new Error(`no case printed for ${spec}: ${r.stderr.trim() || r.stdout.trim()}`)
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const env = process.env
  const log = (l: string): void => console.log(l)
  let o: Options
  if (env.FUZZ_PRINT && env.FUZZ_SCRIPT) {
    const spec = env.FUZZ_PRINT
    const [mode, seed, ...p] = spec.split(':')
    const at = p.join(':')
    const first = /^\.\.\d+$/.test(at) ? 0 : Number(at)
    const cases = printCases(spec).map((c, i) => ({ n: first + i, lines: c.lines ?? [] }))
    if (cases.some((c) => c.lines.length === 0)) throw new Error(`${mode} cases are sequences of operations, not statements: replay them with FUZZ_REPLAY`)
    const skip = env.FUZZ_RAW_SKIP ? `FUZZ_RAW_SKIP=${env.FUZZ_RAW_SKIP} ` : ''
    const title = [
      `Fuzz ${mode} batch seed ${seed}, case${cases.length > 1 ? `s ${cases[0].n} to ${cases[cases.length - 1].n}` : ` ${cases[0].n}`}: written by`,
      `${skip}FUZZ_SCRIPT=${env.FUZZ_SCRIPT} FUZZ_PRINT=${spec} npm run fuzz`,
      `Run from the repository root: node --expose-gc ${env.FUZZ_SCRIPT}`,
    ].join('\n')
    writeFileSync(env.FUZZ_SCRIPT, reproScript(env.FUZZ_SCRIPT, title, cases))
    console.log(`wrote ${env.FUZZ_SCRIPT}: ${cases.length} case${cases.length > 1 ? 's' : ''}`)
    return
  }
  if (env.FUZZ_PRINT) {
    console.log(printCase(env.FUZZ_PRINT))
    return
  }
  if (env.FUZZ_REPLAY) {
    const [mode, seed, ...p] = env.FUZZ_REPLAY.split(':')
    o = { seed: Number(seed), runs: 1_000_000, batches: 1, modes: [mode as Mode], batchTimeoutMs: 120_000, caseTimeoutMs: 30_000, totalMs: 0, parallel: 1, path: p.join(':'), log }
    // The batch's seed is given as is: replay runs exactly that batch's case at `path`.
    const r = await batch(mode as Mode, Number(seed), o)
    console.log(r.failure ? describeFailure(r.failure) : 'replayed: no failure')
    process.exitCode = r.failure ? 1 : 0
    return
  }
  const seconds = Number(env.FUZZ_SECONDS ?? 300)
  o = {
    seed: Number(env.FUZZ_SEED ?? Date.now() % 1_000_000),
    runs: Number(env.FUZZ_RUNS ?? 200),
    batches: Number(env.FUZZ_BATCHES ?? 1_000_000),
    modes: (env.FUZZ_MODES ?? MODES.join(',')).split(',') as Mode[],
    batchTimeoutMs: Number(env.FUZZ_BATCH_TIMEOUT_MS ?? 300_000),
    caseTimeoutMs: Number(env.FUZZ_CASE_TIMEOUT_MS ?? 20_000),
    totalMs: seconds * 1000,
    parallel: Number(env.FUZZ_PARALLEL ?? Math.max(1, cpus().length)),
    log,
  }
  console.log(`fuzzing ${o.modes.join(', ')} for ${seconds} s from seed ${o.seed}, ${o.runs} cases a batch, ${o.parallel} at a time`)
  const r = await fuzz(o)
  console.log(`\n${r.cases} cases (${r.workers} workers terminated) in ${r.batches} batches, ${(r.ms / 1000).toFixed(0)} s: ${r.failures.filter((f) => f.kind === 'crash').length} crashes, ${r.failures.filter((f) => f.kind === 'hang').length} hangs, ${r.failures.filter((f) => f.kind === 'violation').length} rule violations`)
  for (const f of r.failures) console.log(describeFailure(f))
  process.exitCode = r.failures.length > 0 ? 1 : 0
}

if (require.main === module) void main()
