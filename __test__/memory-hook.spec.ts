// CuPy's memory hooks (`cupy.cuda.MemoryHook`, `DebugPrintHook`, `LineProfileHook`) over the
// memory channels: scoped to async code, nested, refused for hook points no event gives, and
// nothing subscribed while no hook is enabled.
import test from 'ava'
import { DebugPrintHook, getMemoryHooks, LineProfileHook, MemoryHook, MemoryPool, mallocPlain, memoryChannels, type FreeHookEvent, type MallocHookEvent, type AllocHookEvent } from '..'

class Recorder extends MemoryHook {
  readonly seen: [string, any][] = []
  override allocPostprocess(e: AllocHookEvent): void {
    this.seen.push(['alloc', e])
  }
  override mallocPostprocess(e: MallocHookEvent): void {
    this.seen.push(['malloc', e])
  }
  override freePreprocess(e: FreeHookEvent): void {
    this.seen.push(['free', e])
  }
}

function lines(): { text: string[]; write(s: string): void } {
  const text: string[] = []
  return { text, write: (s: string) => void text.push(...s.split('\n').filter((l) => l !== '')) }
}

test('a hook sees alloc, malloc and free in its scope, with CuPy\'s arguments', (t) => {
  const hook = new Recorder()
  const pool = new MemoryPool()
  hook.run(() => {
    const p = pool.malloc(100)
    p.mem.free()
  })
  t.deepEqual(hook.seen.map(([k]) => k), ['alloc', 'malloc', 'free'])
  const [, alloc] = hook.seen[0]
  const [, malloc] = hook.seen[1]
  const [, free] = hook.seen[2]
  t.like(alloc, { deviceId: 0, pool })
  t.true(alloc.memSize >= 512)
  t.like(malloc, { deviceId: 0, size: 100, memSize: 512, source: 'pool', pool })
  t.is(typeof malloc.memPtr, 'bigint')
  t.like(free, { deviceId: 0, memSize: 512, memPtr: malloc.memPtr, pmemId: malloc.pmemId })
})

test('a cached block calls malloc but not alloc, as CuPy\'s pool does', (t) => {
  const pool = new MemoryPool()
  pool.malloc(100).mem.free()
  const hook = new Recorder()
  hook.run(() => pool.malloc(100))
  t.deepEqual(hook.seen.map(([k]) => k), ['malloc'])
})

test('outside its scope a hook sees nothing, and nothing is subscribed', (t) => {
  const hook = new Recorder()
  hook.run(() => {})
  mallocPlain(8)
  t.is(hook.seen.length, 0)
  t.false(memoryChannels.alloc.hasSubscribers)
  t.false(memoryChannels.grow.hasSubscribers)
  t.false(memoryChannels.free.hasSubscribers)
})

test.serial('a hook follows async code, and another scope does not see it', async (t) => {
  const hook = new Recorder()
  const other = (async () => {
    await new Promise((r) => setTimeout(r, 5))
    mallocPlain(16)
  })()
  await hook.run(async () => {
    await new Promise((r) => setTimeout(r, 1))
    mallocPlain(8)
    await new Promise((r) => setTimeout(r, 10))
  })
  await other
  t.deepEqual(hook.seen.map(([, e]) => e.size), [8])
  t.false(memoryChannels.alloc.hasSubscribers)
})

test('using hook.enable() enables it until disposed', (t) => {
  const hook = new Recorder()
  {
    using _ = hook.enable()
    t.deepEqual(getMemoryHooks(), [hook])
    mallocPlain(8)
  }
  mallocPlain(8)
  t.is(hook.seen.length, 1)
  t.deepEqual(getMemoryHooks(), [])
  t.false(memoryChannels.alloc.hasSubscribers)
})

test('hooks nest, outermost first; one name is enabled once in a scope', (t) => {
  class Inner extends Recorder {}
  const order: string[] = []
  const outer = new (class Outer extends MemoryHook {
    override mallocPostprocess(): void {
      order.push('outer')
    }
  })()
  const inner = new (class extends Inner {
    override mallocPostprocess(): void {
      order.push('inner')
    }
  })()
  outer.run(() => {
    inner.run(() => mallocPlain(8))
    const e = t.throws(() => outer.run(() => {}), { instanceOf: TypeError })
    t.regex(e!.message, /already enabled/)
  })
  t.deepEqual(order, ['outer', 'inner'])
})

test('a hook point no event gives is refused, saying what to use', (t) => {
  const hook = new (class extends MemoryHook {
    mallocPreprocess(): void {}
  })()
  const e = t.throws(() => hook.enable(), { instanceOf: TypeError })
  t.regex(e!.message, /mallocPreprocess.*mallocPostprocess/)
  t.false(memoryChannels.alloc.hasSubscribers)
})

test('an error thrown inside run leaves nothing subscribed', (t) => {
  t.throws(() => new Recorder().run(() => {
    throw new Error('boom')
  }), { message: 'boom' })
  t.false(memoryChannels.alloc.hasSubscribers)
})

test('DebugPrintHook prints one JSON line an event, in CuPy\'s format', (t) => {
  const out = lines()
  const pool = new MemoryPool()
  new DebugPrintHook(out).run(() => pool.malloc(24).mem.free())
  t.is(out.text.length, 3)
  const [alloc, malloc, free] = out.text.map((l) => JSON.parse(l))
  t.is(alloc.hook, 'alloc')
  t.deepEqual(Object.keys(malloc), ['hook', 'device_id', 'size', 'mem_size', 'mem_ptr', 'pmem_id'])
  t.like(malloc, { hook: 'malloc', device_id: 0, size: 24, mem_size: 512 })
  t.regex(malloc.pmem_id, /^0x[0-9a-f]+$/)
  t.deepEqual(Object.keys(free), ['hook', 'device_id', 'mem_size', 'mem_ptr', 'pmem_id'])
  t.like(free, { hook: 'free', mem_ptr: malloc.mem_ptr, pmem_id: malloc.pmem_id })
  t.regex(out.text[1], /"mem_ptr":\d+,/, 'the address is a JSON number, as CuPy prints it')
})

test('DebugPrintHook refuses something it cannot write to', (t) => {
  t.throws(() => new DebugPrintHook({} as any), { instanceOf: TypeError })
})

test('LineProfileHook sums bytes by call site and prints CuPy\'s report', (t) => {
  const hook = new LineProfileHook()
  const pool = new MemoryPool()
  function allocateTwice(): void {
    pool.malloc(1024)
    pool.malloc(1024)
  }
  hook.run(() => {
    allocateTwice()
    mallocPlain(2048)
  })
  t.is(hook.root.usedBytes, 4096)
  t.true(hook.root.acquiredBytes >= 2048)
  const report = hook.report()
  t.regex(report, /^_root \(4\.00KB, [\d.]+[KM]?B\)\n/)
  // Each call site's line, as V8 reports it (the spec's compiled lines here).
  t.regex(report, /\n +\S*memory-hook\.spec\.ts:\d+:allocateTwice \([\d.]+KB, /)
  const find = (f: typeof hook.root): typeof hook.root[] => [...(f.name === 'allocateTwice' ? [f] : []), ...f.children.flatMap(find)]
  t.is(find(hook.root).reduce((n, f) => n + f.usedBytes, 0), 2048)
  t.notRegex(report, /lib[\\/]memory/, 'the package\'s own frames are left out')
  const out = lines()
  hook.printReport(out)
  t.is(out.text.join('\n') + '\n', report)
})

test('LineProfileHook follows maxDepth frames, and refuses a bad one', (t) => {
  const hook = new LineProfileHook({ maxDepth: 1 })
  hook.run(() => mallocPlain(8))
  t.is(hook.root.children.length, 1)
  t.is(hook.root.children[0].children.length, 0)
  t.throws(() => new LineProfileHook({ maxDepth: -1 }), { instanceOf: RangeError })
})
