import { scope } from '../context'
import { native } from '../native'
import { count, describe } from '../validate'
import { adoptPointer, type MemoryPointer } from './pointer'

/**
 * An allocator made of another addon's native functions (CuPy's `CFunctionAllocator`), given by
 * address as bigints: `void* malloc(void* param, size_t size, int device)` and
 * `void free(void* param, void* ptr, int device)`, CuPy's signatures. `malloc` runs at each
 * allocation, on the JS thread; `free` once the pointer is freed (or collected) and the device has
 * finished the work queued before, on whichever thread lets it go. The memory must be device (or
 * managed) memory the driver knows, of the current device. `owner` (what keeps the functions and
 * `param` alive, e.g. the addon's module object) is held as long as any memory from them lives.
 * `malloc` is bound: `setAllocator(a.malloc)`, `new MemoryPool(a.malloc)`.
 */
export class CFunctionAllocator {
  /** The address of `malloc`. */
  readonly mallocPtr: bigint
  /** The address of `free`. */
  readonly freePtr: bigint
  /** What both are given first (`void* param`). */
  readonly param: bigint
  readonly #owner: object | undefined

  /**
   * @param mallocPtr the address of `void* malloc(void* param, size_t size, int device)`.
   * @param freePtr the address of `void free(void* param, void* ptr, int device)`.
   * @param param passed to both, untouched; 0n by default.
   * @param owner kept alive as long as memory from this allocator lives.
   * @throws {TypeError} unless the addresses are bigints and `owner` an object; {RangeError} for
   *   an address where no code of this process is; {CudaError} `CUDA_ERROR_NOT_SUPPORTED` on the
   *   WebAssembly build, which cannot call native functions.
   */
  constructor(mallocPtr: bigint, freePtr: bigint, param: bigint = 0n, owner?: object) {
    for (const [what, v] of [['malloc', mallocPtr], ['free', freePtr], ['param', param]] as const) {
      if (typeof v !== 'bigint') throw new TypeError(`${what} must be an address as a bigint, got ${describe(v)}`)
      if (v < 0n || v >= 1n << 64n) throw new RangeError(`${what} must be an unsigned 64-bit address, got ${v}`)
    }
    if (owner !== undefined && (owner === null || (typeof owner !== 'object' && typeof owner !== 'function'))) {
      throw new TypeError(`owner must be an object, got ${describe(owner)}`)
    }
    native.cFunctionsCheck(mallocPtr, freePtr)
    this.mallocPtr = mallocPtr
    this.freePtr = freePtr
    this.param = param
    this.#owner = owner
  }

  /**
   * `nbytes` of device memory from `malloc` on the current device (CuPy's
   * `CFunctionAllocator.malloc`). Zero bytes call nothing.
   * @throws {RangeError} for a bad size; {CudaError} `CUDA_ERROR_OUT_OF_MEMORY` when `malloc`
   *   returns null, `CUDA_ERROR_INVALID_VALUE` when it returns memory the driver does not know
   *   (given back with `free` at once).
   */
  readonly malloc = (nbytes: number): MemoryPointer => {
    const n = count('size', nbytes)
    const device = scope().device
    return adoptPointer(native.memFromCFunctions(this.mallocPtr, this.freePtr, this.param, n, device, this.#owner ?? this), device)
  }
}
