// Repeats the scenarios of the two tests seen failing only in whole-suite GPU runs, to tell a bug
// from load: `node scripts/gpu/flaky.js while N` (a CUDA C kernel sets a while node's condition:
// graph-builder.spec), `node scripts/gpu/flaky.js legacy N` (a non-blocking stream and the legacy
// stream: stream.spec), `node scripts/gpu/flaky.js load SECONDS` (other work on the GPU: sleeps
// on several streams, allocations, modules loaded and unloaded). Prints one JSON line a case and
// a summary; exits 1 where a case failed. Run on the GPU machine with the package built.
'use strict'
const { readFileSync } = require('node:fs')
const path = require('node:path')
const cuda = require('../..')
const { RawKernel, GraphBuilder, Stream, alloc, i32, kernels, backend } = cuda

const MS = 1e6
const [mode = 'while', arg = '50'] = process.argv.slice(2)
const n = Number(arg)

const SET_FROM_KERNEL = readFileSync(path.join(__dirname, '../../__test__/fixtures/while-step.cu'), 'utf8')

function whileCase(i) {
  const k = new RawKernel(SET_FROM_KERNEL, 'step')
  const counter = alloc(4)
  counter.copyFromHost(new Int32Array([0]))
  const b = new GraphBuilder()
  const c = b.condition({ default: 1 })
  b.addWhile(c, (body) => body.addKernel(k, { grid: 1, block: 1 }, [c.handle, counter, i32(1000)]))
  const g = b.instantiate()
  g.launch()
  Stream.null.synchronize()
  const out = new Int32Array(1)
  counter.copyToHost(out)
  return { i, ok: out[0] === 1000, value: out[0] }
}

function legacyCase(i) {
  // As stream.spec: the legacy stream sleeps 100 ms; a fill on a non-blocking stream must not wait.
  const s = new Stream({ nonBlocking: true })
  const p = alloc(64)
  Stream.null.synchronize()
  const t0 = performance.now()
  kernels.sleep(100 * MS, Stream.null)
  const t1 = performance.now()
  kernels.fill(p, 1, 16, 'float32', s)
  const t2 = performance.now()
  s.synchronize()
  const t3 = performance.now()
  // Ordering: when the non-blocking stream is done, the legacy stream's sleep must still run.
  const legacyBusy = !Stream.null.done
  Stream.null.synchronize()
  const t4 = performance.now()
  s.destroy()
  const r = (x) => Math.round(x * 10) / 10
  return { i, ok: t3 - t0 < 60, legacyBusy, sleep: r(t1 - t0), fill: r(t2 - t1), sync: r(t3 - t2), total: r(t3 - t0), legacyDone: r(t4 - t0) }
}

function load(seconds) {
  const end = Date.now() + seconds * 1000
  const streams = [0, 1, 2].map(() => new Stream({ nonBlocking: true }))
  let rounds = 0
  while (Date.now() < end) {
    for (const s of streams) kernels.sleep(5 * MS, s)
    kernels.sleep(3 * MS, Stream.null)
    const blocks = []
    for (let j = 0; j < 8; j++) blocks.push(alloc(1 << (20 + (j % 6))))
    for (const p of blocks) p.free()
    const k = new RawKernel(`extern "C" __global__ void l${rounds}(int *p) { p[0] = ${rounds}; }`, `l${rounds}`)
    const q = alloc(4)
    k.launch(1, 1, [q])
    for (const s of streams) s.synchronize()
    Stream.null.synchronize()
    rounds++
    if (global.gc && rounds % 10 === 0) global.gc()
  }
  return { rounds }
}

if (mode === 'load') {
  console.log(JSON.stringify({ mode, backend: backend(), ...load(n) }))
} else {
  const f = mode === 'while' ? whileCase : legacyCase
  // The built-in kernels' first launch in a process loads them (a PTX JIT): timed apart, once.
  const w0 = performance.now()
  kernels.fill(alloc(64), 0, 16, 'float32', Stream.null)
  kernels.sleep(1, Stream.null)
  Stream.null.synchronize()
  console.log(JSON.stringify({ mode, firstBuiltInLaunchMs: Math.round((performance.now() - w0) * 10) / 10 }))
  let failed = 0
  const rows = []
  for (let i = 0; i < n; i++) {
    let r
    try {
      r = f(i)
    } catch (e) {
      r = { i, ok: false, error: `${e.code ?? ''} ${e.message}` }
      console.log(JSON.stringify({ mode, ...r }))
      failed++
      break // a sticky error ends the context
    }
    if (!r.ok || mode === 'legacy') console.log(JSON.stringify({ mode, ...r }))
    if (!r.ok) failed++
    rows.push(r)
  }
  const busy = rows.filter((r) => r.legacyBusy === false).length
  console.log(JSON.stringify({ mode, pid: process.pid, cases: rows.length, failed, ...(mode === 'legacy' ? { legacyDoneFirst: busy } : {}) }))
  process.exit(failed > 0 ? 1 : 0)
}
