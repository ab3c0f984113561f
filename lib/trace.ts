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
import { defaultHandle, LEGACY } from './stream/handle'
import { counterEvents, startMemoryCounters, type MemoryCounter } from './trace-memory'

export type { MemoryCounter }

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
  readonly stopCounters: () => MemoryCounter[]

  constructor(device: number) {
    this.device = device
    new Device(device).synchronize()
    this.base = new Event({ device })
    native.streamRecord(defaultHandle(LEGACY, device), own(this.base))
    this.base.synchronize()
    this.baseHost = performance.now()
    this.stopCounters = startMemoryCounters([device], this.baseHost)
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
  /** The memory counters sampled at each allocation and free, per device (the trace's counter tracks). */
  counters: MemoryCounter[]
}

export function beginTrace(device: number): void {
  if (active) throw new Error('a trace is already under way: traces do not nest')
  active = new Tracer(device)
}

/** The memory counters of the trace `endTrace` last ended. */
let lastCounters: MemoryCounter[] = []

/** The memory counters of the trace last ended (read after `endTrace`). */
export function endedCounters(): MemoryCounter[] {
  return lastCounters
}

export async function endTrace(): Promise<TraceSlice[]> {
  const tr = active
  active = undefined
  if (!tr) return []
  await new Device(tr.device).synchronizeAsync()
  lastCounters = tr.stopCounters()
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

export function chromeTrace(slices: TraceSlice[], counters: MemoryCounter[] = []): string {
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
      traceEvents: [{ ph: 'M', name: 'process_name', pid: 1, args: { name: `cuda-node (${b.name}, ${new Device().name})` } }, ...meta, ...events, ...counterEvents(counters)],
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

export function svgTimeline(slices: TraceSlice[], title = 'cuda-node timeline', counters: MemoryCounter[] = []): string {
  const lanes = [...new Set(slices.map((s) => s.lane))]
  const last = Math.max(0.001, ...slices.map((s) => s.start + s.duration), ...counters.map((c) => c.time))
  const step = tickStep(last)
  // The axis ends on a round tick at or past the last slice.
  const end = Math.ceil(last / step - 1e-9) * step
  const left = 210
  const width = 1100
  const plot = width - left - 20
  const row = 30
  const top = 50
  const memDevices = [...new Set(counters.map((c) => c.device))].sort((a, b) => a - b)
  const memRow = 70
  const memTop = top + lanes.length * row + 40
  const height = memTop + memDevices.length * memRow + (memDevices.length ? 10 : 0)
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
  // A slice drawn wider than it lasts (MIN_WIDTH) reaches into the next one of its lane, so the
  // wider are drawn first and the narrower over them: a graph launch stays what the pointer finds.
  const drawn = slices.map((s) => ({ s, x0: x(s.start), w: Math.max(MIN_WIDTH[s.cat] ?? MIN_WIDTH_OTHER, x(s.start + s.duration) - x(s.start)) }))
  drawn.sort((a, b) => b.w - a.w)
  for (const { s, x0, w } of drawn) {
    const y = top + lanes.indexOf(s.lane) * row + 5
    const outline = s.cat === 'graph' ? ' stroke="#5a3d57" stroke-width="1"' : ''
    parts.push(
      `<rect class="slice" data-cat="${esc(s.cat)}" x="${x0.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${row - 10}" rx="2" fill="${COLORS[s.cat] ?? '#76b7b2'}" fill-opacity="0.85"${outline}><title>${esc(s.name)}: ${s.duration.toFixed(3)} ms at ${s.start.toFixed(3)} ms</title></rect>`,
    )
    const label = fitLabel(s.name, w)
    if (label) parts.push(`<text class="label" x="${(x0 + 3).toFixed(1)}" y="${y + 14}" fill="white" font-size="10" pointer-events="none">${esc(label)}</text>`)
  }
  memDevices.forEach((device, i) => parts.push(...memoryTrack(counters.filter((c) => c.device === device), device, memTop + i * memRow, memRow, left, width, x)))
  parts.push('</svg>')
  return parts.join('\n')
}

function mib(b: number): string {
  return `${(b / 2 ** 20).toFixed(1)} MiB`
}

/** A device's memory under the stream lanes: reserved (outline) and in use (filled), as steps. */
function memoryTrack(cs: MemoryCounter[], device: number, y: number, h: number, left: number, width: number, x: (ms: number) => number): string[] {
  const peak = Math.max(1, ...cs.map((c) => Math.max(c.inUse, c.reserved)))
  const yOf = (b: number) => (y + h - 8 - (b / peak) * (h - 16)).toFixed(1)
  const steps = (key: 'inUse' | 'reserved') => {
    const pts: string[] = []
    cs.forEach((c, i) => {
      if (i > 0) pts.push(`${x(c.time).toFixed(1)},${yOf(cs[i - 1]![key])}`)
      pts.push(`${x(c.time).toFixed(1)},${yOf(c[key])}`)
    })
    if (cs.length) pts.push(`${(width - 20).toFixed(1)},${yOf(cs[cs.length - 1]![key])}`)
    return pts.join(' ')
  }
  const base = (y + h - 8).toFixed(1)
  const first = cs.length ? x(cs[0]!.time).toFixed(1) : String(left)
  return [
    `<g class="memory" data-device="${device}">`,
    `<rect x="0" y="${y}" width="${width}" height="${h}" fill="#fbfbf4"/>`,
    `<text x="10" y="${y + 19}">memory, device ${device}</text>`,
    `<text x="10" y="${y + 35}" font-size="10" fill="#555">peak ${mib(peak)}</text>`,
    `<polygon class="in-use" points="${first},${base} ${steps('inUse')} ${(width - 20).toFixed(1)},${base}" fill="#76b7b2" fill-opacity="0.7"><title>in use (peak ${mib(Math.max(0, ...cs.map((c) => c.inUse)))})</title></polygon>`,
    `<polyline class="reserved" points="${steps('reserved')}" fill="none" stroke="#333" stroke-dasharray="4 3"><title>reserved on the device (peak ${mib(Math.max(0, ...cs.map((c) => c.reserved)))})</title></polyline>`,
    `<g class="memory-legend"><rect x="${left - 110}" y="${y + 44}" width="10" height="10" fill="#76b7b2"/><text x="${left - 96}" y="${y + 53}" font-size="10">in use</text>`,
    `<line x1="${left - 60}" y1="${y + 49}" x2="${left - 48}" y2="${y + 49}" stroke="#333" stroke-dasharray="4 3"/><text x="${left - 44}" y="${y + 53}" font-size="10">reserved</text></g>`,
    '</g>',
  ]
}

export function writeTrace(slices: TraceSlice[], jsonPath: string, counters: MemoryCounter[] = []): { json: string; svg: string } {
  const json = chromeTrace(slices, counters)
  const svg = svgTimeline(slices, `cuda-node timeline: ${backend().name}, ${new Device().name}`, counters)
  writeFileSync(jsonPath, json)
  writeFileSync(jsonPath.replace(/\.json$/i, '') + '.svg', svg)
  return { json, svg }
}
