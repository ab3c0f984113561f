import test from 'ava'
import { runNode } from './helpers'

const busy = `
  const { Stream, Event, alloc, allocPinned, kernels, mallocPlain } = cuda;
  const s = new Stream({ nonBlocking: true });
  const p = alloc(1 << 20); const q = mallocPlain(1 << 20); const pinned = allocPinned(1 << 20);
  kernels.sleep(300e6, s);
  p.copyFromHostAsync(pinned, undefined, s);
  new Event().record(s);
  const g = s.capture(() => kernels.fill(q, 1, 16));
  g.launch(s);
  const open = new Stream({ nonBlocking: true });
  open.beginCapture();          // never ended
  kernels.sleep(1000, open);
`

test('a script that ends with work in flight, a pending callback, an open capture and undisposed objects exits cleanly', (t) => {
  const r = runNode(`${busy}
    s.launchHostFunc(() => console.log('callback ran'));`)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'callback ran')
})

test('process.exit() with all of that in flight exits with its code, no abort', (t) => {
  const r = runNode(`${busy}
    s.launchHostFunc(() => console.log('never'));
    process.exit(0);`)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), '')
})

test('an uncaught error with all of that in flight fails the process normally, no abort', (t) => {
  const r = runNode(`${busy}
    setTimeout(() => { throw new Error('boom') }, 10);`)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 1)
  t.regex(r.stderr, /Error: boom/)
})
