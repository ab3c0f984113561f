// CuPy's memory hooks (`cupy.cuda.MemoryHook`), built over the memory channels (channels.ts): a
// hook enabled in a scope follows that scope's async code (AsyncLocalStorage, as the current
// stream does), and the channels are subscribed only while some hook is enabled, so with none the
// allocators' hot paths see `hasSubscribers` false and build nothing.
//
// The channels publish after an allocation is made (`alloc`: the pointer; `grow`: a pool took
// memory from the driver, published before the pointer) and before a free (`free`), in the
// caller's synchronous call, so a hook sees the caller's stack. CuPy's six hook points map to
// them as follows; the three that no event gives are refused rather than never called.
import { AsyncLocalStorage } from 'node:async_hooks'
import { own } from '../object'
import { memoryChannels } from './channels'
import type { AllocMessage, AllocSource, FreeMessage, GrowMessage } from './events'
import type { Memory } from './memory'
import type { MemoryPointer } from './pointer'

/** `allocPostprocess`: a pool took `memSize` bytes from the driver (or its base allocator) to serve an allocation. */
export interface AllocHookEvent {
  /** The device's ordinal (CuPy's `device_id`). */
  deviceId: number
  /** Bytes taken (CuPy's `mem_size`). The segment's address is not published: CuPy's `mem_ptr` is absent. */
  memSize: number
  /** The MemoryPool or AsyncMemoryPool that grew. */
  pool: object
}

/** `mallocPostprocess`: a pointer handed out by an allocator. */
export interface MallocHookEvent {
  /** The device's ordinal (CuPy's `device_id`). */
  deviceId: number
  /** Bytes asked for (CuPy's `size`). */
  size: number
  /** Bytes given, rounded by a pool (CuPy's `mem_size`). */
  memSize: number
  /** The address (CuPy's `mem_ptr`). */
  memPtr: bigint
  /** The allocation's identity, never reused in this thread (CuPy's `pmem_id`, the pooled memory's `id()`). */
  pmemId: number
  /** The pointer itself. */
  pointer: MemoryPointer
  /** Which allocator gave it. */
  source: AllocSource
  /** The MemoryPool or AsyncMemoryPool, for the pool sources. */
  pool?: object
}

/** `freePreprocess`: an allocation about to be freed by `free()` or `using`. */
export interface FreeHookEvent {
  /** The device's ordinal (CuPy's `device_id`). */
  deviceId: number
  /** Its bytes (CuPy's `mem_size`). */
  memSize: number
  /** Its address (CuPy's `mem_ptr`). */
  memPtr: bigint
  /** The same identity `mallocPostprocess` gave it (CuPy's `pmem_id`). */
  pmemId: number
  /** The allocation. */
  memory: Memory
}

/** CuPy's hook points no memory event gives, and why: a hook defining one is refused. */
const NOT_GIVEN: Record<string, string> = {
  allocPreprocess: 'a pool publishes its growth after it grew: use allocPostprocess',
  mallocPreprocess: 'an allocation is published once made, still on the caller\'s stack: use mallocPostprocess',
  freePostprocess: 'a free is published before the memory goes, never after: use freePreprocess',
}

/** The hooks enabled in the current async scope, outermost first. */
const storage = new AsyncLocalStorage<readonly MemoryHook[]>()
/** Scopes open in this thread with a hook enabled: the channels are subscribed while this is above 0. */
let open = 0

function onAlloc(message: unknown): void {
  const hooks = storage.getStore()
  if (hooks === undefined || hooks.length === 0) return
  const m = message as AllocMessage
  const e: MallocHookEvent = {
    deviceId: m.device, size: m.nbytes, memSize: m.size, memPtr: m.pointer.ptr, pmemId: own(m.pointer.mem), pointer: m.pointer, source: m.source,
  }
  if (m.pool !== undefined) e.pool = m.pool
  for (const h of hooks) h.mallocPostprocess(e)
}

function onGrow(message: unknown): void {
  const hooks = storage.getStore()
  if (hooks === undefined || hooks.length === 0) return
  const m = message as GrowMessage
  const e: AllocHookEvent = { deviceId: m.device, memSize: m.bytes, pool: m.pool }
  for (const h of hooks) h.allocPostprocess(e)
}

function onFree(message: unknown): void {
  const hooks = storage.getStore()
  if (hooks === undefined || hooks.length === 0) return
  const m = message as FreeMessage
  const e: FreeHookEvent = { deviceId: m.device, memSize: m.size, memPtr: m.memory.ptr, pmemId: own(m.memory), memory: m.memory }
  for (const h of hooks) h.freePreprocess(e)
}

function opened(): void {
  if (open++ > 0) return
  memoryChannels.alloc.subscribe(onAlloc)
  memoryChannels.grow.subscribe(onGrow)
  memoryChannels.free.subscribe(onFree)
}

function closed(): void {
  if (--open > 0) return
  memoryChannels.alloc.unsubscribe(onAlloc)
  memoryChannels.grow.unsubscribe(onGrow)
  memoryChannels.free.unsubscribe(onFree)
}

/**
 * A memory hook (CuPy's `cupy.cuda.MemoryHook`): override the hook points, then enable it for a
 * scope with `hook.run(fn)` or `using _ = hook.enable()`. It sees the allocations and frees made
 * in that scope and the async code it starts (not those of other scopes, nor other threads'),
 * called in the allocating or freeing call. Hooks nest; each hook point of every enabled hook is
 * called, outermost first. A hook that throws has its error thrown from the channel, on the next
 * tick (`node:diagnostics_channel`'s rule), not into the allocation.
 *
 * Of CuPy's six points, three are given: `allocPostprocess` (a pool took memory from the
 * driver), `mallocPostprocess` (a pointer handed out, by any allocator) and `freePreprocess` (an
 * allocation freed by `free()` or `using`; one the GC frees calls no JS). `allocPreprocess`,
 * `mallocPreprocess` and `freePostprocess` are not: no memory event comes at those times.
 */
export class MemoryHook {
  /** The hook's name (CuPy's `name`): its class's name. One hook of a name is enabled in a scope at a time. */
  get name(): string {
    return this.constructor.name
  }

  /** A pool took memory from the driver (CuPy's `alloc_postprocess`). Does nothing unless overridden. */
  allocPostprocess(_event: AllocHookEvent): void {}

  /** A pointer was handed out (CuPy's `malloc_postprocess`). Does nothing unless overridden. */
  mallocPostprocess(_event: MallocHookEvent): void {}

  /** An allocation is about to be freed (CuPy's `free_preprocess`). Does nothing unless overridden. */
  freePreprocess(_event: FreeHookEvent): void {}

  /** The scope with this hook added. @throws {TypeError} for a hook point no event gives, or a hook of this name already enabled here. */
  #with(): readonly MemoryHook[] {
    for (const point of Object.keys(NOT_GIVEN)) {
      if (typeof (this as unknown as Record<string, unknown>)[point] === 'function') {
        throw new TypeError(`${this.name} defines ${point}, which cuda-node never calls: ${NOT_GIVEN[point]}`)
      }
    }
    const now = storage.getStore() ?? []
    if (now.some((h) => h.name === this.name)) throw new TypeError(`a memory hook named '${this.name}' is already enabled in this scope (CuPy's KeyError)`)
    return [...now, this]
  }

  /**
   * Runs `fn` with this hook enabled, for `fn` and everything it awaits (CuPy's `with hook:`);
   * a Promise returned keeps the hook's channels subscribed until it settles.
   * @throws {TypeError} as {@link MemoryHook.enable} does.
   */
  run<T>(fn: () => T): T {
    const hooks = this.#with()
    opened()
    let result: T
    try {
      result = storage.run(hooks, fn)
    } catch (e) {
      closed()
      throw e
    }
    if (result instanceof Promise) {
      result.then(closed, closed)
    } else {
      closed()
    }
    return result
  }

  /**
   * Enables this hook for the rest of the current scope and the async code it starts, until the
   * returned scope is disposed: `{ using _ = hook.enable(); ... }`.
   * @throws {TypeError} for a hook point cuda-node never calls (`allocPreprocess`,
   *   `mallocPreprocess`, `freePostprocess`), or a hook of this name already enabled in this scope.
   */
  enable(): Disposable {
    const before = storage.getStore()
    storage.enterWith(this.#with())
    opened()
    let done = false
    return {
      [Symbol.dispose]: () => {
        if (done) return
        done = true
        storage.enterWith(before ?? [])
        closed()
      },
    }
  }
}

/** The memory hooks enabled in the current scope, outermost first (CuPy's `get_memory_hooks()`, whose dict is keyed by name). */
export function getMemoryHooks(): readonly MemoryHook[] {
  return storage.getStore() ?? []
}
