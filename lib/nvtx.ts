import { native } from './native'
import { describe } from './validate'
import { hostRange } from './trace'

function msg(m: unknown): string {
  if (typeof m !== 'string') throw new TypeError(`an NVTX message must be a string, got ${describe(m)}`)
  return m
}

function idColor(c: unknown): number | undefined {
  if (c === undefined || c === -1) return undefined
  if (typeof c !== 'number') throw new TypeError(`idColor must be a number, got ${describe(c)}`)
  if (!Number.isInteger(c)) throw new RangeError(`idColor must be an integer, got ${c}`)
  return c < 0 ? undefined : c
}

function argb(c: unknown): number {
  if (typeof c !== 'number') throw new TypeError(`argb must be a number, got ${describe(c)}`)
  if (!Number.isInteger(c) || c < 0 || c > 0xffffffff) throw new RangeError(`argb must be an integer 0 to 0xFFFFFFFF, got ${c}`)
  return c
}

/**
 * Whether a tool listens. With none, NVTX does nothing with a call, so calls whose message the
 * core would accept (no NUL byte; the core says why one is refused) skip the crossing into the
 * addon: a push and pop then cost a few nanoseconds of JS.
 */
const attached = native.nvtxAttached()

function silent(message: string): boolean {
  return !attached && !message.includes('\0')
}

/**
 * NVTX markers and ranges (CuPy's `cupy.cuda.nvtx`), for Nsight Systems and other tools. With
 * no tool attached, each call is nearly free. `idColor` picks from CuPy's palette (-1: none);
 * the `C` forms take an ARGB colour.
 */
export const nvtx = {
  /** A point in time (CuPy's `Mark`). @throws {TypeError} for a message with a NUL byte. */
  mark(message: string, id?: number): void {
    const c = idColor(id)
    if (!silent(msg(message))) native.nvtxMark(message, c)
  },
  /** A point in time with an ARGB colour (CuPy's `MarkC`). @throws {RangeError} unless `color` is 0 to 0xFFFFFFFF. */
  markC(message: string, color: number): void {
    const c = argb(color)
    if (!silent(msg(message))) native.nvtxMark(message, undefined, c)
  },
  /** Opens a nested range on this thread (CuPy's `RangePush`); close it with `rangePop()`. */
  rangePush(message: string, id?: number): void {
    const c = id === undefined ? undefined : idColor(id)
    if (!silent(msg(message))) native.nvtxRangePush(message, c)
    hostRange.push(message)
  },
  /**
   * Opens a nested range with an ARGB colour (CuPy's `RangePushC`); close it with `rangePop()`.
   * @throws {RangeError} unless `color` is 0 to 0xFFFFFFFF.
   */
  rangePushC(message: string, color: number): void {
    const c = argb(color)
    if (!silent(msg(message))) native.nvtxRangePush(message, undefined, c)
    hostRange.push(message)
  },
  /** Closes the range this thread opened last (CuPy's `RangePop`). */
  rangePop(): void {
    if (attached) native.nvtxRangePop()
    hostRange.pop()
  },
  /** Starts a range that need not nest; end it with `rangeEnd(id)`. */
  rangeStart(message: string, id?: number): bigint {
    const r = native.nvtxRangeStart(msg(message), idColor(id))
    hostRange.start(r, message)
    return r
  },
  /**
   * Starts a range that need not nest, with an ARGB colour; end it with `rangeEnd(id)`.
   * @throws {RangeError} unless `color` is 0 to 0xFFFFFFFF.
   */
  rangeStartC(message: string, color: number): bigint {
    const r = native.nvtxRangeStart(msg(message), undefined, argb(color))
    hostRange.start(r, message)
    return r
  },
  /** Ends the range `rangeStart` (or `rangeStartC`) returned `id` for. @throws {TypeError} unless `id` is a bigint. */
  rangeEnd(id: bigint): void {
    if (typeof id !== 'bigint') throw new TypeError(`rangeEnd takes the id rangeStart returned, got ${describe(id)}`)
    native.nvtxRangeEnd(id)
    hostRange.end(id)
  },
  /**
   * Runs `fn` inside a range, safe in async code: the range is ended by id when `fn` returns,
   * throws, or its promise settles, so interleaved tasks never close each other's ranges.
   */
  range<T>(message: string, fn: () => T, id?: number): T {
    if (typeof fn !== 'function') throw new TypeError('nvtx.range takes a function')
    const r = nvtx.rangeStart(message, id)
    let result: T
    try {
      result = fn()
    } catch (e) {
      nvtx.rangeEnd(r)
      throw e
    }
    if (typeof (result as { then?: unknown } | null)?.then === 'function') return Promise.resolve(result).finally(() => nvtx.rangeEnd(r)) as T
    nvtx.rangeEnd(r)
    return result
  },
}
