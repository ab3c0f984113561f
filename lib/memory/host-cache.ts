// The registration cache (#32.7; crates/core/src/host_cache.rs): a Buffer (or any typed array's
// ArrayBuffer) of 8 MiB or more copied to or from the device a second time is page-locked in place
// (`cuMemHostRegister`) and stays so while it lives, within a byte limit, so that its copies run at
// pinned speed; it is released when the ArrayBuffer is collected. Per JS thread.
import { native } from '../native'
import { count } from '../validate'

/** What {@link registrationCache}.stats() reports, for this thread. */
export interface RegistrationCacheStats {
  /** Copies that went through a registration made before. */
  hits: number
  /** Buffers registered (at their second copy). */
  registrations: number
  /** Copies of buffers seen once, or not registered for the limit (or refused by the driver). */
  misses: number
  /** Bytes registered now. */
  registeredBytes: number
  /** Buffers known now (registered, or seen once). */
  entries: number
  /** The most bytes kept registered (`CUDA_NODE_REGISTER_CACHE_LIMIT`, 4 GiB by default). */
  limit: number
}

/** The registration cache of this thread. */
export const registrationCache = {
  /** Its counts. */
  stats(): RegistrationCacheStats {
    const [hits, registrations, misses, registeredBytes, entries, limit] = native.hostCacheStats()
    return { hits, registrations, misses, registeredBytes, entries, limit }
  },
  /**
   * Sets the most bytes it keeps registered (0: it registers nothing more); those registered
   * stay until their buffers are collected. @throws {RangeError} for a bad size.
   */
  setLimit(bytes: number): void {
    native.hostCacheSetLimit(count('bytes', bytes))
  },
}
