// The hooks CuPy has for other allocators and launches: `setPinnedMemoryAllocator` (CuPy's
// `set_pinned_memory_allocator`), `CFunctionAllocator` (native malloc/free given as addresses)
// and `k.linearLaunch` (CuPy's `Function.linear_launch`).
import test from 'ava'
import {
  alloc, allocPinned, getCurrentStream, mallocPinnedPlain, PinnedMemory, PinnedMemoryPool, RawKernel, setPinnedMemoryAllocator, u64,
} from '..'
import { onGpu, onWasm } from './helpers'

const IOTA = `extern "C" __global__ void iota(float* p, unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) p[i] = (float)i;
}`

test('linearLaunch runs one thread per element: blocks of 128 by default, as many as cover the size', (t) => {
  const n = 1000
  const p = alloc(n * 4)
  const seen: [number[], number[]][] = []
  const k = new RawKernel(IOTA, 'iota', {
    simulate: (_args, grid, block) => {
      seen.push([grid, block])
      const out = new Float32Array(n)
      for (let i = 0; i < Math.min(n, grid[0] * block[0]); i++) out[i] = i
      p.copyFromHost(out)
    },
  })
  k.linearLaunch(n, [p, u64(n)])
  getCurrentStream().synchronize()
  const back = new Float32Array(n)
  p.copyToHost(back)
  t.is(back[0], 0)
  t.is(back[999], 999)
  if (!onGpu) t.deepEqual(seen, [[[8, 1, 1], [128, 1, 1]]])
})

test('linearLaunch takes a block size, and a size smaller than a block makes one block of that size', (t) => {
  if (onGpu) return t.pass('the shapes are seen by the simulated kernel only')
  const seen: number[][][] = []
  const k = new RawKernel(IOTA, 'iota', { simulate: (_a, grid, block) => void seen.push([grid, block]) })
  const p = alloc(4096)
  k.linearLaunch(1000, [p, u64(1000)], { blockSize: 256 })
  k.linearLaunch(5, [p, u64(5)])
  k.linearLaunch(0, [p, u64(0)]) // nothing to do: nothing launched
  getCurrentStream().synchronize()
  t.deepEqual(seen, [[[4, 1, 1], [256, 1, 1]], [[1, 1, 1], [5, 1, 1]]])
})

test('linearLaunch refuses a size or block size that is not a positive integer', (t) => {
  const k = new RawKernel(IOTA, 'iota', { simulate: () => t.fail('must not run') })
  const p = alloc(16)
  t.throws(() => k.linearLaunch(-1, [p, u64(1)]), { instanceOf: RangeError })
  t.throws(() => k.linearLaunch(1.5, [p, u64(1)]), { instanceOf: RangeError })
  t.throws(() => k.linearLaunch('4' as unknown as number, [p, u64(1)]), { instanceOf: TypeError })
  t.throws(() => k.linearLaunch(4, [p, u64(4)], { blockSize: 0 }), { instanceOf: RangeError })
  t.throws(() => k.linearLaunch(4, [p, u64(4)], { block: 4 } as never), { instanceOf: TypeError, message: /no option 'block'/ })
  t.throws(() => k.linearLaunch(4, 'args' as never), { instanceOf: TypeError })
})

test.serial('setPinnedMemoryAllocator changes what allocPinned uses, and null allocates with no pool', (t) => {
  const pool = new PinnedMemoryPool()
  const asked: number[] = []
  setPinnedMemoryAllocator((n) => {
    asked.push(n)
    return pool.malloc(n)
  })
  try {
    const a = allocPinned(1000)
    t.true(a instanceof PinnedMemory)
    t.deepEqual(asked, [1000])
    a.free()
    t.is(pool.nFreeBlocks(), 1, 'the block went back to the chosen pool')

    setPinnedMemoryAllocator(null)
    const b = allocPinned(4096)
    t.is(b.size, 4096)
    t.is(asked.length, 1, 'the old allocator is no longer asked')
    if (!onWasm) {
      t.true(b.registered, 'no pool: pinned in place, unpinned when freed')
      new Uint8Array(b.buffer).fill(1)
    }
    b.free()
    t.is(mallocPinnedPlain(0).size, 0)
  } finally {
    setPinnedMemoryAllocator(undefined)
  }
})

test.serial('a pinned allocator that returns something else, or is not a function, is a TypeError', (t) => {
  t.throws(() => setPinnedMemoryAllocator(5 as never), { instanceOf: TypeError })
  setPinnedMemoryAllocator(() => new Uint8Array(8) as never)
  try {
    t.throws(() => allocPinned(8), { instanceOf: TypeError, message: /must return a PinnedMemory/ })
  } finally {
    setPinnedMemoryAllocator(null)
  }
})
