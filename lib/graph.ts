import { native } from './native'
import { INTERNAL, NativeObject, handleOf, own, ownDevice } from './object'
import { currentStreamHandle, streamHandle, type StreamLike } from './stream/handle'
import { traced } from './trace'

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

  #stream(stream: StreamLike | undefined): number {
    return stream === undefined ? currentStreamHandle(ownDevice(this)) : streamHandle(stream)
  }

  /** Runs the graph on `stream` (the current stream by default), after earlier work there. */
  launch(stream?: StreamLike): void {
    const s = this.#stream(stream)
    traced(s, 'graph launch', 'graph', () => native.graphLaunch(own(this), s))
  }

  /** Prepares the graph on `stream` without running it, so the first launch is faster. */
  upload(stream?: StreamLike): void {
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

  /** Releases the graph and the callbacks it keeps (again: nothing). Later calls throw `CUDA_ERROR_INVALID_HANDLE`. */
  destroy(): void {
    native.graphDestroy(own(this))
  }

  /** Destroys the graph, for `using`, as `destroy()` does. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}
