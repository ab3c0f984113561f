// Memory history and snapshots (PyTorch's `_record_memory_history` / `_snapshot`): a ring of
// columns fed by the allocators' direct hook (channels.ts `historyTap`). Off, the hook is unset and
// an allocation's cost is one property read. On, an entry is a few stores into typed arrays and a
// stack is captured with `Error.captureStackTrace` and formatted only when a snapshot is taken:
// V8 formats `.stack` lazily. Without stacks, the addon logs a caching or pinned pool's allocations and the
// frees itself, and the history reads its log in batches (`readLog`). The snapshot draws the caching pools' segments as they lay them
// out (`MemoryPool.segments()`), free blocks included.
import { writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { backend } from '../backend'
import { runWith, scope } from '../context'
import { Device } from '../device'
import { constants, native } from '../native'
import { own, ownDevice, type NativeObject } from '../object'
import { perThreadIsDefault } from '../stream/handle'
import { Stream } from '../stream/stream'
import { mallocPlain } from './allocator'
import { AsyncMemoryPool } from './async-pool'
import { historyTap, memoryChannels, type HistoryTap } from './channels'
import { publishAlloc, publishFailed, type AllocFailedMessage, type AllocSource } from './events'
import type { PinnedMemory } from './pinned'
import { mallocManaged } from './managed'
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
  /**
   * Frames each stack keeps, from the allocating call outward, async callers included (default 10,
   * at most 200; `Error.stackTraceLimit` is left as it is). Capturing is V8's cost: it summarizes
   * each synchronous frame it walks (an optimized one, the allocator inlined into it, costs most;
   * async callers cost little), so fewer frames cost somewhat less (bench/memory-history.ts).
   */
  frames?: number
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
const ALLOC = 0
const FREE = 1
const SEGMENT_ALLOC = 2
const SEGMENT_FREE = 3
const OOM = 4
const SOURCES: readonly (AllocSource | 'free')[] = ['pool', 'async-pool', 'plain', 'managed', 'pinned', 'free']
const SOURCE_FREE = 5
/** A pinned pool's allocations. */
const SOURCE_PINNED = 4
/** A free's `action | source << 3`. */
const FREE_CODE = FREE | (SOURCE_FREE << 3)
/** Frames a stack keeps by default: the allocating call and its callers, async ones included. */
const DEFAULT_FRAMES = 10
/** The most frames a stack may keep. */
const MAX_FRAMES = 200
/** No source (segment events). */
const NO_SOURCE = 255
const sourceCodes: Record<string, number> = { pool: 0, 'async-pool': 1, plain: 2, managed: 3, pinned: 4 }

/** Entries a chunk of the ring holds (2^CHUNK_SHIFT): 256 KiB of numbers. */
const CHUNK_SHIFT = 12
const CHUNK_MASK = (1 << CHUNK_SHIFT) - 1

/**
 * The ring: an entry is eight numbers (`E_*` below) in a Float64Array of `CHUNK` entries, no
 * object (a million entries of objects cost the GC more than recording them). It grows a chunk at
 * a time up to `maxEntries`, then the oldest entry is overwritten: growing copies nothing and
 * touches no memory twice (a ring grown by doubling copied each entry again at each doubling, and
 * the fresh pages of each copy were most of what the first `maxEntries` entries cost). The stacks
 * are a plain array beside it, touched only once a stack was recorded: each holds what
 * `Error.captureStackTrace` filled in, which V8 formats only when a snapshot reads it.
 */
const ring = {
  /** Entries held (at most `max`). */
  n: 0,
  max: 100_000,
  /** Where the next entry goes: `n` while the ring fills, the oldest entry once it is full. */
  head: 0,
  dropped: 0,
  /** Entries it has room for: its chunks'. */
  cap: 0,
  /** The entries, `STRIDE` numbers each: entry `i` is at `(i & CHUNK_MASK) * STRIDE` of chunk `i >> CHUNK_SHIFT`. */
  chunks: [] as Float64Array<ArrayBuffer>[],
  /** Whether `stack` is kept: set by the first stack recorded, until the ring is cleared. */
  stacked: false,
  /** The stacks by slot (`cap` of them while `stacked`, else none). */
  stack: [] as (object | undefined)[],
  /** The messages of oom entries, by slot. */
  message: new Map<number, string>(),
}

/** An entry's numbers: when (ms), the address (NaN: none), bytes, bytes asked (NaN: none), `action | source << 3`, device, stream, pool. */
const E_T = 0
const E_ADDR = 1
const E_SIZE = 2
const E_REQUESTED = 3
const E_CODE = 4
const E_DEVICE = 5
const E_STREAM = 6
const E_POOL = 7
/** Numbers an entry of the ring (or of a live table) takes. */
const STRIDE = 8

/** `a`'s first values in a new array of `length` (the rest `fill`). */
function resized(a: Float64Array<ArrayBuffer>, length: number, fill = 0): Float64Array<ArrayBuffer> {
  const b = new Float64Array(length)
  b.set(a.subarray(0, Math.min(a.length, length)))
  if (length > a.length && fill !== 0) b.fill(fill, a.length)
  return b
}

/** `a` (stacks) made `length` long, every slot present, so stores into it stay in bounds. */
function resizedStacks(a: (object | undefined)[], length: number): (object | undefined)[] {
  const b = a.slice(0, length)
  for (let i = b.length; i < length; i++) b.push(undefined)
  return b
}

/** Adds a chunk to the ring (the last one only as long as `max` needs). */
function addChunk(): void {
  const cap = Math.min(ring.max, ring.cap + CHUNK_MASK + 1)
  ring.chunks.push(chunk((cap - ring.cap) * STRIDE))
  ring.cap = cap
  if (ring.stacked) for (let i = ring.stack.length; i < cap; i++) ring.stack.push(undefined)
}

/**
 * The chunks of the ring cleared last, for as long as the GC leaves them: a ring that starts
 * again (recording stopped and started, or `maxEntries` changed) takes them before new memory.
 * Filling fresh memory costs a page fault per 4 KiB (64 entries), on a virtual machine more than
 * recording the entries does; held weakly, they are kept no longer than they would have been.
 */
let spareChunks: WeakRef<Float64Array<ArrayBuffer>>[] = []

/** A chunk of `length` numbers: a spare one if the GC left one of that length, else a new one. Its numbers are stale: each entry is written whole before it is read. */
function chunk(length: number): Float64Array<ArrayBuffer> {
  while (spareChunks.length > 0) {
    const c = spareChunks.pop()!.deref()
    if (c !== undefined && c.length === length) return c
  }
  return new Float64Array(length)
}

/** The chunk holding entry `i`. */
function chunkOf(i: number): Float64Array<ArrayBuffer> {
  return ring.chunks[i >> CHUNK_SHIFT]!
}

function clearRing(max: number): void {
  ring.n = 0
  ring.head = 0
  ring.dropped = 0
  ring.max = max
  ring.message.clear()
  ring.stacked = false
  ring.stack = []
  ring.cap = 0
  if (ring.chunks.length > 0) spareChunks = ring.chunks.map((c) => new WeakRef(c)).reverse()
  ring.chunks = []
}

/** The slot the next entry goes in, filling or full: small, to be inlined where it is called. */
function slot(): number {
  const i = ring.head
  if (i === ring.cap) addChunk()
  ring.head = i + 1 === ring.max ? 0 : i + 1
  if (ring.n < ring.max) ring.n++
  else overwrite(i)
  return i
}

/** Slot `i`, the oldest entry, is being overwritten. */
function overwrite(i: number): void {
  ring.dropped++
  if (ring.message.size > 0) ring.message.delete(i)
}

/** Slot `i`'s stack: kept from the first stack on (a slot reused keeps no stale one). */
function putStack(i: number, stack: object | undefined): void {
  if (!ring.stacked) {
    if (stack === undefined) return
    ring.stacked = true
    ring.stack = resizedStacks([], ring.cap)
  }
  ring.stack[i] = stack
}

function put(action: number, t: number, device: number, stream: number, addr: number, size: number, requested: number, source: number, pool: number, stack: object | undefined): number {
  const i = putEntry(t, addr, size, requested, action | (source << 3), device, stream, pool)
  if (stack !== undefined) putStack(i, stack)
  return i
}

/**
 * The ring's next entry, with no stack; its slot. Small, so that V8 inlines it where it is called
 * (`readLog`'s loop): a call that is not inlined takes its numbers boxed, an allocation each.
 */
function putEntry(t: number, addr: number, size: number, requested: number, code: number, device: number, stream: number, pool: number): number {
  const i = slot()
  const e = chunkOf(i)
  const j = (i & CHUNK_MASK) * STRIDE
  e[j + E_T] = t
  e[j + E_ADDR] = addr
  e[j + E_SIZE] = size
  e[j + E_REQUESTED] = requested
  e[j + E_CODE] = code
  e[j + E_DEVICE] = device
  e[j + E_STREAM] = stream
  e[j + E_POOL] = pool
  if (ring.stacked) ring.stack[i] = undefined
  return i
}

/** A live block's numbers: its handle (-1: none), address, bytes, bytes asked, when, device, stream, `pool * 256 + source`. */
const L_HANDLE = 0
const L_ADDR = 1
const L_SIZE = 2
const L_REQUESTED = 3
const L_T = 4
const L_DEVICE = 5
const L_STREAM = 6
const L_POOL_SOURCE = 7

/** What one slot adds to a handle (the addon's layout: `handles.rs`). */
const SLOT_UNIT = constants.handleSlotUnit

/** The slot of handle `h` in its table. */
function slotOf(h: number): number {
  return Math.floor(h / SLOT_UNIT)
}

/**
 * The blocks allocated while recording and not yet seen freed, `STRIDE` numbers each (`L_*`),
 * indexed by their handle's slot (a handle is its table's slot plus a generation, and is never
 * issued twice): what a free and the snapshot say of each, found with an array load rather than a
 * hash lookup.
 */
class LiveTable {
  /** Slots it has room for. */
  cap = 0
  e = new Float64Array(0)
  /** Whether `stack` is kept (as the ring's). */
  stacked = false
  stack: (object | undefined)[] = []

  /** Records the block of handle `h`. */
  set(h: number, addr: number, size: number, requested: number, t: number, device: number, stream: number, pool: number, source: number, stack: object | undefined): void {
    const i = this.write(h, addr, size, requested, t, device, stream, pool * 256 + source)
    if (stack !== undefined) this.#putStack(i, stack)
  }

  /** Records the block of handle `h` with no stack; its slot. Small, to be inlined (`readLog`). */
  write(h: number, addr: number, size: number, requested: number, t: number, device: number, stream: number, poolSource: number): number {
    const i = slotOf(h)
    if (i >= this.cap) this.grow(i)
    const e = this.e
    const j = i * STRIDE
    e[j + L_HANDLE] = h
    e[j + L_ADDR] = addr
    e[j + L_SIZE] = size
    e[j + L_REQUESTED] = requested
    e[j + L_T] = t
    e[j + L_DEVICE] = device
    e[j + L_STREAM] = stream
    e[j + L_POOL_SOURCE] = poolSource
    if (this.stacked) this.stack[i] = undefined
    return i
  }

  /** The slot of handle `h`, or -1 when the table holds no block of it. */
  find(h: number): number {
    const i = slotOf(h)
    return i < this.cap && this.e[i * STRIDE + L_HANDLE] === h ? i : -1
  }

  /** Forgets slot `i`. */
  remove(i: number): void {
    this.e[i * STRIDE + L_HANDLE] = -1
    if (this.stacked) this.stack[i] = undefined
  }

  /** Slot `i`'s block, as the snapshot reads it. */
  read(i: number): Live {
    const e = this.e
    const j = i * STRIDE
    const pool = Math.floor(e[j + L_POOL_SOURCE]! / 256)
    return {
      addr: e[j + L_ADDR]!, size: e[j + L_SIZE]!, requested: e[j + L_REQUESTED]!, t: e[j + L_T]!, device: e[j + L_DEVICE]!, stream: e[j + L_STREAM]!,
      pool, source: e[j + L_POOL_SOURCE]! - pool * 256, stack: this.stacked ? this.stack[i] : undefined,
    }
  }

  clear(): void {
    this.cap = 0
    this.e = new Float64Array(0)
    this.stacked = false
    this.stack = []
  }

  #putStack(i: number, stack: object | undefined): void {
    if (!this.stacked) {
      this.stacked = true
      this.stack = resizedStacks([], this.cap)
    }
    this.stack[i] = stack
  }

  /** Makes room for slot `i`. */
  grow(i: number): void {
    const cap = Math.max(1024, 2 ** Math.ceil(Math.log2(i + 1)))
    this.e = resized(this.e, cap * STRIDE, -1)
    this.cap = cap
    if (this.stacked) this.stack = resizedStacks(this.stack, cap)
  }
}

const state = {
  enabled: false,
  stacks: 'js' as 'js' | 'none',
  /** Frames a stack keeps (`Error.stackTraceLimit` while it is captured). */
  frames: DEFAULT_FRAMES,
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

/** The streams map `streamId` last read, the device it read it for, and what it found: a scope's map is never changed, only replaced. */
let lastStreams: ReadonlyMap<number, object> | undefined | null = null
let lastStreamsDevice = -1
let lastStreamId = -1

/** The snapshot's index of the current stream of `device`. */
function streamId(device: number): number {
  const streams = scope().streams
  if (streams === lastStreams && device === lastStreamsDevice) return lastStreamId
  const id = streamIdIn(streams, device)
  lastStreams = streams
  lastStreamsDevice = device
  lastStreamId = id
  return id
}

function streamIdIn(streams: ReadonlyMap<number, object> | undefined, device: number): number {
  const s = streams?.get(device) as Stream | undefined
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

/**
 * Captures the current stack into an object, `state.frames` frames of it from `from`'s caller on
 * (async callers counted), whatever `Error.stackTraceLimit` the program set: V8 walks and
 * summarizes each frame it keeps (its cost grows with them), and formats nothing until a snapshot
 * reads `.stack`.
 */
function capture(from: Function): object {
  const o = {}
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = state.frames
  Error.captureStackTrace(o, from)
  Error.stackTraceLimit = limit
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

/** The last key `segmentChange` saw and what `held` has for it: most allocations come from the pool before, and most change nothing. */
let heldKey = -1
let heldTotal = 0

/**
 * A pool's growth or shrinking since its last allocation, as segment events. Read here, one
 * number, rather than through the `grow` channel, whose listener makes every allocation read the
 * pool's whole counts twice.
 */
function segmentChange(total: number, pool: number, device: number, t: number): void {
  if (total < 0) return
  const key = pool * 1024 + device
  if (key === heldKey && total === heldTotal) return
  const before = held.get(key) ?? 0
  heldKey = key
  heldTotal = total
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
/**
 * The sink: while recording, the addon's calls that make and free blocks write their records here
 * (crates/node/src/history.rs; where each lies: `constants.historySink`), so recording one costs
 * no call of its own. A record is the block's handle and what was read of it: one whose handle is
 * not the block's was not written for it (the WebAssembly build writes none), and the history
 * asks instead. Never handed out: the addon writes into it while registered.
 */
const sink = new Float64Array(constants.historySink.words)
const S_ALLOC = constants.historySink.alloc
const S_FREE = constants.historySink.free
const S_PINNED_ALLOC = constants.historySink.pinnedAlloc
const S_PINNED_FREE = constants.historySink.pinnedFree
/** Whether the addon writes the sink (false on WebAssembly: each free reads the clock itself). */
let sinkWritten = false

/**
 * The sink's log: while it is on (`stacks: 'none'` where the addon writes the sink), a caching
 * or pinned pool's allocation and every free append their whole record to it in the addon
 * (history.rs), and JS reads the records in batches (`readLog`) rather than at each call: when
 * more than `LOG_READ_AT` wait, before any entry recorded in JS (so the ring stays in order), and
 * before a snapshot. What it costs an allocation and a free in JS is a comparison or two.
 */
const S_LOG_ON = constants.historySink.logOn
const S_LOG_N = constants.historySink.logN
const S_LOG_LOST = constants.historySink.logLost
const S_LOG = constants.historySink.log
const RECORD = constants.historySink.record
/** Records past which the log is read at the next allocation or free (each logs one: room to spare). */
const LOG_READ_AT = constants.historySink.logCap >> 1
/** A record's first word: a caching pool's block made, a device block freed, a pinned pool's block made, a pinned block freed (`LOG_*` in history.rs). */
const LOG_ALLOC = 1
const LOG_FREE = 2
const LOG_PINNED_ALLOC = 3
const LOG_PINNED_FREE = 4
/** Whether the addon logs (see `S_LOG_ON`). */
let logging = false
/** The pools and streams the log's records name by native handle: their indices in the snapshot, noted at each allocation where the handle changed. */
const poolByHandle = new Map<number, number>()
const streamByHandle = new Map<number, number>()
/** The pinned pools the log's records name by native handle (another table's handles than the caching pools'). */
const pinnedPoolByHandle = new Map<number, number>()
/** The pool handle `onPoolAllocLogged` noted last, and the pinned one `onPinnedPoolAllocLogged` did. */
let lastLoggedPool = -1
let lastLoggedPinnedPool = -1

/**
 * Reads the log's records into the ring and the live table, in the order they were made, through
 * `putEntry` and `LiveTable.write`, which are small so that V8 inlines them into the loop.
 */
function readLog(): void {
  const n = sink[S_LOG_N]!
  sink[S_LOG_N] = 0
  let poolHandle = NaN
  let pool = -1
  let streamHandle = NaN
  let stream = -1
  for (let k = 0, r = S_LOG; k < n; k++, r += RECORD) {
    const code = sink[r]!
    const h = sink[r + 1]!
    const addr = sink[r + 2]!
    const size = sink[r + 3]!
    const t = sink[r + 4]! + clockOffset
    if (code === LOG_ALLOC) {
      if (sink[r + 7] !== poolHandle) {
        poolHandle = sink[r + 7]!
        pool = poolByHandle.get(poolHandle) ?? -1
      }
      if (sink[r + 8] !== streamHandle) {
        streamHandle = sink[r + 8]!
        stream = streamByHandle.get(streamHandle) ?? -1
      }
      const requested = sink[r + 5]!
      const total = sink[r + 6]!
      const device = sink[r + 9]!
      if (pool >= 0 && (total !== heldTotal || pool * 1024 + device !== heldKey)) segmentChange(total, pool, device, t)
      putEntry(t, addr, size, requested, ALLOC, device, stream, pool)
      if (k + 1 < n && sink[r + RECORD] === LOG_FREE && sink[r + RECORD + 1] === h) {
        // Freed next (a temporary): its free from the numbers at hand, the live table untouched.
        k++
        r += RECORD
        putEntry(sink[r + 4]! + clockOffset, addr, size, NaN, FREE_CODE, device, stream, pool)
        continue
      }
      live.write(h, addr, size, requested, t, device, stream, pool * 256)
      continue
    }
    if (code === LOG_PINNED_ALLOC) {
      // Host memory: no device, stream or segments.
      const pinnedPool = pinnedPoolByHandle.get(sink[r + 7]!) ?? -1
      const requested = sink[r + 5]!
      putEntry(t, addr, size, requested, ALLOC | (SOURCE_PINNED << 3), -1, -1, pinnedPool)
      if (k + 1 < n && sink[r + RECORD] === LOG_PINNED_FREE && sink[r + RECORD + 1] === h) {
        k++
        r += RECORD
        putEntry(sink[r + 4]! + clockOffset, addr, size, NaN, FREE_CODE, -1, -1, pinnedPool)
        continue
      }
      livePinned.write(h, addr, size, requested, t, -1, -1, pinnedPool * 256 + SOURCE_PINNED)
      continue
    }
    const pinned = code === LOG_PINNED_FREE
    const table = pinned ? livePinned : live
    const i = table.find(h)
    if (i >= 0) {
      putFree(table, i, t)
    } else if (addr === addr && !(pinned && sink[r + 5] === 1)) {
      // Allocated before the history began: its address, where it was still there to free (not
      // memory registerHost page-locked: JS's own bytes, which nothing allocated).
      put(FREE, t, pinned ? -1 : sink[r + 5]!, -1, addr, size, NaN, SOURCE_FREE, -1, undefined)
    }
  }
  const lost = sink[S_LOG_LOST]!
  if (lost > 0) {
    ring.dropped += lost
    sink[S_LOG_LOST] = 0
  }
}

/** Reads the log if records wait in it: before an entry is recorded in JS, and before a snapshot. */
function flushLog(): void {
  if (logging && sink[S_LOG_N]! > 0) readLog()
}
/** Where the time of the free being made goes in the ring (`pendingAt` of `pendingChunk`; -1: none), filled by `onFreed` from the clock the free wrote; and the block's handle. */
let pendingChunk = new Float64Array(0)
let pendingAt = -1
let pendingHandle = -1
/** `performance.now()` less the addon's clock (the same monotonic clock, another origin), set when recording starts. */
let clockOffset = 0

/** The offset of the addon's clock from `performance.now()`, read between two of its readings (the closest pair of a few). */
function measureClockOffset(): number {
  let best = Infinity
  let offset = 0
  for (let k = 0; k < 5; k++) {
    const before = performance.now()
    const native_ = native.monotonicMs()
    const after = performance.now()
    if (after - before < best) {
      best = after - before
      offset = (before + after) / 2 - native_
    }
  }
  return offset
}

/** `performance`, read once: Node's global is a getter, called at each read. */
const perf = performance
/** Now: `performance.now()` (an allocation reads the addon's clock, in the same call as its block, and adds `clockOffset`). */
const now = (): number => perf.now()

/**
 * Each allocator's entry point, which calls the history (or `publishAlloc`) itself: a stack is
 * captured from its caller on, so no frame it keeps is the allocator's own. Read once, here: a
 * wrapper installed later still calls these.
 */
const ENTRY: Readonly<Record<string, Function>> = {
  pool: MemoryPool.prototype.malloc,
  'async-pool': AsyncMemoryPool.prototype.malloc,
  plain: mallocPlain,
  managed: mallocManaged,
  pinned: PinnedMemoryPool.prototype.malloc,
}

/** The pool of the last allocation and its id: most allocations come from the pool before. */
let lastPool: object | undefined
let lastPoolId = -1

/** An allocator's source as its code. */
function sourceCode(source: string): number {
  return source === 'pool' ? 0 : (sourceCodes[source] ?? NO_SOURCE)
}

/**
 * The block of handle `h` into `scratch` (address, size, the addon's clock, its pool's bytes):
 * from the sink where the allocation wrote them, else asked (`nativePool`: the caching pool's
 * native handle, or -1).
 */
function readAlloc(h: number, nativePool: number): void {
  if (sink[S_ALLOC] === h) {
    scratch[0] = sink[S_ALLOC + 1]!
    scratch[1] = sink[S_ALLOC + 2]!
    scratch[2] = sink[S_ALLOC + 3]!
    scratch[3] = sink[S_ALLOC + 4]!
  } else {
    native.memHistoryInfo(h, nativePool, scratchBytes)
  }
}

// The hot path: one native call (address, size, time and the pool's bytes), then stores into the
// ring and the live table; the stack (stacks: 'js') was captured by the allocator's call (`tap.capture`).
function onAlloc(mem: object, nbytes: number, source: string, poolObject: object | undefined, device: number, nativePool: number, stack: object | undefined): void {
  flushLog()
  const h = own(mem as NativeObject)
  readAlloc(h, source === 'pool' ? nativePool : -1)
  const addr = scratch[0]!
  const size = scratch[1]!
  const t = scratch[2]! + clockOffset
  let total = scratch[3]!
  let pool = -1
  if (poolObject !== undefined) {
    pool = poolObject === lastPool ? lastPoolId : notePool(poolObject)
    if (total < 0) total = source === 'async-pool' && nativePool >= 0 ? native.asyncPoolTotalBytes(nativePool) : heldBytes(poolObject)
    // Stamped with the allocation's time: the growth came first, and the entries stay in order.
    segmentChange(total, pool, device, t)
  }
  const stream = streamId(device)
  const src = sourceCode(source)
  put(ALLOC, t, device, stream, addr, size, nbytes, src, pool, stack)
  live.set(h, addr, size, nbytes, t, device, stream, pool, src, stack)
}

/** The native handle of the stream `streamOfNative` last named, and its index: most allocations are on the stream before. */
let lastStreamHandle = -1
let lastStreamHandleId = -1

/**
 * The snapshot's index of the stream of native handle `handle`, the current one of `device`: a
 * handle is never issued twice and names one stream (a default one per device), so its index is
 * read once, from the async context, while it is the last one seen.
 */
function streamOfNative(handle: number, device: number): number {
  if (handle === lastStreamHandle) return lastStreamHandleId
  const id = streamIdIn(scope().streams, device)
  lastStreamHandle = handle
  lastStreamHandleId = id
  return id
}

/** A caching pool's allocation (the hot path): as {@link onAlloc}, its stream named by its native handle. */
function onPoolAlloc(h: number, nbytes: number, poolObject: object, device: number, nativePool: number, stream: number, stack: object | undefined): void {
  readAlloc(h, nativePool)
  const addr = scratch[0]!
  const size = scratch[1]!
  const t = scratch[2]! + clockOffset
  let total = scratch[3]!
  const pool = poolObject === lastPool ? lastPoolId : notePool(poolObject)
  if (total < 0) total = heldBytes(poolObject)
  segmentChange(total, pool, device, t)
  const st = streamOfNative(stream, device)
  put(ALLOC, t, device, st, addr, size, nbytes, 0, pool, stack)
  live.set(h, addr, size, nbytes, t, device, st, pool, 0, stack)
}

/** A pinned allocation of registered memory (host memory: no device, stream or segments): as {@link onAlloc}. */
function onPinnedAlloc(mem: object, nbytes: number, poolObject: object, stack: object | undefined): void {
  onPinnedPoolAlloc(own(mem as NativeObject), nbytes, poolObject, -1, stack)
}

/** A pinned pool's allocation, of handle `h`: as {@link onAlloc}, its address, size and time from the sink where the addon wrote them. */
function onPinnedPoolAlloc(h: number, nbytes: number, poolObject: object, _nativePool: number, stack: object | undefined): void {
  flushLog()
  let addr: number
  let size: number
  let t: number
  if (sink[S_PINNED_ALLOC] === h) {
    addr = sink[S_PINNED_ALLOC + 1]!
    size = sink[S_PINNED_ALLOC + 2]!
    t = sink[S_PINNED_ALLOC + 3]! + clockOffset
  } else {
    const info = native.pinnedInfo(h)
    addr = Number(info.ptr)
    size = info.size
    t = now()
  }
  const pool = poolObject === lastPool ? lastPoolId : notePool(poolObject)
  put(ALLOC, t, -1, -1, addr, size, nbytes, SOURCE_PINNED, pool, stack)
  livePinned.set(h, addr, size, nbytes, t, -1, -1, pool, SOURCE_PINNED, stack)
}

/** The id of `poolObject`, now the last pool seen. */
function notePool(poolObject: object): number {
  lastPoolId = poolId(poolObject)
  lastPool = poolObject
  return lastPoolId
}

// Before the block is freed: its entry, from the live table, timed by the clock the free writes
// into the sink (`onFreed`); a block the table lacks is read now, while it can still say.
function onFree(mem: object, h: number, pinned: boolean): void {
  flushLog()
  if (pendingAt >= 0) settleFree(-1, 0)
  const table = pinned ? livePinned : live
  const i = table.find(h)
  if (i >= 0) {
    putFree(table, i, sinkWritten ? NaN : now())
    if (sinkWritten) {
      pendingChunk = freeChunk
      pendingAt = freeAt
      pendingHandle = h
    }
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

/** Where `putFree` wrote the time of the free: `freeAt` of `freeChunk`. */
let freeChunk = new Float64Array(0)
let freeAt = 0

/** The free of the block in slot `i` of `table`, at `t`, as the ring's next entry (`freeAt` of `freeChunk` holds `t`); the table forgets the block. */
function putFree(table: LiveTable, i: number, t: number): void {
  const l = table.e
  const from = i * STRIDE
  const j = putEntry(t, l[from + L_ADDR]!, l[from + L_SIZE]!, NaN, FREE_CODE, l[from + L_DEVICE]!, l[from + L_STREAM]!, Math.floor(l[from + L_POOL_SOURCE]! / 256))
  table.remove(i)
  freeChunk = chunkOf(j)
  freeAt = (j & CHUNK_MASK) * STRIDE + E_T
}

/** After the free `onFree` saw: its time, from the sink. */
function onFreed(pinned: boolean): void {
  if (pendingAt >= 0) settleFree(pendingHandle, pinned ? S_PINNED_FREE : S_FREE)
}

/** The pending free's time: the clock the free of `h` wrote at `at` of the sink, or now when it wrote none (it threw). */
function settleFree(h: number, at: number): void {
  pendingChunk[pendingAt] = h >= 0 && sink[at] === h ? sink[at + 1]! + clockOffset : now()
  pendingAt = -1
}

/** The stack of an allocation of `source`, from its allocator's caller on. */
const captureAlloc = (source: string): object => capture(ENTRY[source] ?? publishAlloc)

const tap: HistoryTap = { alloc: onAlloc, poolAlloc: onPoolAlloc, pinnedAlloc: onPinnedAlloc, pinnedPoolAlloc: onPinnedPoolAlloc, free: onFree, freed: onFreed, capture: undefined }

/**
 * A caching pool's allocation while the addon logs it: a comparison or two, the rest apart. Its
 * bytecode is kept small: the allocator inlines it, and the allocator's callers inline the
 * allocator within a budget of bytecode.
 */
function onPoolAllocLogged(_h: number, _nbytes: number, poolObject: object, device: number, nativePool: number, stream: number): void {
  if (nativePool !== lastLoggedPool || stream !== lastStreamHandle || sink[S_LOG_N]! >= LOG_READ_AT) poolAllocLoggedApart(poolObject, device, nativePool, stream)
}

/** What `onPoolAllocLogged` does apart: the pool and the stream noted where their handles changed, the log read when full enough. */
function poolAllocLoggedApart(poolObject: object, device: number, nativePool: number, stream: number): void {
  if (nativePool !== lastLoggedPool) notePoolHandle(nativePool, poolObject)
  if (stream !== lastStreamHandle) streamByHandle.set(stream, streamOfNative(stream, device))
  if (sink[S_LOG_N]! >= LOG_READ_AT) readLog()
}

function notePoolHandle(nativePool: number, poolObject: object): void {
  poolByHandle.set(nativePool, poolObject === lastPool ? lastPoolId : notePool(poolObject))
  lastLoggedPool = nativePool
}

/** A pinned pool's allocation while the addon logs it: its pool noted where its handle changed, the log read when full enough. */
function onPinnedPoolAllocLogged(_h: number, _nbytes: number, poolObject: object, nativePool: number): void {
  if (nativePool !== lastLoggedPinnedPool) notePinnedPoolHandle(nativePool, poolObject)
  if (sink[S_LOG_N]! >= LOG_READ_AT) readLog()
}

function notePinnedPoolHandle(nativePool: number, poolObject: object): void {
  pinnedPoolByHandle.set(nativePool, poolObject === lastPool ? lastPoolId : notePool(poolObject))
  lastLoggedPinnedPool = nativePool
}

/** Before a free while the addon logs: nothing (the addon logs the free whole, pinned memory's too). */
function onFreeLogged(): void {}

/** After a free while the addon logs: the log read when full enough. */
function onFreedLogged(): void {
  if (sink[S_LOG_N]! >= LOG_READ_AT) readLog()
}

/** The hooks while the addon logs (`stacks: 'none'` where it writes the sink). */
const logTap: HistoryTap = {
  alloc: onAlloc, poolAlloc: onPoolAllocLogged, pinnedAlloc: onPinnedAlloc, pinnedPoolAlloc: onPinnedPoolAllocLogged, free: onFreeLogged, freed: onFreedLogged, capture: undefined,
}

/** The snapshot file written on an OOM, when `CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM` names a directory. */
const oomDir = process.env.CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM || undefined
let oomCount = 0

function onFailed(m: AllocFailedMessage): void {
  const message = m.error instanceof Error ? m.error.message : String(m.error)
  if (state.enabled) {
    flushLog()
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
  if (typeof options !== 'object' || options === null) throw new TypeError('recordHistory takes { enabled, stacks, maxEntries, frames }')
  const { enabled = true, stacks = 'js', maxEntries = 100_000, frames = DEFAULT_FRAMES } = options
  if (typeof enabled !== 'boolean') throw new TypeError(`enabled must be a boolean, got ${typeof enabled}`)
  if (stacks !== 'js' && stacks !== 'none') throw new TypeError(`stacks must be 'js' or 'none', got ${String(stacks)}`)
  if (typeof maxEntries !== 'number') throw new TypeError(`maxEntries must be a number, got ${typeof maxEntries}`)
  if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > 2 ** 26) throw new RangeError(`maxEntries must be an integer in [1, 2^26], got ${maxEntries}`)
  if (typeof frames !== 'number') throw new TypeError(`frames must be a number, got ${typeof frames}`)
  if (!Number.isInteger(frames) || frames < 1 || frames > MAX_FRAMES) throw new RangeError(`frames must be an integer in [1, ${MAX_FRAMES}], got ${frames}`)
  // What the log holds goes into the ring before anything changes (clock, stacks, the ring).
  flushLog()
  if (enabled !== state.enabled) {
    clockOffset = measureClockOffset()
    if (pendingAt >= 0) settleFree(-1, 0)
    sink.fill(-1)
    sink[S_LOG_ON] = 0
    sink[S_LOG_N] = 0
    sink[S_LOG_LOST] = 0
    sinkWritten = native.memHistorySink(enabled ? sink.buffer : undefined)
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
    heldKey = -1
    lastStreams = null
    poolByHandle.clear()
    streamByHandle.clear()
    pinnedPoolByHandle.clear()
  }
  // The hooks of each way of recording note the stream and the pool where they change: both
  // start again.
  lastStreamHandle = -1
  lastLoggedPool = -1
  lastLoggedPinnedPool = -1
  logging = enabled && sinkWritten && stacks === 'none'
  sink[S_LOG_ON] = logging ? 1 : 0
  historyTap.on = enabled ? (logging ? logTap : tap) : undefined
  state.enabled = enabled
  state.stacks = stacks
  tap.capture = enabled && stacks === 'js' ? captureAlloc : undefined
  state.frames = frames
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
  flushLog()
  if (pendingAt >= 0) settleFree(-1, 0)
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
    const c = chunkOf(i)
    const j = (i & CHUNK_MASK) * STRIDE
    const code = c[j + E_CODE]!
    const action = code & 7
    const e: HistoryEvent = {
      t: c[j + E_T]!, action: ACTIONS[action]!, device: c[j + E_DEVICE]!, stream: c[j + E_STREAM]!, size: c[j + E_SIZE]!, pool: c[j + E_POOL]!,
      stack: ring.stacked ? stackOf(ring.stack[i]) : -1,
    }
    const addr = c[j + E_ADDR]!
    if (addr === addr) e.addr = hex(addr)
    const requested = c[j + E_REQUESTED]!
    if (requested === requested) e.requested = requested
    const source = code >> 3
    if (source !== NO_SOURCE) e.source = SOURCES[source]
    if (action === OOM) e.message = ring.message.get(i) ?? ''
    events.push(e)
  }
  // The live blocks the history saw, by address; a block freed unseen or collected is gone
  // (its handle names nothing now: handles are never issued twice).
  const seen = new Map<number, Live>()
  const pinnedSeen: Live[] = []
  for (const [table, pinned] of [[live, false], [livePinned, true]] as const) {
    for (let i = 0; i < table.cap; i++) {
      const h = table.e[i * STRIDE + L_HANDLE]!
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
      const l = table.read(i)
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
