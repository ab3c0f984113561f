// A launch's configuration (cuda.core's `LaunchConfig`): its shape, shared memory, stream, and the
// attributes that need `cuLaunchKernelEx` — cooperative, thread-block clusters, programmatic
// dependent launch. Checked here for types; the limits are checked in core, once, at the launch.
import type { Stream } from '../stream/stream'
import { describe, options as checkOptions } from '../validate'
import { dim3, type Dim3 } from './launch'

/** What a {@link LaunchConfig} is made from. */
export interface LaunchConfigOptions {
  /** Blocks in the grid: `n` or `[x, y?, z?]`. */
  grid: Dim3
  /** Threads in a block: `n` or `[x, y?, z?]`. */
  block: Dim3
  /** Bytes of dynamic shared memory per block; 0 by default. */
  sharedMem?: number
  /** The stream; the current stream by default. */
  stream?: Stream
  /**
   * All blocks resident at once, so a grid-wide `cooperative_groups::this_grid().sync()` works
   * (`cuLaunchCooperativeKernel`'s semantics). The grid must fit the device at once (see
   * `maxActiveBlocksPerMultiprocessor`): a RangeError before the launch otherwise.
   */
  cooperative?: boolean
  /** Thread-block cluster dimensions (compute capability 9.0+); each must divide the grid's. */
  cluster?: Dim3
  /** Programmatic dependent launch: this kernel may begin before the previous kernel on the stream ends (sm_90+; the kernels synchronize with `cudaGridDependencySynchronize`). */
  programmaticDependentLaunch?: boolean
}

/** A launch's configuration (cuda.core's `LaunchConfig`), for `kernel.launch(config, args)`. */
export class LaunchConfig {
  /** Blocks in the grid, x y z. */
  readonly grid: [number, number, number]
  /** Threads in a block, x y z. */
  readonly block: [number, number, number]
  /** Bytes of dynamic shared memory per block. */
  readonly sharedMem: number
  /** The stream; undefined for the current one at the launch. */
  readonly stream: Stream | undefined
  /** Whether it is a cooperative launch. */
  readonly cooperative: boolean
  /** Cluster dimensions, x y z; undefined for none. */
  readonly cluster: [number, number, number] | undefined
  /** Whether programmatic dependent launch is allowed. */
  readonly programmaticDependentLaunch: boolean

  /** @throws {TypeError} for a value of the wrong kind; {RangeError} for a non-positive dimension or a bad size. */
  constructor(options: LaunchConfigOptions) {
    checkOptions<LaunchConfigOptions>('LaunchConfig', options, ['grid', 'block', 'sharedMem', 'stream', 'cooperative', 'cluster', 'programmaticDependentLaunch'])
    this.grid = dim3('grid', options.grid)
    this.block = dim3('block', options.block)
    const sharedMem = options.sharedMem ?? 0
    if (typeof sharedMem !== 'number') throw new TypeError(`sharedMem must be a number, got ${describe(sharedMem)}`)
    if (!Number.isInteger(sharedMem) || sharedMem < 0 || sharedMem > 2 ** 32 - 1) throw new RangeError(`sharedMem must be a non-negative integer, got ${sharedMem}`)
    this.sharedMem = sharedMem
    this.stream = options.stream
    for (const k of ['cooperative', 'programmaticDependentLaunch'] as const) {
      if (options[k] !== undefined && typeof options[k] !== 'boolean') throw new TypeError(`${k} must be a boolean, got ${describe(options[k])}`)
    }
    this.cooperative = options.cooperative ?? false
    this.programmaticDependentLaunch = options.programmaticDependentLaunch ?? false
    this.cluster = options.cluster === undefined ? undefined : dim3('cluster', options.cluster)
    Object.freeze(this)
  }
}
