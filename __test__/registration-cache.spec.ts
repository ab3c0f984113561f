// The registration cache (#32.7): a Buffer of 8 MiB or more copied a second time is page-locked
// in place and stays so while it lives, within a byte limit, and is released when it is
// collected; its copies stay byte-exact. The simulator keeps the same bookkeeping (its
// registrations are the simulator's); the speed is the bench's (h2d_pageable_again rows).
import { nativeTest, runJson } from './helpers'

// Page-locking a Buffer in place is registerHost's, which the WebAssembly build refuses (its
// module sees copies of JS's bytes, not the bytes): there the cache registers nothing.
const test = nativeTest('the cache page-locks Buffers in place, which WebAssembly cannot (registerHost is CUDA_ERROR_NOT_SUPPORTED there)')

const MiB = 1 << 20

test('a Buffer copied a second time is registered once and its later copies hit, both ways, byte-exact', (t) => {
  const r = runJson(`
    const { alloc, registrationCache: cache } = cuda
    const n = 16 << 20, d = alloc(n), rows = []
    const buf = Buffer.alloc(n)
    for (let i = 0; i < n; i += 4096) buf[i] = (i >> 12) & 255
    d.copyFromHost(buf); rows.push(cache.stats())
    d.copyFromHost(buf); rows.push(cache.stats())
    const back = Buffer.alloc(n)
    d.copyToHost(back); d.copyToHost(back); d.copyToHost(back); rows.push(cache.stats())
    d.copyFromHost(buf.subarray(4096), n - 4096); rows.push(cache.stats())
    const small = new Uint8Array(1 << 20); d.copyFromHost(small); d.copyFromHost(small); rows.push(cache.stats())
    console.log(JSON.stringify({ rows, exact: back.equals(buf) }))`)
  const [first, second, again, view, small] = r.rows
  t.like(first, { registrations: 0, hits: 0, registeredBytes: 0, entries: 1 })
  t.like(second, { registrations: 1, registeredBytes: 16 * MiB, entries: 1 })
  t.like(again, { registrations: 2, hits: 1, registeredBytes: 32 * MiB, entries: 2 }, 'back: seen, registered, then a hit')
  t.is(view.hits, again.hits + 1, 'a view into a registered buffer hits too')
  t.deepEqual(small, view, 'copies under 8 MiB are not cached')
  t.true(r.exact)
})

test('the cache keeps registered bytes within its limit', (t) => {
  const r = runJson(`
    const { alloc, registrationCache: cache } = cuda
    cache.setLimit(20 << 20)
    const d = alloc(16 << 20), a = Buffer.alloc(16 << 20), b = Buffer.alloc(16 << 20)
    for (const buf of [a, b, a, b, a, b]) d.copyFromHost(buf)
    console.log(JSON.stringify(cache.stats()))`)
  t.like(r, { registrations: 1, registeredBytes: 16 * MiB, limit: 20 * MiB })
  t.true(r.hits >= 1)
})

test('a registered Buffer is released when it is collected', (t) => {
  const r = runJson(`
    const { alloc, registrationCache: cache } = cuda
    const d = alloc(16 << 20)
    ;(() => { const buf = Buffer.alloc(16 << 20); d.copyFromHost(buf); d.copyFromHost(buf) })()
    const before = cache.stats()
    const settle = () => new Promise((r) => setImmediate(r))
    ;(async () => {
      for (let i = 0; i < 20 && cache.stats().entries > 0; i++) { globalThis.gc(); await settle() }
      console.log(JSON.stringify({ before, after: cache.stats() }))
    })()`, {}, ['--expose-gc'])
  t.like(r.before, { registrations: 1, registeredBytes: 16 * MiB, entries: 1 })
  t.like(r.after, { registeredBytes: 0, entries: 0 })
})

test('registerHost of bytes the cache holds registered takes them over', (t) => {
  const r = runJson(`
    const { alloc, registerHost, registrationCache: cache } = cuda
    const d = alloc(16 << 20), buf = Buffer.alloc(16 << 20, 7)
    d.copyFromHost(buf); d.copyFromHost(buf)
    const before = cache.stats().registeredBytes
    const p = registerHost(buf)
    d.copyFromHost(p)
    p.free()
    console.log(JSON.stringify({ before, after: cache.stats().registeredBytes }))`)
  t.deepEqual(r, { before: 16 * MiB, after: 0 })
})
