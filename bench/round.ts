// One round of our measurements in a process of its own, as the floor and the peers each get one:
// run by bench/bench.ts (`node --import tsx bench/round.ts OUT.json [pipeline]`), it writes
// `{ backend, nvtxAttached, rows }` to OUT.json: the per-operation rows, or with `pipeline` the
// pipeline's (a process of its own too, as the peers' pipeline.py: after the other rows in the
// same process it read 1–3% slower than CuPy, and level with it alone). A process that lives across rounds, while the floor and the
// peers open contexts on the same GPU in between, measured its bare driver calls up to 3× slower
// from its second round on (bench/floor-probe.ts times that case).
import { writeFileSync } from 'node:fs'
import { measure, selected } from './lib'
import { backend, native } from './package'
import { pipeline } from './pipeline'

async function main(): Promise<void> {
  const [out, part] = process.argv.slice(2)
  if (out === undefined || (part !== undefined && part !== 'pipeline')) throw new Error('usage: node --import tsx bench/round.ts OUT.json [pipeline]')
  const rows = part === 'pipeline' ? (backend().name === 'cuda' && selected('pipeline') ? pipeline() : []) : await measure()
  writeFileSync(out, JSON.stringify({ backend: backend().name, nvtxAttached: native.nvtxAttached(), rows }))
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
