import everywhere from 'ava'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { alloc, Device, kernels, nccl, NcclCommunicator, Stream, type MemoryPointer } from '..'
import { native } from '../lib/native'
import { nativeTest, onGpu, runJson, wasmTest } from './helpers'

/** The WebAssembly build has no threads or sockets for the ranks to meet over: NCCL is refused there. */
const test = nativeTest('no threads or sockets, so NCCL is CUDA_ERROR_NOT_SUPPORTED; the wasmTest below says so')

const f32 = (p: MemoryPointer, n: number) => {
  const out = new Float32Array(n)
  p.copyToHost(out)
  return [...out]
}
const filled = (n: number, value: number) => {
  const p = alloc(4 * n)
  kernels.fill(p, value, n, 'float32')
  return p
}
/** A script in a child on the simulator with `devices` devices. */
const sim = (devices: number, script: string) => runJson(script, { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: String(devices) })

test('getUniqueId gives a fresh 128-byte Buffer', (t) => {
  const a = nccl.getUniqueId()
  const b = nccl.getUniqueId()
  t.true(Buffer.isBuffer(a))
  t.is(a.length, 128)
  t.false(a.equals(b))
  t.true(nccl.getVersion() >= 20000)
})

test('a one-rank communicator joins off the JS thread and knows its rank, size and device', async (t) => {
  const pending = NcclCommunicator.init(1, nccl.getUniqueId(), 0)
  t.true(pending instanceof Promise)
  const comm = await pending
  t.is(comm.rankId, 0)
  t.is(comm.size, 1)
  t.is(comm.device.id, Device.current().id)
  comm.destroy()
  comm.destroy() // twice is nothing
  t.throws(() => comm.allReduce(alloc(4), alloc(4), 1, 'float32', 'sum'), { code: 'CUDA_ERROR_INVALID_HANDLE' })
})

test('every collective of a one-rank communicator, on the current stream', async (t) => {
  const comm = await NcclCommunicator.init(1, nccl.getUniqueId(), 0)
  const s = new Stream({ nonBlocking: true })
  const r = s.run(() => {
    const send = filled(4, 3)
    const recv = filled(4, 0)
    comm.allReduce(send, recv, 4, 'float32', 'sum')
    const a = f32(recv, 4)
    comm.broadcast(filled(4, 5), recv, 4, nccl.NCCL_FLOAT32, 0)
    const b = f32(recv, 4)
    comm.reduce(filled(4, 6), recv, 4, 'float32', 'max', 0)
    const c = f32(recv, 4)
    comm.allGather(filled(4, 7), recv, 4, 'float32')
    const d = f32(recv, 4)
    comm.reduceScatter(filled(4, 8), recv, 4, 'float32', nccl.NCCL_SUM)
    const e = f32(recv, 4)
    nccl.groupStart()
    comm.send(filled(4, 9), 4, 'float32', 0)
    comm.recv(recv, 4, 'float32', 0)
    nccl.groupEnd()
    return [a, b, c, d, e, f32(recv, 4)]
  })
  s.synchronize()
  t.deepEqual(r, [[3, 3, 3, 3], [5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8], [9, 9, 9, 9]])
  comm.checkAsyncError()
  comm.destroy()
})

test('a collective is captured into a graph and runs at each launch', async (t) => {
  const comm = await NcclCommunicator.init(1, nccl.getUniqueId(), 0)
  const s = new Stream({ nonBlocking: true })
  const send = filled(4, 1)
  const recv = filled(4, 0)
  const g = s.capture(() => comm.allReduce(send, recv, 4, 'float32', 'sum'))
  s.synchronize()
  t.deepEqual(f32(recv, 4), [0, 0, 0, 0], 'capturing ran nothing')
  g.launch(s)
  s.synchronize()
  t.deepEqual(f32(recv, 4), [1, 1, 1, 1])
  kernels.fill(send, 2, 4, 'float32', s)
  g.launch(s)
  s.synchronize()
  t.deepEqual(f32(recv, 4), [2, 2, 2, 2])
  g.destroy()
  comm.destroy()
})

test('bad arguments are typed errors before NCCL sees them', async (t) => {
  await t.throwsAsync(NcclCommunicator.init(2, nccl.getUniqueId(), 2), { code: 'NCCL_ERROR_INVALID_ARGUMENT' })
  await t.throwsAsync(NcclCommunicator.init(1, new Uint8Array(5), 0), { code: 'NCCL_ERROR_INVALID_ARGUMENT' })
  await t.throwsAsync(NcclCommunicator.init(1, 'id' as any, 0), { instanceOf: TypeError })
  const comm = await NcclCommunicator.init(1, nccl.getUniqueId(), 0)
  t.throws(() => comm.allReduce(alloc(4), alloc(4), 200, 'float32', 'sum'), { instanceOf: RangeError }) // 800 bytes: past the 512-byte block
  t.throws(() => comm.allReduce(alloc(4), alloc(4), 1, 'complex64' as any, 'sum'), { instanceOf: TypeError })
  t.throws(() => comm.allReduce(alloc(4), alloc(4), 1, 'float32', 'mean' as any), { instanceOf: TypeError })
  t.throws(() => comm.send(alloc(4), 1, 'float32', 1), { instanceOf: RangeError })
  comm.abort()
  t.throws(() => comm.allReduce(alloc(4), alloc(4), 1, 'float32', 'sum'), { code: 'CUDA_ERROR_INVALID_HANDLE' })
})

test('initAll drives every device from one thread inside a group', (t) => {
  const n = Device.count()
  const comms = NcclCommunicator.initAll(n)
  t.deepEqual(comms.map((c) => [c.rankId, c.size, c.deviceId]), [...Array(n).keys()].map((i) => [i, n, i]))
  const bufs = comms.map((c) => c.device.run(() => filled(2, c.rankId + 1)))
  nccl.groupStart()
  for (const [i, c] of comms.entries()) c.allReduce(bufs[i], bufs[i], 2, 'float32', 'sum')
  nccl.groupEnd()
  for (const [i, c] of comms.entries()) t.deepEqual(c.device.run(() => f32(bufs[i], 2)), [(n * (n + 1)) / 2, (n * (n + 1)) / 2])
  for (const c of comms) c.destroy()
})

test('ranks in one thread join through Promise.all, each on its own device (simulator, 4 devices)', (t) => {
  const r = sim(
    4,
    `const { Device, alloc, kernels, nccl } = cuda;
     const id = nccl.getUniqueId();
     Promise.all([0, 1, 2, 3].map((r) => new Device(r).run(() => nccl.NcclCommunicator.init(4, id, r)))).then((comms) => {
       const out = comms.map((c) => c.device.run(() => {
         const send = alloc(16), recv = alloc(64);
         kernels.fill(send, 10 * c.rankId, 4, 'int32');
         return { c, send, recv };
       }));
       nccl.groupStart();
       for (const { c, send, recv } of out) c.allGather(send, recv, 4, 'int32');
       nccl.groupEnd();
       nccl.groupStart();
       for (const { c, send, recv } of out) c.reduceScatter(recv, send, 4, 'int32', 'sum');
       nccl.groupEnd();
       const read = (c, p, n) => c.device.run(() => { const a = new Int32Array(n); p.copyToHost(a); return [...a] });
       console.log(JSON.stringify({
         gathered: read(out[2].c, out[2].recv, 16),
         scattered: out.map(({ c, send }) => read(c, send, 4)),
       }));
       comms.forEach((c) => c.destroy());
     })`,
  )
  t.deepEqual(r.gathered, [0, 0, 0, 0, 10, 10, 10, 10, 20, 20, 20, 20, 30, 30, 30, 30])
  // Each rank's recv holds the gather; reduce-scatter sums the four copies and gives rank i part i.
  t.deepEqual(r.scattered, [[0, 0, 0, 0], [40, 40, 40, 40], [80, 80, 80, 80], [120, 120, 120, 120]])
})

test('send and recv pair up in a group: a ring shift (simulator, 2 devices)', (t) => {
  const r = sim(
    2,
    `const { Device, alloc, kernels, nccl } = cuda;
     const comms = nccl.NcclCommunicator.initAll(2);
     const bufs = comms.map((c) => c.device.run(() => { const a = alloc(8), b = alloc(8); kernels.fill(a, c.rankId + 1, 2, 'float64'); return [a, b] }));
     nccl.groupStart();
     for (const c of comms) {
       c.send(bufs[c.rankId][0], 2, 'float64', (c.rankId + 1) % 2);
       c.recv(bufs[c.rankId][1], 2, 'float64', (c.rankId + 1) % 2);
     }
     nccl.groupEnd();
     console.log(JSON.stringify(comms.map((c) => c.device.run(() => { const a = new Float64Array(2); bufs[c.rankId][1].copyToHost(a); return [...a] }))))`,
  )
  t.deepEqual(r, [[2, 2], [1, 1]])
})

test('ranks that call different collectives get NCCL_ERROR_INVALID_USAGE from checkAsyncError (simulator)', (t) => {
  const r = sim(
    2,
    `const { alloc, nccl } = cuda;
     const comms = nccl.NcclCommunicator.initAll(2);
     const bufs = comms.map((c) => c.device.run(() => alloc(64)));
     nccl.groupStart();
     comms[0].allReduce(bufs[0], bufs[0], 4, 'float32', 'sum');
     comms[1].allReduce(bufs[1], bufs[1], 8, 'float32', 'sum');
     nccl.groupEnd();
     comms.forEach((c) => c.device.synchronize());
     const errs = comms.map((c) => { try { c.checkAsyncError(); return 'none' } catch (e) { return e.code + ': ' + e.message } });
     console.log(JSON.stringify(errs))`,
  )
  for (const e of r) t.regex(e, /^NCCL_ERROR_INVALID_USAGE: .*differs between ranks/)
})

test('two ranks on one device are refused, as NCCL refuses a duplicate GPU (simulator)', (t) => {
  const r = sim(
    1,
    `const { nccl } = cuda;
     const id = nccl.getUniqueId();
     Promise.allSettled([0, 1].map((r) => nccl.NcclCommunicator.init(2, id, r))).then((all) =>
       console.log(JSON.stringify(all.map((a) => a.status === 'rejected' ? a.reason.code : 'joined'))))`,
  )
  t.deepEqual(r, ['NCCL_ERROR_INVALID_USAGE', 'NCCL_ERROR_INVALID_USAGE'])
})

test('ranks in worker threads join and all-reduce without blocking each other (simulator, 2 devices)', (t) => {
  const r = sim(
    2,
    `const { Worker } = require('node:worker_threads');
     const id = cuda.nccl.getUniqueId();
     const code = \`
       const { parentPort, workerData } = require('node:worker_threads');
       const cuda = require(workerData.root);
       const r = workerData.rank;
       new cuda.Device(r).use();
       cuda.nccl.NcclCommunicator.init(2, Buffer.from(workerData.id), r).then((c) => {
         const p = cuda.alloc(8);
         cuda.kernels.fill(p, r + 5, 2, 'float32');
         c.allReduce(p, p, 2, 'float32', 'prod');
         const a = new Float32Array(2); p.copyToHost(a);
         c.destroy();
         parentPort.postMessage([...a]);
       });\`;
     const runs = [0, 1].map((rank) => new Promise((res, rej) => {
       const w = new Worker(code, { eval: true, workerData: { root: ${JSON.stringify(path.join(__dirname, '..'))}, rank, id } });
       w.once('message', res); w.once('error', rej);
     }));
     Promise.all(runs).then((v) => console.log(JSON.stringify(v)))`,
  )
  t.deepEqual(r, [[30, 30], [30, 30]])
})

test('ranks as separate processes get the id over process.send (examples/nccl-processes.ts)', (t) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'examples', 'nccl-processes.ts'), '3'], {
    env: { ...process.env, CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '3' },
    encoding: 'utf8',
    timeout: 60_000,
  })
  t.is(r.status, 0, r.stderr)
  for (let i = 0; i < 3; i++) t.regex(r.stdout, new RegExp(`rank ${i} of 3: all-reduced sum 6, 6, 6, 6`))
  t.regex(r.stdout, /3 processes agreed/)
})

test('a rank whose process exits fails the others with NCCL_ERROR_REMOTE_ERROR instead of hanging them (simulator)', (t) => {
  const r = sim(
    2,
    `const { Device, alloc, nccl } = cuda;
     const { spawn } = require('node:child_process');
     const id = nccl.getUniqueId();
     const child = spawn(process.execPath, ['-e', \`
       const cuda = require(${JSON.stringify(path.join(__dirname, '..'))});
       process.once('message', (id) => { new cuda.Device(1).use();
         cuda.nccl.NcclCommunicator.init(2, Buffer.from(id, 'base64'), 1).then(() => process.exit(0)) })\`], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
     child.send(id.toString('base64'));
     nccl.NcclCommunicator.init(2, id, 0).then((c) => new Promise((res) => child.once('exit', () => res(c)))).then((c) => {
       const p = alloc(8);
       c.allReduce(p, p, 2, 'float32', 'sum');
       Device.current().synchronize();
       try { c.checkAsyncError(); console.log(JSON.stringify('no error')) } catch (e) { console.log(JSON.stringify(e.code)) }
     })`,
  )
  t.is(r, 'NCCL_ERROR_REMOTE_ERROR')
})

if (onGpu) {
  test('on the GPU: two processes on one GPU, as NCCL allows it or refuses it', (t) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'examples', 'nccl-processes.ts'), '2'], {
      env: { ...process.env, CUDA_NODE_BACKEND: 'cuda' },
      encoding: 'utf8',
      timeout: 60_000,
    })
    t.log(`status ${r.status}: ${r.stdout.trim()} ${r.stderr.trim()}`.slice(0, 600))
    if (r.status === 0) t.regex(r.stdout, /2 processes agreed/)
    else t.regex(r.stderr, /NCCL_ERROR_\w+/)
  })
}

everywhere('initAll refuses a count past the devices here before building anything (the fuzzer: 2**32 - 1 aborted the process)', (t) => {
  for (const n of [0, -1, 2 ** 32 - 1, Device.count() + 1]) {
    t.throws(() => NcclCommunicator.initAll(n), { instanceOf: RangeError, message: /initAll takes a count/ }, String(n))
  }
  // An array as long, even an empty (sparse) one, is refused by its length, not walked (it hung).
  const sparse: number[] = []
  sparse.length = 2 ** 32 - 1
  for (const list of [sparse, [], Array.from({ length: Device.count() + 1 }, () => 0)]) {
    t.throws(() => NcclCommunicator.initAll(list), { instanceOf: RangeError, message: /initAll takes 1 to/ })
  }
})

test('joining no communicators at all is refused in the core, before NCCL is asked (the GPU fuzz: initAll(-1) once reached ncclCommInitAll with 0 devices, then the process crashed)', (t) => {
  // The TS layer refuses an empty list (above); the raw call is the path that still reached NCCL.
  t.throws(() => native.ncclCommJoinAll(new Float64Array(0)), { code: 'NCCL_ERROR_INVALID_ARGUMENT', message: /at least one communicator/ })
})

wasmTest('NCCL is CUDA_ERROR_NOT_SUPPORTED on WebAssembly, each call a typed error', async (t) => {
  const refused = { code: 'CUDA_ERROR_NOT_SUPPORTED', message: /NCCL is not available in the WebAssembly build/ }
  t.throws(() => nccl.getVersion(), refused)
  t.throws(() => nccl.getUniqueId(), refused)
  t.throws(() => nccl.groupStart(), refused)
  t.throws(() => NcclCommunicator.initAll(1), refused)
  await t.throwsAsync(NcclCommunicator.init(1, Buffer.alloc(128), 0), refused)
  // Its arguments are checked first, as natively.
  await t.throwsAsync(NcclCommunicator.init(1, Buffer.alloc(4), 0), { code: 'NCCL_ERROR_INVALID_ARGUMENT' })
})
