// The timeline reads well (#33.7): round tick values, a legend of the kinds present only, host
// callbacks drawn, labels that fit their slice or end in an ellipsis, and a graph launch of 100
// captured kernels wide enough to see and hover. The browser test (wasm.spec.ts) measures the
// same SVG as Chromium lays it out.
import test from 'ava'
import path from 'node:path'
import { alloc, kernels, profiler, Stream } from '..'
import { scratchDir } from './helpers'

/** The attributes of every `<tag …>` of `svg` with `class="cls"`, and the text each holds. */
function elements(svg: string, tag: string, cls: string): { attrs: Record<string, string>; text: string }[] {
  const re = new RegExp(`<${tag} class="${cls}"([^>]*)>([^<]*)`, 'g')
  return [...svg.matchAll(re)].map((m) => ({ attrs: Object.fromEntries([...m[1].matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])), text: m[2] }))
}

async function traceTour(): Promise<{ svg: string }> {
  const s = new Stream({ nonBlocking: true })
  const tiles = alloc(100 * 1024)
  return profiler.trace(
    async () => {
      kernels.sleep(30e6, s)
      kernels.fill(tiles, 1, 256, 'float32', s)
      const graph = s.capture(() => {
        for (let i = 0; i < 100; i++) kernels.fill(tiles.offset(i * 1024), i, 256, 'float32')
      })
      graph.launch(s)
      await new Promise<void>((resolve) => s.launchHostFunc(() => resolve()))
      kernels.sleep(7.3e6, s)
      await s.synchronizeAsync()
    },
    { path: path.join(scratchDir('timeline-'), 't.json') },
  )
}

test.serial('the timeline has round ticks, a legend of the kinds present, host callbacks, fitting labels and a visible graph launch', async (t) => {
  const { svg } = await traceTour()
  // Ticks: evenly spaced round values (1, 2 or 5 times a power of ten), from 0.
  const ticks = elements(svg, 'text', 'tick').map((e) => Number.parseFloat(e.text))
  t.true(ticks.length >= 4 && ticks.length <= 12, `${ticks.length} ticks`)
  t.is(ticks[0], 0)
  const step = ticks[1] - ticks[0]
  const mantissa = step / 10 ** Math.floor(Math.log10(step))
  t.true([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6), `step ${step}`)
  ticks.forEach((v, i) => t.true(Math.abs(v - i * step) < 1e-6, `tick ${i} reads ${v}`))
  // The legend: exactly the kinds drawn (no memset, memcpy or nvtx here).
  const cats = new Set(elements(svg, 'rect', 'slice').map((e) => e.attrs['data-cat']))
  const legend = [...svg.matchAll(/<g class="legend">.*?<text[^>]*>([^<]+)<\/text><\/g>/g)].map((m) => m[1])
  t.deepEqual([...legend].sort(), [...cats].sort())
  t.deepEqual([...cats].sort(), ['callback', 'graph', 'kernel'])
  // The host callback and the graph launch are drawn, the graph wide enough to hover.
  const slices = elements(svg, 'rect', 'slice')
  const graph = slices.find((e) => e.attrs['data-cat'] === 'graph')!
  t.true(Number(graph.attrs.width) >= 12, `graph launch ${graph.attrs.width} px wide`)
  t.regex(svg, /<title>graph launch: /)
  // A slice drawn wider than it lasts reaches into the next of its lane: no slice is drawn over
  // a narrower one of its row, so the narrow ones stay what the pointer finds.
  slices.forEach((a, i) => {
    for (const b of slices.slice(i + 1)) {
      if (a.attrs.y !== b.attrs.y) continue
      const [ax, aw, bx, bw] = [a.attrs.x, a.attrs.width, b.attrs.x, b.attrs.width].map(Number)
      if (bx < ax + aw && ax < bx + bw) t.true(bw <= aw, `a ${bw} px ${b.attrs['data-cat']} over a ${aw} px ${a.attrs['data-cat']}`)
    }
  })
  const callback = slices.find((e) => e.attrs['data-cat'] === 'callback')!
  t.true(Number(callback.attrs.width) >= 6, `host callback ${callback.attrs.width} px wide`)
  // Every label fits its slice (at 6.2 px a character, a generous width for 10 px sans-serif) or
  // was cut with an ellipsis.
  const labels = elements(svg, 'text', 'label')
  t.true(labels.length > 0)
  for (const l of labels) {
    const x = Number(l.attrs.x) - 3
    const slice = slices.find((e) => Math.abs(Number(e.attrs.x) - x) < 0.06 && Number(e.attrs.y) + 14 === Number(l.attrs.y))
    t.truthy(slice, `a slice under ${l.text}`)
    t.true(l.text.length * 6.2 <= Number(slice!.attrs.width) - 6 + 1e-9, `"${l.text}" in ${slice!.attrs.width} px`)
  }
  t.true(labels.some((l) => l.text.startsWith('kernels.sleep 30 ms')))
})
