// CuPy's `memory_hooks.DebugPrintHook`: one JSON line an event, in CuPy's format.
import { MemoryHook, type AllocHookEvent, type FreeHookEvent, type MallocHookEvent } from './hook'

/** Where DebugPrintHook writes: a stream (`process.stdout`, a file stream) or anything with `write(text)`. */
export interface LineSink {
  /** Writes `text` (one or more whole lines). */
  write(text: string): unknown
}

/**
 * A memory hook that prints one JSON line an event (CuPy's `memory_hooks.DebugPrintHook`), in
 * CuPy's format: `{"hook":"malloc","device_id":0,"size":24,"mem_size":512,"mem_ptr":…,"pmem_id":"0x…"}`.
 * `alloc` lines have no `mem_ptr` (the growth's address is not published), and `free` lines are
 * printed before the free rather than after (the one time a free is published).
 */
export class DebugPrintHook extends MemoryHook {
  readonly #out: LineSink

  /** Writes to `file` (`process.stdout` by default). @throws {TypeError} for something without a `write` function. */
  constructor(file: LineSink = process.stdout) {
    super()
    if (typeof (file as LineSink | undefined)?.write !== 'function') throw new TypeError('DebugPrintHook writes to an object with a write(text) function, such as process.stdout')
    this.#out = file
  }

  override allocPostprocess(e: AllocHookEvent): void {
    this.#out.write(`{"hook":"alloc","device_id":${e.deviceId},"mem_size":${e.memSize}}\n`)
  }

  override mallocPostprocess(e: MallocHookEvent): void {
    this.#out.write(
      `{"hook":"malloc","device_id":${e.deviceId},"size":${e.size},"mem_size":${e.memSize},"mem_ptr":${e.memPtr},"pmem_id":"0x${e.pmemId.toString(16)}"}\n`,
    )
  }

  override freePreprocess(e: FreeHookEvent): void {
    this.#out.write(`{"hook":"free","device_id":${e.deviceId},"mem_size":${e.memSize},"mem_ptr":${e.memPtr},"pmem_id":"0x${e.pmemId.toString(16)}"}\n`)
  }
}
