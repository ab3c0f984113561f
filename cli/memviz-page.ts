// The page `cuda-node memviz` writes: one self-contained HTML file, no network. The snapshot rides
// in a `<script type="application/json">` with every `<` escaped, and everything the page shows
// from it goes in as text (textContent, canvas fillText), never as markup: snapshots travel, and
// a function may be named `<img src=x onerror=alert(1)>`. Drawing reads per-pixel buckets, not
// events, so a history of 10^6 events draws as fast as one of ten.

/** The page around `data` (the viewer's JSON, see memviz.ts `viewData`). */
export function page(data: unknown, title: string): string {
  const json = JSON.stringify(data).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title></title>
<style>${STYLE}</style></head>
<body>
<header><h1 id="title"></h1><p id="summary"></p><p id="oom" hidden></p></header>
<section><h2>Memory in use over time, stacked by allocation site</h2>
<canvas id="timeline" width="1200" height="320"></canvas>
<ol id="legend"></ol></section>
<section><h2>Segments and their blocks, colored by stream (click a block)</h2>
<canvas id="segments" width="1200" height="60"></canvas>
<ol id="streams"></ol></section>
<section><h2>Selected</h2><pre id="details">Click a block, or a band of the timeline.</pre></section>
<script type="application/json" id="snapshot">${json}</script>
<script id="title-data" type="application/json">${JSON.stringify(title).replace(/</g, '\\u003c')}</script>
<script>${SCRIPT}</script>
</body></html>
`
}

const STYLE = `
body { font: 13px system-ui, sans-serif; margin: 16px; color: #222; background: #fff; }
h1 { font-size: 18px; margin: 0 0 4px; } h2 { font-size: 14px; margin: 16px 0 6px; }
canvas { border: 1px solid #ccc; display: block; max-width: 100%; cursor: crosshair; }
#legend, #streams { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 14px; font-family: monospace; font-size: 12px; }
.sw { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: middle; }
#details { background: #f6f6f6; padding: 8px; white-space: pre-wrap; word-break: break-all; min-height: 60px; }
#oom { background: #fde8e8; border: 1px solid #e99; padding: 6px; white-space: pre-wrap; }
`

// Plain JavaScript (no template literals: it lives inside one).
const SCRIPT = String.raw`
(function () {
  'use strict'
  var started = performance.now()
  var data = JSON.parse(document.getElementById('snapshot').textContent)
  document.title = 'memviz: ' + JSON.parse(document.getElementById('title-data').textContent)
  var $ = function (id) { return document.getElementById(id) }
  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#86bcb6', '#d37295', '#8cd17d']
  var OTHER = '#bab0ac'
  function bytes(n) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0
    n = Math.abs(n)
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++ }
    return (i === 0 ? String(n) : n.toFixed(1)) + ' ' + u[i]
  }
  function text(el, s) { el.textContent = s; return el }
  function item(list, color, label) {
    var li = document.createElement('li')
    var sw = document.createElement('span')
    sw.className = 'sw'; sw.style.background = color
    li.appendChild(sw)
    li.appendChild(document.createTextNode(label))
    list.appendChild(li)
  }
  function stackText(id) {
    if (id < 0 || !data.stacks[id]) return '(no stack recorded)'
    return data.stacks[id].join('\n')
  }

  // Columns: t (ms), kind (0 alloc, 1 free, 2 segment_alloc, 3 segment_free, 4 oom), size, site.
  var c = data.columns, n = c.t.length, S = data.sites.length
  text($('title'), 'memviz: ' + JSON.parse($('title-data').textContent))

  // Where each site stands before the history starts: a free of a block allocated before it lowers a
  // site below zero, so start each at minus its lowest point.
  var cur = new Float64Array(S), low = new Float64Array(S), peak = new Float64Array(S)
  var i, k, s
  for (i = 0; i < n; i++) {
    k = c.kind[i]; s = c.site[i]
    if (k === 0) cur[s] += c.size[i]
    else if (k === 1) { cur[s] -= c.size[i]; if (cur[s] < low[s]) low[s] = cur[s] }
  }
  for (s = 0; s < S; s++) cur[s] = -low[s]
  var resv = 0, resvLow = 0
  for (i = 0; i < n; i++) {
    k = c.kind[i]; s = c.site[i]
    if (k === 0) { cur[s] += c.size[i]; if (cur[s] > peak[s]) peak[s] = cur[s] }
    else if (k === 1) cur[s] -= c.size[i]
    else if (k === 2) resv += c.size[i]
    else if (k === 3) { resv -= c.size[i]; if (resv < resvLow) resvLow = resv }
  }
  // The ten sites with the highest peaks get a color each; the rest share one band.
  var order = []
  for (s = 0; s < S; s++) order.push(s)
  order.sort(function (a, b) { return peak[b] - peak[a] })
  var TOP = Math.min(10, S), band = new Int32Array(S).fill(TOP), bandSite = []
  for (i = 0; i < TOP; i++) { band[order[i]] = i; bandSite.push(order[i]) }
  var B = TOP + (S > TOP ? 1 : 0)

  // Decimation: one bucket a pixel; each keeps the bands as they stood at the bucket's highest total.
  var cv = $('timeline'), W = cv.width, H = cv.height, PAD = 40
  var NB = W - PAD, t0 = n ? c.t[0] : 0, t1 = n ? c.t[n - 1] : 1
  if (t1 <= t0) t1 = t0 + 1
  var vals = new Float64Array(NB * Math.max(B, 1)), rmax = new Float64Array(NB), tmax = new Float64Array(NB)
  var bandNow = new Float64Array(Math.max(B, 1)), total = 0
  for (s = 0; s < S; s++) { bandNow[band[s]] += -low[s]; total += -low[s] }
  resv = -resvLow
  var b = 0, best = -1, j
  function store(bk) {
    for (j = 0; j < B; j++) vals[bk * B + j] = bandNow[j]
    tmax[bk] = total
  }
  store(0)
  rmax[0] = resv
  for (i = 0; i < n; i++) {
    var bi = Math.min(NB - 1, Math.floor((c.t[i] - t0) / (t1 - t0) * NB))
    while (b < bi) { b++; store(b); best = -1; rmax[b] = resv }
    k = c.kind[i]; s = c.site[i]
    if (k === 0) { bandNow[band[s]] += c.size[i]; total += c.size[i] }
    else if (k === 1) { bandNow[band[s]] -= c.size[i]; total -= c.size[i] }
    else if (k === 2) resv += c.size[i]
    else if (k === 3) resv -= c.size[i]
    if (total > best) { best = total; store(b) }
    if (resv > rmax[b]) rmax[b] = resv
  }
  while (b < NB - 1) { b++; store(b); rmax[b] = resv }
  var ymax = 1
  for (b = 0; b < NB; b++) { if (tmax[b] > ymax) ymax = tmax[b]; if (rmax[b] > ymax) ymax = rmax[b] }

  function drawTimeline() {
    var g = cv.getContext('2d')
    g.clearRect(0, 0, W, H)
    g.fillStyle = '#fff'; g.fillRect(0, 0, W, H)
    var h = H - 20
    for (var bb = 0; bb < NB; bb++) {
      var y = h
      for (var q = 0; q < B; q++) {
        var v = vals[bb * B + q]
        if (v <= 0) continue
        var dh = v / ymax * (h - 10)
        g.fillStyle = q < TOP ? PALETTE[q % PALETTE.length] : OTHER
        g.fillRect(PAD + bb, y - dh, 1, dh)
        y -= dh
      }
    }
    if (resvLow !== 0 || data.hasSegments) {
      g.strokeStyle = '#333'; g.setLineDash([4, 3]); g.beginPath()
      for (bb = 0; bb < NB; bb++) {
        var ry = h - rmax[bb] / ymax * (h - 10)
        if (bb === 0) g.moveTo(PAD, ry); else g.lineTo(PAD + bb, ry)
      }
      g.stroke(); g.setLineDash([])
    }
    g.fillStyle = '#222'; g.font = '11px sans-serif'
    g.fillText(bytes(ymax), 2, 12)
    g.fillText('0', 2, h)
    g.fillText((t0 / 1000).toFixed(3) + ' s', PAD, H - 4)
    var end = (t1 / 1000).toFixed(3) + ' s'
    g.fillText(end, W - g.measureText(end).width - 2, H - 4)
  }
  drawTimeline()
  for (i = 0; i < TOP; i++) item($('legend'), PALETTE[i % PALETTE.length], data.sites[bandSite[i]].label + '  (peak ' + bytes(peak[bandSite[i]]) + ')')
  if (S > TOP) item($('legend'), OTHER, (S - TOP) + ' other sites')
  if (data.hasSegments) item($('legend'), '#333', '- - reserved by pools')

  cv.addEventListener('click', function (e) {
    var r = cv.getBoundingClientRect()
    var x = Math.floor((e.clientX - r.left) * W / r.width) - PAD, y = (e.clientY - r.top) * H / r.height
    if (x < 0 || x >= NB) return
    var h = H - 20, acc = h
    for (var q = 0; q < B; q++) {
      var dh = vals[x * B + q] / ymax * (h - 10)
      if (y <= acc && y >= acc - dh) return showBand(q, x)
      acc -= dh
    }
  })
  function showBand(q, x) {
    var at = t0 + (x + 0.5) / NB * (t1 - t0)
    if (q >= TOP) return text($('details'), 'Other sites at ' + at.toFixed(3) + ' ms: ' + bytes(vals[x * B + q]))
    var site = data.sites[bandSite[q]]
    text($('details'), 'Site: ' + site.label + '\nIn use at ' + at.toFixed(3) + ' ms: ' + bytes(vals[x * B + q]) + '\nPeak: ' + bytes(peak[bandSite[q]]) + '\n\nStack:\n' + stackText(site.stack))
  }

  // Segments: a row each (a caching pool's real segment, or another allocator's live blocks), its
  // blocks in address order over its bytes, colored by stream; free blocks and the rest pale.
  var segs = data.segments, sc = $('segments'), ROW = 26, LABEL = 300
  sc.height = Math.max(40, segs.length * ROW + 10)
  var rects = [], freeRects = []
  var streamColor = function (id) { return id < 0 ? OTHER : PALETTE[id % PALETTE.length] }
  var isFree = function (bl) { return bl.free === true }
  var seenStreams = {}
  function drawSegments() {
    var g = sc.getContext('2d'), SW = sc.width
    g.fillStyle = '#fff'; g.fillRect(0, 0, SW, sc.height)
    g.font = '11px sans-serif'
    rects = []; freeRects = []
    segs.forEach(function (seg, r) {
      var y = 5 + r * ROW, span = Math.max(seg.totalBytes, seg.blocks.reduce(function (a, x) { return a + x.size }, 0), 1)
      var pool = seg.pool >= 0 && data.pools[seg.pool] ? data.pools[seg.pool].kind + ' #' + seg.pool : 'no pool'
      var where = seg.device < 0 ? 'host' : 'device ' + seg.device
      var label = seg.kind === 'segment' ? where + ', ' + pool + ', segment ' + seg.address + (seg.expandable ? ' (expandable)' : '') : where + ', ' + pool
      g.fillStyle = '#222'
      g.fillText(label + ': ' + bytes(seg.usedBytes) + ' used / ' + bytes(seg.totalBytes), 2, y + 15, LABEL - 6)
      var x0 = LABEL, w = SW - LABEL - 4
      g.fillStyle = '#eee'; g.fillRect(x0, y, w, ROW - 6)
      // A segment's live blocks and its cached free ones (version 2) cover it in address order.
      var free = (seg.free || []).map(function (f) { return { addr: f.addr, size: f.size, stream: f.stream, device: seg.device, pool: seg.pool, free: true } })
      var blocks = seg.blocks.concat(free).sort(function (a, b2) { return a.addr.length - b2.addr.length || (a.addr < b2.addr ? -1 : 1) })
      var off = 0
      blocks.forEach(function (bl) {
        var bx = x0 + off / span * w, bw = Math.max(1, bl.size / span * w)
        var free = isFree(bl)
        g.fillStyle = free ? '#eee' : streamColor(bl.stream); g.fillRect(bx, y, bw, ROW - 6)
        g.strokeStyle = free ? '#bbb' : '#fff'; g.strokeRect(bx, y, bw, ROW - 6)
        ;(free ? freeRects : rects).push({ x: bx, y: y, w: bw, h: ROW - 6, block: bl })
        if (!free) seenStreams[bl.stream] = true
        off += bl.size
      })
    })
  }
  drawSegments()
  Object.keys(seenStreams).forEach(function (id) {
    var st = data.streams[id]
    item($('streams'), streamColor(Number(id)), 'stream ' + (st ? st.name : id))
  })
  item($('streams'), '#eee', 'free (cached or not yet used)')
  function showBlock(bl) {
    var st = data.streams[bl.stream], pool = bl.pool >= 0 && data.pools[bl.pool] ? data.pools[bl.pool].kind + ' #' + bl.pool : 'none'
    var where = bl.device < 0 ? 'host memory' : 'device ' + bl.device
    if (isFree(bl)) {
      return text($('details'), 'Free block ' + bl.addr + ' on ' + where + '\nSize: ' + bytes(bl.size) + ' (' + bl.size + ' bytes), cached by ' + pool +
        '\nStream: ' + (st ? st.name : 'unknown'))
    }
    var life = bl.t < 0 ? 'allocated before the history began, alive at the snapshot'
      : 'allocated at ' + bl.t.toFixed(3) + ' ms, alive at the snapshot (' + (data.snapshotT - bl.t).toFixed(3) + ' ms)'
    text($('details'), 'Block ' + bl.addr + ' on ' + where + '\nSize: ' + bytes(bl.size) + ' (' + bl.size + ' bytes; asked ' + bl.requested + ')' +
      '\nStream: ' + (st ? st.name : 'unknown') + '\nSource: ' + bl.source + ', pool: ' + pool +
      '\nLifetime: ' + life +
      '\n\nStack:\n' + stackText(bl.stack))
  }
  sc.addEventListener('click', function (e) {
    var r = sc.getBoundingClientRect()
    var x = (e.clientX - r.left) * sc.width / r.width, y = (e.clientY - r.top) * sc.height / r.height
    var all = rects.concat(freeRects)
    for (var q = 0; q < all.length; q++) {
      var R = all[q]
      if (x >= R.x && x <= R.x + R.w && y >= R.y && y <= R.y + R.h) return showBlock(R.block)
    }
  })

  var nBlocks = segs.reduce(function (a, x) { return a + x.blocks.length }, 0)
  var pools = {}
  segs.forEach(function (x) { pools[x.pool + ':' + x.device] = true })
  text($('summary'), data.backend + ' backend, taken ' + data.createdAt + ': ' + n + ' events' + (data.dropped ? ' (' + data.dropped + ' older dropped)' : '') +
    ', ' + S + ' allocation sites, ' + nBlocks + ' live blocks in ' + Object.keys(pools).length + ' pools')
  if (data.oom) {
    var o = $('oom'); o.hidden = false
    text(o, 'Out of memory: ' + bytes(data.oom.requested) + ' asked on device ' + data.oom.device + ' (' + data.oom.source + ')\n' + data.oom.message + '\n\nFailing stack:\n' + stackText(data.oom.stack))
  }
  // #block=N selects a live block on load, as a click would (for links, and the browser test).
  var m = /^#block=(\d+)$/.exec(location.hash)
  if (m && rects[Number(m[1])]) showBlock(rects[Number(m[1])].block)
  // #free=N selects a segment's free block, in the order drawn.
  var mf = /^#free=(\d+)$/.exec(location.hash)
  if (mf && freeRects[Number(mf[1])]) showBlock(freeRects[Number(mf[1])].block)
  document.body.setAttribute('data-ready', String(Math.round(performance.now() - started)))
})()
`
