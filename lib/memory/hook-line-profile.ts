// CuPy's `memory_hooks.LineProfileHook`: the bytes allocated, summed by the JS call stack that
// allocated them, as a tree from the outermost frame in.
import path from 'node:path'
import { MemoryHook, type AllocHookEvent, type MallocHookEvent } from './hook'
import type { LineSink } from './hook-debug-print'

/** The package's own files: their frames are left out of a report, as CuPy leaves out its own. */
let own: string[] | undefined
function ownFiles(): string[] {
  // Read when first needed: a browser bundle of the package has no __dirname (and no frames of
  // these files to leave out).
  if (own === undefined) {
    const pkg = typeof __dirname === 'string' ? path.resolve(__dirname, '..', '..') : undefined
    own = pkg === undefined ? [] : [path.join(pkg, 'lib') + path.sep, path.join(pkg, 'index.'), path.join(pkg, 'native.')]
  }
  return own
}

/** A call site in a report (CuPy's `MemoryFrame`): its bytes include its callees'. */
export interface MemoryFrame {
  /** The file, as V8 names it (a path or a URL); `'_root'` for the root. */
  readonly file: string
  /** The line (0 for the root). */
  readonly line: number
  /** The function's name (`'<anonymous>'` where it has none). */
  readonly name: string
  /** Bytes handed out by allocators under this frame (CuPy's `used_bytes`). */
  usedBytes: number
  /** Bytes pools took from the driver under this frame (CuPy's `acquired_bytes`). */
  acquiredBytes: number
  /** The frames it called that allocated, in the order first seen. */
  readonly children: MemoryFrame[]
}

interface Site {
  file: string
  line: number
  name: string
}

/** Node's frames a hook adds (the channel's publish, the scope's `run`), left out with the package's. */
const NODE = ['node:diagnostics_channel', 'node:async_hooks']

/** The caller's frames, outermost first, the package's own and the channel's left out. */
function callers(limit: number): Site[] {
  const prepare = Error.prepareStackTrace
  const depth = Error.stackTraceLimit
  const holder: { stack?: NodeJS.CallSite[] } = {}
  let sites: NodeJS.CallSite[] = []
  try {
    Error.prepareStackTrace = (_e, sites) => sites
    Error.stackTraceLimit = Infinity
    Error.captureStackTrace(holder, callers)
    sites = holder.stack ?? []
  } finally {
    Error.prepareStackTrace = prepare
    Error.stackTraceLimit = depth
  }
  const out: Site[] = []
  const OWN = ownFiles()
  for (let i = sites.length - 1; i >= 0; i--) {
    const file = sites[i].getFileName() ?? sites[i].getScriptNameOrSourceURL()
    if (!file || NODE.some((p) => file.startsWith(p)) || OWN.some((p) => file.startsWith(p))) continue
    out.push({ file, line: sites[i].getLineNumber() ?? 0, name: sites[i].getFunctionName() ?? '<anonymous>' })
    if (limit > 0 && out.length >= limit) break
  }
  return out
}

/** CuPy's `_humanized_size`: `1.00KB`. */
function humanized(size: number): string {
  for (const unit of ['', 'K', 'M', 'G', 'T', 'P', 'E']) {
    if (size < 1024) return `${size.toFixed(2)}${unit}B`
    size /= 1024
  }
  return `${size.toFixed(2)}ZB`
}

/**
 * A memory hook that sums allocated bytes by the JS call stack (CuPy's
 * `memory_hooks.LineProfileHook`): `hook.run(fn)`, then `hook.printReport()` or `hook.report()`,
 * each line `file:line:function (usedBytes, acquiredBytes)` as CuPy prints it, under `_root`.
 * Used bytes are what allocators handed out (CuPy counts them before the allocation, here after:
 * a failed allocation is not counted); acquired bytes what pools took from the driver.
 */
export class LineProfileHook extends MemoryHook {
  readonly #maxDepth: number
  readonly #root: MemoryFrame = { file: '_root', line: 0, name: '', usedBytes: 0, acquiredBytes: 0, children: [] }
  /** Each frame by its parent and its site. */
  readonly #frames = new Map<MemoryFrame, Map<string, MemoryFrame>>()

  /**
   * `maxDepth`: frames followed from the outermost in, 0 for all (CuPy's `max_depth`).
   * @throws {RangeError} unless it is a non-negative integer.
   */
  constructor(options: { maxDepth?: number } = {}) {
    super()
    const maxDepth = options.maxDepth ?? 0
    if (!Number.isSafeInteger(maxDepth) || maxDepth < 0) throw new RangeError(`maxDepth must be a non-negative integer, got ${String(maxDepth)}`)
    this.#maxDepth = maxDepth
  }

  override mallocPostprocess(e: MallocHookEvent): void {
    this.#add(e.memSize, 0)
  }

  override allocPostprocess(e: AllocHookEvent): void {
    this.#add(0, e.memSize)
  }

  #add(used: number, acquired: number): void {
    let parent = this.#root
    parent.usedBytes += used
    parent.acquiredBytes += acquired
    for (const s of callers(this.#maxDepth)) {
      let children = this.#frames.get(parent)
      if (children === undefined) this.#frames.set(parent, (children = new Map()))
      const key = `${s.file}:${s.line}:${s.name}`
      let frame = children.get(key)
      if (frame === undefined) {
        frame = { ...s, usedBytes: 0, acquiredBytes: 0, children: [] }
        children.set(key, frame)
        parent.children.push(frame)
      }
      frame.usedBytes += used
      frame.acquiredBytes += acquired
      parent = frame
    }
  }

  /** The tree: `_root`, whose bytes are the totals. */
  get root(): MemoryFrame {
    return this.#root
  }

  /** The report CuPy's `print_report` prints, as a string. */
  report(): string {
    const lines = [`_root (${humanized(this.#root.usedBytes)}, ${humanized(this.#root.acquiredBytes)})`]
    const walk = (f: MemoryFrame, depth: number): void => {
      lines.push(`${' '.repeat(depth * 2)}${f.file}:${f.line}:${f.name} (${humanized(f.usedBytes)}, ${humanized(f.acquiredBytes)})`)
      for (const c of f.children) walk(c, depth + 1)
    }
    for (const c of this.#root.children) walk(c, 1)
    return lines.join('\n') + '\n'
  }

  /** Prints the report (CuPy's `print_report`) to `file`, `process.stdout` by default. */
  printReport(file: LineSink = process.stdout): void {
    file.write(this.report())
  }
}
