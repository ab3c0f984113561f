// Loads the addon (through native.js: a local build or the one packed beside it, else the prebuilt
// package for this platform) and hands it the error class, so native failures arrive as our classes.
// Every native call's type comes from native.d.ts, which the build writes from the addon's own
// table of exports (scripts/native-types.js).
import { isMainThread } from 'node:worker_threads'
import { CudaError } from './errors'
import type * as Binding from '../native'

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const native: typeof Binding = require('../native.js')

native.registerErrorClass(CudaError)

// The WebAssembly build has no threads: the simulator runs queued stream work when JS waits,
// and between macrotasks through this pump (natively the scheduler is never called).
function pump(): void {
  if (native.simPump()) setTimeout(pump, 0)
}
native.simSetScheduler(() => setTimeout(pump, 0))

let libraryHandles = false

/** The cuBLAS/cuSOLVER handles exist: destroy them when the main thread exits (CuPy does this at exit). */
export function libraryHandlesCreated(): void {
  if (!libraryHandles && isMainThread) {
    libraryHandles = true
    process.once('exit', () => native.releaseLibraryHandles())
  }
}
