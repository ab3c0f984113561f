import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { root } from './helpers'

const typedoc = path.join(root, 'node_modules/typedoc/bin/typedoc')
const docsTest: typeof test = existsSync(typedoc)
  ? test
  : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (TypeDoc is not installed here)`, ...rest)) as any)

docsTest('every export is documented: TypeDoc validates the API with warnings as errors', (t) => {
  const r = spawnSync(process.execPath, [typedoc, '--emit', 'none'], { cwd: root, encoding: 'utf8', timeout: 120_000 })
  t.is(r.status, 0, `${r.stdout}\n${r.stderr}`)
  t.notRegex(r.stdout + r.stderr, /\[warning\]|\[error\]/)
})
