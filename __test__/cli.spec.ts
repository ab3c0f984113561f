import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'

const cli = (args: string[]) =>
  spawnSync(process.execPath, [path.join(root, 'cli', 'cli.js'), ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, CUDA_NODE_BACKEND: 'sim' } })

test('cuda-node info prints the backend and each device as deviceQuery does', (t) => {
  const r = cli(['info'])
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /^backend: sim/)
  t.regex(r.stdout, /Device 0: "cuda-node simulator 0"/)
  t.regex(r.stdout, /max block dimensions:\s+\(1024, 1024, 64\)/)
})

test('cuda-node tour runs the tour and writes its timeline', (t) => {
  const out = scratchDir('cuda-node-cli-')
  const r = cli(['tour', out])
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /consumer saw 42 … 42/)
  t.true(existsSync(path.join(out, 'tour-trace.json')))
  t.true(existsSync(path.join(out, 'tour-trace.svg')))
})

test('cuda-node with no command prints its usage; an unknown one fails', (t) => {
  const none = cli([])
  t.is(none.status, 0)
  t.regex(none.stderr, /usage: cuda-node info \| tour/)
  t.is(cli(['frobnicate']).status, 2)
})
