import test from 'ava'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { root } from './helpers'

const run = spawnSync(process.execPath, [path.join(__dirname, 'fixtures/bad-input-table.js'), root], { encoding: 'utf8', timeout: 120_000 })

test('the bad-input table runs in a child process that exits normally', (t) => {
  t.is(run.signal, null, run.stderr)
  t.is(run.status, 0, run.stderr)
})

const results: any[] = run.status === 0 ? JSON.parse(run.stdout.trim().split('\n').pop()!) : []

test('the table has at least 40 cases', (t) => {
  t.true(results.length >= 40, `${results.length} cases`)
})

for (const r of results) {
  test(`bad input: ${r.name} → ${r.wantCls}${r.wantCode ? ` ${r.wantCode}` : ''}`, (t) => {
    t.true(r.threw, 'it must throw')
    t.is(r.cls, r.wantCls, r.message)
    if (r.wantCode) t.is(r.code, r.wantCode, r.message)
  })
}
