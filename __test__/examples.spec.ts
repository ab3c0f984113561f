import test from 'ava'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { scratchDir } from './helpers'

const cases: [string, RegExp[]][] = [
  ['current-stream.ts', [/a: current stream is its own: true; data 1/, /b: current stream is its own: true; data 2/, /outside: Stream\.null/]],
  ['graphs.ts', [/after update the graph fills 7; host callback ran 3 times/]],
  ['pools.ts', [/alloc\(1000\) gives 1024 bytes/, /freed and reused: 0 free blocks, 1024 bytes held/, /with a cudaMalloc allocator: 1000 bytes/, /past the limit: CUDA_ERROR_OUT_OF_MEMORY/]],
  ['memory-hooks.ts', [/memory-hooks\.ts:\d+ +1 calls +67108864 bytes/, /memory-hooks\.ts:\d+ +10 calls +10485760 bytes/, /released to the driver: 68157440 bytes/]],
  ['nvtx.ts', [/traced \d+ slices: .*prepare.*compute/, /trace written to/]],
  ['kernels.ts', [/saxpy: 3 \* 2 \+ 1 = 7 \(all 65536: true\)/]],
  ['tour.ts', [/backend: sim/, /consumer saw 42 … 42/, /graph of 100 captured fills/, /host callback: ran/]],
]

for (const [file, expect] of cases) {
  test(`examples/${file} runs on the simulator`, (t) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'examples', file)], {
      // What an example writes (the tour's timeline, a trace) goes to the temporary directory.
      env: { ...process.env, CUDA_NODE_BACKEND: 'sim', TMPDIR: scratchDir('cuda-node-example-') },
      encoding: 'utf8',
      timeout: 60_000,
    })
    t.is(r.status, 0, r.stderr)
    for (const re of expect) t.regex(r.stdout, re)
  })
}

test('examples/events-and-timing.ts runs on the simulator and times its 25 ms sleep: at least that, and no longer than the run itself', (t) => {
  // A busy machine delays the sleep's end, never shortens it; so the bounds are the sleep itself
  // (less 2% for the GPU's timer, which is not the events' clock) and the wall time of the process.
  const started = performance.now()
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'examples', 'events-and-timing.ts')], {
    env: { ...process.env, CUDA_NODE_BACKEND: 'sim' },
    encoding: 'utf8',
    timeout: 60_000,
  })
  const wall = performance.now() - started
  t.is(r.status, 0, r.stderr)
  const elapsed = Number(/elapsed: (\d+\.\d) ms/.exec(r.stdout)?.[1])
  t.true(elapsed >= 24.5 && elapsed < wall, `elapsed ${elapsed} ms, process ${wall} ms`)
  t.regex(r.stdout, /s2 waited for s1: true/)
})
