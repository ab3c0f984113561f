import test from 'ava'
import { AsyncLocalStorage } from 'node:async_hooks'
import { getCurrentStream, kernels, pendingCallbacks, Stream } from '..'
import { runNode } from './helpers'

test.serial('host functions run on the JS thread in stream order, after earlier work', async (t) => {
  const s = new Stream()
  const order: number[] = []
  const start = performance.now()
  let firstAt = 0
  kernels.sleep(50e6, s)
  await new Promise<void>((resolve) => {
    for (let i = 0; i < 20; i++) {
      s.launchHostFunc((x: number) => {
        if (x === 0) firstAt = performance.now() - start
        order.push(x)
        if (x === 19) resolve()
      }, i)
    }
  })
  t.deepEqual(order, [...Array(20).keys()])
  t.true(firstAt >= 45, `ran after ${firstAt} ms, before the 50 ms sleep ended`)
  t.is(pendingCallbacks(), 0)
})

test('addCallback passes the stream, a null error and the argument', async (t) => {
  const s = new Stream()
  const got = await new Promise<unknown[]>((resolve) => s.addCallback((st, err, arg) => resolve([st, err, arg]), 'x'))
  t.is(got[0], s)
  t.is(got[1], null)
  t.is(got[2], 'x')
})

test('a blocked synchronize() does not deadlock behind a host function', (t) => {
  const s = new Stream()
  let ran = false
  s.launchHostFunc(() => (ran = true))
  kernels.sleep(10e6, s)
  s.synchronize()
  t.true(s.done)
  t.true(ran, 'the JS callback ran inside the synchronize, before it returned (#32.2)')
})

test('a pending callback keeps the process alive until it has run, and not after', (t) => {
  const r = runNode(`
    const s = new cuda.Stream();
    cuda.kernels.sleep(300e6, s);
    s.launchHostFunc(() => console.log('ran', cuda.pendingCallbacks()));
  `)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'ran 0')
  t.true(r.ms < 10_000)
})

test('an exception thrown by a callback reaches uncaughtException', (t) => {
  const r = runNode(`
    process.on('uncaughtException', (e) => { console.log('caught', e.message); });
    new cuda.Stream().launchHostFunc(() => { throw new Error('from the callback') });
  `)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'caught from the callback')
})

test('an uncaught exception in a callback fails the process like any other', (t) => {
  const r = runNode(`new cuda.Stream().launchHostFunc(() => { throw new Error('boom') });`)
  t.is(r.status, 1)
  t.regex(r.stderr, /Error: boom/)
})

test.serial('a non-function callback is a TypeError', (t) => {
  t.throws(() => new Stream().launchHostFunc(42 as any), { instanceOf: TypeError })
  t.throws(() => new Stream().addCallback(null as any), { instanceOf: TypeError })
  t.is(pendingCallbacks(), 0)
})

test('a host callback runs in the async context it was registered in', async (t) => {
  const s = new Stream()
  const inside = await s.run(
    () => new Promise<boolean>((resolve) => s.launchHostFunc(() => resolve(getCurrentStream() === s))),
  )
  t.true(inside)
})

test("a host callback sees the application's own AsyncLocalStorage store of where it was registered", async (t) => {
  const als = new AsyncLocalStorage<string>()
  const s = new Stream()
  const seen = await Promise.all(
    ['a', 'b'].map((v) => als.run(v, () => new Promise<string | undefined>((resolve) => s.launchHostFunc(() => resolve(als.getStore()))))),
  )
  t.deepEqual(seen, ['a', 'b'])
  t.is(als.getStore(), undefined)
})
