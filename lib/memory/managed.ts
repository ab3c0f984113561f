// Managed (unified) memory: one address that host and device both reach, migrated on demand.
import { native } from '../native'
import { deviceOrdinal, type Device } from '../device'
import { own } from '../object'
import type { Stream } from '../stream/stream'
import { streamOr } from '../stream/current'
import { streamHandle } from '../stream/handle'
import { traced } from '../trace'
import { count, describe, options as checkOptions } from '../validate'
import { allocWatched, publishAlloc, publishFailed } from './events'
import { adoptPointer, MemoryPointer } from './pointer'
import { MemoryPool } from './pool'

/** Options of {@link mallocManaged}. */
export interface ManagedOptions {
  /** `'global'` (the default): any stream may use it; `'host'`: attached to the host (`CU_MEM_ATTACH_HOST`). */
  attach?: 'global' | 'host'
}

/** What `advise` takes (`cudaMemoryAdvise`, camelCase). */
export type MemoryAdvice =
  | 'setReadMostly' | 'unsetReadMostly' | 'setPreferredLocation' | 'unsetPreferredLocation' | 'setAccessedBy' | 'unsetAccessedBy'

/**
 * `nbytes` of managed memory on the current device (`cuMemAllocManaged`, CuPy's
 * `malloc_managed`); an allocator too: `setAllocator(mallocManaged)` routes `alloc` through it.
 * Never asks for more than the device has free (that can stall the GPU).
 * @throws {RangeError} for a bad size; {TypeError} for a bad `attach`; {CudaError}
 *   `CUDA_ERROR_OUT_OF_MEMORY` when the device has less free.
 */
export function mallocManaged(nbytes: number, options: ManagedOptions = {}): MemoryPointer {
  const attach = checkOptions<ManagedOptions>('mallocManaged', options, ['attach']).attach ?? 'global'
  if (attach !== 'global' && attach !== 'host') throw new TypeError(`attach must be 'global' or 'host', got ${describe(attach)}`)
  const device = deviceOrdinal(undefined)
  const size = count('size', nbytes)
  let p: MemoryPointer
  try {
    p = adoptPointer(native.memAllocManaged(device, size, attach === 'global'), device)
  } catch (e) {
    publishFailed(e, device, nbytes, 'managed')
    throw e
  }
  if (allocWatched()) publishAlloc(p, nbytes, 'managed')
  return p
}

/**
 * A caching pool of managed memory: a {@link MemoryPool} that grows with {@link mallocManaged}
 * (CuPy's `MemoryPool(malloc_managed)`, its `ManagedMemory` pooled). Its blocks have host views
 * (`managedView`) and take `prefetch` and `advise`; `setAllocator((n) => pool.malloc(n))` makes
 * `alloc` draw from it.
 * @throws {TypeError} for a bad `attach`.
 */
export class ManagedMemoryPool extends MemoryPool {
  constructor(options: ManagedOptions = {}) {
    const attach = checkOptions<ManagedOptions>('ManagedMemoryPool', options, ['attach']).attach ?? 'global'
    if (attach !== 'global' && attach !== 'host') throw new TypeError(`attach must be 'global' or 'host', got ${describe(attach)}`)
    super((n) => mallocManaged(n, { attach }))
  }
}

function location(where: number | Device | 'cpu'): number | null {
  return where === 'cpu' ? null : deviceOrdinal(where)
}

function pointer(p: unknown): MemoryPointer {
  if (!(p instanceof MemoryPointer)) throw new TypeError(`expected a MemoryPointer, got ${describe(p)}`)
  return p
}

/**
 * Migrates managed memory (`nbytes` from `p`, all of it by default) to a device or the host
 * (`'cpu'`) in order on `stream` (`cuMemPrefetchAsync`; CuPy's `runtime.memPrefetchAsync`).
 * @throws {CudaError} `CUDA_ERROR_INVALID_VALUE` for memory that is not managed.
 */
export function prefetch(p: MemoryPointer, where: number | Device | 'cpu', stream?: Stream, nbytes?: number): Stream {
  pointer(p)
  const n = nbytes === undefined ? p.size : count('size', nbytes)
  const s = streamOr(stream, p.deviceId)
  const h = streamHandle(s)
  const to = location(where)
  traced(h, () => `prefetch ${n} B to ${to ?? 'cpu'}`, 'memcpy', () => native.memPrefetch(h, own(p.mem), p.byteOffset, n, to))
  return s
}

/**
 * Advice on how managed memory is used (`cuMemAdvise`; CuPy's `runtime.memAdvise`), for
 * `nbytes` from `p` (all of it by default); `where` is a device or `'cpu'`.
 * @throws {RangeError} for an unknown advice; {CudaError} `CUDA_ERROR_INVALID_VALUE` for memory that is not managed.
 */
export function advise(p: MemoryPointer, advice: MemoryAdvice, where: number | Device | 'cpu', nbytes?: number): void {
  pointer(p)
  if (typeof advice !== 'string') throw new TypeError(`advice must be a string, got ${describe(advice)}`)
  const n = nbytes === undefined ? p.size : count('size', nbytes)
  native.memAdvise(own(p.mem), p.byteOffset, n, advice, location(where))
}

/**
 * The host view of managed memory: a Uint8Array over the bytes themselves, from `p` to the end
 * of its allocation (its `.buffer` is an ArrayBuffer over the whole allocation). Synchronize
 * before reading what the device wrote.
 * @throws {TypeError} for memory that is not managed; {CudaError} `CUDA_ERROR_NOT_SUPPORTED`
 *   where external ArrayBuffers are refused (Electron) and on the WebAssembly build: copy with
 *   `copyToHost` there.
 */
export function managedView(p: MemoryPointer): Uint8Array {
  pointer(p)
  return new Uint8Array(native.memManagedBuffer(own(p.mem)), p.byteOffset)
}
