// Sequences of valid operations checked against a model of the bytes each allocation should hold:
// allocations of every kind, copies (pageable, pinned freed at once, device to device), memsets,
// fills, captures launched as graphs with host callbacks, streams destroyed with work queued, the
// GC between steps. Work on a buffer moves between streams only through events, as a correct
// program orders it; then any difference read back is corruption. At the end everything is freed
// and the pools, device memory and callback counts must be back where they started.
import fc from 'fast-check'

type Cuda = typeof import('..')
type Stream = InstanceType<Cuda['Stream']>
type Event = InstanceType<Cuda['Event']>
type Graph = InstanceType<Cuda['Graph']>
type MemoryPointer = InstanceType<Cuda['MemoryPointer']>

interface Buf {
  ptr: MemoryPointer
  bytes: Uint8Array
  kind: 'pool' | 'plain' | 'async'
  /** What later work on the buffer must follow: the stream of its last operation, or an event. */
  after: Stream | Event
}
type Effect = (w: World) => void
interface Captured {
  g: Graph
  effects: Effect[]
  bufs: number[]
  hostFns: number
}

export interface World {
  cuda: Cuda
  streams: Stream[]
  bufs: (Buf | undefined)[]
  graphs: (Captured | undefined)[]
  runs: number
  expectedRuns: number
  asyncPool: InstanceType<Cuda['AsyncMemoryPool']>
  problems: string[]
}

/** The model lives in the world (expected bytes beside each real buffer): fast-check's model is unused. */
type Model = Record<string, never>
type Cmd = fc.AsyncCommand<Model, World>

const STREAMS = ['s0 (nonBlocking)', 's1 (blocking)', 'Stream.null']

function order(w: World, b: Buf, s: Stream): void {
  if (b.after !== s) {
    const e = b.after instanceof w.cuda.Event ? b.after : (b.after as Stream).record()
    s.waitEvent(e)
  }
  b.after = s
}

/** The `i`-th live buffer (modulo their number), so that most commands find one. */
function live(w: World, i: number): Buf | undefined {
  const all = w.bufs.filter((b): b is Buf => b !== undefined)
  return all.length === 0 ? undefined : all[i % all.length]
}

function dropGraphsUsing(w: World, idx: number): void {
  w.graphs.forEach((c, k) => {
    if (c !== undefined && c.bufs.includes(idx)) {
      c.g.destroy()
      w.graphs[k] = undefined
    }
  })
}

const seq = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, k) => (seed * 31 + k * 7) & 255)

class Alloc implements Cmd {
  constructor(readonly kind: 'pool' | 'plain' | 'async', readonly size: number, readonly seed: number) {}
  check = () => true
  async run(_m: Model, w: World) {
    const { cuda } = w
    const ptr = this.kind === 'pool' ? cuda.alloc(this.size) : this.kind === 'plain' ? cuda.mallocPlain(this.size) : w.asyncPool.malloc(this.size)
    const bytes = seq(this.size, this.seed)
    ptr.copyFromHost(bytes)
    w.bufs.push({ ptr, bytes, kind: this.kind, after: cuda.Stream.null })
  }
  toString = () => `b.push(${this.kind === 'pool' ? 'cuda.alloc' : this.kind === 'plain' ? 'cuda.mallocPlain' : 'asyncPool.malloc'}(${this.size})); b.at(-1).copyFromHost(seq(${this.size}, ${this.seed}))`
}

class Free implements Cmd {
  constructor(readonly i: number) {}
  check = () => true
  async run(_m: Model, w: World) {
    const b = live(w, this.i)
    if (b === undefined) return
    const idx = w.bufs.indexOf(b)
    // A correct program orders the free after the buffer's last use, on the stream it frees on.
    order(w, b, w.cuda.Stream.null)
    dropGraphsUsing(w, idx)
    b.ptr.free()
    w.bufs[idx] = undefined
  }
  toString = () => `b[${this.i}].free()`
}

class Memset implements Cmd {
  constructor(readonly i: number, readonly off: number, readonly len: number, readonly val: number, readonly s: number) {}
  check = () => true
  async run(_m: Model, w: World) {
    const b = live(w, this.i)
    if (b === undefined) return
    const off = this.off % b.bytes.length
    const len = Math.min(this.len, b.bytes.length - off)
    const s = w.streams[this.s]
    order(w, b, s)
    b.ptr.offset(off).memsetAsync(this.val, len, s)
    b.bytes.fill(this.val, off, off + len)
  }
  toString = () => `b[${this.i}].offset(${this.off}).memsetAsync(${this.val}, ${this.len}, ${STREAMS[this.s]})`
}

class CopyIn implements Cmd {
  constructor(readonly i: number, readonly off: number, readonly len: number, readonly seed: number, readonly s: number, readonly pinned: boolean, readonly scribble: boolean) {}
  check = () => true
  async run(_m: Model, w: World) {
    const b = live(w, this.i)
    if (b === undefined) return
    const off = this.off % b.bytes.length
    const len = Math.min(this.len, b.bytes.length - off)
    const s = w.streams[this.s]
    order(w, b, s)
    const data = seq(len, this.seed)
    if (this.pinned) {
      const p = w.cuda.allocPinned(len)
      p.set(data)
      b.ptr.offset(off).copyFromHostAsync(p, len, s)
      // Freed at once: the queued copy must keep the bytes, and a new block must not reuse them.
      p.free()
      if (this.scribble) w.cuda.allocPinned(len).set(new Uint8Array(len).fill(0xee))
    } else b.ptr.offset(off).copyFromHostAsync(data, len, s)
    b.bytes.set(data, off)
  }
  toString = () => `b[${this.i}].offset(${this.off}).copyFromHostAsync(${this.pinned ? 'pinned' : 'seq'}(${this.len}, ${this.seed}), ${this.len}, ${STREAMS[this.s]})${this.pinned ? ' /* pinned freed at once */' : ''}`
}

class CopyDD implements Cmd {
  constructor(readonly i: number, readonly j: number, readonly len: number, readonly s: number) {}
  check = () => true
  async run(_m: Model, w: World) {
    const a = live(w, this.i)
    const c = live(w, this.j)
    if (a === undefined || c === undefined || a === c) return
    const len = Math.min(this.len, a.bytes.length, c.bytes.length)
    const s = w.streams[this.s]
    order(w, a, s)
    order(w, c, s)
    a.ptr.copyFromDeviceAsync(c.ptr, len, s)
    a.bytes.set(c.bytes.subarray(0, len), 0)
  }
  toString = () => `b[${this.i}].copyFromDeviceAsync(b[${this.j}], ${this.len}, ${STREAMS[this.s]})`
}

class Fill implements Cmd {
  constructor(readonly i: number, readonly count: number, readonly val: number, readonly s: number) {}
  check = () => true
  async run(_m: Model, w: World) {
    const b = live(w, this.i)
    if (b === undefined) return
    const n = Math.min(this.count, b.bytes.length >> 1)
    const s = w.streams[this.s]
    order(w, b, s)
    w.cuda.kernels.fill(b.ptr, this.val, n, 'uint16', s)
    for (let k = 0; k < n; k++) {
      b.bytes[2 * k] = this.val & 255
      b.bytes[2 * k + 1] = this.val >> 8
    }
  }
  toString = () => `cuda.kernels.fill(b[${this.i}], ${this.val}, ${this.count}, 'uint16', ${STREAMS[this.s]})`
}

class Read implements Cmd {
  constructor(readonly i: number, readonly s: number) {}
  check = () => true
  async run(_m: Model, w: World) {
    const b = live(w, this.i)
    if (b === undefined) return
    const s = w.streams[this.s]
    order(w, b, s)
    const out = new Uint8Array(b.bytes.length)
    b.ptr.copyToHostAsync(out, undefined, s)
    s.synchronize()
    const at = out.findIndex((x, k) => x !== b.bytes[k])
    if (at >= 0) w.problems.push(`corruption: byte ${at} of a ${b.kind} buffer is ${out[at]}, the model says ${b.bytes[at]}`)
  }
  toString = () => `check(b[${this.i}], ${STREAMS[this.s]})`
}

class Sleep implements Cmd {
  constructor(readonly ns: number, readonly s: number) {}
  check = () => true
  async run(_m: Model, w: World) {
    w.cuda.kernels.sleep(this.ns, w.streams[this.s])
  }
  toString = () => `cuda.kernels.sleep(${this.ns}, ${STREAMS[this.s]})`
}

class Churn implements Cmd {
  constructor(readonly i: number, readonly val: number) {}
  check = () => true
  async run(_m: Model, w: World) {
    const b = live(w, this.i)
    if (b === undefined) return
    const tmp = new w.cuda.Stream({ nonBlocking: true })
    order(w, b, tmp)
    w.cuda.kernels.sleep(2e6, tmp)
    b.ptr.memsetAsync(this.val, b.bytes.length, tmp)
    b.bytes.fill(this.val)
    b.after = tmp.record()
    tmp.destroy() // with work queued: it still runs
  }
  toString = () => `{ const t = new cuda.Stream({ nonBlocking: true }); sleep(2e6, t); b[${this.i}].memsetAsync(${this.val}, size, t); e = t.record(); t.destroy() }`
}

class Capture implements Cmd {
  constructor(readonly i: number, readonly val: number, readonly hostFn: boolean, readonly s: number) {}
  check = () => true
  async run(_m: Model, w: World) {
    const b = live(w, this.i)
    if (b === undefined) return
    const idx = w.bufs.indexOf(b)
    const s = w.streams[this.s === 2 ? 0 : this.s] // the legacy stream cannot capture
    const len = b.bytes.length
    const g = s.capture(() => {
      b.ptr.memsetAsync(this.val, len, s)
      if (this.hostFn) s.launchHostFunc(() => w.runs++)
    })
    const val = this.val
    w.graphs.push({ g, effects: [(x) => x.bufs[idx]?.bytes.fill(val)], bufs: [idx], hostFns: this.hostFn ? 1 : 0 })
  }
  toString = () => `g.push(${STREAMS[this.s === 2 ? 0 : this.s]}.capture(() => { b[${this.i}].memsetAsync(${this.val}, size)${this.hostFn ? '; launchHostFunc(() => runs++)' : ''} }))`
}

class Launch implements Cmd {
  constructor(readonly k: number, readonly s: number, readonly destroyAfter: boolean) {}
  check = () => true
  async run(_m: Model, w: World) {
    const idx = w.graphs.length === 0 ? -1 : this.k % w.graphs.length
    const c = w.graphs[idx]
    if (c === undefined) return
    const s = w.streams[this.s]
    for (const i of c.bufs) {
      const b = w.bufs[i]
      if (b !== undefined) order(w, b, s)
    }
    c.g.launch(s)
    c.effects.forEach((f) => f(w))
    w.expectedRuns += c.hostFns
    if (this.destroyAfter) {
      c.g.destroy() // with the launch queued: its callbacks still run
      w.graphs[idx] = undefined
    }
  }
  toString = () => `g[${this.k}].launch(${STREAMS[this.s]})${this.destroyAfter ? `; g[${this.k}].destroy()` : ''}`
}

class Settle implements Cmd {
  check = () => true
  async run(_m: Model, w: World) {
    await settle(w)
  }
  toString = () => 'await settle()'
}

class Gc implements Cmd {
  check = () => true
  async run() {
    globalThis.gc?.()
  }
  toString = () => 'gc()'
}

async function settle(w: World): Promise<void> {
  await w.cuda.Device.current().synchronizeAsync()
  for (let k = 0; k < 400 && (w.cuda.pendingCallbacks() > 0 || w.runs < w.expectedRuns); k++) await new Promise((r) => setTimeout(r, 5))
  if (w.runs !== w.expectedRuns) w.problems.push(`host callbacks: ${w.runs} ran, the launches owe ${w.expectedRuns}`)
}

const idx = fc.nat(15)
const str = fc.nat(2)

export function commands(): fc.Arbitrary<Iterable<Cmd>> {
  // Allocations and reads listed three times each: they are picked more often.
  const alloc = fc.tuple(fc.constantFrom('pool' as const, 'plain' as const, 'async' as const), fc.integer({ min: 1, max: 4096 }), fc.nat(255)).map(([k, n, s]) => new Alloc(k, n, s))
  const read = fc.tuple(idx, str).map(([i, s]) => new Read(i, s))
  return fc.commands(
    [
      alloc,
      alloc,
      alloc,
      idx.map((i) => new Free(i)),
      fc.tuple(idx, fc.nat(4095), fc.integer({ min: 0, max: 4096 }), fc.nat(255), str).map(([i, o, l, v, s]) => new Memset(i, o, l, v, s)),
      fc.tuple(idx, fc.nat(4095), fc.integer({ min: 1, max: 4096 }), fc.nat(255), str, fc.boolean(), fc.boolean()).map(([i, o, l, sd, s, p, sc]) => new CopyIn(i, o, l, sd, s, p, sc)),
      fc.tuple(idx, idx, fc.integer({ min: 0, max: 4096 }), str).map(([i, j, l, s]) => new CopyDD(i, j, l, s)),
      fc.tuple(idx, fc.integer({ min: 0, max: 2048 }), fc.nat(65535), str).map(([i, n, v, s]) => new Fill(i, n, v, s)),
      read,
      read,
      read,
      fc.tuple(fc.integer({ min: 0, max: 3e6 }), str).map(([n, s]) => new Sleep(n, s)),
      fc.tuple(idx, fc.nat(255)).map(([i, v]) => new Churn(i, v)),
      fc.tuple(idx, fc.nat(255), fc.boolean(), str).map(([i, v, h, s]) => new Capture(i, v, h, s)),
      fc.tuple(idx, str, fc.boolean()).map(([k, s, d]) => new Launch(k, s, d)),
      fc.constant(new Settle()),
      fc.constant(new Gc()),
    ],
    { maxCommands: 40, size: 'max' },
  )
}

/** Runs one sequence, then frees everything and checks the counts are back at their baselines. */
export async function runSequence(cuda: Cuda, cmds: Iterable<Cmd>): Promise<string[]> {
  const pool = cuda.getDefaultMemoryPool()
  const dev = cuda.Device.current()
  const w: World = {
    cuda,
    streams: [new cuda.Stream({ nonBlocking: true }), new cuda.Stream(), cuda.Stream.null],
    bufs: [],
    graphs: [],
    runs: 0,
    expectedRuns: 0,
    asyncPool: new cuda.AsyncMemoryPool(),
    problems: [],
  }
  // On the GPU the driver takes device memory of its own the first time a kind of work runs on a
  // context (a memset, a kernel, a graph, a host function, the stream-ordered pool): do each once
  // on every stream before the baseline, so only memory the sequence keeps counts as a leak.
  for (const s of w.streams) {
    const p = pool.malloc(1024)
    p.memsetAsync(0, 1024, s)
    cuda.kernels.fill(p, 1, 16, 'float32', s)
    const g = s === cuda.Stream.null ? undefined : s.capture(() => s.launchHostFunc(() => {}))
    g?.launch(s)
    s.run(() => w.asyncPool.malloc(1024).free())
    await s.synchronizeAsync()
    g?.destroy()
    p.free()
  }
  await settle(w)
  pool.freeAllBlocks()
  const base = { free: dev.memInfo().free, held: cuda.graphCallbacks() }
  await fc.asyncModelRun(() => ({ model: {} as Model, real: w }), cmds)
  for (let i = 0; i < w.bufs.length; i++) await new Free(i).run({} as Model, w)
  for (const c of w.graphs) c?.g.destroy()
  await settle(w)
  if (pool.usedBytes() !== 0) w.problems.push(`leak: the default pool has ${pool.usedBytes()} bytes in use after every block was freed`)
  if (w.asyncPool.usedBytes() !== 0) w.problems.push(`leak: the async pool has ${w.asyncPool.usedBytes()} bytes in use after every block was freed`)
  pool.freeAllBlocks()
  const free = dev.memInfo().free
  // Less free memory than before is a leak. The simulator's count is this process's alone and
  // exact; on the GPU the count is the device's, which other processes (ava runs test files in
  // parallel, the fuzzer its children) move as they allocate: there the pools' own counts above
  // are the oracle, and plain allocations are held to it on the simulator (CI).
  if (cuda.backend().name !== 'cuda' && free < base.free) w.problems.push(`leak: device memory free was ${base.free} bytes, now ${free}`)
  if (cuda.graphCallbacks() !== base.held) w.problems.push(`leak: ${cuda.graphCallbacks() - base.held} captured callbacks still held after every graph was destroyed`)
  for (const s of w.streams.slice(0, 2)) s.destroy()
  return w.problems
}
