// `node --import tsx bench/curand.ts`: 2^26 float32 normals on a stream (2^20 on the simulator),
// ms per call, ours (a Philox and, on the GPU, a XORWOW generator, `setStream` to a non-blocking
// stream) beside CuPy's (bench/peers/curand.py: the raw cupy.cuda.curand calls and
// cupy.random.RandomState), run with /opt/torch/.venv/bin/python where it is, else skipped saying
// so. Then the first words, uniforms and normals of a Philox generator seeded 1234, ours and
// CuPy's, and whether they are the same.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { alloc, backend, curand, Stream, type MemoryPointer } from './package'
import { median } from './lib'

const sim = backend().name === 'sim'
const LOG2 = sim ? 20 : 26
const N = 2 ** LOG2
const REPS = sim ? 3 : 20
const ROUNDS = 5
const PYTHON = '/opt/torch/.venv/bin/python'

interface Row {
  op: string
  ms: number
}

function ours(kind: 'philox' | 'xorwow', out: MemoryPointer, s: Stream): number {
  using g = curand.createGenerator(kind)
  g.setSeed(1234).setStream(s)
  const once = () => g.generateNormal(out, N, 0, 1)
  for (let i = 0; i < 3; i++) once()
  s.synchronize()
  return median(
    Array.from({ length: ROUNDS }, () => {
      const t0 = process.hrtime.bigint()
      for (let i = 0; i < REPS; i++) once()
      s.synchronize()
      return Number(process.hrtime.bigint() - t0) / 1e6 / REPS
    }),
  )
}

interface First {
  words: number[]
  uniform: number[]
  normal: number[]
}

function oursFirst(): First {
  using g = curand.createGenerator('philox')
  g.setSeed(1234)
  const p = alloc(32)
  const read = <T extends Uint32Array | Float32Array>(a: T): number[] => {
    p.copyToHost(a)
    return Array.from(a)
  }
  g.generate(p, 8)
  const words = read(new Uint32Array(8))
  g.setOffset(0).generateUniform(p, 8)
  const uniform = read(new Float32Array(8))
  g.setOffset(0).generateNormal(p, 8, 0, 1)
  const normal = read(new Float32Array(8))
  p.free()
  return { words, uniform, normal }
}

function cupy(): { rows: Row[]; first?: First; why?: string } {
  if (sim) return { rows: [], why: 'the simulator: CuPy needs a GPU' }
  if (!existsSync(PYTHON)) return { rows: [], why: `${PYTHON} is not here` }
  const r = spawnSync(PYTHON, [path.join(__dirname, 'peers', 'curand.py'), String(N), String(REPS)], { encoding: 'utf8', timeout: 600_000 })
  const rows: Row[] = []
  let first: First | undefined
  for (const line of (r.stdout ?? '').split('\n').filter((l) => l.startsWith('{'))) {
    const o = JSON.parse(line)
    if (o.first !== undefined) first = o.first
    else rows.push(o)
  }
  return rows.length > 0 ? { rows, first } : { rows, why: (r.stderr ?? '').trim().split('\n').slice(-1)[0] || `exit ${r.status}` }
}

const s = new Stream({ nonBlocking: true })
const out = alloc(4 * N)
const rows: Row[] = [{ op: 'ours: generateNormal (philox)', ms: ours('philox', out, s) }]
if (!sim) rows.push({ op: 'ours: generateNormal (xorwow)', ms: ours('xorwow', out, s) })
out.free()
const peer = cupy()
rows.push(...peer.rows.map((r) => ({ op: r.op, ms: r.ms })))
console.log(`curand on ${backend().name}: 2^${LOG2} float32 normals a call, ms (median of ${ROUNDS} rounds of ${REPS}), GB/s written`)
for (const r of rows) console.log(`${r.ms.toFixed(3).padStart(10)} ms  ${((N * 4) / r.ms / 1e6).toFixed(1).padStart(7)} GB/s  ${r.op}`)
if (peer.why !== undefined) console.log(`CuPy: not measured (${peer.why})`)
const mine = oursFirst()
console.log(`ours, Philox seeded 1234: words ${mine.words.slice(0, 4).join(' ')} …, uniforms ${mine.uniform.slice(0, 4).join(' ')} …, normals ${mine.normal.slice(0, 4).join(' ')} …`)
let same: Record<string, boolean | number> | undefined
if (peer.first !== undefined) {
  const f = peer.first
  same = {
    words: f.words.every((x, i) => x === mine.words[i]),
    uniform: f.uniform.every((x, i) => x === mine.uniform[i]),
    normalMaxDiff: Math.max(...f.normal.map((x, i) => Math.abs(x - mine.normal[i]))),
  }
  console.log(`CuPy's, the same: ${JSON.stringify(same)}`)
}
console.log(JSON.stringify({ bench: 'curand', backend: backend().name, n: N, rows, first: mine, cupyFirst: peer.first, same }))
