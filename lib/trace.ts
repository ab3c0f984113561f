// The timeline: while `profiler.trace(fn)` runs, each copy, memset, kernel, graph launch and host
// callback is
// bracketed by two events on its own stream, so its slice is the GPU's own timing; NVTX ranges
// are timed on the host lane. Written as a Chrome trace (Perfetto, chrome://tracing) and an SVG.
// When not tracing, the hooks cost one check of `active`.
import { writeFileSync } from 'node:fs'
import { backend } from './backend'
import { Device } from './device'
import { Event, getElapsedTime } from './event'
import { native } from './native'
import { own } from './object'
import { defaultHandle, NULL } from './stream/handle'

interface GpuSlice {
  lane: string
  name: string
  cat: string
  start: Event
  end: Event
}

interface HostSlice {
  name: string
  t0: number
  t1?: number
}

class Tracer {
  readonly device: number
  readonly base: Event
  readonly baseHost: number
  readonly gpu: GpuSlice[] = []
  readonly host: HostSlice[] = []
  readonly stack: HostSlice[] = []
  readonly open = new Map<bigint, HostSlice>()

  constructor(device: number) {
    this.device = device
    new Device(device).synchronize()
    this.base = new Event({ device })
    native.streamRecord(defaultHandle(NULL, device), own(this.base))
    this.base.synchronize()
    this.baseHost = performance.now()
  }
}

let active: Tracer | undefined

/** Whether a trace is under way: a hot path checks this first and calls `traced` only then. */
export function tracing(): boolean {
  return active !== undefined
}

/** Runs `op` (which enqueues on the stream with handle `stream`), timing it when a trace is under way. */
export function traced<T>(stream: number, name: string | (() => string), cat: string, op: () => T): T {
  const tr = active
  if (tr === undefined) return op()
  if (typeof name === 'function') name = name()
  const info = native.streamInfo(stream)
  if (info.device !== tr.device || native.streamCaptureStatus(stream) !== 'none') return op()
  const start = new Event({ device: tr.device })
  native.streamRecord(stream, own(start))
  const r = op()
  const end = new Event({ device: tr.device })
  native.streamRecord(stream, own(end))
  tr.gpu.push({ lane: laneName(info.handle, info.nonBlocking), name, cat, start, end })
  return r
}

function laneName(handle: bigint, nonBlocking: boolean): string {
  if (handle === 0n) return 'Stream.null'
  if (handle === 2n) return 'Stream.ptds'
  return `stream 0x${handle.toString(16)}${nonBlocking ? ' (non-blocking)' : ''}`
}

/** NVTX ranges on the host lane. */
export const hostRange = {
  push(name: string): void {
    const tr = active
    if (tr === undefined) return
    const s = { name, t0: performance.now() }
    tr.stack.push(s)
    tr.host.push(s)
  },
  pop(): void {
    const s = active?.stack.pop()
    if (s) s.t1 = performance.now()
  },
  start(id: bigint, name: string): void {
    const tr = active
    if (tr === undefined) return
    const s = { name, t0: performance.now() }
    tr.open.set(id, s)
    tr.host.push(s)
  },
  end(id: bigint): void {
    const tr = active
    const s = tr?.open.get(id)
    if (s) {
      s.t1 = performance.now()
      tr!.open.delete(id)
    }
  },
}

/** One slice of the finished timeline, in ms from the start of the trace. */
export interface TraceSlice {
  /** The timeline row: `'Stream.null'`, `'Stream.ptds'`, `'stream 0x…'`, or `'host (NVTX)'`. */
  lane: string
  /** What ran, e.g. `'copy H2D 4096 B'` or a kernel's name and launch shape. */
  name: string
  /** The kind: `'kernel'`, `'memcpy'`, `'memset'`, `'graph'`, `'callback'` (a host function) or `'nvtx'`. */
  cat: string
  /** Milliseconds from the start of the trace. */
  start: number
  /** Milliseconds it took. */
  duration: number
}

/** What `profiler.trace` wrote. */
export interface TraceResult<T> {
  /** What `fn` returned (or its promise resolved to). */
  result: T
  /** The timeline's slices, in order of start. */
  slices: TraceSlice[]
  /** The Chrome trace written to `path`, as JSON text. */
  json: string
  /** The SVG timeline written beside it, as text. */
  svg: string
}

export function beginTrace(device: number): void {
  if (active) throw new Error('a trace is already under way: traces do not nest')
  active = new Tracer(device)
}

export async function endTrace(): Promise<TraceSlice[]> {
  const tr = active
  active = undefined
  if (!tr) return []
  await new Device(tr.device).synchronizeAsync()
  const slices: TraceSlice[] = tr.gpu.map((g) => ({
    lane: g.lane,
    name: g.name,
    cat: g.cat,
    start: getElapsedTime(tr.base, g.start),
    duration: getElapsedTime(g.start, g.end),
  }))
  const now = performance.now()
  for (const h of tr.host) {
    slices.push({ lane: 'host (NVTX)', name: h.name, cat: 'nvtx', start: h.t0 - tr.baseHost, duration: (h.t1 ?? now) - h.t0 })
  }
  return slices.sort((a, b) => a.start - b.start)
}

export function chromeTrace(slices: TraceSlice[]): string {
  const lanes = [...new Set(slices.map((s) => s.lane))]
  const meta = lanes.map((lane, tid) => ({ ph: 'M', name: 'thread_name', pid: 1, tid, args: { name: lane } }))
  const events = slices.map((s) => ({
    name: s.name,
    cat: s.cat,
    ph: 'X',
    ts: +(s.start * 1000).toFixed(3),
    dur: +(s.duration * 1000).toFixed(3),
    pid: 1,
    tid: lanes.indexOf(s.lane),
  }))
  const b = backend()
  return JSON.stringify(
    {
      traceEvents: [{ ph: 'M', name: 'process_name', pid: 1, args: { name: `cuda-node (${b.name}, ${new Device().name})` } }, ...meta, ...events],
      displayTimeUnit: 'ms',
    },
    null,
    1,
  )
}

const COLORS: Record<string, string> = {
  kernel: '#4e79a7',
  memcpy: '#59a14f',
  memset: '#f28e2b',
  graph: '#b07aa1',
  callback: '#e15759',
  nvtx: '#9c9c9c',
}

/**
 * The narrowest a slice of each kind is drawn, in pixels, so that it can be seen and hovered: a
 * graph launch of a hundred kernels takes as long as a few of them, a sliver beside a long kernel.
 */
const MIN_WIDTH: Record<string, number> = { graph: 14, callback: 8 }
const MIN_WIDTH_OTHER = 4

/** Pixels a character of the slices' 10 px labels takes, at most (sans-serif). */
const CHAR_WIDTH = 6.2

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
}

/** A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `count` parts. */
export function tickStep(span: number, count = 8): number {
  const raw = span / count
  const pow = 10 ** Math.floor(Math.log10(raw))
  const m = raw / pow
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * pow
}

/** `ms` written with as many decimals as `step` needs, so a tick reads 0.5 or 20, never 17.5 from rounding. */
function tickLabel(ms: number, step: number): string {
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9))
  return `${ms.toFixed(decimals)} ms`
}

/** `label` as it fits in `width` pixels: whole, cut with an ellipsis, or not at all. */
export function fitLabel(label: string, width: number): string {
  const room = Math.floor((width - 6) / CHAR_WIDTH)
  if (label.length <= room) return label
  return room >= 4 ? `${label.slice(0, room - 1)}…` : ''
}

export function svgTimeline(slices: TraceSlice[], title = 'cuda-node timeline'): string {
  const lanes = [...new Set(slices.map((s) => s.lane))]
  const last = Math.max(0.001, ...slices.map((s) => s.start + s.duration))
  const step = tickStep(last)
  // The axis ends on a round tick at or past the last slice.
  const end = Math.ceil(last / step - 1e-9) * step
  const left = 210
  const width = 1100
  const plot = width - left - 20
  const row = 30
  const top = 50
  const height = top + lanes.length * row + 40
  const x = (ms: number) => left + (Math.max(0, ms) / end) * plot
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="22" font-size="15" font-weight="bold">${esc(title)}</text>`,
  ]
  lanes.forEach((lane, i) => {
    const y = top + i * row
    parts.push(`<rect x="0" y="${y}" width="${width}" height="${row}" fill="${i % 2 ? '#f6f6f6' : '#ffffff'}"/>`)
    parts.push(`<text x="10" y="${y + 19}">${esc(fitLabel(lane, left - 14))}<title>${esc(lane)}</title></text>`)
  })
  const axis = top + lanes.length * row + 14
  for (let i = 0; i * step <= end + step * 1e-9; i++) {
    const ms = i * step
    parts.push(`<line x1="${x(ms).toFixed(1)}" y1="${top}" x2="${x(ms).toFixed(1)}" y2="${axis - 10}" stroke="#ddd"/>`)
    parts.push(`<text class="tick" x="${x(ms).toFixed(1)}" y="${axis + 4}" text-anchor="middle" font-size="10">${tickLabel(ms, step)}</text>`)
  }
  // The legend: the kinds this timeline has, in a fixed order.
  const present = new Set(slices.map((s) => s.cat))
  let lx = width - 20
  for (const [cat, color] of Object.entries(COLORS).reverse()) {
    if (!present.has(cat)) continue
    lx -= 8 + cat.length * 7
    parts.push(`<g class="legend"><rect x="${lx}" y="12" width="10" height="10" fill="${color}"/><text x="${lx + 14}" y="21" font-size="11">${cat}</text></g>`)
    lx -= 18
  }
  for (const s of slices) {
    const y = top + lanes.indexOf(s.lane) * row + 5
    const x0 = x(s.start)
    const w = Math.max(MIN_WIDTH[s.cat] ?? MIN_WIDTH_OTHER, x(s.start + s.duration) - x0)
    const outline = s.cat === 'graph' ? ' stroke="#5a3d57" stroke-width="1"' : ''
    parts.push(
      `<rect class="slice" data-cat="${esc(s.cat)}" x="${x0.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${row - 10}" rx="2" fill="${COLORS[s.cat] ?? '#76b7b2'}" fill-opacity="0.85"${outline}><title>${esc(s.name)}: ${s.duration.toFixed(3)} ms at ${s.start.toFixed(3)} ms</title></rect>`,
    )
    const label = fitLabel(s.name, w)
    if (label) parts.push(`<text class="label" x="${(x0 + 3).toFixed(1)}" y="${y + 14}" fill="white" font-size="10" pointer-events="none">${esc(label)}</text>`)
  }
  parts.push('</svg>')
  return parts.join('\n')
}

export function writeTrace(slices: TraceSlice[], jsonPath: string): { json: string; svg: string } {
  const json = chromeTrace(slices)
  const svg = svgTimeline(slices, `cuda-node timeline: ${backend().name}, ${new Device().name}`)
  writeFileSync(jsonPath, json)
  writeFileSync(jsonPath.replace(/\.json$/i, '') + '.svg', svg)
  return { json, svg }
}
