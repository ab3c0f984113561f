import type { NativeGraph } from '../native'
import { expectRuns, releasePersistent, retainPersistent } from './callbacks'
import { getCurrentStream, Stream } from './stream'
import { traced } from './trace'

// A graph left to the GC gives back the JS callbacks it held (the native graph frees itself).
const collected = new FinalizationRegistry<number[]>((ids) => releasePersistent(ids))

/**
 * A graph made by stream capture (CuPy's `cupy.cuda.graph.Graph`): replays the captured work
 * with one launch. Host callbacks captured into it run at every launch, and live as long as it.
 */
export class Graph {
  readonly #native: NativeGraph
  #ids: number[]

  /** @internal Made by `Stream.endCapture()` or `Stream.capture()`. */
  constructor(n: NativeGraph, callbackIds: number[]) {
    this.#native = n
    this.#ids = callbackIds
    collected.register(this, this.#ids, this)
  }

  #stream(stream: Stream | undefined, what: string): Stream {
    if (stream === undefined) return getCurrentStream()
    if (!(stream instanceof Stream)) throw new TypeError(`${what}() takes a Stream`)
    return stream
  }

  /** Runs the graph on `stream` (the current stream by default), after earlier work there. */
  launch(stream?: Stream): void {
    const s = this.#stream(stream, 'launch')
    traced(s, 'graph launch', 'graph', () => this.#native.launch(s._native))
    expectRuns(this.#ids)
  }

  /** Prepares the graph on `stream` without running it, so the first launch is faster. */
  upload(stream?: Stream): void {
    this.#native.upload(this.#stream(stream, 'upload')._native)
  }

  /** The graph in Graphviz dot (CuPy's `debug_dot_str`). */
  toDot(): string {
    return this.#native.toDot()
  }

  /**
   * Takes the parameters of `other`, a capture of the same sequence of operations (say, with
   * another fill value); the next launch uses them.
   * @throws {CudaError} `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` when the topologies differ.
   */
  update(other: Graph): void {
    if (!(other instanceof Graph)) throw new TypeError('update() takes a Graph')
    this.#native.update(other.#native)
    retainPersistent(other.#ids)
    releasePersistent(this.#ids)
    collected.unregister(this)
    this.#ids = [...other.#ids]
    collected.register(this, this.#ids, this)
  }

  /** Releases the graph and the callbacks it keeps. Later calls throw `CUDA_ERROR_INVALID_HANDLE`. */
  destroy(): void {
    this.#native.destroy()
    collected.unregister(this)
    releasePersistent(this.#ids)
    this.#ids = []
  }

  /** Destroys the graph, for `using`, as `destroy()` does. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}
