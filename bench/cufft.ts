// `node --import tsx bench/cufft.ts`: a 2^24-point complex64 (c2c) forward FFT, ms per transform,
// ours (`cufft.Plan1d`, planned once, its work area from the pool) beside CuPy's `cupy.fft.fft`
// with its plan cached (bench/peers/cufft.py, run by /opt/torch/.venv/bin/python where it is;
// otherwise its row is skipped, saying why). Both time REPS transforms queued back to back on
// the current stream, then a synchronize; median of ROUNDS rounds. Both transform the same input
// (integers, exact in both languages), and the bench prints how far apart a sample of the two
// outputs is (relative to its RMS). The simulator runs it on the host, scaled down to 2^16.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { alloc, backend, cufft, getCurrentStream } from './package'
import { median } from './lib'

const sim = backend().name === 'sim'
const N = sim ? 1 << 16 : 1 << 24
const REPS = sim ? 2 : 20
const ROUNDS = 5
const SAMPLES = 1024
const PYTHON = '/opt/torch/.venv/bin/python'

const host = new Float32Array(2 * N)
for (let j = 0; j < N; j++) {
  host[2 * j] = ((j * 7919) % 1000) / 1000 - 0.5
  host[2 * j + 1] = ((j * 104729) % 997) / 997 - 0.5
}
const x = alloc(host.byteLength)
x.copyFromHost(host)
const y = alloc(host.byteLength)
const plan = new cufft.Plan1d(N, 'c2c')
plan.exec(x, y) // the first run, as CuPy's first call
const s = getCurrentStream()
s.synchronize()
const rounds: number[] = []
for (let r = 0; r < ROUNDS; r++) {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < REPS; i++) plan.exec(x, y)
  s.synchronize()
  rounds.push(Number(process.hrtime.bigint() - t0) / 1e6 / REPS)
}
const out = new Float32Array(2 * N)
y.copyToHost(out)
const step = Math.max(1, Math.floor(N / SAMPLES))
const ours = Array.from({ length: Math.min(SAMPLES, Math.ceil(N / step)) }, (_, k) => [out[2 * k * step], out[2 * k * step + 1]])
const rows: { peer: string; ms?: number; skipped?: string; note?: string }[] = [
  { peer: 'cuda-node', ms: median(rounds), note: `work area ${plan.workSize} bytes` },
]

let cupy: any
if (!existsSync(PYTHON)) {
  rows.push({ peer: 'cupy', skipped: `${PYTHON} is not here` })
} else {
  const r = spawnSync(PYTHON, [path.join(__dirname, 'peers', 'cufft.py'), String(N)], { encoding: 'utf8', maxBuffer: 1 << 26, timeout: 600_000 })
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? ''
  try {
    cupy = JSON.parse(line)
  } catch {
    cupy = { peer: 'cupy', skipped: `the CuPy peer failed (${r.status}): ${(r.stderr ?? '').trim().split('\n').pop()}` }
  }
  rows.push(cupy.skipped ? { peer: 'cupy', skipped: cupy.skipped } : { peer: 'cupy', ms: cupy.ms, note: `CuPy ${cupy.cupy}, cuFFT ${cupy.cufft}` })
}

let difference: number | undefined
if (cupy?.sample) {
  let num = 0
  let den = 0
  ours.forEach(([re, im], k) => {
    const [cr, ci] = cupy.sample[k]
    num += (re - cr) ** 2 + (im - ci) ** 2
    den += cr ** 2 + ci ** 2
  })
  difference = Math.sqrt(num / den)
}

console.log(`${N}-point c2c forward FFT on ${backend().name}${sim ? ' (scaled down: the simulator)' : ''}: ms per transform, median of ${ROUNDS} rounds of ${REPS}`)
for (const r of rows) console.log(`  ${r.peer.padEnd(10)} ${r.ms !== undefined ? `${r.ms.toFixed(3).padStart(9)} ms` : `skipped: ${r.skipped}`}${r.note ? `  (${r.note})` : ''}`)
if (difference !== undefined) console.log(`  outputs: a sample of ${ours.length} points differs from CuPy's by ${difference.toExponential(2)} (relative RMS)`)
console.log(JSON.stringify({ bench: 'cufft', backend: backend().name, n: N, rows, difference }))
plan.destroy()
