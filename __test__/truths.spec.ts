// Small truths (#33.9): `cuda-node info` says what the simulator does (managed memory works
// there), every skipped test says why, and the README's addon size is the build's.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { mallocManaged } from '..'
import { root } from './helpers'

test('cuda-node info on the simulator says managed memory: yes, and mallocManaged works there', (t) => {
  const r = spawnSync(process.execPath, [path.join(root, 'cli/cli.js'), 'info'], { env: { ...process.env, CUDA_NODE_BACKEND: 'sim' }, encoding: 'utf8', timeout: 60_000 })
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /unified addressing, managed memory: yes, yes/)
  const m = mallocManaged(1024)
  t.is(m.size, 1024)
  m.free()
})

test('every skipped test says why, in its title', (t) => {
  const dir = path.join(root, '__test__')
  const bare: string[] = []
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    readFileSync(path.join(dir, f), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        // The one accepted form: (test.skip as any)(`${title} (why)`, ...rest).
        const uses = line.match(/\btest\.skip\b/g)?.length ?? 0
        const withReason = line.match(/\(test\.skip as any\)\(`\$\{title\} \(/g)?.length ?? 0
        if (uses > withReason && !/^\s*(\/\/|\*|\/\*\*)/.test(line)) bare.push(`${f}:${i + 1}: ${line.trim()}`)
      })
  }
  t.deepEqual(bare, [])
})

const addon = readdirSync(root).find((f) => f === 'cuda-node.linux-x64-gnu.node')
const sizeTest: typeof test = addon ? test : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (the README gives linux-x64's size: no linux-x64 build here)`, ...rest)) as any)

sizeTest('the README gives the size of the addon the build makes (linux-x64, stripped)', (t) => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8')
  const m = /\| ([\d.]+) MB addon \(linux-x64, stripped\) \|/.exec(readme)
  t.truthy(m, 'the README states the addon size')
  const mb = statSync(path.join(root, addon!)).size / 1e6
  t.true(Math.abs(mb - Number(m![1])) <= 0.15, `the build is ${mb.toFixed(2)} MB, the README says ${m![1]} MB`)
  t.true(existsSync(path.join(root, 'docs/benchmarks.md')))
})
