import { native } from './native'
import { scope } from './context'
import { beginTrace, endedCounters, endTrace, writeTrace, type TraceResult, type TraceSlice } from './trace'
import { describe, options as checkOptions } from './validate'

/**
 * The profiler (CuPy's `cupy.cuda.profiler`): `start`/`stop` bracket what a tool such as Nsight
 * Systems collects (`cuProfilerStart`/`Stop`; recorded on the simulator), and `trace` writes a
 * timeline anyone can open.
 */
export const profiler = {
  /** Starts collection (CuPy's `profiler.start`, `cuProfilerStart`). */
  start(): void {
    native.profilerSet(true)
  },
  /** Stops collection (CuPy's `profiler.stop`, `cuProfilerStop`). */
  stop(): void {
    native.profilerSet(false)
  },
  /** True between `start()` and `stop()`. */
  isActive(): boolean {
    return native.profilerActive()
  },
  /** Runs `fn` between `start()` and `stop()` (CuPy's `profile()`), async functions included. */
  profile<T>(fn: () => T): T {
    if (typeof fn !== 'function') throw new TypeError('profile takes a function')
    profiler.start()
    let r: T
    try {
      r = fn()
    } catch (e) {
      profiler.stop()
      throw e
    }
    if (typeof (r as { then?: unknown } | null)?.then === 'function') return Promise.resolve(r).finally(() => profiler.stop()) as T
    profiler.stop()
    return r
  },
  /**
   * Runs `fn` and writes its timeline: a Chrome trace at `path` (Perfetto and chrome://tracing
   * open it) and an SVG beside it, one lane per stream, each copy, memset, kernel and graph
   * launch a slice timed by events on its stream, NVTX ranges on the host lane, and each
   * device's memory (in use and reserved, sampled at each allocation and free) as counter tracks.
   */
  async trace<T>(fn: () => T | Promise<T>, options: { path: string }): Promise<TraceResult<T>> {
    if (typeof fn !== 'function') throw new TypeError('trace takes a function')
    checkOptions('trace', options, ['path'])
    if (typeof options?.path !== 'string') throw new TypeError(`trace needs { path }, got ${describe(options)}`)
    beginTrace(scope().device)
    let result: T
    let slices: TraceSlice[]
    try {
      result = await fn()
    } finally {
      slices = await endTrace()
    }
    const counters = endedCounters()
    const { json, svg } = writeTrace(slices, options.path, counters)
    return { result, slices, json, svg, counters }
  },
}
