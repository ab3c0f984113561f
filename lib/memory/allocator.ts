import { scope, runWith, enterWith } from '../context'
import { CudaError } from '../errors'
import { describe, func } from '../validate'
import { allocWatched, publishAlloc, publishFailed } from './events'
import { Memory } from './memory'
import { PinnedMemory } from './pinned'
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

/** `nbytes` of pinned host memory from the default pinned pool (CuPy's `alloc_pinned_memory`). */
export function allocPinned(nbytes: number): PinnedMemory {
  return getDefaultPinnedMemoryPool().malloc(nbytes)
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
  if (scope().allocatorScoped) {
    throw new CudaError('setAllocator cannot change the allocator inside usingAllocator: it would outlive the scope. Nest another usingAllocator instead', 'CUDA_ERROR_ILLEGAL_STATE')
  }
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
