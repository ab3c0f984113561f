// Opens examples/browser/ in headless Chromium, runs the tour there, prints the page's console
// as JSON lines ({"console": "..."}), and saves a screenshot once the tour is done, and one of
// the timeline alone, with what Chromium laid out of it ({"timeline": {...}}: ticks, legend, each
// slice's width, how far each label runs past its slice, what is under a graph launch's middle):
//   node --experimental-websocket examples/browser/smoke.mjs [screenshot.png [timeline.png]]
// (Node 22 and later have WebSocket without the flag.) CHROMIUM names the browser (default
// `chromium`). Exits 0 when the page said the tour is done with its timeline drawn.
import { spawn } from 'node:child_process'
import { createReadStream, existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const shot = process.argv[2] ?? path.join(here, '..', 'out', 'browser-tour.png')
const timelineShot = process.argv[3] ?? shot.replace(/\.png$/, '') + '-timeline.png'
const browser = process.env.CHROMIUM ?? 'chromium'
const limitMs = Number(process.env.SMOKE_TIMEOUT_MS ?? 90_000)
if (typeof WebSocket !== 'function') throw new Error('this Node has no WebSocket: run with --experimental-websocket (Node 20) or on Node 22+')

const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' }
const server = createServer((req, res) => {
  const file = path.join(here, decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/\/$/, '/index.html'))
  if (!file.startsWith(here) || !existsSync(file) || !statSync(file).isFile()) return res.writeHead(404).end()
  res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' })
  createReadStream(file).pipe(res)
})
await new Promise((r) => server.listen(0, '127.0.0.1', r))
const url = `http://127.0.0.1:${server.address().port}/index.html`

const profile = mkdtempSync(path.join(tmpdir(), 'cuda-node-chromium-'))
const chrome = spawn(browser, ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--hide-scrollbars',
  `--user-data-dir=${profile}`, '--remote-debugging-port=0', '--window-size=1280,1000', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] })
let finished = false
const done = (code, why) => {
  if (finished) return
  finished = true
  if (why) console.log(JSON.stringify({ error: why }))
  chrome.kill()
  server.close()
  process.exit(code)
}
setTimeout(() => done(1, `the tour did not finish within ${limitMs} ms`), limitMs).unref()
chrome.on('error', (e) => done(1, `could not start ${browser}: ${e.message}`))
const endpoint = await new Promise((resolve) => {
  let err = ''
  chrome.stderr.on('data', (d) => {
    err += d
    const m = /DevTools listening on (ws:\/\/\S+)/.exec(err)
    if (m) resolve(m[1])
  })
  chrome.on('exit', (c) => done(1, `${browser} exited (${c}) before it listened: ${err.slice(-500)}`))
})

const port = new URL(endpoint).port
const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()
const page = targets.find((t) => t.type === 'page')
const ws = new WebSocket(page.webSocketDebuggerUrl)
let nextId = 1
const waiting = new Map()
const send = (method, params = {}) => new Promise((resolve, reject) => {
  const id = nextId++
  waiting.set(id, { resolve, reject })
  ws.send(JSON.stringify({ id, method, params }))
})
ws.onmessage = async (ev) => {
  const msg = JSON.parse(ev.data)
  if (msg.id && waiting.has(msg.id)) {
    const w = waiting.get(msg.id)
    waiting.delete(msg.id)
    return msg.error ? w.reject(new Error(msg.error.message)) : w.resolve(msg.result)
  }
  if (msg.method === 'Runtime.consoleAPICalled') {
    const text = msg.params.args.map((a) => a.value ?? a.description ?? '').join(' ')
    console.log(JSON.stringify({ console: text }))
    if (text.startsWith('cuda-node tour: done')) {
      await new Promise((r) => setTimeout(r, 300)) // let the SVG paint
      const { data } = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true })
      writeFileSync(shot, Buffer.from(data, 'base64'))
      console.log(JSON.stringify({ screenshot: shot }))
      const { result } = await send('Runtime.evaluate', { expression: `(${measureTimeline})()`, returnByValue: true })
      if (result.value) {
        console.log(JSON.stringify({ timeline: result.value }))
        const { x, y, width, height } = result.value.box
        const clip = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, clip: { x, y, width, height, scale: 1 } })
        writeFileSync(timelineShot, Buffer.from(clip.data, 'base64'))
        console.log(JSON.stringify({ timelineScreenshot: timelineShot }))
      }
      done(text.includes('timeline drawn') ? 0 : 1)
    } else if (/failed/.test(text)) {
      done(1, text)
    }
  }
  if (msg.method === 'Runtime.exceptionThrown') done(1, msg.params.exceptionDetails.exception?.description ?? msg.params.exceptionDetails.text)
}
/** Runs in the page: the timeline as laid out (CSS pixels), or null where none was drawn. */
function measureTimeline() {
  const svg = document.querySelector('#timeline svg')
  if (!svg) return null
  svg.scrollIntoView()
  const box = svg.getBoundingClientRect()
  const text = (sel) => [...svg.querySelectorAll(sel)].map((e) => e.textContent)
  const slices = [...svg.querySelectorAll('rect.slice')].map((e) => {
    const r = e.getBoundingClientRect()
    const under = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)
    return { cat: e.dataset.cat, width: r.width, hoverable: under === e || under?.parentNode === e }
  })
  const labels = [...svg.querySelectorAll('text.label')].map((e) => {
    const slice = e.previousElementSibling.getBoundingClientRect()
    return { text: e.textContent, overflow: e.getBoundingClientRect().right - slice.right }
  })
  return { box: { x: box.x + scrollX, y: box.y + scrollY, width: box.width, height: box.height }, ticks: text('text.tick'), legend: text('g.legend text'), slices, labels }
}

await new Promise((r) => (ws.onopen = r))
await send('Runtime.enable')
await send('Page.enable')
await send('Page.navigate', { url })
