import { scope, runWith, enterWith } from '../context'
import { native } from '../native'
import { count, describe, func } from '../validate'
import { allocWatched, publishAlloc, publishFailed } from './events'
import { Memory } from './memory'
import { PinnedMemory, registerHost } from './pinned'
import { PinnedMemoryPool } from './pinned-pool'
import { MemoryPointer } from './pointer'
import { MemoryPool, type Allocator } from './pool'

export type { Allocator }

let defaultPool: MemoryPool | undefined
let defaultPinnedPool: PinnedMemoryPool | undefined

/** The pool `alloc` uses unless an allocator is set (CuPy's `get_default_memory_pool`). */
export function getDefaultMemoryPool(): MemoryPool {
  return (defaultPool ??= new MemoryPool())
}

/** The pool `allocPinned` uses (CuPy's `get_default_pinned_memory_pool`). */
export function getDefaultPinnedMemoryPool(): PinnedMemoryPool {
  return (defaultPinnedPool ??= new PinnedMemoryPool())
}

/** A function that allocates pinned host memory: what {@link setPinnedMemoryAllocator} takes. */
export type PinnedAllocator = (nbytes: number) => PinnedMemory

/** The pinned allocator `allocPinned` uses; undefined: the default pinned pool. */
let pinnedAllocator: PinnedAllocator | undefined

/**
 * `nbytes` of pinned host memory from the current pinned allocator (CuPy's `alloc_pinned_memory`):
 * the default pinned pool unless {@link setPinnedMemoryAllocator} chose another.
 * @throws {TypeError} when the allocator returns something other than a PinnedMemory.
 */
export function allocPinned(nbytes: number): PinnedMemory {
  const a = pinnedAllocator
  if (a === undefined) return getDefaultPinnedMemoryPool().malloc(nbytes)
  const p = a(nbytes)
  if (!(p instanceof PinnedMemory)) throw new TypeError(`the pinned memory allocator must return a PinnedMemory, got ${describe(p)}`)
  return p
}

/**
 * Pinned host memory with no pool (what `setPinnedMemoryAllocator(null)` selects, CuPy's
 * `_malloc`): each allocation is page-locked when made and unlocked when freed, nothing cached.
 * Natively that is a fresh ArrayBuffer registered in place (`cuMemHostRegister`), so `buffer`
 * works everywhere; the WebAssembly build, which can register no JS bytes, takes it from the
 * default pinned pool.
 */
export function mallocPinnedPlain(nbytes: number): PinnedMemory {
  const n = count('size', nbytes)
  if (n === 0 || native.backendInfo().webAssembly) return getDefaultPinnedMemoryPool().malloc(n)
  return registerHost(new ArrayBuffer(n))
}

/**
 * Sets the allocator `allocPinned` uses (CuPy's `set_pinned_memory_allocator`): a function of the
 * size returning a {@link PinnedMemory}, such as `(n) => pool.malloc(n)` of a `PinnedMemoryPool`;
 * `null` or nothing allocates with no pool ({@link mallocPinnedPlain}), as CuPy's `None` does.
 * As CuPy's, it is the process's (this thread's) setting, not the async context's.
 * @throws {TypeError} for something other than a function or null.
 */
export function setPinnedMemoryAllocator(fn?: PinnedAllocator | null): void {
  pinnedAllocator = fn === null || fn === undefined ? mallocPinnedPlain : (func('pinned memory allocator', fn) as PinnedAllocator)
}

/** Allocates with `cudaMalloc` directly, bypassing any pool (the allocator `null` selects). */
export function mallocPlain(nbytes: number): MemoryPointer {
  let p: MemoryPointer
  try {
    p = new MemoryPointer(new Memory(nbytes))
  } catch (e) {
    publishFailed(e, scope().device, nbytes, 'plain')
    throw e
  }
  if (allocWatched()) publishAlloc(p, nbytes, 'plain')
  return p
}

function checked(p: unknown): MemoryPointer {
  if (!(p instanceof MemoryPointer)) throw new TypeError(`the allocator must return a MemoryPointer, got ${describe(p)}`)
  return p
}

/**
 * `nbytes` of device memory from the current allocator (CuPy's `cupy.cuda.alloc`): the default
 * pool unless {@link setAllocator} or {@link usingAllocator} chose another.
 */
export function alloc(nbytes: number): MemoryPointer {
  const a = scope().allocator as Allocator | undefined
  return a === undefined ? getDefaultMemoryPool().malloc(nbytes) : checked(a(nbytes))
}

function allocatorArg(fn: Allocator | null | undefined): Allocator {
  return fn === null || fn === undefined ? mallocPlain : (func('allocator', fn) as Allocator)
}

/**
 * Sets the allocator `alloc` uses for the rest of the current async context (CuPy's
 * `set_allocator`); `null` or nothing allocates with `cudaMalloc` directly (the pool disabled),
 * as CuPy's `set_allocator(None)` does.
 * @throws {TypeError} for a non-function; {CudaError} `CUDA_ERROR_ILLEGAL_STATE` inside
 *   `usingAllocator`, as CuPy refuses it.
 */
export function setAllocator(fn?: Allocator | null): void {
  native.allocatorCheckSet(scope().allocatorScoped === true)
  enterWith({ allocator: allocatorArg(fn) })
}

/** The allocator `alloc` uses here (CuPy's `get_allocator`): a function of the size. */
export function getAllocator(): Allocator {
  return (scope().allocator as Allocator | undefined) ?? ((n: number) => getDefaultMemoryPool().malloc(n))
}

/**
 * Runs `body` with `fn` as the allocator, for `body` and everything it awaits (CuPy's
 * `using_allocator`); `null` or nothing allocates with `cudaMalloc` directly.
 */
export function usingAllocator<T>(fn: Allocator | null | undefined, body: () => T): T {
  return runWith({ allocator: allocatorArg(fn), allocatorScoped: true }, func('body', body) as () => T)
}
