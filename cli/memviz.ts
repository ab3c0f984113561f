// `npx cuda-node memviz snapshot.json [-o out.html]`: draws a memory snapshot (docs/memory-snapshot.md)
// as one self-contained page. The events go to the page as columns with each free already matched
// to its allocation's site, so the page does one pass over numbers, not a million objects.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { page } from './memviz-page'

const SCHEMA = 'cuda-node.memory-snapshot'
const VERSIONS = [1, 2]

/** A snapshot that cannot be drawn; the message is one line. */
export class SnapshotError extends Error {}

interface Event {
  t: number
  action: string
  size: number
  addr?: string
  stack: number
  source?: string
}

interface Snapshot {
  schema: string
  version: number
  createdAt: string
  backend: string
  pools: { id: number; kind: string }[]
  streams: { id: number; name: string }[]
  segments: { pool: number; device: number; totalBytes: number; usedBytes: number; blocks: { addr: string; size: number; stream: number; t: number; stack: number }[]; free?: { addr: string; size: number; stream: number }[] }[]
  stacks: string[][]
  history: { dropped: number; events: Event[] }
  oom?: { stack: number }
}

const KINDS: Record<string, number> = { alloc: 0, free: 1, segment_alloc: 2, segment_free: 3, oom: 4 }

function isArray(x: unknown, what: string): unknown[] {
  if (!Array.isArray(x)) throw new SnapshotError(`${what} is not an array`)
  return x
}

/** Checks the parts the page reads; throws a SnapshotError naming the first that is wrong. */
export function check(s: unknown): Snapshot {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) throw new SnapshotError('it is not a JSON object')
  const o = s as Record<string, unknown>
  if (o.schema !== SCHEMA) throw new SnapshotError(`its schema is ${JSON.stringify(o.schema) ?? 'missing'}, not "${SCHEMA}"`)
  if (!VERSIONS.includes(o.version as number)) throw new SnapshotError(`its version ${JSON.stringify(o.version)} is not one this viewer reads (${VERSIONS.join(', ')})`)
  const stacks = isArray(o.stacks, 'stacks')
  stacks.forEach((f, i) => isArray(f, `stacks[${i}]`).forEach((l) => {
    if (typeof l !== 'string') throw new SnapshotError(`stacks[${i}] holds a non-string frame`)
  }))
  isArray(o.pools, 'pools')
  isArray(o.streams, 'streams')
  const segs = isArray(o.segments, 'segments')
  segs.forEach((g, i) => {
    const seg = g as Record<string, unknown>
    if (typeof seg !== 'object' || seg === null) throw new SnapshotError(`segments[${i}] is not an object`)
    if (typeof seg.totalBytes !== 'number' || typeof seg.usedBytes !== 'number') throw new SnapshotError(`segments[${i}] has no byte counts`)
    if (seg.free !== undefined) {
      isArray(seg.free, `segments[${i}].free`).forEach((b, j) => {
        const bl = b as Record<string, unknown>
        if (typeof bl !== 'object' || bl === null || typeof bl.size !== 'number' || typeof bl.addr !== 'string') throw new SnapshotError(`segments[${i}].free[${j}] needs addr and size`)
      })
    }
    isArray(seg.blocks, `segments[${i}].blocks`).forEach((b, j) => {
      const bl = b as Record<string, unknown>
      if (typeof bl !== 'object' || bl === null || typeof bl.size !== 'number' || typeof bl.addr !== 'string' || typeof bl.t !== 'number') {
        throw new SnapshotError(`segments[${i}].blocks[${j}] needs addr, size and t`)
      }
    })
  })
  const h = o.history as Record<string, unknown>
  if (typeof h !== 'object' || h === null) throw new SnapshotError('history is missing')
  isArray(h.events, 'history.events').forEach((e, i) => {
    const ev = e as Record<string, unknown>
    if (typeof ev !== 'object' || ev === null || typeof ev.t !== 'number' || typeof ev.size !== 'number' || !(typeof ev.action === 'string' && ev.action in KINDS)) {
      throw new SnapshotError(`history.events[${i}] needs t, size and a known action`)
    }
  })
  return o as unknown as Snapshot
}

/** A site's name: the innermost frame of its stack, without the `at `. */
function siteLabel(frames: string[] | undefined, source: string | undefined): string {
  const f = frames?.[0]
  return f === undefined ? `(no stack: ${source ?? 'unknown'})` : f.replace(/^at /, '')
}

/** What the page reads: the snapshot less its event objects, plus the events as columns. */
export function viewData(s: Snapshot): Record<string, unknown> {
  const events = s.history.events
  const n = events.length
  const t = Array.from<number>({ length: n })
  const kind = Array.from<number>({ length: n })
  const size = Array.from<number>({ length: n })
  const site = Array.from<number>({ length: n })
  const sites: { label: string; stack: number }[] = []
  const siteIds = new Map<string, number>()
  const siteOf = (stack: number, source: string | undefined): number => {
    const label = siteLabel(s.stacks[stack], source)
    let id = siteIds.get(label)
    if (id === undefined) {
      id = sites.length
      siteIds.set(label, id)
      sites.push({ label, stack })
    }
    return id
  }
  const liveSite = new Map<string, number>()
  let hasSegments = false
  for (let i = 0; i < n; i++) {
    const e = events[i]!
    t[i] = e.t
    kind[i] = KINDS[e.action]!
    size[i] = e.size
    site[i] = 0
    if (e.action === 'alloc') {
      site[i] = siteOf(e.stack, e.source)
      if (e.addr !== undefined) liveSite.set(e.addr, site[i]!)
    } else if (e.action === 'free') {
      const a = e.addr === undefined ? undefined : liveSite.get(e.addr)
      if (e.addr !== undefined) liveSite.delete(e.addr)
      // A free of a block allocated before the history began: a site of its own.
      site[i] = a ?? siteOf(-1, 'allocated before the history began')
    } else if (e.action === 'segment_alloc' || e.action === 'segment_free') {
      hasSegments = true
    }
  }
  const lastT = n > 0 ? t[n - 1]! : 0
  const snapshotT = Math.max(lastT, ...s.segments.flatMap((g) => g.blocks.map((b) => b.t)))
  return {
    createdAt: s.createdAt,
    backend: s.backend,
    pools: s.pools,
    streams: s.streams,
    segments: s.segments,
    stacks: s.stacks,
    oom: s.oom,
    dropped: s.history.dropped,
    columns: { t, kind, size, site },
    sites,
    hasSegments,
    snapshotT,
  }
}

/** Reads `file`, writes the page to `out` (default: beside it, `.html`); returns the page's path. @throws {SnapshotError} */
export function memviz(file: string, out?: string): string {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new SnapshotError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    throw new SnapshotError(`${file} is not JSON: ${(e as Error).message.split('\n')[0]}`)
  }
  let s: Snapshot
  try {
    s = check(json)
  } catch (e) {
    if (e instanceof SnapshotError) throw new SnapshotError(`${file} is not a cuda-node memory snapshot: ${e.message}`)
    throw e
  }
  const target = out ?? file.replace(/\.json$/i, '') + '.html'
  writeFileSync(target, page(viewData(s), path.basename(file)))
  return path.resolve(target)
}

/** The command: `memviz snapshot.json [-o out.html]`; exit status 0, or 2 for bad usage, 1 for a bad snapshot. */
export function main(args: string[]): number {
  const usage = 'usage: cuda-node memviz snapshot.json [-o out.html]'
  let file: string | undefined
  let out: string | undefined
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '-o' || a === '--output') {
      out = args[++i]
      if (out === undefined) {
        console.error(usage)
        return 2
      }
    } else if (file === undefined && !a.startsWith('-')) {
      file = a
    } else {
      console.error(usage)
      return 2
    }
  }
  if (file === undefined) {
    console.error(usage)
    return 2
  }
  try {
    console.log(memviz(file, out))
    return 0
  } catch (e) {
    if (!(e instanceof SnapshotError)) throw e
    console.error(`cuda-node memviz: ${e.message.replace(/\s*\n\s*/g, ' ')}`)
    return 1
  }
}
