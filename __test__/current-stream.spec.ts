import test from 'ava'
import { setTimeout as sleep } from 'node:timers/promises'
import { alloc, Event, getCurrentStream, kernels, Stream } from '..'
import { runJson } from './helpers'

test('the default current stream is Stream.null', (t) => {
  t.is(getCurrentStream(), Stream.null)
})

test('run() makes a stream current for fn and what it awaits, then restores it', async (t) => {
  const s = new Stream()
  await s.run(async () => {
    t.is(getCurrentStream(), s)
    await sleep(5)
    t.is(getCurrentStream(), s)
  })
  t.is(getCurrentStream(), Stream.null)
})

test('two interleaved async tasks keep their own current streams across awaits', async (t) => {
  const a = new Stream()
  const b = new Stream()
  const seen: string[] = []
  const task = (name: string, s: Stream, delays: number[]) =>
    s.run(async () => {
      for (const ms of delays) {
        await sleep(ms)
        seen.push(`${name}:${getCurrentStream() === s}`)
      }
    })
  await Promise.all([task('a', a, [5, 1, 8, 2]), task('b', b, [1, 6, 1, 5])])
  t.is(seen.length, 8)
  t.true(seen.every((x) => x.endsWith(':true')), seen.join(' '))
})

test('work with no explicit stream goes to the current stream', (t) => {
  const s = new Stream({ nonBlocking: true })
  const p = alloc(4 * 256)
  s.run(() => {
    kernels.sleep(300e6)
    kernels.fill(p, 5, 256)
    const e = new Event().record()
    t.false(e.done, 'the event was recorded behind the sleep on the current stream')
    t.false(s.done)
  })
  s.synchronize()
  const out = new Float32Array(256)
  p.copyToHost(out)
  t.is(out[255], 5)
})

test('use() sets the current stream for the rest of the async context only', (t) => {
  const r = runJson(`
    const { Stream, getCurrentStream } = cuda;
    const s = new Stream();
    const before = (async () => { await null; return getCurrentStream() === Stream.null })();
    s.use();
    const mine = getCurrentStream() === s;
    before.then((other) => console.log(JSON.stringify({ mine, other })));
  `)
  t.deepEqual(r, { mine: true, other: true })
})

test('enter() with using restores the previous stream at the end of the block', (t) => {
  const s = new Stream()
  {
    using _ = s.enter()
    t.is(getCurrentStream(), s)
  }
  t.is(getCurrentStream(), Stream.null)
})

test('the current stream is per device', (t) => {
  const r = runJson(
    `const { Stream, Device, getCurrentStream } = cuda;
     const s1 = new Device(1).run(() => new Stream());
     const out = new Device(1).run(() => s1.run(() => ({ dev0: getCurrentStream(0) === Stream.null, dev1: getCurrentStream(1) === s1, s1dev: s1.deviceId })));
     let refused = 'no';
     try { s1.use() } catch (e) { refused = e.code }
     let refusedRun = 'no';
     try { s1.run(() => {}) } catch (e) { refusedRun = e.code }
     console.log(JSON.stringify({ ...out, refused, refusedRun, after: getCurrentStream() === Stream.null }))`,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.deepEqual(r, { dev0: true, dev1: true, s1dev: 1, refused: 'CUDA_ERROR_INVALID_CONTEXT', refusedRun: 'CUDA_ERROR_INVALID_CONTEXT', after: true })
})

test('leaving a nested scope restores the enclosing scope\'s stream, not one use() set inside it (cupy/cupy#5143)', (t) => {
  const [s1, s2, s3] = [new Stream(), new Stream(), new Stream()]
  const seen: Stream[] = []
  s1.run(() => {
    s2.use()
    seen.push(getCurrentStream())
    s3.run(() => seen.push(getCurrentStream()))
    seen.push(getCurrentStream())
  })
  seen.push(getCurrentStream())
  t.deepEqual(seen, [s2, s3, s1, Stream.null])
})

test('CUDA_NODE_PER_THREAD_DEFAULT_STREAM=1 makes Stream.ptds the default current stream', (t) => {
  const r = runJson(`console.log(JSON.stringify(cuda.getCurrentStream() === cuda.Stream.ptds))`, {
    CUDA_NODE_PER_THREAD_DEFAULT_STREAM: '1',
  })
  t.true(r)
})
