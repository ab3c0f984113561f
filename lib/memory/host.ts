// Host memory as copies take it: a byte view of any ArrayBufferView or ArrayBuffer.
import { describe } from '../validate'

function isDetached(b: ArrayBufferLike): boolean {
  return (b as ArrayBuffer & { detached?: boolean }).detached === true
}

/**
 * A byte view of `src`'s first `n` bytes (all of it by default).
 * @throws {TypeError} for other kinds of value or a detached buffer, {RangeError} when `n` is
 *   more than it holds.
 */
export function bytes(src: unknown, n: number | undefined, what: string): Uint8Array {
  let view: Uint8Array
  if (src instanceof Uint8Array) view = src
  else if (ArrayBuffer.isView(src)) view = new Uint8Array(src.buffer, src.byteOffset, src.byteLength)
  else if (src instanceof ArrayBuffer || src instanceof SharedArrayBuffer) {
    if (isDetached(src)) throw new TypeError(`${what}: the ArrayBuffer is detached`)
    view = new Uint8Array(src)
  } else throw new TypeError(`${what}: host memory must be an ArrayBufferView, ArrayBuffer or PinnedMemory, got ${describe(src)}`)
  if (isDetached(view.buffer)) throw new TypeError(`${what}: the ArrayBuffer is detached`)
  if (n === undefined) return view
  if (n > view.byteLength) throw new RangeError(`${what}: ${n} bytes asked, but the host buffer holds ${view.byteLength}`)
  return n === view.byteLength ? view : view.subarray(0, n)
}
