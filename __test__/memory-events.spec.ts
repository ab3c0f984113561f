import test from 'ava'
import diagnosticsChannel from 'node:diagnostics_channel'
import { AsyncMemoryPool, mallocManaged, mallocPlain, memoryChannels, MemoryPool, type AllocMessage } from '..'

/** Collects what `name` publishes while `body` runs. */
function collect<T>(name: string, body: () => void): T[] {
  const seen: T[] = []
  const listener = (m: unknown) => seen.push(m as T)
  diagnosticsChannel.subscribe(name, listener)
  try {
    body()
  } finally {
    diagnosticsChannel.unsubscribe(name, listener)
  }
  return seen
}

test('an allocation is published on cuda-node:memory:alloc, in the allocating call', (t) => {
  const pool = new MemoryPool()
  let stack = ''
  const seen = collect<AllocMessage>('cuda-node:memory:alloc', () => {
    diagnosticsChannel.subscribe('cuda-node:memory:alloc', function site() {
      stack = new Error().stack ?? ''
      diagnosticsChannel.unsubscribe('cuda-node:memory:alloc', site)
    })
    pool.malloc(1000)
  })
  t.is(seen.length, 1)
  t.like(seen[0], { nbytes: 1000, size: 1024, device: 0, source: 'pool' })
  t.is(seen[0].pool, pool)
  t.is(typeof seen[0].pointer.ptr, 'bigint')
  t.regex(stack, /memory-events\.spec/, 'the subscriber runs on the allocating stack')
  t.is(memoryChannels.alloc.hasSubscribers, false)
})

test('every allocator publishes, each naming its source', (t) => {
  const seen = collect<AllocMessage>('cuda-node:memory:alloc', () => {
    mallocPlain(8)
    mallocManaged(8)
    new AsyncMemoryPool().malloc(8)
  })
  t.deepEqual(seen.map((m) => m.source), ['plain', 'managed', 'async-pool'])
})

test('free() is published once on cuda-node:memory:free', (t) => {
  const p = new MemoryPool().malloc(100)
  const seen = collect<{ size: number; device: number }>('cuda-node:memory:free', () => {
    p.free()
    p.free()
  })
  t.is(seen.length, 1)
  t.like(seen[0], { size: 512, device: 0 })
})

test('a pool that runs out publishes its release and its retry', (t) => {
  const pool = new MemoryPool()
  pool.setLimit({ size: 1 << 20 })
  pool.malloc(512 * 1024).free()
  const events: [string, any][] = []
  const on = (name: string) => (m: unknown) => events.push([name, m])
  const [retry, release] = [on('oom-retry'), on('release')]
  diagnosticsChannel.subscribe('cuda-node:memory:oom-retry', retry)
  diagnosticsChannel.subscribe('cuda-node:memory:release', release)
  try {
    pool.malloc(1 << 20)
    pool.freeAllBlocks()
    t.throws(() => pool.malloc(2 << 20))
  } finally {
    diagnosticsChannel.unsubscribe('cuda-node:memory:oom-retry', retry)
    diagnosticsChannel.unsubscribe('cuda-node:memory:release', release)
  }
  t.deepEqual(events.map(([n, m]) => [n, m.bytes ?? m.succeeded, m.reason]), [
    ['release', 512 * 1024, 'oom-retry'],
    ['oom-retry', true, undefined],
    ['oom-retry', false, undefined],
  ])
  t.is(events[0][1].pool, pool)
})

test('freeAllBlocks publishes what it released', (t) => {
  const pool = new MemoryPool()
  pool.malloc(4096).free()
  const seen = collect<{ bytes: number; reason: string }>('cuda-node:memory:release', () => pool.freeAllBlocks())
  t.deepEqual(seen.map((m) => [m.bytes, m.reason]), [[4096, 'freeAllBlocks']])
  t.deepEqual(collect('cuda-node:memory:release', () => pool.freeAllBlocks()), [], 'nothing released, nothing published')
})
