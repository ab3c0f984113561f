import test from 'ava'
import { alloc, Device, kernels } from '..'
import { runJson } from './helpers'

/** A script in a child on the simulator with `devices` devices. */
const sim = (devices: number, script: string) => runJson(script, { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: String(devices) })
const several: typeof test =
  Device.count() >= 2 ? test : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs two or more devices: CUDA_NODE_SIM_DEVICES=2 on the simulator)`, ...rest)) as any)

test('each device has its own UUID and PCI bus id, and fromPciBusId finds it again', (t) => {
  const ds = [...Array(Device.count()).keys()].map((i) => new Device(i))
  const uuids = ds.map((d) => d.uuid)
  for (const u of uuids) t.regex(u, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  t.is(new Set(uuids).size, ds.length)
  for (const d of ds) {
    t.regex(d.pciBusId, /^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]$/i)
    t.is(Device.fromPciBusId(d.pciBusId).id, d.id)
    t.is(Device.fromPciBusId(d.pciBusId.toUpperCase()).id, d.id)
    t.is(Device.fromPciBusId(d.pciBusId.replace(/^[0-9a-f]+:/i, '')).id, d.id, 'bus:device.function, no domain')
  }
})

test('fromPciBusId refuses malformed and unknown ids with typed errors', (t) => {
  t.throws(() => Device.fromPciBusId('nonsense'), { code: 'CUDA_ERROR_INVALID_VALUE' })
  t.throws(() => Device.fromPciBusId('ffff:ff:1f.7'), { code: 'CUDA_ERROR_INVALID_DEVICE' })
  t.throws(() => Device.fromPciBusId(3 as any), { instanceOf: TypeError })
})

test('a device is not its own peer', (t) => {
  const d = new Device(0)
  t.false(d.canAccessPeer(d))
  t.throws(() => d.enablePeerAccess(0), { code: 'CUDA_ERROR_INVALID_DEVICE' })
  t.throws(() => d.disablePeerAccess(0), { code: 'CUDA_ERROR_INVALID_DEVICE' })
})

test('peer access follows the topology, is idempotent, and refuses pairs that cannot reach (simulator, 4 devices)', (t) => {
  const r = sim(
    4,
    `const { Device } = cuda;
     const d = [0, 1, 2, 3].map((i) => new Device(i));
     const can = d.map((a) => d.map((b) => a.canAccessPeer(b)));
     d[0].enablePeerAccess(d[1]); d[0].enablePeerAccess(1);
     d[0].disablePeerAccess(1); d[0].disablePeerAccess(1); d[2].disablePeerAccess(0);
     let unsupported; try { d[0].enablePeerAccess(2) } catch (e) { unsupported = e.code }
     console.log(JSON.stringify({ can, unsupported }))`,
  )
  t.deepEqual(r.can, [
    [false, true, false, false],
    [true, false, false, false],
    [false, false, false, true],
    [false, false, true, false],
  ])
  t.is(r.unsupported, 'CUDA_ERROR_PEER_ACCESS_UNSUPPORTED')
})

test('copies between devices work both ways, peers or not, on a stream of either device (simulator, 4 devices)', (t) => {
  const r = sim(
    4,
    `const { Device, Stream, alloc, kernels } = cuda;
     const on = (i, fn) => new Device(i).run(fn);
     const read = (p) => on(p.deviceId, () => { const a = new Int32Array(4); p.copyToHost(a); return [...a] });
     const p0 = on(0, () => { const p = alloc(16); kernels.fill(p, 7, 4, 'int32'); new Device(0).synchronize(); return p }); // the copies below do not wait for device 0
     const p1 = on(1, () => alloc(16)), p2 = on(2, () => alloc(16)), p3 = on(3, () => alloc(16));
     p1.copyFromDevice(p0, 16);                                   // peers, on device 1's stream
     p2.copyFromDevice(p1, 16);                                   // not peers: staged
     const s2 = on(2, () => new Stream());
     p3.copyFromDeviceAsync(p2, 16, s2).synchronize();            // on the source's stream
     let wrong; try { p0.copyFromDeviceAsync(p1, 16, on(3, () => new Stream())) } catch (e) { wrong = e.code + ': ' + e.message }
     console.log(JSON.stringify({ got: [p1, p2, p3].map(read), wrong }))`,
  )
  t.deepEqual(r.got, [[7, 7, 7, 7], [7, 7, 7, 7], [7, 7, 7, 7]])
  t.regex(r.wrong, /^CUDA_ERROR_INVALID_VALUE: .*use a stream of either device/)
})

test('a copy between devices is ordered on its stream only: work on the other device is ordered with an event (simulator, 2 devices)', (t) => {
  const r = sim(
    2,
    `const { Device, Stream, alloc, kernels } = cuda;
     const on = (i, fn) => new Device(i).run(fn);
     const s0 = on(0, () => new Stream({ nonBlocking: true })), s1 = on(1, () => new Stream({ nonBlocking: true }));
     const src = on(0, () => { const p = alloc(16); kernels.fill(p, 1, 4, 'int32', s0); s0.synchronize(); return p });
     const dst = on(1, () => alloc(16));
     const read = () => on(1, () => { const a = new Int32Array(4); dst.copyToHost(a); return a[0] });
     // Without an event the copy on s1 does not wait for device 0's stream.
     kernels.sleep(300e6, s0); kernels.fill(src, 2, 4, 'int32', s0);
     dst.copyFromDeviceAsync(src, 16, s1); s1.synchronize();
     const unordered = { value: read(), s0Done: s0.done };
     s0.synchronize();
     // With one, it does: record on device 0's stream, wait on device 1's.
     kernels.sleep(100e6, s0); kernels.fill(src, 3, 4, 'int32', s0);
     s1.waitEvent(s0.record());
     dst.copyFromDeviceAsync(src, 16, s1); s1.synchronize();
     console.log(JSON.stringify({ unordered, ordered: read() }))`,
  )
  t.deepEqual(r.unordered, { value: 1, s0Done: false })
  t.is(r.ordered, 3)
})

test('a copy between devices uses the current stream of the destination device by default (simulator, 2 devices)', (t) => {
  const r = sim(
    2,
    `const { Device, Stream, alloc, getCurrentStream } = cuda;
     const on = (i, fn) => new Device(i).run(fn);
     const src = on(0, () => alloc(16)), dst = on(1, () => alloc(16));
     const s1 = on(1, () => new Stream());
     const inside = on(1, () => s1.run(() => on(0, () => dst.copyFromDeviceAsync(src, 16) === s1)));
     const outside = dst.copyFromDeviceAsync(src, 16) === getCurrentStream(1);
     console.log(JSON.stringify({ inside, outside }))`,
  )
  t.deepEqual(r, { inside: true, outside: true })
})

several('a ring of copies through every device returns the data unchanged', (t) => {
  const n = Device.count()
  const ps = [...Array(n).keys()].map((i) => new Device(i).run(() => alloc(64)))
  new Device(0).run(() => kernels.fill(ps[0], 0x5a, 16, 'int32'))
  new Device(0).synchronize() // a copy on device 1's stream does not wait for device 0's
  for (let i = 1; i <= n; i++) {
    const dst = ps[i % n]
    const src = ps[i - 1]
    new Device(dst.deviceId).run(() => dst.copyFromDevice(src, 64))
  }
  const out = new Int32Array(16)
  new Device(0).run(() => ps[0].copyToHost(out))
  t.deepEqual([...out], Array(16).fill(0x5a))
})
