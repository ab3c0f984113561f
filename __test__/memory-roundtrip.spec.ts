import test from 'ava'
import { randomBytes } from 'node:crypto'
import { alloc, allocPinned, Stream } from '..'

const sizes = [0, 1, 511, 512, 513, (1 << 20) + 3, (24 << 20) + 7, 256 << 20]

for (const n of sizes) {
  test.serial(`${n} random bytes round-trip through every copy path`, (t) => {
    const src = randomBytes(n)
    const s = new Stream({ nonBlocking: true })
    const a = alloc(n)
    const b = alloc(n)
    const c = alloc(n)
    // pageable → device, sync
    a.copyFromHost(src)
    // device → device, async on s
    b.copyFromDeviceAsync(a, n, s)
    // device → pinned, async; pinned → device, async
    const pinned = allocPinned(n)
    b.copyToHostAsync(pinned, n, s)
    c.copyFromHostAsync(pinned, n, s)
    s.synchronize()
    // device → pageable, async form (synchronous into pageable memory)
    const back = Buffer.alloc(n, 0xee)
    c.copyToHostAsync(back, n, s)
    t.true(back.equals(src), 'device → pinned → device → pageable')
    // pageable → device async, then sync copy back
    const d = alloc(n)
    d.copyFromHostAsync(src, n, s)
    const again = Buffer.alloc(n, 0x11)
    d.copyToHost(again) // on the current stream, which waits for nothing on s
    s.synchronize()
    d.copyToHostAsync(again, n, s)
    t.true(again.equals(src), 'pageable → device (async) → pageable')
    for (const p of [a, b, c, d]) p.free()
    pinned.free()
  })
}
