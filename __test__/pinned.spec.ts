import test from 'ava'
import { randomBytes } from 'node:crypto'
import { alloc, allocPinned, mallocPlain, CudaError, Event, getDefaultPinnedMemoryPool, kernels, MemoryPool, PinnedMemoryPool, registerHost, Stream } from '..'
import { nativeTest, onWasm, runNode, wasmTest } from './helpers'

const noExternalBuffers = 'its ArrayBuffers would be copies of wasm memory, so PinnedMemory.buffer is refused'

nativeTest(noExternalBuffers)('allocPinned gives an ArrayBuffer over the pinned memory', (t) => {
  const pinned = allocPinned(1000)
  t.is(pinned.size, 1000)
  t.true(pinned.buffer instanceof ArrayBuffer)
  t.is(pinned.buffer.byteLength, 1000)
  t.is(pinned.buffer, pinned.buffer)
  t.is(typeof pinned.ptr, 'bigint')
  const bytes = randomBytes(1000)
  new Uint8Array(pinned.buffer).set(bytes)
  const back = new Uint8Array(1000)
  pinned.get(back)
  t.deepEqual(Buffer.from(back), bytes, 'the buffer is the pinned memory, not a copy')
})

wasmTest('on WebAssembly, PinnedMemory.buffer is CUDA_ERROR_NOT_SUPPORTED, and set() and get() copy through it instead', (t) => {
  const pinned = allocPinned(1000)
  t.is(pinned.size, 1000)
  t.is(typeof pinned.ptr, 'bigint')
  const e = t.throws(() => pinned.buffer, { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(e!.message, /set\(\) and get\(\)/)
  const bytes = randomBytes(1000)
  pinned.set(bytes)
  const back = new Uint8Array(1000)
  pinned.get(back)
  t.deepEqual(Buffer.from(back), bytes)
})

test('an async copy from pinned memory returns before the copy completes', (t) => {
  const s = new Stream({ nonBlocking: true })
  const n = 1 << 20
  const pinned = allocPinned(n)
  const src = randomBytes(n)
  pinned.set(src)
  const dev = alloc(n)
  kernels.sleep(300e6, s)
  dev.copyFromHostAsync(pinned, n, s)
  const done = new Event().record(s)
  t.false(done.done, 'the call returned while the stream was still busy')
  done.synchronize()
  const back = Buffer.alloc(n)
  dev.copyToHost(back)
  t.true(back.equals(src))
})

test('an async copy into pinned memory lands once the stream reaches it', (t) => {
  const s = new Stream({ nonBlocking: true })
  const n = 4096
  const dev = alloc(n)
  const src = randomBytes(n)
  dev.copyFromHost(src)
  const pinned = allocPinned(n)
  pinned.set(new Uint8Array(n))
  kernels.sleep(300e6, s)
  dev.copyToHostAsync(pinned, n, s)
  const now = new Uint8Array(n)
  pinned.get(now)
  t.true(now.every((b) => b === 0), 'not yet copied')
  s.synchronize()
  const back = Buffer.alloc(n)
  pinned.get(back)
  t.true(back.equals(src))
})

test('set and get copy through pinned memory where buffer is refused', (t) => {
  const p = allocPinned(16)
  p.set(new Uint8Array([1, 2, 3]), 4)
  const out = new Uint8Array(3)
  p.get(out, 4)
  t.deepEqual([...out], [1, 2, 3])
  t.throws(() => p.set(new Uint8Array(20)), { instanceOf: RangeError })
  t.throws(() => p.get(new Uint8Array(1), 16), { instanceOf: RangeError })
})

test(`freeing pinned memory detaches its buffer and returns it to the pool${onWasm ? ' (WebAssembly: no buffer to detach, as buffer is refused)' : ''}`, (t) => {
  const pool = new PinnedMemoryPool()
  const p = pool.malloc(4096)
  const buf = onWasm ? undefined : p.buffer
  p.free()
  if (buf !== undefined) t.is(buf.byteLength, 0, 'detached')
  t.throws(() => p.buffer, { instanceOf: CudaError, message: /freed/ })
  t.notThrows(() => p.free(), 'freeing twice is nothing, as in CuPy')
  t.throws(() => alloc(4096).copyFromHost(p), { instanceOf: CudaError, message: /freed/ })
  t.true(getDefaultPinnedMemoryPool() instanceof PinnedMemoryPool)
})

test('a pinned copy past either end is a RangeError', (t) => {
  const p = allocPinned(100)
  t.throws(() => alloc(1024).copyFromHostAsync(p, 101), { instanceOf: RangeError })
  t.throws(() => mallocPlain(64).copyToHostAsync(p, 100), { instanceOf: RangeError })
  t.throws(() => alloc(1024).copyToHostAsync(p, 101), { instanceOf: RangeError })
})

test('zero-size allocations are not taken from a pool: freeing one gives the pool no block (#19.13)', (t) => {
  const pinnedPool = new PinnedMemoryPool()
  const z = pinnedPool.malloc(0)
  t.is(z.size, 0)
  t.is(z.buffer.byteLength, 0)
  const s = new Stream({ nonBlocking: true })
  alloc(16).copyToHostAsync(z, 0, s)
  s.synchronize()
  z.free()
  t.is(pinnedPool.nFreeBlocks(), 0)
  const one = pinnedPool.malloc(1)
  one.free()
  t.is(pinnedPool.nFreeBlocks(), 1, 'a 1-byte allocation is pooled, so the count above could fail')

  const pool = new MemoryPool()
  pool.malloc(0).free()
  t.is(pool.totalBytes(), 0)
  t.is(pool.nFreeBlocks(), 0)
  pool.malloc(1).free()
  t.is(pool.nFreeBlocks(), 1)
  t.is(pool.totalBytes(), 512)
})

test('a pinned size no host can hold is CUDA_ERROR_OUT_OF_MEMORY, not an abort (#20)', (t) => {
  const r = runNode(`
    const out = [];
    for (const f of [() => cuda.allocPinned(2 ** 40), () => new cuda.PinnedMemoryPool().malloc(2 ** 40), () => cuda.allocPinned(2 ** 53 - 1)]) {
      try { f(); out.push('allocated') } catch (e) { out.push(e instanceof cuda.CudaError ? e.code : e instanceof RangeError ? 'RangeError' : String(e)) }
    }
    console.log(JSON.stringify(out));
  `)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  const out: string[] = JSON.parse(r.stdout.trim())
  // WebAssembly's host is 32-bit: a size past 2 GiB is more than one allocation there can hold.
  if (onWasm) t.deepEqual(out, ['RangeError', 'RangeError', 'RangeError'])
  else {
    t.deepEqual(out.slice(0, 2), ['CUDA_ERROR_OUT_OF_MEMORY', 'CUDA_ERROR_OUT_OF_MEMORY'])
    t.true(out[2] === 'CUDA_ERROR_OUT_OF_MEMORY' || out[2] === 'RangeError', out[2])
  }
})

wasmTest('pinned memory past what the 4 GiB wasm memory holds is CUDA_ERROR_OUT_OF_MEMORY, not a trap', (t) => {
  const r = runNode(`
    const keep = [], out = [];
    for (let i = 0; i < 3; i++) { try { keep.push(cuda.allocPinned(1.5 * 2 ** 30)); out.push('allocated') } catch (e) { out.push(e.code) } }
    console.log(JSON.stringify(out));
  `)
  t.is(r.status, 0, r.stderr)
  t.deepEqual(JSON.parse(r.stdout.trim()), ['allocated', 'allocated', 'CUDA_ERROR_OUT_OF_MEMORY'])
})

nativeTest(noExternalBuffers)('a typed array over pinned bytes copies the pinned way: asynchronous, and the memory kept alive until the copy has run', (t) => {
  const s = new Stream({ nonBlocking: true })
  const pinned = allocPinned(4096)
  const view = new Float32Array(pinned.buffer, 1024, 256) // 1 KiB into the pinned bytes
  view.fill(7)
  const d = alloc(1024)
  kernels.sleep(100e6, s)
  d.copyFromHostAsync(view, undefined, s)
  t.false(s.done, 'returned before the copy ran, as from PinnedMemory')
  const back = new Float32Array(pinned.buffer, 2048, 256)
  d.copyToHostAsync(back, undefined, s)
  s.synchronize()
  t.true(back.every((v) => v === 7))
  // Bytes registerHost page-locked are pinned too: a view of them copies the pinned way.
  const registered = new Float32Array(512)
  const r = registerHost(registered)
  registered.fill(3)
  kernels.sleep(50e6, s)
  d.copyFromHostAsync(registered.subarray(0, 256), undefined, s)
  t.false(s.done)
  s.synchronize()
  const out = new Float32Array(256)
  d.copyToHost(out)
  t.true(out.every((v) => v === 3))
  r.unregister()
})
