// Memory history and snapshots (PyTorch's `_record_memory_history` / `_snapshot`): a ring buffer
// fed by the memory channels (events.ts). Off, nothing subscribes, so the allocators' cost is the
// `hasSubscribers` read they already do. A stack is captured as an Error and formatted only when
// a snapshot is taken: V8 formats `.stack` lazily, and formatting is most of its cost.
import { writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { backend } from '../backend'
import { runWith } from '../context'
import { Device } from '../device'
import { getCurrentStream } from '../stream/current'
import { Stream } from '../stream/stream'
import { memoryChannels } from './channels'
import type { AllocFailedMessage, AllocMessage, AllocSource, FreeMessage } from './events'
import type { Memory } from './memory'

/** The snapshot's `schema` field; `version` says which revision of docs/memory-snapshot.md it follows. */
export const SNAPSHOT_SCHEMA = 'cuda-node.memory-snapshot'
/** The revision of the snapshot format this build writes. */
export const SNAPSHOT_VERSION = 1

/** What {@link memory.recordHistory} takes. */
export interface HistoryOptions {
  /** Record (default true); false stops and clears the history. */
  enabled?: boolean
  /** `'js'` (default): the JavaScript stack of each allocation and failed request, async callers included (frees carry none: the allocation's is what finds a leak); `'none'`: none. */
  stacks?: 'js' | 'none'
  /** The ring's capacity: the oldest entries are dropped past it (default 100 000). */
  maxEntries?: number
}

/** What happened, as an entry of the history says. */
export type HistoryAction = 'alloc' | 'free' | 'segment_alloc' | 'segment_free' | 'oom'

/** One entry of the history, as the snapshot writes it. */
export interface HistoryEvent {
  /** Milliseconds since the process started (`performance.now()`). */
  t: number
  /** What happened. */
  action: HistoryAction
  /** The device's ordinal. */
  device: number
  /** Index into the snapshot's `streams` (0 the legacy default stream, 1 the per-thread one); -1 when not known. */
  stream: number
  /** The block's address as hex (alloc, free). */
  addr?: string
  /** Bytes given, freed, taken or released. */
  size: number
  /** Bytes asked for (alloc, oom). */
  requested?: number
  /** Which allocator (alloc, oom), or `'free'`. */
  source?: AllocSource | 'free'
  /** Index into the snapshot's `pools`; -1 for none. */
  pool: number
  /** Index into the snapshot's `stacks`; -1 for none. */
  stack: number
  /** The error's message (oom). */
  message?: string
}

/** A block still allocated, as the snapshot lists it. */
export interface SnapshotBlock {
  /** Its address as hex. */
  addr: string
  /** Bytes given. */
  size: number
  /** Bytes asked for. */
  requested: number
  /** The device's ordinal. */
  device: number
  /** Index into `streams`: the current stream when it was allocated. */
  stream: number
  /** Index into `pools`; -1 for none. */
  pool: number
  /** Which allocator gave it. */
  source: AllocSource
  /** When it was allocated (`t` of its alloc event). */
  t: number
  /** Index into `stacks`: where it was allocated; -1 for none. */
  stack: number
}

/** A pool (or an allocator without one) on one device, with its counts and its live blocks. */
export interface SnapshotSegment {
  /** Index into `pools`; -1 for plain and managed memory. */
  pool: number
  /** The device's ordinal. */
  device: number
  /** Bytes it holds from the driver (used + cached); for plain and managed memory, the live blocks' sum. */
  totalBytes: number
  /** Bytes handed out. */
  usedBytes: number
  /** Its live blocks. */
  blocks: SnapshotBlock[]
}

/** A device as the snapshot describes it. */
export interface SnapshotDevice {
  /** The ordinal. */
  device: number
  /** Its name. */
  name: string
  /** Its memory in bytes. */
  totalBytes: number
  /** Bytes free on it when the snapshot was taken. */
  freeBytes: number
}

/** The failed allocation that wrote a snapshot. */
export interface SnapshotOom {
  /** The device's ordinal. */
  device: number
  /** Bytes asked for. */
  requested: number
  /** Which allocator failed. */
  source: AllocSource
  /** The error's message, before the snapshot's name was added to it. */
  message: string
  /** Index into `stacks`: where the failing allocation was made. */
  stack: number
}

/** The recording as the snapshot carries it. */
export interface SnapshotHistory {
  /** Whether it was recording. */
  enabled: boolean
  /** Which stacks it recorded. */
  stacks: 'js' | 'none'
  /** The ring's capacity. */
  maxEntries: number
  /** Entries the ring lost. */
  dropped: number
  /** The entries, oldest first. */
  events: HistoryEvent[]
}

/** The document {@link memory.snapshot} returns; docs/memory-snapshot.md describes each field. */
export interface MemorySnapshot {
  /** `'cuda-node.memory-snapshot'`. */
  schema: typeof SNAPSHOT_SCHEMA
  /** The format's revision ({@link SNAPSHOT_VERSION}). */
  version: number
  /** When it was taken (ISO 8601). */
  createdAt: string
  /** `'cuda'` or `'sim'`. */
  backend: string
  /** Each device. */
  devices: SnapshotDevice[]
  /** Each pool seen, by id. */
  pools: {
    /** Its index. */
    id: number
    /** Its class: `MemoryPool`, `AsyncMemoryPool`, … */
    kind: string
  }[]
  /** Each stream seen, by id. */
  streams: {
    /** Its index. */
    id: number
    /** Its `CUstream` in hex, or which default stream. */
    name: string
  }[]
  /** Live blocks by pool and device. */
  segments: SnapshotSegment[]
  /** The stacks events and blocks name, each its frames innermost first. */
  stacks: string[][]
  /** The history. */
  history: SnapshotHistory
  /** The failed allocation that wrote this snapshot, when one did. */
  oom?: SnapshotOom
}

/** An entry as recorded: the stack still an unformatted Error. */
interface Entry {
  t: number
  action: HistoryAction
  device: number
  stream: number
  /** The address, formatted only when a snapshot is taken. */
  addr?: bigint
  size: number
  requested?: number
  source?: AllocSource | 'free'
  pool: number
  stack: Error | undefined
  message?: string
}

interface Live {
  mem: WeakRef<Memory>
  entry: Entry
}

const state = {
  enabled: false,
  stacks: 'js' as 'js' | 'none',
  maxEntries: 100_000,
  ring: [] as Entry[],
  /** Where the next entry goes once the ring is full. */
  head: 0,
  dropped: 0,
}
/** Live blocks by address, while recording. */
const live = new Map<bigint, Live>()
/** Pools by object; ids are indices of `poolList`. */
const poolIds = new WeakMap<object, number>()
const poolList: { ref: WeakRef<object>; kind: string }[] = []
const streamIds = new WeakMap<Stream, number>()
const streamList: string[] = ['null (legacy default)', 'per-thread default']

function poolId(pool: object | undefined): number {
  if (pool === undefined) return -1
  let id = poolIds.get(pool)
  if (id === undefined) {
    id = poolList.length
    poolIds.set(pool, id)
    poolList.push({ ref: new WeakRef(pool), kind: pool.constructor?.name ?? 'pool' })
  }
  return id
}

function streamId(): number {
  let s: Stream
  try {
    s = getCurrentStream()
  } catch {
    return -1
  }
  if (s === Stream.null) return 0
  if (s === Stream.ptds) return 1
  let id = streamIds.get(s)
  if (id === undefined) {
    id = streamList.length
    streamIds.set(s, id)
    let name: string
    try {
      name = `0x${s.handle.toString(16)}`
    } catch {
      name = `stream ${id}`
    }
    streamList.push(name)
  }
  return id
}

function hex(addr: bigint): string {
  return `0x${addr.toString(16)}`
}

function capture(): Error | undefined {
  return state.stacks === 'js' ? new Error() : undefined
}

function push(e: Entry): void {
  if (state.ring.length < state.maxEntries) {
    state.ring.push(e)
  } else {
    state.ring[state.head] = e
    state.head = (state.head + 1) % state.maxEntries
    state.dropped++
  }
}

/** What each pool held on each device when last seen, by `pool:device`. */
const held = new Map<string, number>()

/**
 * A pool's growth or shrinking since its last allocation, as segment events. Read here, one
 * number, rather than through the `grow` channel, whose listener makes every allocation read the
 * pool's whole counts twice.
 */
function segmentChange(poolObject: object | undefined, pool: number, device: number): void {
  const p = poolObject as { totalBytes?: () => number } | undefined
  if (p === undefined || typeof p.totalBytes !== 'function') return
  const total = p.totalBytes()
  const key = `${pool}:${device}`
  const before = held.get(key) ?? 0
  if (total === before) return
  held.set(key, total)
  const t = performance.now()
  // What a pool gave back (freeAllBlocks, an OOM retry) shows at its next allocation or snapshot.
  if (total > before) push({ t, action: 'segment_alloc', device, stream: -1, size: total - before, pool, stack: undefined })
  else push({ t, action: 'segment_free', device, stream: -1, size: before - total, pool, stack: undefined })
}

/** Segment changes not yet seen by an allocation, as of now. */
function settleSegments(): void {
  if (!state.enabled) return
  for (const key of held.keys()) {
    const [pool, device] = key.split(':').map(Number) as [number, number]
    const p = poolList[pool]?.ref.deref()
    if (p !== undefined) runWith({ device }, () => segmentChange(p, pool, device))
  }
}

function onAlloc(m: AllocMessage): void {
  const pool = poolId(m.pool)
  if (pool >= 0) segmentChange(m.pool, pool, m.device)
  const addr = m.pointer.ptr
  const e: Entry = {
    t: performance.now(), action: 'alloc', device: m.device, stream: streamId(), addr, size: m.size, requested: m.nbytes, source: m.source, pool, stack: capture(),
  }
  push(e)
  live.set(addr, { mem: new WeakRef(m.pointer.mem), entry: e })
}

function onFree(m: FreeMessage): void {
  let addr: bigint
  try {
    addr = m.memory.ptr
  } catch {
    return
  }
  const l = live.get(addr)
  live.delete(addr)
  push({
    t: performance.now(), action: 'free', device: m.device, stream: l?.entry.stream ?? -1, addr, size: m.size, source: 'free', pool: l?.entry.pool ?? -1, stack: undefined,
  })
}

/** The snapshot file written on an OOM, when `CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM` names a directory. */
const oomDir = process.env.CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM || undefined
let oomCount = 0

function onFailed(m: AllocFailedMessage): void {
  const message = m.error instanceof Error ? m.error.message : String(m.error)
  if (state.enabled) {
    push({
      t: performance.now(), action: 'oom', device: m.device, stream: streamId(), size: 0, requested: m.nbytes, source: m.source, pool: poolId(m.pool), stack: capture() ?? new Error(), message,
    })
  }
  if (oomDir !== undefined && m.error instanceof Error && (m.error as { code?: string }).code === 'CUDA_ERROR_OUT_OF_MEMORY') dumpOnOom(m, m.error)
}

function dumpOnOom(m: AllocFailedMessage, error: Error): void {
  const file = path.resolve(oomDir!, `cuda-node-oom-${process.pid}-${++oomCount}.json`)
  try {
    const snap = snapshot()
    const stack = frames(new Error())
    snap.stacks.push(stack)
    snap.oom = { device: m.device, requested: m.nbytes, source: m.source, message: error.message, stack: snap.stacks.length - 1 }
    mkdirSync(oomDir!, { recursive: true })
    writeFileSync(file, JSON.stringify(snap))
    error.message += ` (memory snapshot: ${file}; open it with \`npx cuda-node memviz ${file}\`)`
  } catch (e) {
    error.message += ` (no memory snapshot: writing ${file} failed: ${(e as Error).message})`
  }
}

// The channels the history listens on while recording; `allocFailed` also while OOMs are dumped.
// Not `grow`, `oomRetry`, `release`: a listener there makes each pool allocation read its counts
// twice; the history reads one number instead (segmentChange).
const subscriptions: [keyof typeof memoryChannels, (m: any) => void][] = [
  ['alloc', onAlloc], ['free', onFree],
]
if (oomDir !== undefined) memoryChannels.allocFailed.subscribe(onFailed as (m: unknown) => void)

function recordHistory(options: HistoryOptions = {}): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('recordHistory takes { enabled, stacks, maxEntries }')
  const { enabled = true, stacks = 'js', maxEntries = 100_000 } = options
  if (typeof enabled !== 'boolean') throw new TypeError(`enabled must be a boolean, got ${typeof enabled}`)
  if (stacks !== 'js' && stacks !== 'none') throw new TypeError(`stacks must be 'js' or 'none', got ${String(stacks)}`)
  if (typeof maxEntries !== 'number') throw new TypeError(`maxEntries must be a number, got ${typeof maxEntries}`)
  if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > 2 ** 26) throw new RangeError(`maxEntries must be an integer in [1, 2^26], got ${maxEntries}`)
  if (enabled !== state.enabled) {
    const all: typeof subscriptions = oomDir === undefined ? [...subscriptions, ['allocFailed', onFailed]] : subscriptions
    for (const [name, fn] of all) {
      if (enabled) memoryChannels[name].subscribe(fn)
      else memoryChannels[name].unsubscribe(fn)
    }
  }
  if (!enabled || maxEntries !== state.maxEntries) {
    state.ring = []
    state.head = 0
    state.dropped = 0
  }
  if (!enabled) {
    live.clear()
    held.clear()
  }
  state.enabled = enabled
  state.stacks = stacks
  state.maxEntries = maxEntries
}

/** The frames of a captured stack, without the history's own (which sit above the allocating call). */
function frames(e: Error): string[] {
  const lines = (e.stack ?? '').split('\n').slice(1).map((l) => l.trim())
  // Drop frames inside this package's memory layer and the channel machinery, up to the caller.
  let i = 0
  while (i < lines.length && /lib[\\/]memory[\\/]|node:diagnostics_channel|diagnostics_channel/.test(lines[i]!)) i++
  return lines.slice(i)
}

function snapshot(): MemorySnapshot {
  settleSegments()
  const stacks: string[][] = []
  const stackIds = new Map<string, number>()
  const errIds = new WeakMap<Error, number>()
  const stackOf = (e: Error | undefined): number => {
    if (e === undefined) return -1
    const known = errIds.get(e)
    if (known !== undefined) return known
    const f = frames(e)
    const key = f.join('\n')
    let id = stackIds.get(key)
    if (id === undefined) {
      id = stacks.length
      stacks.push(f)
      stackIds.set(key, id)
    }
    errIds.set(e, id)
    return id
  }
  const ordered = state.ring.length < state.maxEntries ? state.ring : [...state.ring.slice(state.head), ...state.ring.slice(0, state.head)]
  const events: HistoryEvent[] = ordered.map((e) => {
    const out: HistoryEvent = { t: e.t, action: e.action, device: e.device, stream: e.stream, size: e.size, pool: e.pool, stack: stackOf(e.stack) }
    if (e.addr !== undefined) out.addr = hex(e.addr)
    if (e.requested !== undefined) out.requested = e.requested
    if (e.source !== undefined) out.source = e.source
    if (e.message !== undefined) out.message = e.message
    return out
  })
  // Live blocks, grouped by pool and device; a block whose Memory was collected or freed unseen is gone.
  const segs = new Map<string, SnapshotSegment>()
  for (const [addr, l] of live) {
    const m = l.mem.deref()
    if (m === undefined || m.freed) {
      live.delete(addr)
      continue
    }
    const e = l.entry
    const key = `${e.pool}:${e.device}`
    let seg = segs.get(key)
    if (seg === undefined) segs.set(key, (seg = { pool: e.pool, device: e.device, totalBytes: 0, usedBytes: 0, blocks: [] }))
    seg.blocks.push({ addr: hex(addr), size: e.size, requested: e.requested ?? e.size, device: e.device, stream: e.stream, pool: e.pool, source: e.source as AllocSource, t: e.t, stack: stackOf(e.stack) })
    seg.usedBytes += e.size
  }
  for (const seg of segs.values()) {
    seg.totalBytes = seg.usedBytes
    const pool = seg.pool >= 0 ? poolList[seg.pool]!.ref.deref() : undefined
    const stats = pool === undefined ? undefined : poolStats(pool, seg.device)
    if (stats !== undefined) {
      seg.totalBytes = stats.totalBytes
      seg.usedBytes = stats.usedBytes
    }
  }
  const devices: MemorySnapshot['devices'] = []
  try {
    for (let d = 0; d < Device.count(); d++) {
      const dev = new Device(d)
      const info = dev.memInfo()
      devices.push({ device: d, name: dev.name, totalBytes: info.total, freeBytes: info.free })
    }
  } catch {
    // A device that cannot say: the snapshot still has the history.
  }
  return {
    schema: SNAPSHOT_SCHEMA,
    version: SNAPSHOT_VERSION,
    createdAt: new Date().toISOString(),
    backend: backend().name,
    devices,
    pools: poolList.map((p, id) => ({ id, kind: p.kind })),
    streams: streamList.map((name, id) => ({ id, name })),
    segments: [...segs.values()].sort((a, b) => a.device - b.device || a.pool - b.pool),
    stacks,
    history: { enabled: state.enabled, stacks: state.stacks, maxEntries: state.maxEntries, dropped: state.dropped, events },
  }
}

/** A pool's counts on `device`, read with that device current. */
function poolStats(pool: object, device: number): { totalBytes: number; usedBytes: number } | undefined {
  const p = pool as { stats?: () => { totalBytes: number; usedBytes: number } }
  if (typeof p.stats !== 'function') return undefined
  try {
    return runWith({ device }, () => p.stats!())
  } catch {
    return undefined
  }
}

function dumpSnapshot(file: string): string {
  if (typeof file !== 'string' || file === '') throw new TypeError('dumpSnapshot takes a file path')
  const out = path.resolve(file)
  writeFileSync(out, JSON.stringify(snapshot()))
  return out
}

/**
 * Memory history and snapshots (PyTorch's `torch.cuda.memory._record_memory_history`,
 * `_snapshot`, `_dump_snapshot`; CuPy has none).
 */
export const memory = {
  /**
   * Starts (or stops, with `{ enabled: false }`) recording every allocation, free, pool growth
   * and release, retry and failed request of every device-memory allocator, with its device,
   * stream, sizes and JavaScript stack (async callers included). Off, it costs nothing.
   * @throws {TypeError} for a bad option, {RangeError} for `maxEntries` outside [1, 2^26].
   */
  recordHistory,
  /** The live blocks, pools, devices and history as one JSON-ready document (docs/memory-snapshot.md). */
  snapshot,
  /** Writes {@link memory.snapshot} to `file` as JSON; returns its absolute path. @throws {TypeError}, and what writing throws. */
  dumpSnapshot,
}
