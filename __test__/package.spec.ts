import test from 'ava'
import { spawnSync } from 'node:child_process'
import { root } from './helpers'

test('import and require load one module instance, with the same exports', (t) => {
  const script = `
    import { createRequire } from 'node:module';
    import * as esm from ${JSON.stringify(root + '/index.mjs')};
    import def from ${JSON.stringify(root + '/index.mjs')};
    const cjs = createRequire(import.meta.url)(${JSON.stringify(root)});
    console.log(JSON.stringify({
      same: esm.Stream === cjs.Stream && def === cjs && esm.getCurrentStream === cjs.getCurrentStream,
      missing: Object.keys(cjs).filter((k) => !(k in esm)),
      stream: String(esm.getCurrentStream()),
    }));`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
  t.is(r.status, 0, r.stderr)
  t.deepEqual(JSON.parse(r.stdout), { same: true, missing: [], stream: '<Stream null>' })
})
