// Graphs built node by node (cuda.core's `GraphBuilder`). Each node is what a capture into the
// graph recorded (`cuStreamBeginCaptureToGraph`): a kernel, a copy, a memset, a host function,
// or whatever `capture(fn)` enqueued — so every check a launch or a copy makes holds here too.
// Conditional nodes take bodies built by nested builders. The rules (whose node, which builder
// is open, whose condition) are core's (crates/core/src/graph_builder.rs).
import { native } from './native'
import { INTERNAL, NativeObject, handleOf, own, ownDevice } from './object'
import { Graph, REMAKE, type ParamsKind } from './graph'
import { Stream } from './stream/stream'
import { CUDA_STREAM, streamHandle } from './stream/handle'
import { runWith, scope } from './context'
import { LaunchConfig, type LaunchConfigOptions } from './kernel/launch-config'
import type { RawKernel } from './kernel/raw-kernel'
import type { Event } from './event'
import type { KernelArg } from './kernel/launch'
import { MemoryPointer, type HostBuffer } from './memory/pointer'
import { isDType, type DType } from './kernel/dtype'
import { describe } from './validate'

/** Where a node goes: after `after` (a node or a list; none makes a root). */
export interface NodeOptions {
  /** The nodes it follows: a node or a list of this builder's nodes; none makes a root. */
  after?: GraphNode | readonly GraphNode[]
}

/** A node of a {@link GraphBuilder}'s graph: pass it in `after`, or to a Graph's updates. */
export class GraphNode {
  /** The builder whose graph holds it. */
  readonly builder: GraphBuilder
  /** Its number in the builder, in the order nodes were added. */
  readonly index: number
  /** @internal The builder's id, read while it lives: a graph it instantiated still takes the node. */
  readonly builderId: number
  /** @internal How to make it again with other parameters (an update in place). */
  readonly #remake: ((kind: ParamsKind, params: object, b: GraphBuilder) => GraphNode) | undefined

  /** @internal Made by the builder. */
  constructor(token: typeof INTERNAL, builder: GraphBuilder, index: number, remake?: (kind: ParamsKind, params: object, b: GraphBuilder) => GraphNode) {
    if (token !== INTERNAL) throw new TypeError('a GraphNode is made by a GraphBuilder')
    this.builder = builder
    this.index = index
    this.builderId = builder.id
    this.#remake = remake
  }

  /** Its kind: 'kernel', 'memcpy', 'memset', 'host', 'graph', 'conditional', … ('capture' for a capture that ended in several). */
  get kind(): string {
    return native.graphBuilderNodeKind(own(this.builder), this.index)
  }

  /** @internal A node with `params` in place of this one's, in a scratch builder. */
  [REMAKE](kind: ParamsKind, params: object): { builder: number; index: number; done(): void } {
    const scratch = new GraphBuilder({ device: ownDevice(this.builder) })
    try {
      const remake = this.#remake ?? ((k: ParamsKind) => remakeFresh(k, params, scratch))
      const n = remake(kind, params, scratch)
      return { builder: own(scratch), index: n.index, done: () => scratch.destroy() }
    } catch (e) {
      scratch.destroy()
      throw e
    }
  }
}

/** A node made from `params` alone: where the node to update has no parameters of `kind`. */
function remakeFresh(kind: ParamsKind, params: object, b: GraphBuilder): GraphNode {
  const p = params as Record<string, unknown>
  const need = (k: string) => {
    if (p[k] === undefined) throw new TypeError(`this node has no ${kind} parameters to start from: give ${k}`)
    return p[k] as never
  }
  switch (kind) {
    case 'kernel':
      return b.addKernel(need('kernel'), need('config'), need('args'))
    case 'memcpy':
      return b.addMemcpy(need('dst'), need('src'), need('nbytes'))
    case 'memset':
      return b.addMemset(need('ptr'), need('value'), need('nbytes'))
    case 'host':
      return b.addHost(need('fn'), p.arg)
  }
}

/** A condition of a builder's graph (`cudaGraphConditionalHandle`); pass `handle` to a kernel that calls `cudaGraphSetConditional`. */
export class Condition {
  /** The builder whose conditional nodes take it. */
  readonly builder: GraphBuilder
  /** The handle, a kernel's `cudaGraphConditionalHandle` argument (unsigned long long). */
  readonly handle: bigint

  /** @internal Made by `GraphBuilder.condition()`. */
  constructor(token: typeof INTERNAL, builder: GraphBuilder, handle: bigint) {
    if (token !== INTERNAL) throw new TypeError('a Condition is made by GraphBuilder.condition()')
    this.builder = builder
    this.handle = handle
  }
}

/** How `addSetCondition` tests the value: the condition becomes 1 where `value op other` holds. */
export interface SetConditionOptions {
  /** The element's type; int32 by default. */
  dtype?: DType
  /** The comparison; '!=' by default. 'value' passes the element itself (a switch's case). */
  op?: '==' | '!=' | '<' | '<=' | '>' | '>=' | 'value'
  /** The other side; 0 by default. */
  value?: number | bigint
}

const DTYPE_CODES: Record<DType, number> = { uint8: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5, uint64: 6, int64: 7, float32: 8, float64: 9 }
const OPS = ['==', '!=', '<', '<=', '>', '>=', 'value'] as const

/** The private stream each device's builders capture on (never the user's: a capture would take it over). */
const captureStreams = new Map<number, Stream>()
function captureStream(device: number): Stream {
  let s = captureStreams.get(device)
  if (s === undefined) {
    s = runWith({ device }, () => new Stream({ nonBlocking: true }))
    captureStreams.set(device, s)
  }
  return s
}

function afterList(options: NodeOptions | undefined): Float64Array {
  if (options === undefined) return new Float64Array(0)
  if (typeof options !== 'object' || options === null) throw new TypeError(`node options must be an object, got ${describe(options)}`)
  const after = options.after
  if (after === undefined) return new Float64Array(0)
  const list: readonly unknown[] = Array.isArray(after) ? after : [after]
  const out = new Float64Array(list.length * 2)
  list.forEach((n, i) => {
    if (!(n instanceof GraphNode)) throw new TypeError(`after must hold GraphNodes, got ${describe(n)}`)
    out[2 * i] = n.builderId
    out[2 * i + 1] = n.index
  })
  return out
}

/**
 * A graph built node by node (cuda.core's `GraphBuilder`): kernels, copies, memsets, host
 * functions, child graphs, captured work and conditional nodes (if, if/else, while, switch),
 * each after the nodes its `after` names. `instantiate()` makes the {@link Graph} to launch; the
 * builder may go on, and a later instantiate includes what was added since.
 */
export class GraphBuilder extends NativeObject {
  #id: number | undefined
  readonly #body: boolean

  /**
   * An empty graph on `device` (the current device by default).
   * @throws {CudaError} `CUDA_ERROR_NOT_SUPPORTED` where the driver is older than CUDA 12.3.
   */
  constructor(options?: { device?: number })
  /** @internal A conditional node's body. */
  constructor(token: typeof INTERNAL, handle: number, device: number)
  constructor(first: { device?: number } | typeof INTERNAL = {}, handle?: number, device?: number) {
    if (first === INTERNAL) {
      super(INTERNAL, 'GraphBuilder', handle as number, device as number)
      this.#body = true
      return
    }
    if (typeof first !== 'object' || first === null) throw new TypeError(`GraphBuilder options must be an object, got ${describe(first)}`)
    const d = first.device ?? scope().device
    if (typeof d !== 'number') throw new TypeError(`device must be a number, got ${describe(d)}`)
    super(INTERNAL, 'GraphBuilder', (owner) => native.graphBuilderCreate(owner, d), d)
    this.#body = false
  }

  /** @internal The id its nodes carry. */
  get id(): number {
    return (this.#id ??= native.graphBuilderId(own(this)))
  }

  /** True for a conditional node's body. */
  get isBody(): boolean {
    return this.#body
  }

  #node(index: number, remake?: (kind: ParamsKind, params: object, b: GraphBuilder) => GraphNode): GraphNode {
    return new GraphNode(INTERNAL, this, index, remake)
  }

  /**
   * Adds what `fn(stream)` enqueues on `stream` (which is current meanwhile) as nodes after
   * `after`: kernels, copies, memsets, host functions, the built-in kernels. Returns a node
   * standing for the capture's last nodes.
   * @throws {TypeError} if `fn` is not a function or returns a Promise (a capture is synchronous).
   */
  capture(fn: (stream: Stream) => void, options?: NodeOptions): GraphNode {
    if (typeof fn !== 'function') throw new TypeError(`capture needs a function, got ${describe(fn)}`)
    return this.#node(this.#capture(fn, options))
  }

  #capture(fn: (stream: Stream) => void, options: NodeOptions | undefined): number {
    const after = afterList(options)
    const device = ownDevice(this)
    const s = captureStream(device)
    const sh = streamHandle(s)
    native.graphBuilderBegin(own(this), sh, after)
    let result: unknown
    try {
      result = runWith({ device }, () => s.run(() => fn(s)))
    } catch (e) {
      try {
        native.graphBuilderEnd(own(this), sh)
      } catch {
        // The function's error says more than the capture's end after it.
      }
      throw e
    }
    const index = native.graphBuilderEnd(own(this), sh)
    if (result instanceof Promise) throw new TypeError('a capture is synchronous: the function must not return a Promise')
    return index
  }

  /**
   * Adds a kernel node (cuda.core's `launch` into a builder): `kernel` with `config` (a
   * LaunchConfig or its options) and `args`, packed and checked as `kernel.launch` checks them.
   * On the simulator a kernel's host implementation cannot be captured: CudaError
   * `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`.
   */
  addKernel(kernel: RawKernel, config: LaunchConfig | LaunchConfigOptions, args: readonly KernelArg[], options?: NodeOptions): GraphNode {
    if (typeof kernel !== 'object' || kernel === null || typeof (kernel as RawKernel).launch !== 'function') {
      throw new TypeError(`addKernel needs a RawKernel, got ${describe(kernel)}`)
    }
    const cfg = config instanceof LaunchConfig ? config : new LaunchConfig(config)
    const index = this.#capture((s) => kernel.launch(new LaunchConfig({ ...cfg, stream: s }), args), options)
    return this.#node(index, (kind, p, b) => {
      const q = p as { config?: LaunchConfig | LaunchConfigOptions; args?: readonly KernelArg[] }
      if (kind !== 'kernel') return remakeFresh(kind, p, b)
      return b.addKernel(kernel, q.config ?? cfg, q.args ?? args)
    })
  }

  /** Adds a copy of `nbytes` from `src` to `dst` (device memory, or pinned host memory on either side). */
  addMemcpy(dst: MemoryPointer | HostBuffer, src: MemoryPointer | HostBuffer, nbytes: number, options?: NodeOptions): GraphNode {
    if (!(dst instanceof MemoryPointer) && !(src instanceof MemoryPointer)) throw new TypeError('addMemcpy needs a MemoryPointer on at least one side')
    const index = this.#capture((s) => {
      if (dst instanceof MemoryPointer) dst.copyFromAsync(src, nbytes, s)
      else (src as MemoryPointer).copyToHostAsync(dst, nbytes, s)
    }, options)
    return this.#node(index, (kind, p, b) => {
      const q = p as { dst?: MemoryPointer | HostBuffer; src?: MemoryPointer | HostBuffer; nbytes?: number }
      if (kind !== 'memcpy') return remakeFresh(kind, p, b)
      return b.addMemcpy(q.dst ?? dst, q.src ?? src, q.nbytes ?? nbytes)
    })
  }

  /** Adds a memset of `nbytes` bytes equal to `value` at `ptr`. */
  addMemset(ptr: MemoryPointer, value: number, nbytes: number, options?: NodeOptions): GraphNode {
    if (!(ptr instanceof MemoryPointer)) throw new TypeError(`addMemset needs a MemoryPointer, got ${describe(ptr)}`)
    const index = this.#capture((s) => ptr.memsetAsync(value, nbytes, s), options)
    return this.#node(index, (kind, p, b) => {
      const q = p as { ptr?: MemoryPointer; value?: number; nbytes?: number }
      if (kind !== 'memset') return remakeFresh(kind, p, b)
      return b.addMemset(q.ptr ?? ptr, q.value ?? value, q.nbytes ?? nbytes)
    })
  }

  /** Adds a host node calling `fn(arg)` at each launch; the graph keeps `fn` alive. It must make no CUDA call. */
  addHost<T>(fn: (arg: T) => void, arg?: T, options?: NodeOptions): GraphNode {
    if (typeof fn !== 'function') throw new TypeError(`addHost needs a function, got ${describe(fn)}`)
    const index = this.#capture((s) => s.launchHostFunc(fn, arg), options)
    return this.#node(index, (kind, p, b) => {
      const q = p as { fn?: (arg: unknown) => void; arg?: unknown }
      if (kind !== 'host') return remakeFresh(kind, p, b)
      return b.addHost(q.fn ?? (fn as (a: unknown) => void), 'arg' in q ? q.arg : arg)
    })
  }

  /** Adds a node that runs a copy of `graph` (`cuGraphAddChildGraphNode`); the graph keeps what the child's launches keep. */
  addChild(graph: Graph, options?: NodeOptions): GraphNode {
    const g = handleOf(graph, 'Graph', 'graph')
    return this.#node(native.graphBuilderAddChild(own(this), g, afterList(options)))
  }

  /** Adds a node recording `event` (`cuGraphAddEventRecordNode`): the event completes where the node runs. The graph keeps the event. */
  addEventRecord(event: Event, options?: NodeOptions): GraphNode {
    return this.#node(native.graphBuilderAddEvent(own(this), handleOf(event, 'Event', 'event'), false, afterList(options)))
  }

  /** Adds a node that waits for `event`'s last record before the nodes after it run (`cuGraphAddEventWaitNode`). The graph keeps the event. */
  addEventWait(event: Event, options?: NodeOptions): GraphNode {
    return this.#node(native.graphBuilderAddEvent(own(this), handleOf(event, 'Event', 'event'), true, afterList(options)))
  }

  /**
   * A condition for this graph's conditional nodes (`cudaGraphConditionalHandleCreate`), reset to
   * `default` at each launch where given.
   */
  condition(options: { default?: number } = {}): Condition {
    if (typeof options !== 'object' || options === null) throw new TypeError(`condition options must be an object, got ${describe(options)}`)
    const d = options.default
    if (d !== undefined && (typeof d !== 'number' || !Number.isInteger(d) || d < 0 || d > 2 ** 32 - 1)) {
      throw new RangeError(`a condition's default is an unsigned 32-bit integer, got ${describe(d)}`)
    }
    return new Condition(INTERNAL, this, native.graphBuilderCondition(own(this), d))
  }

  #conditional(c: Condition, kind: number, bodies: readonly ((b: GraphBuilder) => void)[], options: NodeOptions | undefined): GraphNode {
    if (!(c instanceof Condition)) throw new TypeError(`a conditional node needs a Condition, got ${describe(c)}`)
    bodies.forEach((f) => {
      if (typeof f !== 'function') throw new TypeError(`a conditional body is a function of its builder, got ${describe(f)}`)
    })
    const [index, ...handles] = native.graphBuilderAddConditional(this, own(this), c.builder.id, c.handle, kind, bodies.length, afterList(options))
    const builders = handles.map((h) => new GraphBuilder(INTERNAL, h, ownDevice(this)))
    // Every body is closed, even where one throws: the outer builder takes nodes again.
    let failure: unknown
    for (let i = 0; i < builders.length; i++) {
      try {
        if (failure === undefined) {
          const r = bodies[i](builders[i]) as unknown
          if (r instanceof Promise) throw new TypeError('a conditional body is built synchronously: its function must not return a Promise')
        }
      } catch (e) {
        failure = e
      } finally {
        native.graphBuilderClose(own(builders[i]))
      }
    }
    if (failure !== undefined) throw failure
    return this.#node(index)
  }

  /** Adds an if node: `body` runs where the condition is nonzero at the node. */
  addIf(c: Condition, body: (b: GraphBuilder) => void, options?: NodeOptions): GraphNode {
    return this.#conditional(c, 0, [body], options)
  }

  /** Adds an if/else node (CUDA 12.8): `then` where the condition is nonzero, `otherwise` where it is 0. */
  addIfElse(c: Condition, then: (b: GraphBuilder) => void, otherwise: (b: GraphBuilder) => void, options?: NodeOptions): GraphNode {
    return this.#conditional(c, 1, [then, otherwise], options)
  }

  /** Adds a while node: `body` runs again and again while the condition is nonzero (tested before each run). */
  addWhile(c: Condition, body: (b: GraphBuilder) => void, options?: NodeOptions): GraphNode {
    return this.#conditional(c, 2, [body], options)
  }

  /** Adds a switch node (CUDA 12.8): case `n` runs where the condition is `n`; none past the last. */
  addSwitch(c: Condition, cases: readonly ((b: GraphBuilder) => void)[], options?: NodeOptions): GraphNode {
    if (!Array.isArray(cases) || cases.length === 0) throw new TypeError('addSwitch needs a non-empty array of case functions')
    return this.#conditional(c, 3, cases, options)
  }

  /**
   * Adds a node that sets `c` (of this graph or one it is nested in) from the element at `ptr`
   * (the built-in set-condition kernel): 1 where `element op value` holds, else 0 (`op: 'value'`:
   * the element itself). A loop over built-in or library kernels then needs no CUDA C.
   * @throws {TypeError} for an unknown dtype or op; {RangeError} for a value that does not fit.
   */
  addSetCondition(c: Condition, ptr: MemoryPointer, test: SetConditionOptions = {}, options?: NodeOptions): GraphNode {
    if (!(c instanceof Condition)) throw new TypeError(`addSetCondition needs a Condition, got ${describe(c)}`)
    if (!(ptr instanceof MemoryPointer)) throw new TypeError(`addSetCondition needs a MemoryPointer, got ${describe(ptr)}`)
    if (typeof test !== 'object' || test === null) throw new TypeError(`addSetCondition options must be an object, got ${describe(test)}`)
    const { dtype = 'int32', op = '!=', value = 0 } = test
    if (!isDType(dtype)) throw new TypeError(`unknown dtype ${describe(dtype)}: one of ${Object.keys(DTYPE_CODES).join(', ')}`)
    const opCode = OPS.indexOf(op)
    if (opCode < 0) throw new TypeError(`unknown op ${describe(op)}: one of ${OPS.join(', ')}`)
    if (typeof value !== 'number' && typeof value !== 'bigint') throw new TypeError(`value must be a number or bigint, got ${describe(value)}`)
    const code = DTYPE_CODES[dtype]
    let bits: bigint
    if (code >= 8) {
      const v = new DataView(new ArrayBuffer(8))
      v.setFloat64(0, Number(value), true)
      bits = v.getBigUint64(0, true)
    } else {
      if (typeof value === 'number' && !Number.isInteger(value)) throw new RangeError(`value must be an integer for ${dtype}, got ${value}`)
      const b = BigInt(value)
      const signed = code % 2 === 1
      if ((!signed && b < 0n) || b >= 2n ** 64n || b < -(2n ** 63n)) throw new RangeError(`value ${b} does not fit ${dtype}'s comparison`)
      bits = BigInt.asUintN(64, b)
    }
    const s = captureStream(ownDevice(this))
    const index = native.graphBuilderSetCondition(own(this), streamHandle(s), c.builder.id, c.handle, own(ptr.mem), ptr.byteOffset, code, opCode, bits, afterList(options))
    return this.#node(index)
  }

  /** The graph so far in Graphviz dot (cuda.core's `debug_dot_print`). */
  toDot(): string {
    return native.graphBuilderToDot(own(this))
  }

  /**
   * An executable {@link Graph} of what is built so far (`cuGraphInstantiate`); with `upload`
   * (true: the current stream, or a Stream), uploaded there too, so its first launch is faster.
   * @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` for a body's builder; `CUDA_ERROR_ILLEGAL_STATE` while a body is open.
   */
  instantiate(options: { upload?: boolean | Stream } = {}): Graph {
    if (typeof options !== 'object' || options === null) throw new TypeError(`instantiate options must be an object, got ${describe(options)}`)
    const g = new Graph(INTERNAL, (owner) => native.graphBuilderInstantiate(owner, own(this)), ownDevice(this))
    const upload = options.upload
    if (upload === true) g.upload()
    else if (upload instanceof Stream || (typeof upload === 'object' && upload !== null && CUDA_STREAM in upload)) g.upload(upload as Stream)
    else if (upload !== undefined && upload !== false) throw new TypeError(`upload must be a boolean or a Stream, got ${describe(upload)}`)
    return g
  }

  /** Releases the builder (again: nothing); graphs instantiated from it stay. Its nodes can then no longer be used: `CUDA_ERROR_INVALID_HANDLE`. */
  destroy(): void {
    native.graphBuilderDestroy(own(this))
  }

  /** Destroys the builder, for `using`. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}

