import test from 'ava'
import { alloc, allocPinned, CudaError, copy2D, copy2DAsync, Stream } from '..'
import { nativeTest, wasmTest } from './helpers'

/** `rows` rows of `pitch` bytes, row r holding r * 16 + column. */
function grid(rows: number, pitch: number): Uint8Array {
  const a = new Uint8Array(rows * pitch)
  for (let r = 0; r < rows; r++) for (let c = 0; c < pitch; c++) a[r * pitch + c] = r * 16 + c
  return a
}

test('copy2D carries rows between pitches, host to device and back', (t) => {
  const src = grid(4, 8)
  const d = alloc(4 * 16)
  d.memset(0, 64)
  copy2D(d, 16, src, 8, 5, 4)
  const out = new Uint8Array(4 * 6).fill(0xff)
  copy2D(out, 6, d, 16, 5, 4)
  for (let r = 0; r < 4; r++) {
    t.deepEqual([...out.subarray(r * 6, r * 6 + 5)], [...src.subarray(r * 8, r * 8 + 5)], `row ${r}`)
    t.is(out[r * 6 + 5], 0xff, 'the gap between rows is left alone')
  }
  const whole = new Uint8Array(64)
  d.copyToHost(whole)
  t.deepEqual([...whole.subarray(16, 24)], [16, 17, 18, 19, 20, 0, 0, 0], 'the device pitch holds the rows apart')
})

test('copy2D copies device to device, at offsets', (t) => {
  const a = alloc(64)
  const b = alloc(64)
  a.copyFromHost(grid(4, 16))
  b.memset(0, 64)
  copy2D(b.offset(2), 8, a.offset(1), 16, 3, 4)
  const out = new Uint8Array(64)
  b.copyToHost(out)
  t.deepEqual([...out.subarray(0, 8)], [0, 0, 1, 2, 3, 0, 0, 0])
  t.deepEqual([...out.subarray(24, 32)], [0, 0, 49, 50, 51, 0, 0, 0])
})

nativeTest('pinned memory has no ArrayBuffer there, so no typed array at an offset of it; the wasmTest below copies through PinnedMemory itself')('copy2DAsync through pinned memory is asynchronous, at any offset of it', async (t) => {
  const s = new Stream({ nonBlocking: true })
  const pinned = allocPinned(64)
  new Uint8Array(pinned.buffer).set(grid(4, 16))
  const d = alloc(32)
  t.is(copy2DAsync(d, 8, pinned, 16, 8, 4, s), s)
  const back = allocPinned(64)
  const view = new Uint8Array(back.buffer, 8, 32)
  copy2DAsync(view, 8, d, 8, 8, 4, s)
  await s.synchronizeAsync()
  t.deepEqual([...view.subarray(8, 16)], [...grid(4, 16).subarray(16, 24)])
})

wasmTest('copy2DAsync from and into PinnedMemory itself is asynchronous (filled and read with set() and get())', async (t) => {
  const s = new Stream({ nonBlocking: true })
  const pinned = allocPinned(64)
  pinned.set(grid(4, 16))
  const d = alloc(32)
  t.is(copy2DAsync(d, 8, pinned, 16, 8, 4, s), s)
  const back = allocPinned(32)
  copy2DAsync(back, 8, d, 8, 8, 4, s)
  await s.synchronizeAsync()
  const out = new Uint8Array(32)
  back.get(out)
  t.deepEqual([...out.subarray(8, 16)], [...grid(4, 16).subarray(16, 24)])
})

test('copy2D checks pitches, ranges and sides before the driver', (t) => {
  const d = alloc(64)
  t.throws(() => copy2D(d, 4, new Uint8Array(64), 8, 5, 2), { instanceOf: RangeError, message: /pitch of 4 bytes is less than the 5-byte width/ })
  t.throws(() => copy2D(d, 16, new Uint8Array(64), 16, 16, 5), { instanceOf: RangeError, message: /runs past the end/ })
  t.throws(() => copy2D(d, 16, new Uint8Array(20), 8, 8, 3), { instanceOf: RangeError })
  t.throws(() => copy2D(new Uint8Array(8), 8, new Uint8Array(8), 8, 8, 1), { instanceOf: TypeError, message: /one side must be a MemoryPointer/ })
  t.throws(() => copy2D(d, -1, new Uint8Array(8), 8, 8, 1), { instanceOf: RangeError })
  t.notThrows(() => copy2D(d, 0, new Uint8Array(0), 0, 0, 7), 'no columns: nothing to copy')
})

test('copy2D from pageable memory is refused inside a capture', (t) => {
  const s = new Stream({ nonBlocking: true })
  const d = s.run(() => alloc(64))
  s.beginCapture()
  const e = t.throws(() => copy2DAsync(d, 8, new Uint8Array(64), 8, 8, 2, s), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED')
  s.endCapture()
})
