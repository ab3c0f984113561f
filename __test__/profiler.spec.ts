import test from 'ava'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { alloc, Event, getElapsedTime, kernels, nvtx, profiler, RawKernel, Stream } from '..'
import { scratchDir } from './helpers'

test.serial('start and stop bracket a profile, and profile() stops on errors too', async (t) => {
  t.false(profiler.isActive())
  profiler.start()
  t.true(profiler.isActive())
  profiler.stop()
  t.false(profiler.isActive())
  t.is(profiler.profile(() => 3), 3)
  t.throws(() => profiler.profile(() => { throw new Error('e') }), { message: 'e' })
  t.false(profiler.isActive())
  await profiler.profile(async () => t.true(profiler.isActive()))
  t.false(profiler.isActive())
})

test.serial('trace writes a Chrome trace and an SVG with a lane per stream and the host\'s NVTX ranges', async (t) => {
  const dir = scratchDir('cuda-node-trace-')
  const file = path.join(dir, 'run.json')
  const s1 = new Stream({ nonBlocking: true })
  const s2 = new Stream({ nonBlocking: true })
  const p = alloc(1 << 20)
  const host = new Uint8Array(1 << 20)
  const before = performance.now()
  const { result, slices } = await profiler.trace(
    async () => {
      nvtx.rangePush('setup')
      p.copyFromHostAsync(host, undefined, s1)
      kernels.fill(p, 1, 1024, 'float32', s1)
      nvtx.rangePop()
      kernels.sleep(10e6, s2)
      p.memsetAsync(0, 64, s2)
      await nvtx.range('wait', () => Promise.all([s1.synchronizeAsync(), s2.synchronizeAsync()]))
      return 'done'
    },
    { path: file },
  )
  const wall = performance.now() - before
  t.is(result, 'done')
  const trace = JSON.parse(readFileSync(file, 'utf8'))
  const names = trace.traceEvents.filter((e: any) => e.ph === 'M' && e.name === 'thread_name').map((e: any) => e.args.name)
  t.is(names.length, 3)
  t.true(names.includes('host (NVTX)'))
  const x = trace.traceEvents.filter((e: any) => e.ph === 'X').map((e: any) => e.name)
  for (const n of ['copy H2D 1048576 B', 'kernels.fill 1024 × float32', 'kernels.sleep 10 ms', 'memset 64 B', 'setup', 'wait']) t.true(x.includes(n), n)
  // The sleep's slice covers the sleep and nothing more, whatever the load on the machine: it
  // lasts at least the 10 ms slept, it lies inside the span the host measured around the trace,
  // and the memset queued behind it on the same stream starts only once it has ended.
  const sleep = slices.find((s) => s.name.startsWith('kernels.sleep'))!
  const memset = slices.find((s) => s.name === 'memset 64 B')!
  t.true(sleep.duration >= 9, `${sleep.duration} ms`)
  t.true(sleep.start >= 0 && sleep.start + sleep.duration <= wall, `slice ${sleep.start} + ${sleep.duration} ms, trace ${wall} ms`)
  t.is(memset.lane, sleep.lane)
  t.true(memset.start >= sleep.start + sleep.duration - 0.01, `memset at ${memset.start} ms, sleep ended at ${sleep.start + sleep.duration} ms`)
  const svg = readFileSync(path.join(dir, 'run.svg'), 'utf8')
  t.regex(svg, /^<svg/)
  t.regex(svg, /host \(NVTX\)/)
  t.regex(svg, /kernels\.sleep/)
})

test.serial('a slice lasts at least the work it times and no longer than getElapsedTime measures around it', async (t) => {
  const s = new Stream({ nonBlocking: true })
  let around = 0
  const { slices } = await profiler.trace(
    async () => {
      const a = new Event().record(s)
      kernels.sleep(30e6, s)
      const b = new Event().record(s)
      await b.synchronizeAsync()
      around = getElapsedTime(a, b)
    },
    { path: path.join(scratchDir('cuda-node-trace-'), 't.json') },
  )
  const sleep = slices.find((x) => x.name.startsWith('kernels.sleep'))!
  // Bracketed both ways, which holds under load: the 30 ms sleep itself below, the events recorded
  // just before and after it above (a busy machine widens that span, never the slice past it).
  t.true(sleep.duration >= 30 * 0.98, `slice ${sleep.duration} ms, shorter than the 30 ms sleep`)
  t.true(sleep.duration <= around * 1.02 + 0.5, `slice ${sleep.duration} ms, longer than the events around it measured (${around} ms)`)
})

test.serial('trace ends the trace when fn throws, and traces do not nest', async (t) => {
  const file = path.join(scratchDir('cuda-node-trace-'), 'x.json')
  await t.throwsAsync(profiler.trace(() => { throw new Error('in trace') }, { path: file }), { message: 'in trace' })
  await t.throwsAsync(
    profiler.trace(() => profiler.trace(() => 1, { path: file }), { path: file }),
    { message: /already under way/ },
  )
  await t.throwsAsync(profiler.trace(() => 1, {} as any), { instanceOf: TypeError })
  const k = new RawKernel('extern "C" __global__ void k() {}', 'k', { simulate: () => {} })
  t.truthy(k)
})
