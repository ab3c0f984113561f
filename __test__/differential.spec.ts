import test from 'ava'
import fc from 'fast-check'
import { createHash } from 'node:crypto'
import path from 'node:path'
import * as cuda from '..'
import { gpuTest, runJson } from './helpers'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const ops = require('./fixtures/ops.js')

const digest = (bufs: Buffer[]) => createHash('sha256').update(Buffer.concat(bufs)).digest('hex')

test('random sequences over 3 streams end with the bytes a sequential model gives', (t) => {
  fc.assert(
    fc.property(ops.arbitraries(fc), (seq: unknown[]) => {
      const got = ops.run(cuda, seq)
      const want = ops.model(seq)
      return got.every((b: Buffer, i: number) => b.equals(want[i]))
    }),
    { numRuns: 60, seed: 20261122 },
  )
  t.pass()
})

gpuTest('the simulator and the GPU end with the same bytes, sequence by sequence', (t) => {
  const seqs = fc.sample(ops.arbitraries(fc), { numRuns: 40, seed: 7 })
  const onGpu = seqs.map((s) => digest(ops.run(cuda, s)))
  const onSim = runJson(
    `const ops = require(${JSON.stringify(path.join(__dirname, 'fixtures/ops.js'))});
     const seqs = ${JSON.stringify(seqs)};
     const { createHash } = require('node:crypto');
     console.log(JSON.stringify(seqs.map((s) => createHash('sha256').update(Buffer.concat(ops.run(cuda, s))).digest('hex'))));`,
    { CUDA_NODE_BACKEND: 'sim' },
  )
  t.deepEqual(onSim, onGpu)
  t.deepEqual(onGpu, seqs.map((s) => digest(ops.model(s))))
})
