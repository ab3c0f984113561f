import test from 'ava'
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'

// .ci/run's totals count distinct tests: the same suite on three Node versions is one suite.
function totals(...logs: string[]): string {
  const dir = scratchDir('cuda-node-ci-')
  const files = logs.map((log, i) => {
    const f = path.join(dir, `ava-${i}.tap`)
    writeFileSync(f, log)
    return f
  })
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/ci-totals.js'), ...files], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return r.stdout.trim()
}

const tap = (...lines: string[]) => ['TAP version 13', ...lines, `1..${lines.length}`, '# tests n', ''].join('\n')

test('ci-totals counts each test once over the Node versions; a failure on any one of them fails it', (t) => {
  const node20 = tap('ok 1 - a › one', 'ok 2 - a › two', 'ok 3 - b › gpu only (GPU only: backend is sim) # SKIP', 'ok 4 - b › three')
  const node22 = tap('ok 1 - a › one', 'not ok 2 - a › two', '  ---', '  message: boom', '  ...', 'ok 3 - b › gpu only (GPU only: backend is sim) # SKIP', 'ok 4 - b › three')
  const node24 = tap('ok 1 - a › one', 'ok 2 - a › two', 'ok 3 - b › gpu only (GPU only: backend is sim) # SKIP', 'ok 4 - b › three', 'ok 5 - b › todo # TODO')
  t.is(totals(node20), '3 0 1')
  t.is(totals(node20, node22, node24), '2 1 2')
  t.is(totals(node22, node20), '2 1 1', 'order does not matter')
})

test('.ci/run runs the README\'s npm test, prints each Node version\'s result on its own line, runs the lint, and ends with one line of totals', (t) => {
  const run = readFileSync(path.join(root, '.ci/run'), 'utf8')
  t.regex(run, /^npm test -- --tap /m)
  t.regex(run, /results\+=\("\$label: \$p passed, \$f failed, \$s skipped"\)/)
  t.regex(run, /ava_tally "Node \$\(node --version\)"/)
  t.regex(run, /for major in 22 24; do/)
  t.regex(run, /if npm run lint /)
  t.regex(run, /cargo test --workspace --quiet -- --ignored/)
  t.regex(run, /node scripts\/ci-totals\.js "\$logs"\/ava-\*\.tap/)
  const tail = run.trimEnd().split('\n').slice(-2)
  t.deepEqual(tail, ['echo "$passed passed, $failed failed, $skipped skipped"', 'exit "$status"'])
})
