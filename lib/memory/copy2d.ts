// Pitched (2D) copies: rows of `width` bytes, each side with its own pitch.
import { native } from '../native'
import { own } from '../object'
import type { Stream } from '../stream/stream'
import { streamOr } from '../stream/current'
import { streamHandle } from '../stream/handle'
import { traced } from '../trace'
import { count, describe } from '../validate'
import { bytes } from './host'
import { PinnedMemory, pinnedUnder } from './pinned'
import { MemoryPointer, type HostBuffer } from './pointer'

/** Host memory as a 2D copy takes it: pinned (with its offset) or pageable bytes. */
function host(h: HostBuffer): { pinned: PinnedMemory; offset: number } | Uint8Array {
  if (h instanceof PinnedMemory) return { pinned: h, offset: 0 }
  const view = bytes(h, undefined, 'copy2D')
  return pinnedUnder(view) ?? view
}

/**
 * Enqueues a pitched copy on `stream` (the current stream of the device side's device by
 * default): `height` rows of `width` bytes, row `i` read at `src + i * srcPitch` and written at
 * `dst + i * dstPitch` (`cuMemcpy2DAsync`; CuPy's `runtime.memcpy2DAsync`). Device to device,
 * or between device and host memory: from or into `PinnedMemory` (or a typed array over its
 * bytes) it returns before the copy completes and keeps the memory alive until it has; from
 * other host memory the bytes are staged before it returns, and into it the copy has completed
 * when it returns.
 * @throws {TypeError} unless one side is a MemoryPointer; {RangeError} for a pitch less than
 *   `width` or rows that run past either side's memory; {CudaError} for memory of another device.
 */
export function copy2DAsync(
  dst: MemoryPointer | HostBuffer, dstPitch: number, src: MemoryPointer | HostBuffer, srcPitch: number,
  width: number, height: number, stream?: Stream,
): Stream {
  const [dp, sp, w, rows] = [count('dstPitch', dstPitch), count('srcPitch', srcPitch), count('width', width), count('height', height)]
  const dev = dst instanceof MemoryPointer ? dst : src instanceof MemoryPointer ? src : undefined
  if (dev === undefined) throw new TypeError(`copy2D copies to or from device memory: one side must be a MemoryPointer, got ${describe(dst)} and ${describe(src)}`)
  const s = streamOr(stream, dev.deviceId)
  const h = streamHandle(s)
  const label = (dir: string) => () => `copy ${dir} 2D ${rows} x ${w} B`
  if (dst instanceof MemoryPointer && src instanceof MemoryPointer) {
    traced(h, label('D2D'), 'memcpy', () => native.memCopy2DDtod(h, own(dst.mem), dst.byteOffset, dp, own(src.mem), src.byteOffset, sp, w, rows))
  } else if (dst instanceof MemoryPointer) {
    const from = host(src as HostBuffer)
    if (from instanceof Uint8Array) traced(h, label('H2D'), 'memcpy', () => native.memCopy2DHtod(h, own(dst.mem), dst.byteOffset, dp, from, sp, w, rows))
    else traced(h, label('H2D'), 'memcpy', () => native.memCopy2DHtodPinned(h, own(dst.mem), dst.byteOffset, dp, own(from.pinned), from.offset, sp, w, rows))
  } else {
    const into = host(dst)
    const from = src as MemoryPointer
    if (into instanceof Uint8Array) traced(h, label('D2H'), 'memcpy', () => native.memCopy2DDtoh(h, into, dp, own(from.mem), from.byteOffset, sp, w, rows))
    else traced(h, label('D2H'), 'memcpy', () => native.memCopy2DDtohPinned(h, own(into.pinned), into.offset, dp, own(from.mem), from.byteOffset, sp, w, rows))
  }
  return s
}

/** {@link copy2DAsync}, then waits for the copy (CuPy's `runtime.memcpy2D`). */
export function copy2D(
  dst: MemoryPointer | HostBuffer, dstPitch: number, src: MemoryPointer | HostBuffer, srcPitch: number, width: number, height: number,
): void {
  copy2DAsync(dst, dstPitch, src, srcPitch, width, height).synchronize()
}
