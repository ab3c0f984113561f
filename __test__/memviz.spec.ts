// `cuda-node memviz` (issue 37, part 3): a snapshot dumped on an out-of-memory error opens in the
// page with the failing stack shown as text; a function named as markup stays text; a malformed
// snapshot is a one-line error; 10^6 events load. The page is checked in headless Chromium (a
// screenshot and the DOM after its script ran), as wasm.spec.ts drives it; skipped without it.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { root, runNode, scratchDir } from './helpers'

const chromium = process.env.CHROMIUM ?? 'chromium'
const hasChromium = spawnSync(chromium, ['--version'], { encoding: 'utf8' }).status === 0
const browserTest: typeof test = hasChromium
  ? test
  : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (no ${chromium} to open the page: apt-get install chromium)`, ...rest)) as any)

const memviz = (args: string[]) => spawnSync(process.execPath, [path.join(root, 'cli', 'cli.js'), 'memviz', ...args], { encoding: 'utf8', timeout: 300_000 })

function browser(args: string[], url: string) {
  return spawnSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', ...args, url], { encoding: 'utf8', timeout: 240_000, maxBuffer: 1 << 28 })
}

/** The DOM after the page's script ran. */
function dom(html: string, hash = ''): string {
  const r = browser(['--dump-dom'], `file://${html}${hash}`)
  if (r.status !== 0) throw new Error(r.stderr)
  return r.stdout
}

const markup = '<img src=x onerror=alert(1)>'

/**
 * Runs out of memory on purpose with history on, from a function named as markup
 * (`fixtures/oom-snapshot.js`); returns the snapshot's path. `CUDA_NODE_OOM_SNAPSHOT` names one
 * dumped elsewhere instead: on the GPU, by `scripts/gpu/oom-snapshot.sh`.
 */
function oomSnapshot(): string {
  const given = process.env.CUDA_NODE_OOM_SNAPSHOT
  if (given) return given
  const dir = scratchDir('memviz-oom-')
  const r = runNode(`require(${JSON.stringify(path.join(__dirname, 'fixtures', 'oom-snapshot.js'))})`, { CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM: dir })
  if (r.status !== 0) throw new Error(r.stderr)
  const files = readdirSync(dir)
  if (files.length !== 1 || !r.stdout.includes(path.join(dir, files[0]!))) throw new Error(`no snapshot named: ${r.stdout}`)
  return path.join(dir, files[0]!)
}

browserTest('a snapshot dumped on OOM opens in the viewer with the failing stack shown, and markup in it stays text', (t) => {
  const snap = oomSnapshot()
  const out = path.join(scratchDir('memviz-view-'), 'view.html')
  const r = memviz([snap, '-o', out])
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), out)
  const html = readFileSync(out, 'utf8')
  t.false(html.includes(markup), 'the page source holds no raw markup from the snapshot')
  t.notRegex(html, /https?:\/\/(?!www\.w3\.org)/, 'nothing fetched')

  const d = dom(out, '#block=0')
  t.regex(d, /data-ready="\d+"/, 'the script ran to the end')
  t.notRegex(d, /<img/i, 'no element was made from the snapshot')
  const oom = /<p id="oom">([\s\S]*?)<\/p>/.exec(d)
  t.truthy(oom, 'the OOM banner is shown')
  t.regex(oom![1]!, /Out of memory: 1\.0 MiB asked on device 0/)
  t.regex(oom![1]!, /Failing stack:\nat &lt;img src=x onerror=alert\(1\)&gt;/)
  t.regex(oom![1]!, /at async trainStep/)
  const details = /<pre id="details">([\s\S]*?)<\/pre>/.exec(d)![1]!
  t.regex(details, /Block 0x[0-9a-f]+ on device 0\nSize: 1\.0 MiB/)
  t.regex(details, /Stream: null \(legacy default\)/)
  t.regex(details, /Lifetime: allocated at [\d.]+ ms/)
  t.regex(details, /&lt;img src=x onerror=alert\(1\)&gt;/)
  t.regex(d, /<p id="summary">(sim|cuda) backend, taken [^:]+:[^<]* \d+ events, 1 allocation sites, 4 live blocks in 1 pools<\/p>/)

  const shot = path.join(path.dirname(out), 'view.png')
  const s = browser([`--screenshot=${shot}`, '--window-size=1280,900'], `file://${out}#block=0`)
  t.is(s.status, 0, s.stderr)
  const png = readFileSync(shot)
  t.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG')
  t.true(png.length > 20_000, `screenshot of ${png.length} bytes`)
})

test('a malformed snapshot is a one-line error', (t) => {
  const dir = scratchDir('memviz-bad-')
  const cases: [string, string, RegExp][] = [
    ['not-json.json', '{"schema": ', /is not JSON/],
    ['other.json', '{"schema": "torch"}', /is not a cuda-node memory snapshot: its schema is "torch"/],
    ['future.json', '{"schema": "cuda-node.memory-snapshot", "version": 99}', /its version 99 is not one this viewer reads/],
    ['events.json', JSON.stringify({ schema: 'cuda-node.memory-snapshot', version: 1, stacks: [], pools: [], streams: [], segments: [], history: { events: [{ t: 0, action: '<b>', size: 1 }] } }), /history\.events\[0\] needs t, size and a known action/],
  ]
  for (const [name, body, why] of cases) {
    const f = path.join(dir, name)
    writeFileSync(f, body)
    const r = memviz([f])
    t.is(r.status, 1, name)
    t.is(r.stderr.trim().split('\n').length, 1, r.stderr)
    t.regex(r.stderr, why)
  }
  const missing = memviz([path.join(dir, 'absent.json')])
  t.is(missing.status, 1)
  t.regex(missing.stderr, /^cuda-node memviz: cannot read .*absent\.json: ENOENT\n$/)
  t.is(memviz([]).status, 2)
  t.is(memviz([path.join(dir, 'other.json'), '-o']).status, 2)
})

browserTest('a snapshot of 10^6 events loads and draws in the page', (t) => {
  const dir = scratchDir('memviz-big-')
  const n = 1_000_000
  const events: object[] = Array.from({ length: n })
  for (let i = 0; i < n; i++) {
    const a = i >> 1
    events[i] = i % 2 === 0
      ? { t: i * 0.01, action: 'alloc', device: 0, stream: 0, size: 512 * (1 + (a % 64)), pool: 0, stack: a % 50, addr: `0x${a.toString(16)}`, source: 'pool' }
      : { t: i * 0.01, action: 'free', device: 0, stream: 0, size: 512 * (1 + (a % 64)), pool: 0, stack: -1, addr: `0x${(a - (a % 7 === 0 ? 0 : 1)).toString(16)}` }
  }
  const stacks = Array.from({ length: 50 }, (_, i) => [`at site${i} (app.js:${i}:1)`, 'at async main (app.js:1:1)'])
  const snap = { schema: 'cuda-node.memory-snapshot', version: 1, createdAt: 'x', backend: 'sim', devices: [], pools: [{ id: 0, kind: 'MemoryPool' }], streams: [{ id: 0, name: 'null' }], segments: [], stacks, history: { enabled: true, stacks: 'js', maxEntries: n, dropped: 0, events } }
  const f = path.join(dir, 'big.json')
  writeFileSync(f, JSON.stringify(snap))
  const started = Date.now()
  const r = memviz([f])
  t.is(r.status, 0, r.stderr)
  t.log(`memviz wrote the page in ${Date.now() - started} ms`)
  const d = dom(path.join(dir, 'big.html'))
  const ready = /data-ready="(\d+)"/.exec(d)
  t.truthy(ready, 'the script ran to the end')
  t.log(`the page parsed, bucketed and drew 10^6 events in ${ready![1]} ms`)
  t.regex(d, /1000000 events, 51 allocation sites/)
  // What a click or redraw costs does not grow with the events: it reads one bucket a pixel.
  t.true(Number(ready![1]) < 30_000, `${ready![1]} ms`)
})

browserTest("a caching pool's real segments are drawn: a live block and the free rest of its segment, each clickable", (t) => {
  const dir = scratchDir('memviz-segments-')
  const file = path.join(dir, 'segments.json')
  const r = runNode(`
const { memory, MemoryPool } = cuda
memory.recordHistory({ stacks: 'js' })
const pool = new MemoryPool()
pool.malloc(4096).mem.free()
function keepOne() { return pool.malloc(1024) }
globalThis.kept = keepOne()
memory.dumpSnapshot(${JSON.stringify(file)})
`)
  t.is(r.status, 0, r.stderr)
  const out = path.join(dir, 'segments.html')
  t.is(memviz([file, '-o', out]).status, 0)
  const live = /<pre id="details">([\s\S]*?)<\/pre>/.exec(dom(out, '#block=0'))![1]!
  t.regex(live, /Block 0x[0-9a-f]+ on device 0\nSize: 1\.0 KiB \(1024 bytes; asked 1024\)/)
  t.regex(live, /keepOne/)
  const free = /<pre id="details">([\s\S]*?)<\/pre>/.exec(dom(out, '#free=0'))![1]!
  t.regex(free, /^Free block 0x[0-9a-f]+ on device 0\nSize: 3\.0 KiB \(3072 bytes\), cached by MemoryPool #\d+\nStream: null \(legacy default\)/)
})
