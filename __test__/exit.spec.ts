import test from 'ava'
import { nativeTest, runNode } from './helpers'

test('a script that uses a device exits by itself: nothing native holds the event loop', (t) => {
  const r = runNode(
    `const d = new cuda.Device(0);
     d.memInfo(); d.synchronize();
     d.synchronizeAsync().then(() => console.log('done', cuda.backend().name));`,
  )
  t.is(r.status, 0, r.stderr)
  t.is(r.signal, null)
  t.regex(r.stdout, /^done (cuda|sim)/)
  t.true(r.ms < 10_000, `took ${r.ms} ms`)
})

nativeTest('it loads the native addon file itself')('the addon loaded twice into one process (two copies of the package, as bundlers make) works and exits normally', (t) => {
  // Each load installs its own teardown hook: Node aborts the process when one (hook, argument)
  // pair is added twice to an environment, which is what a second load did.
  const r = runNode(`
    const file = require('node:path').join(${JSON.stringify(require('node:path').join(__dirname, '..'))}, require('node:fs').readdirSync(${JSON.stringify(require('node:path').join(__dirname, '..'))}).find((f) => /^cuda-node\\..*\\.node$/.test(f)));
    const a = { exports: {} }, b = { exports: {} };
    process.dlopen(a, file);
    process.dlopen(b, file);
    console.log(a.exports.deviceCount() >= 1 && b.exports.deviceCount() >= 1 ? 'both work' : 'no device');
  `)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'both work')
})
