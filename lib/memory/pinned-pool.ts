import { native } from '../native'
import { INTERNAL, NativeObject, own } from '../object'
import { count, describe, options as checkOptions } from '../validate'
import { historyTap } from './channels'
import { PinnedMemory, registerHost } from './pinned'

let wasm: boolean | undefined
const webAssembly = (): boolean => (wasm ??= native.backendInfo().webAssembly)

/** Options for {@link PinnedMemoryPool}. */
export interface PinnedMemoryPoolOptions {
  /**
   * Only `false`: CUDA shares no pool of plain pinned host memory between processes (a pool of
   * `CU_MEM_LOCATION_TYPE_HOST` takes no handle type). Pinned memory another process imports is
   * `new AsyncMemoryPool({ shareable: true, location: 'host' })`: the host NUMA node's.
   */
  shareable?: boolean
}

/** Caches pinned host allocations (CuPy's `PinnedMemoryPool`), since pinning is slow. */
export class PinnedMemoryPool extends NativeObject {
  /**
   * @throws {TypeError} for an unknown option, or `shareable: true` (see {@link PinnedMemoryPoolOptions.shareable}).
   */
  constructor(options: PinnedMemoryPoolOptions = {}) {
    const { shareable } = checkOptions<PinnedMemoryPoolOptions>('PinnedMemoryPool', options, ['shareable'])
    if (shareable !== undefined && typeof shareable !== 'boolean') throw new TypeError(`shareable must be a boolean, got ${describe(shareable)}`)
    if (shareable) {
      throw new TypeError(
        "a PinnedMemoryPool cannot be shared: CUDA shares no pool of plain pinned host memory. Pinned memory another process imports is new AsyncMemoryPool({ shareable: true, location: 'host' })",
      )
    }
    super(INTERNAL, 'PinnedMemoryPool', (owner) => native.pinnedPoolCreate(owner), -1)
  }

  /**
   * `nbytes` of pinned host memory (CuPy's `PinnedMemoryPool.malloc`), a cached block when one fits.
   * @throws {TypeError} for a non-number, {RangeError} for a negative or fractional size,
   *   {CudaError} `CUDA_ERROR_OUT_OF_MEMORY` (after releasing cached blocks and retrying).
   */
  malloc(nbytes: number): PinnedMemory {
    const n = count('size', nbytes)
    // Where external ArrayBuffers are refused (Electron), pin a V8 buffer instead, so that
    // `buffer` works there too: registered per call, not cached. The WebAssembly build can
    // register no JS bytes (it sees copies of them): its pinned memory has no `buffer`.
    if (n > 0 && !native.externalBuffers() && !webAssembly()) {
      const m = registerHost(new ArrayBuffer(n))
      historyTap.on?.pinnedAlloc(m, n, this, historyTap.on.capture?.('pinned'))
      return m
    }
    const pool = own(this)
    let h = -1
    const m = new PinnedMemory(INTERNAL, (owner) => (h = native.pinnedPoolMalloc(owner, pool, n)), n)
    const tap = historyTap.on
    if (tap !== undefined) tap.pinnedPoolAlloc(h, n, this, pool, tap.capture?.('pinned'))
    return m
  }

  /** Cached free blocks (CuPy's `n_free_blocks`). */
  nFreeBlocks(): number {
    return native.pinnedPoolNFreeBlocks(own(this))
  }

  /** Releases the cached free blocks to the driver (`cuMemFreeHost`; CuPy's `free_all_blocks`). */
  freeAllBlocks(): void {
    native.pinnedPoolFreeAllBlocks(own(this))
  }
}
