import test from 'ava'
import { runNode } from './helpers'

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
