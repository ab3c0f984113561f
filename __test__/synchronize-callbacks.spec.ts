// A synchronize waits for the stream's host functions, JS included (#32.2): in CUDA (and CuPy)
// synchronizing a stream waits for its host functions, and here their JS runs on the JS thread,
// so a blocking synchronize() (stream, event, device) runs those that became due while it
// waited, before it returns; synchronizeAsync() resolves after them.
import test from 'ava'
import { Device, getCurrentStream, kernels, pendingCallbacks, Stream } from '..'
import { runNode } from './helpers'

test('stream.synchronize() returns after the JS of its host functions has run', (t) => {
  const s = new Stream()
  const order: number[] = []
  kernels.sleep(20e6, s)
  for (let i = 0; i < 5; i++) s.launchHostFunc((x: number) => order.push(x), i)
  s.synchronize()
  t.deepEqual(order, [0, 1, 2, 3, 4])
  t.is(pendingCallbacks(), 0)
})

test('event.synchronize() runs the host functions queued before the record', (t) => {
  const s = new Stream()
  let ran = false
  kernels.sleep(10e6, s)
  s.launchHostFunc(() => (ran = true))
  const e = s.record()
  e.synchronize()
  t.true(ran)
})

test('device.synchronize() runs the host functions of every stream', (t) => {
  const a = new Stream(), b = new Stream({ nonBlocking: true })
  const seen: string[] = []
  kernels.sleep(10e6, a)
  a.launchHostFunc(() => seen.push('a'))
  b.launchHostFunc(() => seen.push('b'))
  new Device().synchronize()
  t.deepEqual(seen.sort(), ['a', 'b'])
})

test('synchronizeAsync() resolves after the JS of the host functions it waited for', async (t) => {
  const s = new Stream()
  let ran = false
  kernels.sleep(20e6, s)
  s.launchHostFunc(() => (ran = true))
  await s.synchronizeAsync()
  t.true(ran)
})

test('a host function run by synchronize() sees the current stream of where it was launched', (t) => {
  const s = new Stream()
  let inside: boolean | undefined
  s.run(() => s.launchHostFunc(() => (inside = getCurrentStream() === s)))
  s.synchronize()
  t.true(inside)
})

test('an exception thrown by a host function run inside synchronize() reaches uncaughtException; synchronize returns', (t) => {
  const r = runNode(`
    process.on('uncaughtException', (e) => { console.log('caught', e.message) });
    const s = new cuda.Stream();
    cuda.kernels.sleep(10e6, s);
    s.launchHostFunc(() => { throw new Error('from the callback') });
    s.launchHostFunc(() => console.log('second ran'));
    s.synchronize();
    console.log('returned');
  `)
  t.is(r.status, 0, r.stderr)
  t.deepEqual(r.stdout.trim().split('\n'), ['second ran', 'returned', 'caught from the callback'])
})
