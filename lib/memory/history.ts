// Memory history and snapshots (PyTorch's `_record_memory_history` / `_snapshot`): a ring of
// columns fed by the allocators' direct hook (channels.ts `historyTap`). Off, the hook is unset and
// an allocation's cost is one property read. On, an entry is a few stores into typed arrays and a
// stack is captured with `Error.captureStackTrace` and formatted only when a snapshot is taken:
// V8 formats `.stack` lazily. The snapshot draws the caching pools' segments as they lay them
// out (`MemoryPool.segments()`), free blocks included.
import { writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { backend } from '../backend'
import { runWith, scope } from '../context'
import { Device } from '../device'
import { native } from '../native'
import { own, ownDevice, type NativeObject } from '../object'
import { perThreadIsDefault } from '../stream/handle'
import { Stream } from '../stream/stream'
import { historyTap, memoryChannels, type HistoryTap } from './channels'
import { publishAlloc, publishFailed, type AllocFailedMessage, type AllocSource } from './events'
import type { PinnedMemory } from './pinned'
import { PinnedMemoryPool } from './pinned-pool'
import { MemoryPool } from './pool'

/** The snapshot's `schema` field; `version` says which revision of docs/memory-snapshot.md it follows. */
export const SNAPSHOT_SCHEMA = 'cuda-node.memory-snapshot'
/** The revision of the snapshot format this build writes. */
export const SNAPSHOT_VERSION = 2

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
  /** The device's ordinal; -1 for pinned host memory. */
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
  /** Index into `stacks`: where it was allocated; -1 for none. A block allocated before the history began has `t` and `stack` -1. */
  stack: number
}

/** A cached free block of a caching pool's segment. */
export interface SnapshotFreeBlock {
  /** Its address as hex. */
  addr: string
  /** Its bytes. */
  size: number
  /** Index into `streams`: the stream whose arena holds it (it is reused there first). */
  stream: number
}

/** A segment of a caching pool as it lays it out, or the live allocations of another allocator on one device. */
export interface SnapshotSegment {
  /** `'segment'`: one of a MemoryPool's segments (an allocation it took, or an expandable segment's mapped range), its live `blocks` and its `free` ones covering it; `'allocations'`: the live blocks of a pool without a layout (stream-ordered, pinned) or of no pool (plain, managed). */
  kind: 'segment' | 'allocations'
  /** Index into `pools`; -1 for plain and managed memory. */
  pool: number
  /** The device's ordinal; -1 for pinned host memory. */
  device: number
  /** A segment's first address as hex. */
  address?: string
  /** A segment's stream (index into `streams`): the arena its first block is in. */
  stream?: number
  /** Whether a segment is an expandable one. */
  expandable?: boolean
  /** A segment's bytes; for allocations, what the pool holds (used + cached), or the live blocks' sum. */
  totalBytes: number
  /** Bytes handed out. */
  usedBytes: number
  /** The live blocks (a segment's in address order). */
  blocks: SnapshotBlock[]
  /** A segment's cached free blocks, in address order: with `blocks`, they cover it. */
  free?: SnapshotFreeBlock[]
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
  /** The caching pools' segments, then the other live allocations by pool and device. */
  segments: SnapshotSegment[]
  /** The stacks events and blocks name, each its frames innermost first. */
  stacks: string[][]
  /** The history. */
  history: SnapshotHistory
  /** The failed allocation that wrote this snapshot, when one did. */
  oom?: SnapshotOom
}

const ACTIONS: readonly HistoryAction[] = ['alloc', 'free', 'segment_alloc', 'segment_free', 'oom']
const [ALLOC, FREE, SEGMENT_ALLOC, SEGMENT_FREE, OOM] = [0, 1, 2, 3, 4]
const SOURCES: readonly (AllocSource | 'free')[] = ['pool', 'async-pool', 'plain', 'managed', 'pinned', 'free']
const SOURCE_FREE = 5
/** No source (segment events). */
const NO_SOURCE = 255
const sourceCodes: Record<string, number> = { pool: 0, 'async-pool': 1, plain: 2, managed: 3, pinned: 4 }

/**
 * The ring, as columns: an entry is a few stores into typed arrays, no object (a million
 * entries of objects cost the GC more than recording them). The stack column holds what
 * `Error.captureStackTrace` filled in: V8 formats it only when a snapshot reads it. The columns
 * grow by doubling up to `maxEntries`, then the oldest entry is overwritten.
 */
const ring = {
  /** Entries held (at most `max`). */
  n: 0,
  max: 100_000,
  /** Where the next entry goes once the ring is full: the oldest. */
  head: 0,
  dropped: 0,
  t: new Float64Array(0),
  addr: new Float64Array(0),
  size: new Float64Array(0),
  /** Bytes asked for; NaN for none. */
  requested: new Float64Array(0),
  action: new Uint8Array(0),
  source: new Uint8Array(0),
  device: new Int16Array(0),
  stream: new Int32Array(0),
  pool: new Int32Array(0),
  /** What `Error.captureStackTrace` filled in, unformatted (V8 formats it when the snapshot reads it). */
  stack: [] as (object | undefined)[],
  /** The messages of oom entries, by slot. */
  message: new Map<number, string>(),
}

/** A column of the ring or of a live table. */
type Column = Float64Array | Uint8Array | Int16Array | Int32Array

/** A column of `cap` entries of `a`'s kind, holding as many of `a`'s first values as fit. */
function resized<T extends Column>(a: T, cap: number): T {
  const b = new (a.constructor as new (n: number) => T)(cap)
  b.set(a.subarray(0, Math.min(a.length, cap)))
  return b
}

function resize(cap: number): void {
  ring.t = resized(ring.t, cap)
  ring.addr = resized(ring.addr, cap)
  ring.size = resized(ring.size, cap)
  ring.requested = resized(ring.requested, cap)
  ring.action = resized(ring.action, cap)
  ring.source = resized(ring.source, cap)
  ring.device = resized(ring.device, cap)
  ring.stream = resized(ring.stream, cap)
  ring.pool = resized(ring.pool, cap)
}

function clearRing(max: number): void {
  ring.n = 0
  ring.head = 0
  ring.dropped = 0
  ring.max = max
  ring.message.clear()
  ring.stack = []
  resize(Math.min(max, 1024))
}

/** The slot the next entry goes in. */
function slot(): number {
  if (ring.n < ring.max) {
    if (ring.n === ring.t.length) resize(Math.min(ring.max, ring.t.length * 2))
    return ring.n++
  }
  const i = ring.head
  ring.head = i + 1 === ring.max ? 0 : i + 1
  ring.dropped++
  if (ring.message.size > 0) ring.message.delete(i)
  return i
}

function put(action: number, t: number, device: number, stream: number, addr: number, size: number, requested: number, source: number, pool: number, stack: object | undefined): number {
  const i = slot()
  ring.t[i] = t
  ring.action[i] = action
  ring.device[i] = device
  ring.stream[i] = stream
  ring.addr[i] = addr
  ring.size[i] = size
  ring.requested[i] = requested
  ring.source[i] = source
  ring.pool[i] = pool
  ring.stack[i] = stack
  return i
}

/**
 * The blocks allocated while recording and not yet seen freed, as columns indexed by their
 * handle's slot (a handle is its table's slot plus a generation, and is never issued twice): what
 * a free and the snapshot say of each, found with an array load rather than a hash lookup.
 */
class LiveTable {
  /** The handle in each slot; -1 for none. */
  handle = new Float64Array(0)
  addr = new Float64Array(0)
  size = new Float64Array(0)
  requested = new Float64Array(0)
  t = new Float64Array(0)
  device = new Int16Array(0)
  stream = new Int32Array(0)
  pool = new Int32Array(0)
  source = new Uint8Array(0)
  stack: (object | undefined)[] = []

  /** Records the block of handle `h`. */
  set(h: number, addr: number, size: number, requested: number, t: number, device: number, stream: number, pool: number, source: number, stack: object | undefined): void {
    const i = h >>> 0
    if (i >= this.handle.length) this.#grow(i)
    this.handle[i] = h
    this.addr[i] = addr
    this.size[i] = size
    this.requested[i] = requested
    this.t[i] = t
    this.device[i] = device
    this.stream[i] = stream
    this.pool[i] = pool
    this.source[i] = source
    this.stack[i] = stack
  }

  /** The slot of handle `h`, or -1 when the table holds no block of it. */
  find(h: number): number {
    const i = h >>> 0
    return i < this.handle.length && this.handle[i] === h ? i : -1
  }

  /** Forgets slot `i`. */
  remove(i: number): void {
    this.handle[i] = -1
    this.stack[i] = undefined
  }

  clear(): void {
    this.handle.fill(-1)
    this.stack = []
  }

  #grow(i: number): void {
    const cap = Math.max(1024, 2 ** Math.ceil(Math.log2(i + 1)))
    const old = this.handle.length
    this.handle = resized(this.handle, cap)
    this.handle.fill(-1, old)
    this.addr = resized(this.addr, cap)
    this.size = resized(this.size, cap)
    this.requested = resized(this.requested, cap)
    this.t = resized(this.t, cap)
    this.device = resized(this.device, cap)
    this.stream = resized(this.stream, cap)
    this.pool = resized(this.pool, cap)
    this.source = resized(this.source, cap)
  }
}

const state = {
  enabled: false,
  stacks: 'js' as 'js' | 'none',
}
/** A live block as the snapshot reads it from a {@link LiveTable}. */
interface Live {
  addr: number
  size: number
  requested: number
  t: number
  device: number
  stream: number
  pool: number
  source: number
  stack: object | undefined
}

/** Live device blocks by their Memory's handle. */
const live = new LiveTable()
/** Live pinned blocks by their PinnedMemory's handle (another table's handles). */
const livePinned = new LiveTable()
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

/** The snapshot's index of the current stream of `device`. */
function streamId(device: number): number {
  const s = scope().streams?.get(device) as Stream | undefined
  if (s === undefined) return perThreadIsDefault() ? 1 : 0
  if (s === Stream.null) return 0
  if (s === Stream.ptds) return 1
  let id = streamIds.get(s)
  if (id === undefined) {
    let name: string
    try {
      name = `0x${s.handle.toString(16)}`
    } catch {
      name = `stream ${streamList.length}`
    }
    id = streamByName(name)
    streamIds.set(s, id)
  }
  return id
}

/** The index of the stream named `name` (a `CUstream` in hex), added if new. */
function streamByName(name: string): number {
  const at = streamList.indexOf(name)
  if (at >= 0) return at
  streamList.push(name)
  return streamList.length - 1
}

function hex(addr: number | bigint): string {
  return `0x${addr.toString(16)}`
}

/** Captures the current stack into an object, frames above and including `from` left out; V8 formats it only when `.stack` is read. */
function capture(from: Function): object {
  const o = {}
  Error.captureStackTrace(o, from)
  return o
}

/** What `.stack` gives during a snapshot: V8's call sites, unformatted. */
const rawSites = (_e: Error, sites: NodeJS.CallSite[]): NodeJS.CallSite[] => sites
/** Each distinct stack seen while recording, by its key: the key's one kept copy and its frames. */
const formatted = new Map<string, { key: string; frames: string[] }>()

/**
 * The key of a captured stack, read during a snapshot (`Error.prepareStackTrace` handing back the
 * call sites raw): each frame's script and position. Only a new key is formatted the way
 * `.stack` would have been (by `prepare`, with source maps where they are on): that is most of a
 * stack's cost, and most allocations come from a few sites. The object keeps the key's one copy,
 * in place of its call sites, for the next snapshot.
 */
function keyOf(o: object, prepare: typeof Error.prepareStackTrace): string {
  const raw = (o as { stack?: unknown }).stack
  if (typeof raw === 'string') return raw
  const sites = Array.isArray(raw) ? (raw as NodeJS.CallSite[]) : []
  // A frame is its script and its position there (the text a frame formats to follows from them,
  // and these two cost a fraction of formatting it).
  let key = ''
  for (const c of sites) key += `${c.getScriptNameOrSourceURL()}:${c.getPosition()}${c.isAsync() ? '+' : ''}\n`
  let entry = formatted.get(key)
  if (entry === undefined) {
    const plain = (): string => `Error\n${sites.map((c) => `    at ${String(c)}`).join('\n')}`
    let text: string
    try {
      text = prepare !== undefined ? String(prepare(o as Error, sites)) : plain()
    } catch {
      text = plain()
    }
    entry = { key, frames: frames(text) }
    formatted.set(key, entry)
  }
  ;(o as { stack?: unknown }).stack = entry.key
  return entry.key
}

/** What each pool held on each device when last seen, by `pool * 1024 + device`. */
const held = new Map<number, number>()

/** A pool's bytes held on the current device (-1: it cannot say). */
function heldBytes(poolObject: object): number {
  const p = poolObject as { totalBytes?: () => number }
  return typeof p.totalBytes === 'function' ? p.totalBytes() : -1
}

/**
 * A pool's growth or shrinking since its last allocation, as segment events. Read here, one
 * number, rather than through the `grow` channel, whose listener makes every allocation read the
 * pool's whole counts twice.
 */
function segmentChange(total: number, pool: number, device: number, t: number): void {
  if (total < 0) return
  const key = pool * 1024 + device
  const before = held.get(key) ?? 0
  if (total === before) return
  held.set(key, total)
  // What a pool gave back (freeAllBlocks, an OOM retry) shows at its next allocation or snapshot.
  if (total > before) put(SEGMENT_ALLOC, t, device, -1, NaN, total - before, NaN, NO_SOURCE, pool, undefined)
  else put(SEGMENT_FREE, t, device, -1, NaN, before - total, NaN, NO_SOURCE, pool, undefined)
}

/** Segment changes not yet seen by an allocation, as of now. */
function settleSegments(): void {
  if (!state.enabled) return
  for (const key of Array.from(held.keys())) {
    const pool = Math.floor(key / 1024)
    const device = key - pool * 1024
    const p = poolList[pool]?.ref.deref()
    if (p !== undefined) runWith({ device }, () => segmentChange(heldBytes(p), pool, device, now()))
  }
}

/** Where `memHistoryInfo` writes a block's address and size, the clock, and its pool's bytes. */
const scratch = new Float64Array(4)
const scratchBytes = new Uint8Array(scratch.buffer)
/** `performance.now()` less the addon's clock (the same monotonic clock, another origin), set when recording starts. */
let clockOffset = 0

/** Now, as `performance.now()` says it, read from the addon's clock (a cheaper call). */
function now(): number {
  return native.monotonicMs() + clockOffset
}

const PINNED_MALLOC = PinnedMemoryPool.prototype.malloc

/** The pool of the last allocation and its id: most allocations come from the pool before. */
let lastPool: object | undefined
let lastPoolId = -1

// The hot path: one native call (address, size, time and the pool's bytes), then stores.
function onAlloc(mem: object, nbytes: number, source: string, poolObject: object | undefined, device: number, nativePool: number): void {
  const pinned = source === 'pinned'
  const h = own(mem as NativeObject)
  let addr: number
  let size: number
  let t: number
  let total = -1
  if (pinned) {
    const info = native.pinnedInfo(h)
    addr = Number(info.ptr)
    size = info.size
    t = now()
  } else {
    native.memHistoryInfo(h, source === 'pool' ? nativePool : -1, scratchBytes)
    addr = scratch[0]!
    size = scratch[1]!
    t = scratch[2]! + clockOffset
    total = scratch[3]!
  }
  let pool = -1
  if (poolObject !== undefined) {
    if (poolObject !== lastPool) {
      lastPoolId = poolId(poolObject)
      lastPool = poolObject
    }
    pool = lastPoolId
    if (!pinned) {
      if (total < 0) total = source === 'async-pool' && nativePool >= 0 ? native.asyncPoolTotalBytes(nativePool) : heldBytes(poolObject)
      // Stamped with the allocation's time: the growth came first, and the entries stay in order.
      segmentChange(total, pool, device, t)
    }
  }
  const stream = pinned ? -1 : streamId(device)
  const stack = state.stacks === 'js' ? capture(pinned ? PINNED_MALLOC : publishAlloc) : undefined
  const src = sourceCodes[source] ?? NO_SOURCE
  const i = slot()
  ring.t[i] = t
  ring.action[i] = ALLOC
  ring.device[i] = device
  ring.stream[i] = stream
  ring.addr[i] = addr
  ring.size[i] = size
  ring.requested[i] = nbytes
  ring.source[i] = src
  ring.pool[i] = pool
  ring.stack[i] = stack
  ;(pinned ? livePinned : live).set(h, addr, size, nbytes, t, device, stream, pool, src, stack)
}

function onFree(mem: object, pinned: boolean): void {
  const h = own(mem as NativeObject)
  const table = pinned ? livePinned : live
  const i = table.find(h)
  if (i >= 0) {
    const j = slot()
    ring.t[j] = now()
    ring.action[j] = FREE
    ring.device[j] = table.device[i]!
    ring.stream[j] = table.stream[i]!
    ring.addr[j] = table.addr[i]!
    ring.size[j] = table.size[i]!
    ring.requested[j] = NaN
    ring.source[j] = SOURCE_FREE
    ring.pool[j] = table.pool[i]!
    ring.stack[j] = undefined
    table.remove(i)
    return
  }
  // Allocated before the history began: its address, if it can still say.
  if (pinned && (mem as PinnedMemory).registered) return
  try {
    const d = pinned ? native.pinnedInfo(h) : native.memDesc(h)
    put(FREE, now(), pinned ? -1 : ownDevice(mem as NativeObject), -1, Number(d.ptr), d.size, NaN, SOURCE_FREE, -1, undefined)
  } catch {
    // Already gone (a pool took it from its allocator): nothing is freed here.
  }
}

const tap: HistoryTap = { alloc: onAlloc, free: onFree }

/** The snapshot file written on an OOM, when `CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM` names a directory. */
const oomDir = process.env.CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM || undefined
let oomCount = 0

function onFailed(m: AllocFailedMessage): void {
  const message = m.error instanceof Error ? m.error.message : String(m.error)
  if (state.enabled) {
    // What was asked, as the caller passed it: a request refused for its size may be anything
    // (converting a hostile object to a number runs its code), so only a number is kept.
    const requested = typeof m.nbytes === 'number' ? m.nbytes : NaN
    const i = put(OOM, now(), m.device, streamId(m.device), NaN, 0, requested, sourceCodes[m.source] ?? NO_SOURCE, poolId(m.pool), capture(publishFailed))
    ring.message.set(i, message)
  }
  if (oomDir !== undefined && m.error instanceof Error && (m.error as { code?: string }).code === 'CUDA_ERROR_OUT_OF_MEMORY') dumpOnOom(m, m.error)
}

function dumpOnOom(m: AllocFailedMessage, error: Error): void {
  const file = path.resolve(oomDir!, `cuda-node-oom-${process.pid}-${++oomCount}.json`)
  try {
    const snap = snapshot()
    const stack = frames(new Error().stack ?? '')
    snap.stacks.push(stack)
    snap.oom = { device: m.device, requested: m.nbytes, source: m.source, message: error.message, stack: snap.stacks.length - 1 }
    mkdirSync(oomDir!, { recursive: true })
    writeFileSync(file, JSON.stringify(snap))
    error.message += ` (memory snapshot: ${file}; open it with \`npx cuda-node memviz ${file}\`)`
  } catch (e) {
    error.message += ` (no memory snapshot: writing ${file} failed: ${(e as Error).message})`
  }
}

// Allocations and frees come through the allocators' direct hook (historyTap), failed requests
// through the `allocFailed` channel (also while OOMs are dumped). Not `grow`, `oomRetry`,
// `release`: a listener there makes each pool allocation read its counts twice; the history reads
// one number instead (segmentChange).
if (oomDir !== undefined) memoryChannels.allocFailed.subscribe(onFailed as (m: unknown) => void)

function recordHistory(options: HistoryOptions = {}): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('recordHistory takes { enabled, stacks, maxEntries }')
  const { enabled = true, stacks = 'js', maxEntries = 100_000 } = options
  if (typeof enabled !== 'boolean') throw new TypeError(`enabled must be a boolean, got ${typeof enabled}`)
  if (stacks !== 'js' && stacks !== 'none') throw new TypeError(`stacks must be 'js' or 'none', got ${String(stacks)}`)
  if (typeof maxEntries !== 'number') throw new TypeError(`maxEntries must be a number, got ${typeof maxEntries}`)
  if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > 2 ** 26) throw new RangeError(`maxEntries must be an integer in [1, 2^26], got ${maxEntries}`)
  if (enabled !== state.enabled) {
    clockOffset = performance.now() - native.monotonicMs()
    historyTap.on = enabled ? tap : undefined
    if (oomDir === undefined) {
      if (enabled) memoryChannels.allocFailed.subscribe(onFailed as (m: unknown) => void)
      else memoryChannels.allocFailed.unsubscribe(onFailed as (m: unknown) => void)
    }
  }
  if (!enabled || maxEntries !== ring.max || !state.enabled) clearRing(enabled ? maxEntries : 1)
  if (!enabled) {
    live.clear()
    livePinned.clear()
    held.clear()
    formatted.clear()
    lastPool = undefined
  }
  state.enabled = enabled
  state.stacks = stacks
  ring.max = maxEntries
}

/** The frames of a formatted stack, without the history's own (which sit above the allocating call). */
function frames(stack: string): string[] {
  const lines = stack.split('\n').slice(1).map((l) => l.trim())
  // Drop frames inside this package's memory layer and the channel machinery, up to the caller.
  let i = 0
  while (i < lines.length && /lib[\\/]memory[\\/]|node:diagnostics_channel|diagnostics_channel/.test(lines[i]!)) i++
  return lines.slice(i)
}

/** The snapshot's index of a pool's arena stream, by its `CUstream`. */
function streamOfHandle(handle: bigint): number {
  return handle === 0n ? 0 : handle === 2n ? 1 : streamByName(hex(handle))
}

function snapshot(): MemorySnapshot {
  const prepare = Error.prepareStackTrace
  Error.prepareStackTrace = rawSites
  try {
    return snapshotWith(prepare)
  } finally {
    Error.prepareStackTrace = prepare
  }
}

function snapshotWith(prepare: typeof Error.prepareStackTrace): MemorySnapshot {
  settleSegments()
  // A snapshot's cost is one pass over the entries: each stack's key is read once, and each
  // distinct stack formatted once while recording lasts.
  const stacks: string[][] = []
  const byKey = new Map<string, number>()
  const stackOf = (e: object | undefined): number => {
    if (e === undefined) return -1
    const key = keyOf(e, prepare)
    let id = byKey.get(key)
    if (id === undefined) {
      id = stacks.length
      stacks.push(formatted.get(key)?.frames ?? [])
      byKey.set(key, id)
    }
    return id
  }
  const n = ring.n
  const first = n < ring.max ? 0 : ring.head
  const events: HistoryEvent[] = []
  for (let k = 0; k < n; k++) {
    const i = first + k < n ? first + k : first + k - n
    const action = ring.action[i]!
    const e: HistoryEvent = { t: ring.t[i]!, action: ACTIONS[action]!, device: ring.device[i]!, stream: ring.stream[i]!, size: ring.size[i]!, pool: ring.pool[i]!, stack: stackOf(ring.stack[i]) }
    const addr = ring.addr[i]!
    if (addr === addr) e.addr = hex(addr)
    const requested = ring.requested[i]!
    if (requested === requested) e.requested = requested
    const source = ring.source[i]!
    if (source !== NO_SOURCE) e.source = SOURCES[source]
    if (action === OOM) e.message = ring.message.get(i) ?? ''
    events.push(e)
  }
  // The live blocks the history saw, by address; a block freed unseen or collected is gone
  // (its handle names nothing now: handles are never issued twice).
  const seen = new Map<number, Live>()
  const pinnedSeen: Live[] = []
  for (const [table, pinned] of [[live, false], [livePinned, true]] as const) {
    for (let i = 0; i < table.handle.length; i++) {
      const h = table.handle[i]!
      if (h < 0) continue
      let alive = false
      try {
        if (pinned) native.pinnedInfo(h)
        else native.memHistoryInfo(h, -1, scratchBytes)
        alive = true
      } catch {
        // Freed: the handle names nothing.
      }
      if (!alive) {
        table.remove(i)
        continue
      }
      const l: Live = { addr: table.addr[i]!, size: table.size[i]!, requested: table.requested[i]!, t: table.t[i]!, device: table.device[i]!, stream: table.stream[i]!, pool: table.pool[i]!, source: table.source[i]!, stack: table.stack[i] }
      if (pinned) pinnedSeen.push(l)
      else seen.set(l.addr, l)
    }
  }
  const block = (l: Live): SnapshotBlock => ({
    addr: hex(l.addr), size: l.size, requested: l.requested, device: l.device, stream: l.stream, pool: l.pool, source: SOURCES[l.source] as AllocSource, t: l.t, stack: stackOf(l.stack),
  })
  const segments: SnapshotSegment[] = []
  // The caching pools' segments as they lay them out, each block in use or free.
  for (let pool = 0; pool < poolList.length; pool++) {
    const p = poolList[pool]!.ref.deref()
    if (!(p instanceof MemoryPool)) continue
    for (const [device, layout] of p.segmentsByDevice()) {
      for (const g of layout) {
        let usedBytes = 0
        const blocks: SnapshotBlock[] = []
        const free: SnapshotFreeBlock[] = []
        for (const b of g.blocks) {
          if (!b.inUse) {
            free.push({ addr: hex(b.address), size: b.size, stream: streamOfHandle(b.stream) })
            continue
          }
          usedBytes += b.size
          const addr = Number(b.address)
          const l = seen.get(addr)
          if (l !== undefined) {
            seen.delete(addr)
            blocks.push(block(l))
          } else {
            // Allocated before the history began.
            blocks.push({ addr: hex(b.address), size: b.size, requested: b.size, device, stream: streamOfHandle(b.stream), pool, source: 'pool', t: -1, stack: -1 })
          }
        }
        segments.push({ kind: 'segment', pool, device, address: hex(g.address), stream: streamOfHandle(g.stream), expandable: g.expandable, totalBytes: g.size, usedBytes, blocks, free })
      }
    }
  }
  // Other allocations (plain, managed, stream-ordered, pinned), grouped by pool and device.
  const groups = new Map<string, SnapshotSegment>()
  for (const l of [...seen.values(), ...pinnedSeen]) {
    const key = `${l.pool}:${l.device}`
    let seg = groups.get(key)
    if (seg === undefined) groups.set(key, (seg = { kind: 'allocations', pool: l.pool, device: l.device, totalBytes: 0, usedBytes: 0, blocks: [] }))
    seg.blocks.push(block(l))
    seg.usedBytes += l.size
  }
  for (const seg of groups.values()) {
    seg.blocks.sort((a, b) => a.addr.length - b.addr.length || (a.addr < b.addr ? -1 : 1))
    seg.totalBytes = seg.usedBytes
    const pool = seg.pool >= 0 ? poolList[seg.pool]!.ref.deref() : undefined
    const stats = pool === undefined || seg.device < 0 ? undefined : poolStats(pool, seg.device)
    if (stats !== undefined) {
      seg.totalBytes = stats.totalBytes
      seg.usedBytes = stats.usedBytes
    }
    segments.push(seg)
  }
  segments.sort((a, b) => a.device - b.device || a.pool - b.pool)
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
    segments,
    stacks,
    history: { enabled: state.enabled, stacks: state.stacks, maxEntries: ring.max, dropped: ring.dropped, events },
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
