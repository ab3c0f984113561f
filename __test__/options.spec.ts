// Unknown options are errors (#32.6): every options object refuses a key it does not know with a
// TypeError that names the key and the keys it takes (lib/validate.ts `options`), so a misspelt
// `nonblocking` no longer makes a blocking stream in silence.
import test from 'ava'
import {
  alloc, AsyncMemoryPool, blas, Event, LaunchConfig, Linker, mallocManaged, ManagedMemoryPool, MemoryPointer, MemoryPool, profiler, Program,
  RawKernel, Stream,
} from '..'

const K = `extern "C" __global__ void k(int* p) {}`

const cases: [string, () => unknown, RegExp][] = [
  ['new Stream', () => new Stream({ nonblocking: true } as any), /Stream takes no option 'nonblocking'; it takes 'nonBlocking', 'priority', 'device'/],
  ['new Event', () => new Event({ disableTimings: true } as any), /Event takes no option 'disableTimings'; it takes 'block', 'disableTiming', 'interprocess', 'device'/],
  ['new RawKernel', () => new RawKernel(K, 'k', { simulation: () => {} } as any), /RawKernel takes no option 'simulation'/],
  ['kernel.launch', () => new RawKernel(K, 'k', { simulate: () => {} }).launch(1, 1, [alloc(4)], { shared_mem: 0 } as any), /launch takes no option 'shared_mem'; it takes 'sharedMem', 'stream'/],
  ['new LaunchConfig', () => new LaunchConfig({ grid: 1, block: 1, clusters: 2 } as any), /LaunchConfig takes no option 'clusters'/],
  ['new Program', () => new Program(K, { filename: 'a.cu' } as any), /Program takes no option 'filename'; it takes 'options', 'fileName'/],
  ['program.compile', () => new Program(K).compile({ targets: 'ptx' } as any), /compile takes no option 'targets'/],
  ['new Linker', () => new Linker([{ ptx: 'x' } as any], { LTO: true } as any), /Linker takes no option 'LTO'/],
  ['MemoryPointer.fromExternal', () => MemoryPointer.fromExternal(alloc(8).ptr, 8, { owners: {} } as any), /fromExternal takes no option 'owners'/],
  ['MemoryPointer.fromIpcHandle', () => MemoryPointer.fromIpcHandle(Buffer.alloc(64), { length: 8 } as any), /fromIpcHandle takes no option 'length'/],
  ['mallocManaged', () => mallocManaged(8, { attached: 'host' } as any), /mallocManaged takes no option 'attached'; it takes 'attach'/],
  ['new ManagedMemoryPool', () => new ManagedMemoryPool({ attached: 'host' } as any), /ManagedMemoryPool takes no option 'attached'/],
  ['MemoryPool.setLimit', () => new MemoryPool().setLimit({ bytes: 8 } as any), /setLimit takes no option 'bytes'; it takes 'size', 'fraction'/],
  ['AsyncMemoryPool.setLimit', () => new AsyncMemoryPool().setLimit({ frac: 0.5 } as any), /setLimit takes no option 'frac'/],
  ['blas.sgemm', () => blas.sgemm({ m: 1, n: 1, k: 1, A: alloc(4), B: alloc(4), C: alloc(4), transa: true } as any), /gemm takes no option 'transa'/],
  ['blas.saxpy', () => blas.saxpy(1, 1, alloc(4), alloc(4), { incX: 1 } as any), /axpy takes no option 'incX'; it takes 'incx', 'incy', 'stream'/],
]

for (const [what, call, message] of cases) {
  test(`${what} refuses an unknown option with a TypeError naming it and the ones it takes`, (t) => {
    t.throws(call, { instanceOf: TypeError, message })
  })
}

test('profiler.trace refuses an unknown option', async (t) => {
  await t.throwsAsync(profiler.trace(() => {}, { path: 'x', format: 'svg' } as any), { instanceOf: TypeError, message: /trace takes no option 'format'; it takes 'path'/ })
})

test('known options, and options left undefined, are taken as before', (t) => {
  const s = new Stream({ nonBlocking: true, priority: undefined })
  t.true(s.isNonBlocking)
  t.notThrows(() => new Event({ disableTiming: true }))
  t.notThrows(() => new LaunchConfig({ grid: 1, block: 1, sharedMem: 0 }))
})
