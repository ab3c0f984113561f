// CuPy's PinnedMemoryPointer: a PinnedMemory and an offset, kept alive, with a view of its bytes.
import test from 'ava'
import { allocPinned, alloc, PinnedMemoryPointer, CudaError } from '..'
import { nativeTest } from './helpers'

test('a pointer with an offset reads and writes the pinned bytes there', (t) => {
  const mem = allocPinned(64)
  const p = new PinnedMemoryPointer(mem, 16)
  t.is(p.mem, mem)
  t.is(p.size, 48)
  t.is(p.ptr, mem.ptr + 16n)
  p.set(new Uint8Array([1, 2, 3]), 1)
  const back = new Uint8Array(4)
  mem.get(back, 16)
  t.deepEqual([...back], [0, 1, 2, 3])
  const q = p.offset(2)
  t.is(q.byteOffset, 18)
  const two = new Uint8Array(2)
  q.get(two)
  t.deepEqual([...two], [2, 3])
})

nativeTest('the WebAssembly build\'s pinned memory has no buffer')('view() is a Uint8Array over the pinned bytes, which async copies take', async (t) => {
  const mem = allocPinned(32)
  const p = new PinnedMemoryPointer(mem, 8)
  const v = p.view(4)
  t.is(v.byteLength, 4)
  v.set([9, 8, 7, 6])
  const d = alloc(4)
  d.copyFromHost(v)
  const out = new Uint8Array(4)
  d.copyToHost(out)
  t.deepEqual([...out], [9, 8, 7, 6])
  t.throws(() => p.view(100), { instanceOf: RangeError })
})

test('bad input: not a PinnedMemory, an offset past the end, freed memory', (t) => {
  const mem = allocPinned(8)
  t.throws(() => new PinnedMemoryPointer({} as any), { instanceOf: TypeError })
  t.throws(() => new PinnedMemoryPointer(mem, 9), { instanceOf: RangeError })
  t.throws(() => new PinnedMemoryPointer(mem, -1), { instanceOf: RangeError })
  const p = new PinnedMemoryPointer(mem, 8)
  t.is(p.size, 0)
  t.throws(() => p.offset(1), { instanceOf: RangeError })
  mem.free()
  t.throws(() => p.ptr, { instanceOf: CudaError })
})
