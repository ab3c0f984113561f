// The binding (crates/node) is one mechanism: every export a raw Node-API callback declared with
// `exports!`, its arguments read by their Rust types. The TS layer checks arguments first, but the
// native side must refuse anything itself, with a typed error and no crash: called directly
// here, in a child process, so that a crash fails the test. Its TypeScript types come from the
// same declarations (native.d.ts), held to the addon's table here.
import test from 'ava'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { root, runJson } from './helpers'

const prelude = `
const { native } = require(${JSON.stringify(path.join(root, 'lib', 'native.js'))})
const { own } = require(${JSON.stringify(path.join(root, 'lib', 'object.js'))})
`

test('native.d.ts is the addon\'s own table of exports, not typed by hand', (t) => {
  const { declarations } = require(path.join(root, 'scripts', 'native-types.js'))
  const { native } = require(path.join(root, 'lib', 'native.js'))
  const generated: string = declarations(native)
  t.is(readFileSync(path.join(root, 'native.d.ts'), 'utf8'), generated, 'native.d.ts is stale: npm run build:native writes it')
  const declared = [...generated.matchAll(/export declare function (\w+)\(/g)].map((m) => m[1])
  const exported = Object.keys(native).filter((k) => typeof native[k] === 'function' && !k.startsWith('__'))
  t.deepEqual(declared.sort(), exported.sort(), 'every function the addon exports is declared, and nothing else')
  t.true(declared.includes('streamSynchronize') && declared.includes('poolMalloc'))
  t.regex(generated, /export declare function streamSynchronize\(stream: number\): void/)
  t.regex(generated, /export declare function streamCreate\(device: number, nonBlocking: boolean, priority\?: number \| null\): number/)
})

test('every export refuses missing and wrong arguments with a typed error, never a crash', (t) => {
  const got = runJson(`${prelude}
const hostile = [undefined, null, NaN, -1, 0.5, 2 ** 60, Infinity, '1', {}, [], () => {}, 1n, Symbol('s'), new Uint8Array(3)]
const skip = new Set(['registerErrorClass', 'registerHostDispatcher', 'releaseLibraryHandles', 'bindingDeclarations', 'profilerSet'])
const untyped = []
let calls = 0
for (const [name, f] of Object.entries(native)) {
  if (typeof f !== 'function' || skip.has(name)) continue
  const arity = 8
  for (let argc = 0; argc <= arity; argc++) {
    for (const v of hostile) {
      const args = Array.from({ length: argc }, (_, i) => (i === argc - 1 ? v : 0))
      calls++
      try {
        const r = f(...args)
        if (r && typeof r.then === 'function') r.catch(() => {})
      } catch (err) {
        const typed = err instanceof TypeError || err instanceof RangeError || err?.name === 'CudaError'
        if (!typed || !err.message) untyped.push(name + ': ' + (err?.constructor?.name) + ' ' + err?.message)
      }
    }
  }
}
console.log(JSON.stringify({ calls, untyped: [...new Set(untyped)].slice(0, 20) }))
`)
  t.true(got.calls > 5000, `${got.calls} calls`)
  t.deepEqual(got.untyped, [])
})

test('the hot calls refuse wrong arguments and stale handles with typed errors, never a crash', (t) => {
  const got = runJson(`${prelude}
const s = new cuda.Stream({ nonBlocking: true })
const e = new cuda.Event()
const pool = new cuda.MemoryPool()
pool.malloc(1).free()
const sid = own(s), eid = own(e)
const pid = native.poolCreate({}, 0)
const gone = new cuda.Stream(); const goneId = own(gone); gone.destroy()
const calls = {
  'streamSynchronize()': () => native.streamSynchronize(),
  'streamSynchronize("1")': () => native.streamSynchronize('1'),
  'streamSynchronize(NaN)': () => native.streamSynchronize(NaN),
  'streamSynchronize(-1)': () => native.streamSynchronize(-1),
  'streamSynchronize(0.5)': () => native.streamSynchronize(0.5),
  'streamSynchronize(2**60)': () => native.streamSynchronize(2 ** 60),
  'streamSynchronize(destroyed)': () => native.streamSynchronize(goneId),
  'streamQuery({})': () => native.streamQuery({}),
  'streamRecord(sid)': () => native.streamRecord(sid),
  'streamRecord(sid, eid+2**32)': () => native.streamRecord(sid, eid + 4294967296),
  'eventQuery(never)': () => native.eventQuery(12345678),
  'streamSleep(sid, -5)': () => native.streamSleep(sid, -5),
  'streamLaunchHostFn(sid, -1)': () => native.streamLaunchHostFn(sid, -1),
  'poolMalloc(pid, -1, sid)': () => native.poolMalloc(pid, -1, sid),
  'poolMalloc(pid, 1, destroyed)': () => native.poolMalloc(pid, 1, goneId),
  'poolMalloc(bad pool)': () => native.poolMalloc(999999, 1, sid),
  'memFree(never)': () => native.memFree(777),
  'nvtxRangePush()': () => native.nvtxRangePush(),
  'nvtxRangePush(5)': () => native.nvtxRangePush(5),
  'nvtxRangePush(NUL)': () => native.nvtxRangePush('a\\0b'),
  'nvtxRangePush(long NUL)': () => native.nvtxRangePush('x'.repeat(1000) + '\\0'),
  'kernelLaunch(no kernel)': () => native.kernelLaunch(424242, sid, new Uint32Array(12), new Uint8Array(0)),
  'kernelLaunch(short shape)': () => native.kernelLaunch(424242, sid, new Uint32Array(3), new Uint8Array(0)),
}
const out = {}
for (const [name, f] of Object.entries(calls)) {
  try { f(); out[name] = 'no error' } catch (err) { out[name] = err.constructor.name + (err.code ? ' ' + err.code : '') }
}
// Still usable afterwards, and a long message (past the 256-byte stack buffer) goes through.
native.nvtxRangePush('y'.repeat(5000)); native.nvtxRangePop()
s.synchronize()
out.after = (() => { try { const d = e.record(s).done; return typeof d === 'boolean' ? 'ok' : 'broken: ' + typeof d } catch (err) { return 'threw ' + err.code + ': ' + err.message } })()
console.log(JSON.stringify(out))
`)
  t.deepEqual(got, {
    'streamSynchronize()': 'TypeError',
    'streamSynchronize("1")': 'TypeError',
    'streamSynchronize(NaN)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamSynchronize(-1)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamSynchronize(0.5)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamSynchronize(2**60)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamSynchronize(destroyed)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamQuery({})': 'TypeError',
    'streamRecord(sid)': 'TypeError',
    'streamRecord(sid, eid+2**32)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'eventQuery(never)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamSleep(sid, -5)': 'RangeError',
    'streamLaunchHostFn(sid, -1)': 'RangeError',
    'poolMalloc(pid, -1, sid)': 'RangeError',
    'poolMalloc(pid, 1, destroyed)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'poolMalloc(bad pool)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'memFree(never)': 'no error',
    'nvtxRangePush()': 'TypeError',
    'nvtxRangePush(5)': 'TypeError',
    'nvtxRangePush(NUL)': 'TypeError',
    'nvtxRangePush(long NUL)': 'TypeError',
    'kernelLaunch(no kernel)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'kernelLaunch(short shape)': 'RangeError',
    after: 'ok',
  })
})

test('internals are not reachable from the package: no native handle, no way to build an object around one', (t) => {
  const got = runJson(`
const names = Object.keys(cuda)
const leaks = []
for (const n of names) {
  const v = cuda[n]
  const props = typeof v === 'function' ? [...Object.getOwnPropertyNames(v), ...Object.getOwnPropertyNames(v.prototype ?? {})] : typeof v === 'object' && v ? Object.keys(v) : []
  for (const p of props) if (p.startsWith('_')) leaks.push(n + '.' + p)
}
const refused = {}
for (const [n, make] of Object.entries({
  Graph: () => new cuda.Graph(1, 2, 3),
  PinnedMemory: () => new cuda.PinnedMemory(1, () => 1, 8),
  'Memory(internal shape)': () => new cuda.Memory(Symbol('cuda-node internal'), 0, 0),
  'Stream(symbol)': () => new cuda.Stream(Symbol('cuda-node internal'), 1, 0),
})) {
  try { make(); refused[n] = 'made' } catch (e) { refused[n] = e.constructor.name }
}
console.log(JSON.stringify({ leaks, refused, native: 'native' in cuda }))
`)
  t.deepEqual(got.leaks, [])
  t.false(got.native)
  t.deepEqual(got.refused, { Graph: 'TypeError', PinnedMemory: 'TypeError', 'Memory(internal shape)': 'TypeError', 'Stream(symbol)': 'TypeError' })
})
