// One batch, in a child process of fuzz/run.ts: `node --expose-gc --import tsx fuzz/child.ts`
// with FUZZ_MODE (api | raw | model), FUZZ_SEED, FUZZ_RUNS and, to replay one case, FUZZ_PATH.
// Before each case it appends the case's repro to FUZZ_PROGRESS, so a crash or a hang — which
// kill the process before it can say anything — is still reported by the parent with its case.
// It prints one JSON line: { runs } when every case kept the rules, or the shrunk failure.
import fc from 'fast-check'
import { appendFileSync } from 'node:fs'
import * as api from './api'
import * as model from './model'
import * as rawFuzz from './raw'
import type { Code } from './values'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const h = require('./helpers.js') as {
  cuda: typeof import('..')
  raw: { bindingDeclarations(): Buffer }
  take(): string[]
  settle(): Promise<void>
  stats: { workers: number }
}

const mode = process.env.FUZZ_MODE ?? 'api'
const seed = Number(process.env.FUZZ_SEED ?? 1)
const numRuns = Number(process.env.FUZZ_RUNS ?? 100)
const replayPath = process.env.FUZZ_PATH || undefined
const progress = process.env.FUZZ_PROGRESS
/** Print each case's repro without running it (`FUZZ_PRINT` of fuzz/run.ts). */
const printOnly = process.env.FUZZ_PRINT === '1'


/** The one-line repro of a case: run it from the repository root. */
export function snippet(lines: Code[]): string {
  const body = lines.map((l) => l.replace(/\s*\n\s*/g, ' ')).join('; ')
  return `node --expose-gc -e "const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached, terminated, stale, done } = require('./fuzz/helpers.js'); (async () => { ${body.replace(/"/g, '\\"')}; await done() })()"`
}

/** FUZZ_PRINT: the case's statements (one a line) and its one-line repro, as a JSON line. */
function printed(lines: Code[]): void {
  console.log(JSON.stringify({ print: snippet(lines), lines }))
  // fast-check goes on past a path's case when it passes: the one asked for was the first.
  if (replayPath !== undefined) process.exit(0)
}

let runIndex = 0
function started(what: string): void {
  if (progress) appendFileSync(progress, JSON.stringify({ run: runIndex, what }) + '\n')
  runIndex++
}

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<void>
const prelude = 'const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached, terminated, stale } = h;\n'

/** Runs a case's statements on a fresh macrotask (so a `use()` in one case does not leak into the next). */
async function runCode(lines: Code[]): Promise<string[]> {
  h.take()
  const f = new AsyncFunction('h', prelude + lines.join('\n'))
  await new Promise<void>((resolve) => setImmediate(() => f(h).then(resolve, (e) => {
    h.take()
    throw new Error(`the case itself failed to run (a fuzzer bug): ${e?.stack ?? e}`)
  })))
  await h.settle()
  return h.take()
}

async function main(): Promise<void> {
  process.chdir(process.env.FUZZ_CWD ?? process.cwd())
  let prop: fc.IAsyncPropertyWithHooks<unknown[]>
  if (mode === 'api') {
    const s = api.surface(h.cuda as unknown as Record<string, unknown>)
    prop = fc.asyncProperty(api.cases(s), async (lines) => {
      started(snippet(lines))
      if (printOnly) return printed(lines)
      const bad = await runCode(lines)
      if (bad.length > 0) throw new Error(bad.join('\n'))
    }) as never
  } else if (mode === 'raw') {
    const exps = rawFuzz.rawExports(h.raw.bindingDeclarations().toString())
    prop = fc.asyncProperty(rawFuzz.cases(exps), async (lines) => {
      started(snippet(lines))
      if (printOnly) return printed(lines)
      const bad = await runCode(lines)
      if (bad.length > 0) throw new Error(bad.join('\n'))
    }) as never
  } else if (mode === 'model') {
    prop = fc.asyncProperty(model.commands(), async (cmds) => {
      started(`model sequence: ${[...cmds].map(String).join('; ')}`)
      if (printOnly) {
        console.log(JSON.stringify({ print: `model sequence: ${[...cmds].map(String).join('; ')}` }))
        if (replayPath !== undefined) process.exit(0)
        return
      }
      const bad = await model.runSequence(h.cuda, cmds).catch((e) => [`an operation of a valid sequence threw: ${e?.stack ?? e}`])
      const late = h.take()
      if (bad.length + late.length > 0) throw new Error([...bad, ...late].join('\n'))
    }) as never
  } else throw new Error(`FUZZ_MODE must be api, raw or model, got ${mode}`)

  const out = await fc.check(prop, { seed, numRuns, path: replayPath, endOnFailure: replayPath !== undefined, interruptAfterTimeLimit: Number(process.env.FUZZ_BATCH_MS ?? 0) || undefined })
  if (out.failed) {
    const example = out.counterexample?.[0]
    const repro = mode === 'model' ? `model sequence: ${[...(example as Iterable<unknown>)].map(String).join('; ')}` : snippet(example as Code[])
    const error = String((out.errorInstance as Error | undefined)?.message ?? (out as { error?: unknown }).error).split('\n').slice(0, 6).join(' | ')
    console.log(JSON.stringify({ failed: true, mode, seed, path: out.counterexamplePath, error, repro, runs: out.numRuns }))
    process.exitCode = 1
  } else console.log(JSON.stringify({ failed: false, mode, seed, runs: out.numRuns, workers: h.stats.workers }))
}

main().catch((e) => {
  console.log(JSON.stringify({ failed: true, mode, seed, error: `harness: ${e?.stack ?? e}` }))
  process.exitCode = 1
})
