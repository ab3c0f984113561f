// The current device, the current stream of each device and the allocator live in an
// AsyncLocalStorage store, so they follow async code across awaits instead of threads.
import { AsyncLocalStorage } from 'node:async_hooks'

export interface Scope {
  /** The current device's ordinal. */
  readonly device: number
  /** The current stream of each device that has one set (Stream objects); others use the default stream. */
  readonly streams?: ReadonlyMap<number, object>
  /** The allocator `alloc` uses; the default pool when unset. */
  readonly allocator?: unknown
  /** Set inside `usingAllocator`, where `setAllocator` is refused (as CuPy refuses it). */
  readonly allocatorScoped?: boolean
  /** The scope the nearest enclosing `run` made: leaving a nested stream scope restores its stream. */
  readonly base?: Scope
}

const root: Scope = { device: 0 }
const storage = new AsyncLocalStorage<Scope>()

export function scope(): Scope {
  return storage.getStore() ?? root
}

/** Runs `fn` with `patch` applied to the current scope, for `fn` and everything it awaits. */
export function runWith<T>(patch: Partial<Scope>, fn: () => T): T {
  const s: { -readonly [K in keyof Scope]: Scope[K] } = { ...scope(), ...patch }
  s.base = s
  return storage.run(s, fn)
}

/** Runs `fn` with `s` as the scope (a host callback run inside a synchronize, in its registration's scope). */
export function runIn<T>(s: Scope, fn: () => T): T {
  return storage.run(s, fn)
}

/** Applies `patch` to the rest of the current synchronous run and the async work it starts. */
export function enterWith(patch: Partial<Scope>): void {
  const now = scope()
  storage.enterWith({ ...now, ...patch, base: now.base })
}

/** Restores `s` as the scope for the rest of the current synchronous run (leaving a `using` scope). */
export function restore(s: Scope): void {
  storage.enterWith(s)
}
