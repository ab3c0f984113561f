// Loads the addon (through native.js: a local build or the one packed beside it, else the prebuilt
// package for this platform) and hands it the error class, so native failures arrive as our classes.
// Every native call's type comes from native.d.ts, which the build writes from the addon's own
// table of exports (scripts/native-types.js).
import { isMainThread } from 'node:worker_threads'
import { CudaError } from './errors'
import type * as Binding from '../native'

// A copy, not the module's own object: Node-API defines the 160-odd exports one by one, which
// leaves that object in V8's dictionary mode, where every `native.x` load is a hash lookup the
// JIT cannot inline (perf showed LoadIC on every hot call); a spread copy has fast properties.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const native: typeof Binding = { ...require('../native.js') }

native.registerErrorClass(CudaError)

/** The addon's limits and layouts (crates/node/src/constants.rs), read once: each is written in Rust only. */
export const constants: Readonly<ReturnType<typeof Binding.constants>> = Object.freeze(native.constants())

// The WebAssembly build has no threads: the simulator runs queued stream work when JS waits,
// and between macrotasks through this pump, which says when to pump next (at once, or when a
// sleep under way ends); one timer at a time, the earliest asked for (natively the scheduler is
// never called).
let timer: ReturnType<typeof setTimeout> | undefined
let due = Infinity
function schedule(ms: number): void {
  const at = performance.now() + ms
  if (timer !== undefined) {
    if (at >= due) return
    clearTimeout(timer)
  }
  due = at
  timer = setTimeout(pump, ms)
}
function pump(): void {
  timer = undefined
  due = Infinity
  const ms = native.simPump()
  if (ms >= 0) schedule(ms)
}
native.simSetScheduler(schedule)

let libraryHandles = false

/** The library handles (cuBLAS, cuSOLVER, cuSPARSE, cuTENSOR) exist: destroy them when the main thread exits (CuPy does this at exit). */
export function libraryHandlesCreated(): void {
  if (!libraryHandles && isMainThread) {
    libraryHandles = true
    process.once('exit', () => native.releaseLibraryHandles())
  }
}
