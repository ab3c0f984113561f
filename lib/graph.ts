import { native } from './native'
import { INTERNAL, NativeObject, handleOf, own, ownDevice } from './object'
import { currentStreamHandle, streamHandle, type CudaStreamProtocol, type StreamLike } from './stream/handle'
import { traced } from './trace'
import { describe } from './validate'

/** The parameters an update in place gives a node, by kind. */
export type ParamsKind = 'kernel' | 'memcpy' | 'memset' | 'host'

/** @internal How a builder's node makes itself again with other parameters (lib/graph-builder.ts). */
export const REMAKE: unique symbol = Symbol('cuda-node remake')

/** @internal A node of a GraphBuilder, as an update in place needs it (lib/graph-builder.ts's `GraphNode`). */
export interface UpdatableNode {
  readonly builderId: number
  readonly index: number
  [REMAKE](kind: ParamsKind, params: object): { builder: number; index: number; done(): void }
}

function node(n: unknown): UpdatableNode {
  if (typeof n !== 'object' || n === null || !(REMAKE in n)) throw new TypeError(`node must be a GraphNode, got ${describe(n)}`)
  return n as UpdatableNode
}

/**
 * A graph made by stream capture (CuPy's `cupy.cuda.graph.Graph`): replays the captured work
 * with one launch. Host callbacks captured into it run at every launch; the graph keeps them,
 * and a launch still queued keeps them after the graph is destroyed.
 */
export class Graph extends NativeObject {
  /** @internal Made by `Stream.endCapture()` or `Stream.capture()`. */
  constructor(token: typeof INTERNAL, make: (owner: object) => number, device: number) {
    super(token, 'Graph', make, device)
  }

  #stream(stream: StreamLike | CudaStreamProtocol | undefined): number {
    return stream === undefined ? currentStreamHandle(ownDevice(this)) : streamHandle(stream)
  }

  /** Runs the graph on `stream` (the current stream by default), after earlier work there. */
  launch(stream?: StreamLike | CudaStreamProtocol): void {
    const s = this.#stream(stream)
    traced(s, 'graph launch', 'graph', () => native.graphLaunch(own(this), s))
  }

  /** Prepares the graph on `stream` without running it, so the first launch is faster. */
  upload(stream?: StreamLike | CudaStreamProtocol): void {
    native.graphUpload(own(this), this.#stream(stream))
  }

  /** The graph in Graphviz dot (CuPy's `debug_dot_str`). */
  toDot(): string {
    return native.graphToDot(own(this))
  }

  /**
   * Takes the parameters of `other`, a capture of the same sequence of operations (say, with
   * another fill value); the next launch uses them.
   * @throws {TypeError} unless `other` is a Graph; {CudaError}
   *   `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` when the topologies differ.
   */
  update(other: Graph): void {
    native.graphUpdate(own(this), handleOf(other, 'Graph', 'other'))
  }

  #set(n: unknown, kind: ParamsKind, params: object): void {
    const target = node(n)
    if (typeof params !== 'object' || params === null) throw new TypeError(`${kind} parameters must be an object, got ${describe(params)}`)
    const made = target[REMAKE](kind, params)
    try {
      native.graphSetParams(own(this), target.builderId, target.index, made.builder, made.index)
    } finally {
      made.done()
    }
  }

  /**
   * Gives a kernel node (`n`: a GraphNode of the builder that instantiated this graph) new `args`
   * and/or `config` (`cuGraphExecKernelNodeSetParams`); the next launch uses them.
   * @throws {TypeError} for arguments that do not match the kernel; {CudaError}
   *   `CUDA_ERROR_INVALID_VALUE` for a node of another graph or kind, or what the driver refuses (naming the node).
   */
  setKernelParams(n: object, params: { args?: readonly unknown[]; config?: object; kernel?: unknown }): void {
    this.#set(n, 'kernel', params)
  }

  /** Gives a copy node a new `dst`, `src` and/or `nbytes` (`cuGraphExecMemcpyNodeSetParams`); as `setKernelParams` throws. */
  setMemcpyParams(n: object, params: { dst?: unknown; src?: unknown; nbytes?: number }): void {
    this.#set(n, 'memcpy', params)
  }

  /** Gives a memset node a new `ptr`, `value` and/or `nbytes` (`cuGraphExecMemsetNodeSetParams`); as `setKernelParams` throws. */
  setMemsetParams(n: object, params: { ptr?: unknown; value?: number; nbytes?: number }): void {
    this.#set(n, 'memset', params)
  }

  /** Gives a host node a new `fn` and/or `arg` (`cuGraphExecHostNodeSetParams`); the graph keeps both. As `setKernelParams` throws. */
  setHostParams(n: object, params: { fn?: (arg: never) => void; arg?: unknown }): void {
    this.#set(n, 'host', params)
  }

  /**
   * Turns a kernel, memcpy or memset node off (later launches skip it) or on again (`cuGraphNodeSetEnabled`).
   * @throws {TypeError} unless `enabled` is a boolean; {CudaError} `CUDA_ERROR_INVALID_VALUE` for another kind of node or a node of another graph.
   */
  setEnabled(n: object, enabled: boolean): void {
    const target = node(n)
    if (typeof enabled !== 'boolean') throw new TypeError(`enabled must be a boolean, got ${describe(enabled)}`)
    native.graphSetEnabled(own(this), target.builderId, target.index, enabled)
  }

  /** Releases the graph and the callbacks it keeps (again: nothing). Later calls throw `CUDA_ERROR_INVALID_HANDLE`. */
  destroy(): void {
    native.graphDestroy(own(this))
  }

  /** Destroys the graph, for `using`, as `destroy()` does. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}
