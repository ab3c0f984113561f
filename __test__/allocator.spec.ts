import test from 'ava'
import { setTimeout as sleep } from 'node:timers/promises'
import { alloc, CudaError, getDefaultMemoryPool, MemoryPointer, MemoryPool, setAllocator, usingAllocator } from '..'
import { runJson } from './helpers'

test('alloc draws from the default pool', (t) => {
  const pool = getDefaultMemoryPool()
  t.is(getDefaultMemoryPool(), pool)
  const before = pool.usedBytes()
  const p = alloc(1000)
  t.is(pool.usedBytes(), before + 1024)
  p.free()
  t.is(pool.usedBytes(), before)
})

test('usingAllocator routes alloc through the given function, and null to cudaMalloc', (t) => {
  const sizes: number[] = []
  const mine = new MemoryPool()
  const p = usingAllocator(
    (n) => {
      sizes.push(n)
      return mine.malloc(n)
    },
    () => alloc(100),
  )
  t.deepEqual(sizes, [100])
  t.is(mine.usedBytes(), 512)
  const plain = usingAllocator(null, () => alloc(100))
  t.is(plain.size, 100)
  p.free()
})

test('two concurrent async tasks with different allocators never see each other\'s', async (t) => {
  const seen: string[] = []
  const tagged = (tag: string) => (n: number) => {
    seen.push(tag)
    return getDefaultMemoryPool().malloc(n)
  }
  const task = (tag: string, delays: number[]) =>
    usingAllocator(tagged(tag), async () => {
      for (const ms of delays) {
        await sleep(ms)
        const before = seen.length
        alloc(16).free()
        t.is(seen[before], tag)
      }
    })
  await Promise.all([task('a', [3, 1, 4, 1]), task('b', [1, 5, 1, 3])])
  t.is(seen.filter((x) => x === 'a').length, 4)
  t.is(seen.filter((x) => x === 'b').length, 4)
})

test('setAllocator applies to the rest of the async context only', (t) => {
  const r = runJson(`
    const { alloc, setAllocator, mallocPlain } = cuda;
    const other = (async () => { await null; return alloc(100).size })();
    setAllocator(null);
    const mine = alloc(100).size;
    other.then((o) => console.log(JSON.stringify({ mine, other: o })));
  `)
  t.deepEqual(r, { mine: 100, other: 512 })
})

test('setAllocator() with nothing or null allocates with cudaMalloc directly, the pool disabled, as CuPy\'s set_allocator(None)', (t) => {
  const r = runJson(`
    const { alloc, setAllocator, getAllocator, getDefaultMemoryPool } = cuda;
    const pool = getDefaultMemoryPool();
    setAllocator();
    const a = alloc(100);
    const plainA = a.size === 100 && pool.usedBytes() === 0;
    setAllocator(null);
    const b = getAllocator()(100);
    console.log(JSON.stringify({ plainA, plainB: b.size === 100 && pool.usedBytes() === 0 }))
  `)
  t.deepEqual(r, { plainA: true, plainB: true })
})

test('setAllocator inside usingAllocator is refused, as CuPy refuses it, and the scope keeps its allocator', (t) => {
  let inner = 0
  usingAllocator((n) => {
    inner++
    return getDefaultMemoryPool().malloc(n)
  }, () => {
    const e = t.throws(() => setAllocator(null), { instanceOf: CudaError })
    t.is(e!.code, 'CUDA_ERROR_ILLEGAL_STATE')
    alloc(8)
  })
  t.is(inner, 1)
})

test('an allocator must be a function returning a MemoryPointer', (t) => {
  t.throws(() => usingAllocator(42 as any, () => 0), { instanceOf: TypeError })
  t.throws(() => usingAllocator((() => ({})) as any, () => alloc(8)), { instanceOf: TypeError, message: /must return a MemoryPointer/ })
  t.true(usingAllocator((n) => getDefaultMemoryPool().malloc(n), () => alloc(8)) instanceof MemoryPointer)
})
