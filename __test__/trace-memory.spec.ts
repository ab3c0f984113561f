// Memory counter tracks in the timeline (issue 37, part 5): `profiler.trace` samples each device's
// memory in use and reserved at each allocation and free, writes them as Chrome trace counters
// (Perfetto draws a track a device) and draws them under the stream lanes of the SVG.
import test from 'ava'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { kernels, mallocPlain, MemoryPool, profiler, Stream } from '..'
import { scratchDir } from './helpers'

test.serial('a trace carries the memory in use and reserved, per device, as counter tracks', async (t) => {
  const file = path.join(scratchDir('trace-memory-'), 't.json')
  const pool = new MemoryPool()
  const s = new Stream()
  const { counters, svg } = await profiler.trace(async () => {
    const a = s.run(() => pool.malloc(4 << 20))
    kernels.fill(a, 1, 1 << 20, 'float32', s)
    const b = mallocPlain(1 << 20)
    await s.synchronizeAsync()
    a.mem.free()
    b.mem.free()
  }, { path: file })
  t.true(counters.length >= 4, `${counters.length} samples`)
  t.true(counters.every((c) => c.device === 0 && c.time >= 0))
  const peak = Math.max(...counters.map((c) => c.inUse))
  t.true(peak >= (4 << 20) + (1 << 20), `in use peaked at ${peak}`)
  t.true(counters.every((c) => c.reserved >= 0))
  t.true(Math.max(...counters.map((c) => c.reserved)) >= 5 << 20, 'reserved covers what was allocated')
  t.is(counters.at(-1)!.inUse, 0, 'all freed by the end')

  const trace = JSON.parse(readFileSync(file, 'utf8'))
  const c = trace.traceEvents.filter((e: any) => e.ph === 'C')
  t.is(c.length, counters.length)
  t.is(c[0].name, 'memory, device 0 (MiB)')
  t.deepEqual(Object.keys(c[0].args).sort(), ['inUse', 'reserved'])
  t.true(trace.traceEvents.some((e: any) => e.ph === 'X'), 'the slices are still there')

  t.regex(svg, /<g class="memory" data-device="0">/)
  t.regex(svg, /<polygon class="in-use" points="[\d.,\s]+"/)
  t.regex(svg, /<polyline class="reserved"/)
  t.is(readFileSync(file.replace(/\.json$/, '.svg'), 'utf8'), svg)
})

test.serial('off a trace nothing listens for memory', async (t) => {
  const { memoryChannels } = await import('..')
  await profiler.trace(() => undefined, { path: path.join(scratchDir('trace-memory-'), 'u.json') })
  t.false(memoryChannels.alloc.hasSubscribers)
  t.false(memoryChannels.free.hasSubscribers)
})
