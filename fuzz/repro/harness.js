// What a standalone repro script (fuzz/repro/*.js, written by `FUZZ_SCRIPT=… FUZZ_PRINT=…
// npm run fuzz`) runs its cases with: the cases of one fuzz batch, in order, each as the fuzz
// child runs it (a fresh macrotask, then its promises and host callbacks settled, then the
// violations it left printed), every statement announced before it runs.
//
// The script runs itself again as a child process and watches it from here: a statement that
// blocks the JS thread stops every timer of that thread, so the watchdog lives in this parent.
// No output for WATCHDOG_MS: it prints the statement the child is stuck in, kills it and exits 3.
// A crash (a signal, an abort): it prints the statement that was running and exits 2. A violation
// of the fuzzer's rules (an untyped error, a promise that never settled): exit 1. The script's own
// failure: exit 4. Otherwise 0.
'use strict'
const { spawn } = require('node:child_process')
const { mkdtempSync, rmSync, writeSync } = require('node:fs')
const { tmpdir } = require('node:os')
const path = require('node:path')

const WATCHDOG_MS = 30_000
const CHILD = 'CUDA_NODE_REPRO_CHILD'

/** One progress line from the child: `@@ <case> <statement> <text>`. */
function announce(c, i, text) {
  writeSync(1, `@@ ${c} ${i} ${text.replace(/\s*\n\s*/g, ' ')}\n`)
}

/**
 * Runs `cases` as the fuzz child would, or, in the parent, runs this script (`file`) as that child
 * under the watchdog. Each case is `[n, statements, body]`: its index in the batch, its statements'
 * text, and an async function `(h, at)` that runs them, calling `at(i)` before statement `i`.
 * `title` says what the cases are and where they came from.
 */
function repro(file, title, cases) {
  if (process.env[CHILD] !== '1') return watch(file, title)
  const h = require('../helpers.js')
  process.chdir(mkdtempSync(path.join(tmpdir(), 'cuda-node-repro-')))
  const scratch = process.cwd()
  process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))
  let violations = 0
  ;(async () => {
    for (const [n, statements, body] of cases) {
      h.take()
      // A fresh macrotask, as fuzz/child.ts runs a case.
      await new Promise((resolve, reject) => setImmediate(() => body(h, (i) => announce(n, i, statements[i])).then(resolve, reject)))
      announce(n, 'settle', 'its promises and host callbacks settling (helpers.js settle)')
      await h.settle()
      const bad = h.take()
      violations += bad.length
      writeSync(1, `   case ${n}: ${bad.length === 0 ? 'no violation' : bad.join('\n      ')}\n`)
    }
    announce('end', 'exit', 'every case ran; the process exits')
    process.exitCode = violations > 0 ? 1 : 0
  })().catch((e) => {
    writeSync(1, `the repro itself failed to run: ${e?.stack ?? e}\n`)
    process.exitCode = 4
  })
}

function watch(file, title) {
  console.log(`${title}\nbackend: ${require('../..').backend().name}; watchdog ${WATCHDOG_MS / 1000} s per statement\n`)
  const env = {
    ...process.env,
    [CHILD]: '1',
    // As the fuzzer's children run: two simulated devices of 256 MiB (ignored by the GPU backend).
    CUDA_NODE_SIM_DEVICES: process.env.CUDA_NODE_SIM_DEVICES ?? '2',
    CUDA_NODE_SIM_MEMORY: process.env.CUDA_NODE_SIM_MEMORY ?? String(256 << 20),
  }
  const child = spawn(process.execPath, ['--expose-gc', file], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  let last = '(before the first statement)'
  let since = Date.now()
  let stuck = false
  let rest = ''
  child.stdout.on('data', (d) => {
    process.stdout.write(d)
    since = Date.now()
    rest += d
    const lines = rest.split('\n')
    rest = lines.pop()
    for (const l of lines) if (l.startsWith('@@ ')) last = l.slice(3)
  })
  const timer = setInterval(() => {
    if (Date.now() - since < WATCHDOG_MS) return
    stuck = true
    console.log(`\nHANG: no progress for ${WATCHDOG_MS / 1000} s; stuck in case ${last}`)
    child.kill('SIGKILL')
  }, 500)
  child.on('close', (code, signal) => {
    clearInterval(timer)
    if (stuck) process.exit(3)
    if (code === 4) process.exit(4)
    if (signal !== null || (code !== 0 && code !== 1)) {
      console.log(`\nCRASH: the process ended with ${signal ?? `exit code ${code}`}; it was running case ${last}`)
      process.exit(2)
    }
    console.log(code === 0 ? '\nno crash, no hang, no violation' : '\nno crash, no hang; violations above')
    process.exit(code)
  })
}

module.exports = { repro }
