// Two devices: on two real GPUs where this machine has them (CUDA_NODE_BACKEND=cuda and
// Device.count() >= 2), else on the simulator with two devices. Each test runs its script in a
// child process of that backend, so the same assertions hold for the driver and the simulator.
import everywhere from 'ava'
import { type ChildProcess, fork, spawn } from 'node:child_process'
import path from 'node:path'
import { Device, nccl } from '..'
import { nativeTest, onGpu, root, runJson } from './helpers'

const real = onGpu && Device.count() >= 2
const where = real ? 'two GPUs' : 'simulator, 2 devices'
/** NCCL's NVLink SHARP (multicast) stays off on the lent machines, in every process. */
const env: Record<string, string> = real
  ? { CUDA_NODE_BACKEND: 'cuda', NCCL_NVLS_ENABLE: '0' }
  : { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' }
const two = (script: string) => runJson(script, env)
const fixture = path.join(__dirname, 'fixtures', 'nccl-rank.js')
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { expected } = require(fixture) as { expected: (rank: number, nranks: number) => Record<string, unknown> }
/** The WebAssembly build has no threads or sockets: no NCCL there (nccl.spec says so). */
const test = nativeTest('no NCCL on WebAssembly (nccl.spec tests the refusal)')

everywhere(`peer access is symmetric, idempotent, and copies are byte-exact both ways with and without it (${where})`, (t) => {
  const r = two(
    `const { Device, Stream, alloc } = cuda;
     const d = [new Device(0), new Device(1)];
     const on = (i, fn) => d[i].run(fn);
     const bytes = (seed) => { const a = new Uint8Array(1 << 20); for (let i = 0; i < a.length; i++) a[i] = (i * 131 + seed) & 255; return a };
     const read = (p) => on(p.deviceId, () => { const a = new Uint8Array(p.size); p.copyToHost(a); return a });
     const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
     const can = [d[0].canAccessPeer(d[1]), d[1].canAccessPeer(d[0])];
     const p = [on(0, () => alloc(1 << 20)), on(1, () => alloc(1 << 20))];
     const round = (seed) => {
       const a = bytes(seed), b = bytes(seed + 1);
       on(0, () => p[0].copyFromHost(a));
       on(1, () => p[1].copyFromDevice(p[0], 1 << 20));                 // 0 -> 1 on device 1's current stream
       const toOne = same(read(p[1]), a);
       on(1, () => p[1].copyFromHost(b));
       const s0 = on(0, () => new Stream({ nonBlocking: true }));
       p[0].copyFromDeviceAsync(p[1], 1 << 20, s0).synchronize();      // 1 -> 0 on a stream of device 0
       const toZero = same(read(p[0]), b);
       const s1 = on(1, () => new Stream({ nonBlocking: true }));
       on(0, () => p[0].copyFromHost(a));
       p[1].copyFromDeviceAsync(p[0], 1 << 20, s1).synchronize();      // 0 -> 1 on a stream of device 1
       return { toOne, toZero, again: same(read(p[1]), a) };
     };
     const out = { can, without: round(3) };
     if (can[0] && can[1]) {
       d[0].enablePeerAccess(d[1]); d[0].enablePeerAccess(1); d[1].enablePeerAccess(0);
       out.withPeer = round(7);
       d[0].disablePeerAccess(1); d[0].disablePeerAccess(1); d[1].disablePeerAccess(d[0]);
       out.afterDisable = round(11);
     } else {
       try { d[0].enablePeerAccess(1); out.refused = 'no error' } catch (e) { out.refused = e.code }
     }
     console.log(JSON.stringify(out))`,
  )
  t.log(`canAccessPeer: ${JSON.stringify(r.can)}`)
  t.is(r.can[0], r.can[1], 'peer access is symmetric')
  const ok = { toOne: true, toZero: true, again: true }
  t.deepEqual(r.without, ok)
  if (r.can[0]) {
    t.deepEqual(r.withPeer, ok)
    t.deepEqual(r.afterDisable, ok)
  } else {
    t.is(r.refused, 'CUDA_ERROR_PEER_ACCESS_UNSUPPORTED')
  }
})

everywhere(`each device has its own current stream and its own pool (${where})`, (t) => {
  const r = two(
    `const { Device, Stream, alloc, getCurrentStream, getDefaultMemoryPool } = cuda;
     const on = (i, fn) => new Device(i).run(fn);
     const pool = getDefaultMemoryPool();
     const s0 = on(0, () => new Stream({ nonBlocking: true })), s1 = on(1, () => new Stream({ nonBlocking: true }));
     const out = on(0, () => s0.run(() => on(1, () => s1.run(() => {
       // Inside both: each device's current stream is its own.
       const cur = [getCurrentStream(0) === s0, getCurrentStream(1) === s1, getCurrentStream() === s1];
       const used = () => [on(0, () => pool.usedBytes()), on(1, () => pool.usedBytes())];
       const before = used();
       const p1 = alloc(1 << 20);                            // on device 1, for s1
       const mid = used();
       const p0 = on(0, () => alloc(3 << 20));               // on device 0, for s0
       const after = used();
       return { cur, devices: [p0.deviceId, p1.deviceId], grew: [mid[0] - before[0], mid[1] - before[1], after[0] - mid[0], after[1] - mid[1]] };
     }))));
     // Outside, the defaults again, and the device's stream is not current on the other device.
     out.outside = [getCurrentStream(0) === s0, getCurrentStream(1) === s1];
     console.log(JSON.stringify(out))`,
  )
  t.deepEqual(r.cur, [true, true, true])
  t.deepEqual(r.devices, [0, 1])
  t.deepEqual(r.grew, [0, 1 << 20, 3 << 20, 0], 'each allocation grew only its own device pool')
  t.deepEqual(r.outside, [false, false])
})

everywhere(`a stream of one device is refused while the other is current, with a typed error (${where})`, (t) => {
  const r = two(
    `const { Device, Stream, alloc, kernels } = cuda;
     const s1 = new Device(1).run(() => new Stream());
     const p0 = alloc(64);
     const out = [];
     for (const f of [() => s1.use(), () => s1.run(() => 0), () => kernels.fill(p0, 1, 16, 'float32', s1), () => p0.memsetAsync(0, 64, s1)]) {
       try { f(); out.push('no error') } catch (e) { out.push(e.code + ': ' + e.message) }
     }
     console.log(JSON.stringify(out))`,
  )
  t.is(r.length, 4)
  t.regex(r[0], /^CUDA_ERROR_INVALID_CONTEXT: this stream belongs to device 1, but device 0 is current/)
  t.regex(r[1], /^CUDA_ERROR_INVALID_CONTEXT: this stream belongs to device 1, but device 0 is current/)
  for (const line of r.slice(2)) t.regex(line, /^CUDA_ERROR_INVALID_VALUE: .*memory of device 0 used with a stream of device 1/)
})

/** What each of two ranks must read back, less the graph where a thread drives both ranks. */
const want = (graph: boolean) =>
  [0, 1].map((r) => {
    const e = expected(r, 2)
    if (!graph) delete e.graph
    return e
  })

test(`NCCL, two ranks in one process (initAll), every collective in groups (${where})`, (t) => {
  const r = two(
    `const { collectives } = require(${JSON.stringify(fixture)});
     const comms = cuda.NcclCommunicator.initAll(2);
     const out = collectives(cuda, comms);
     for (const c of comms) c.destroy();
     console.log(JSON.stringify(out))`,
  )
  t.deepEqual(r, want(false))
})

test(`NCCL, two ranks in two worker threads: every collective, and a captured all-reduce launched twice (${where})`, (t) => {
  const r = two(
    `const { Worker } = require('node:worker_threads');
     const id = cuda.nccl.getUniqueId();
     const code = \`
       const { parentPort, workerData: { root, fixture, rank, id } } = require('node:worker_threads');
       const cuda = require(root);
       new cuda.Device(rank).use();
       cuda.nccl.NcclCommunicator.init(2, Buffer.from(id), rank).then((comm) => {
         const [out] = require(fixture).collectives(cuda, [comm]);
         comm.destroy();
         parentPort.postMessage(out);
       });\`;
     const ranks = [0, 1].map((rank) => new Promise((res, rej) => {
       const w = new Worker(code, { eval: true, workerData: { root: ${JSON.stringify(root)}, fixture: ${JSON.stringify(fixture)}, rank, id } });
       w.once('message', res); w.once('error', rej);
     }));
     Promise.all(ranks).then((v) => console.log(JSON.stringify(v)), (e) => { console.error(e); process.exit(1) })`,
  )
  t.deepEqual(r, want(true))
})

test(`NCCL, two ranks in two processes that get the id over process.send: every collective, and a captured all-reduce (${where})`, async (t) => {
  // The process that makes the id hosts the rendezvous (on the simulator) until the ranks joined;
  // where this process runs another backend than the ranks, a child of theirs makes it.
  const id = onGpu === real ? nccl.getUniqueId().toString('base64') : await idFromChild()
  const results = await Promise.all(
    [0, 1].map(
      (rank) =>
        new Promise<any>((resolve, reject) => {
          const child = fork(fixture, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
          const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
          let got: any
          child.once('message', (m) => (got = m))
          child.once('exit', (code, signal) => {
            clearTimeout(timer)
            if (got?.out !== undefined && code === 0) resolve(got.out)
            else reject(new Error(`rank ${rank} exited ${code ?? signal}: ${got?.error ?? 'no result'}`))
          })
          child.send({ root, rank, nranks: 2, id })
        }),
    ),
  )
  t.deepEqual(results, want(true))
})

let host: ChildProcess | undefined
/** A unique id made by a child of the ranks' backend, which stays up (hosting it) until the tests end. */
function idFromChild(): Promise<string> {
  const code = `const cuda = require(${JSON.stringify(root)}); process.send(cuda.nccl.getUniqueId().toString('base64')); setTimeout(() => {}, 120000)`
  host = spawn(process.execPath, ['-e', code], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return new Promise((resolve, reject) => {
    host!.once('message', (m) => resolve(m as string))
    host!.once('exit', (code) => reject(new Error(`the id's process exited with ${code}`)))
  })
}
everywhere.after.always(() => host?.kill())
