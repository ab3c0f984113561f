// The tour's timeline as Chromium draws it in the browser page (#33.7): examples/browser/smoke.mjs
// runs the tour on the WebAssembly build in headless Chromium, screenshots the timeline alone and
// reports what the browser laid out. Round ticks, a legend of the kinds present, the host
// callback drawn, every label inside its slice (cut with an ellipsis where it would not fit), and
// the launch of the 100-kernel graph wide enough to see and on top where the pointer hovers.
// Skips, saying why, where the WebAssembly build or Chromium is absent (as wasm.spec.ts does).
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'

const built = existsSync(path.join(root, 'npm/wasm32-wasi/cuda-node.wasm32-wasi.wasm'))
const chromium = process.env.CHROMIUM ?? 'chromium'
const hasChromium = spawnSync(chromium, ['--version'], { encoding: 'utf8' }).status === 0
const why = !built ? 'no WebAssembly build: npm run build:wasm' : !hasChromium ? `no ${chromium} to open the page: apt-get install chromium` : undefined
const browserTest: typeof test = why ? (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (${why})`, ...rest)) as any) : test

/** PNG width and height, from its IHDR chunk. */
function pngSize(png: Buffer): [number, number] {
  return [png.readUInt32BE(16), png.readUInt32BE(20)]
}

browserTest('the timeline in the browser page: round ticks, a legend of what is drawn, the host callback, labels inside their slices, a hoverable graph launch', (t) => {
  const node = (args: string[], timeout: number) => spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout })
  const b = node(['examples/browser/build.mjs'], 60_000)
  t.is(b.status, 0, b.stderr)
  const dir = scratchDir('browser-timeline-')
  const shot = path.join(dir, 'tour.png')
  const timelineShot = path.join(dir, 'timeline.png')
  const r = node(['--experimental-websocket', 'examples/browser/smoke.mjs', shot, timelineShot], 120_000)
  t.is(r.status, 0, `${r.stdout}\n${r.stderr}`)
  const lines = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))
  const tl = lines.find((l) => l.timeline)?.timeline
  t.truthy(tl, 'the page reported its timeline')

  // The screenshot of the timeline alone: a PNG as wide as the drawing.
  const png = readFileSync(timelineShot)
  t.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47])
  const [w, h] = pngSize(png)
  t.true(Math.abs(w - tl.box.width) <= 2 && Math.abs(h - tl.box.height) <= 2, `${w}×${h} px for a ${tl.box.width}×${tl.box.height} box`)
  t.true(w >= 600, `${w} px wide`)

  const ticks = (tl.ticks as string[]).map((s) => Number.parseFloat(s))
  const step = ticks[1] - ticks[0]
  t.true([1, 2, 5].some((m) => Math.abs(step / 10 ** Math.floor(Math.log10(step)) - m) < 1e-6), `ticks ${tl.ticks.join(', ')}`)
  ticks.forEach((v, i) => t.true(Math.abs(v - i * step) < 1e-6, `tick ${i}: ${tl.ticks[i]}`))

  const cats = [...new Set((tl.slices as { cat: string }[]).map((s) => s.cat))].sort()
  t.deepEqual([...tl.legend].sort(), cats, 'the legend names the kinds drawn, and only those')
  for (const cat of ['kernel', 'memcpy', 'graph', 'callback']) t.true(cats.includes(cat), `${cat} drawn`)

  for (const l of tl.labels as { text: string; overflow: number }[]) t.true(l.overflow <= 0.5, `"${l.text}" runs ${l.overflow.toFixed(1)} px past its slice`)
  const graph = (tl.slices as { cat: string; width: number; hoverable: boolean }[]).find((s) => s.cat === 'graph')!
  t.true(graph.width >= 8, `the graph launch is ${graph.width.toFixed(1)} px wide on the page`)
  t.true(graph.hoverable, 'the graph launch is what the pointer finds at its middle')
  const callback = (tl.slices as { cat: string; width: number }[]).find((s) => s.cat === 'callback')!
  t.true(callback.width >= 4, `the host callback is ${callback.width.toFixed(1)} px wide`)
})
