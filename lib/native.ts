// Loads the addon (a local build, or the prebuilt package for this platform, through the loader
// napi-rs generates) and hands it the error factory, so native failures arrive as our classes.
import { makeError } from './errors'
import type * as Binding from '../native'

/**
 * The hot calls (crates/node/src/fast.rs): raw Node-API callbacks that take the `id` handles of
 * native streams, events and pools, at ~35 ns a call where a napi-rs class method costs ~400.
 */
export interface Fast {
  streamSynchronize(stream: number): void
  streamQuery(stream: number): boolean
  streamRecord(stream: number, event: number): void
  streamWaitEvent(stream: number, event: number): void
  streamSleep(stream: number, ns: number): void
  streamLaunchHostFn(stream: number, callback: number): void
  /** `shape`: grid x y z, block x y z, shared memory bytes, argument count, each argument's size. */
  kernelLaunch(kernel: number, stream: number, shape: Uint32Array, args: Uint8Array): void
  eventQuery(event: number): boolean
  eventSynchronize(event: number): void
  poolMalloc(pool: number, size: number, stream: number): number
  asyncPoolMalloc(pool: number, size: number, stream: number): number
  memFree(handle: number): void
  nvtxRangePush(message: string, idColor?: number, argb?: number): number
  nvtxRangePop(): number
  /** The benchmark's in-process floor: ns per op over `n` bare driver calls (op 0: event record+query, 1: idle stream synchronize). */
  driverFloor(op: 0 | 1, stream: number, event: number, n: number): number
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const native: typeof Binding & Fast = require('../native.js')

native.registerErrorFactory(makeError)

/** A native object with its handle read once (a napi getter costs ~0.4 µs; the hot calls take the handle). */
export function withId<T extends { readonly id: number }>(n: T): { n: T; id: number } {
  return { n, id: n.id }
}
