import { native } from '../native'
import { INTERNAL, NativeObject, own } from '../object'
import { count } from '../validate'
import { historyTap } from './channels'
import { PinnedMemory, registerHost } from './pinned'

let wasm: boolean | undefined
const webAssembly = (): boolean => (wasm ??= native.backendInfo().webAssembly)

/** Caches pinned host allocations (CuPy's `PinnedMemoryPool`), since pinning is slow. */
export class PinnedMemoryPool extends NativeObject {
  constructor() {
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
    const m = n > 0 && !native.externalBuffers() && !webAssembly()
      ? registerHost(new ArrayBuffer(n))
      : new PinnedMemory(INTERNAL, (owner) => native.pinnedPoolMalloc(owner, own(this), n), n)
    historyTap.on?.alloc(m, n, 'pinned', this, -1, -1)
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
