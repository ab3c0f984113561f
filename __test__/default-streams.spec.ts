// The default streams as the addon keeps them: fixed entries of each JS thread's stream table,
// under handles its rule gives (`constants.stream`), made at first use and never destroyed.
import test from 'ava'
import { alloc, CudaError, Device, Stream } from '..'
import { constants, native } from '../lib/native'
import { root, runJson, simOnly } from './helpers'

const { legacy, perThread, perDevice } = constants.stream

test("constants.stream: two codes below perDevice, and device d's default streams are code + d · perDevice", (t) => {
  t.true(Number.isInteger(legacy) && Number.isInteger(perThread) && Number.isInteger(perDevice))
  t.not(legacy, perThread)
  t.true(legacy >= 0 && legacy < perDevice && perThread >= 0 && perThread < perDevice)
  for (let d = 0; d < Device.count(); d++) {
    const l = native.streamInfo(legacy + d * perDevice)
    const p = native.streamInfo(perThread + d * perDevice)
    t.deepEqual([l.handle, l.device], [0n, d])
    t.deepEqual([p.handle, p.device], [2n, d])
  }
  t.is(Stream.null.handle, 0n)
  t.is(Stream.ptds.handle, 2n)
  t.is(String(Stream.null), '<Stream null>')
  t.is(String(Stream.ptds), '<Stream ptds>')
})

test('no created stream is given a default stream handle', (t) => {
  const made = Array.from({ length: 8 }, () => native.streamCreate(0, false))
  for (const h of made) t.true(h >= perDevice * Device.count(), `${h}`)
  for (const h of made) native.streamDestroy(h)
})

test('a default stream cannot be destroyed, by the class or by its handle, and works after; a handle past the last device names nothing', (t) => {
  for (const s of [Stream.null, Stream.ptds]) {
    const e = t.throws(() => s.destroy(), { instanceOf: CudaError })
    t.is((e as CudaError).code, 'CUDA_ERROR_INVALID_HANDLE')
  }
  for (const h of [legacy, perThread]) {
    const e = t.throws(() => native.streamDestroy(h), { instanceOf: CudaError })
    t.regex(e!.message, /default streams cannot be destroyed/)
  }
  const p = alloc(64)
  p.memset(5, 64)
  Stream.null.synchronize()
  Stream.ptds.synchronize()
  const out = new Uint8Array(64)
  p.copyToHost(out)
  t.is(out[63], 5)
  const past = perDevice * Device.count()
  for (const h of [past, past + perThread]) {
    const e = t.throws(() => native.streamSynchronize(h), { instanceOf: CudaError })
    t.is((e as CudaError).code, 'CUDA_ERROR_INVALID_HANDLE')
  }
  t.throws(() => native.streamSynchronize(legacy + 0.5), { instanceOf: CudaError })
})

simOnly('two simulated devices: each has its own default streams, and Stream.null is the current device’s')('each device has its own default streams, under its own handles (two simulated devices)', (t) => {
  const r = runJson(
    `
    const { native, constants } = require(${JSON.stringify(root)} + '/lib/native');
    const { legacy, perThread, perDevice } = constants.stream;
    const seen = [];
    for (const d of [0, 1]) {
      new cuda.Device(d).use();
      const p = cuda.alloc(16);
      cuda.kernels.fill(p, d + 1, 4, 'float32');
      const out = new Float32Array(4);
      p.copyToHost(out);
      seen.push({ d, id: cuda.Stream.null.deviceId, ptds: cuda.Stream.ptds.deviceId, value: out[3],
        legacy: native.streamInfo(legacy + d * perDevice).device, perThread: native.streamInfo(perThread + d * perDevice).device });
    }
    console.log(JSON.stringify(seen));
  `,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.deepEqual(r, [
    { d: 0, id: 0, ptds: 0, value: 1, legacy: 0, perThread: 0 },
    { d: 1, id: 1, ptds: 1, value: 2, legacy: 1, perThread: 1 },
  ])
})

test("a worker's default streams are its own thread's table's: work on them runs there, while the main thread's run too", (t) => {
  const r = runJson(`
    const { Worker } = require('node:worker_threads');
    const src = \`
      const { parentPort, workerData } = require('node:worker_threads');
      const cuda = require(workerData.root);
      const p = cuda.alloc(64);
      cuda.kernels.fill(p, 7, 16, 'float32');
      cuda.kernels.fill(p, 9, 8, 'float32', cuda.Stream.ptds);
      cuda.Stream.ptds.synchronize();
      const out = new Float32Array(16);
      p.copyToHost(out);
      let refused = false;
      try { cuda.Stream.null.destroy() } catch (e) { refused = e instanceof cuda.CudaError }
      parentPort.postMessage({ first: out[0], last: out[15], refused, nul: String(cuda.Stream.null), ptds: cuda.Stream.ptds.handle === 2n });
    \`;
    const p = cuda.alloc(64);
    cuda.kernels.fill(p, 3, 16, 'float32');
    const worker = new Worker(src, { eval: true, workerData: { root: ${JSON.stringify(root)} } });
    worker.once('message', async (m) => {
      await worker.terminate();
      // The main thread's default streams are untouched by the worker's going.
      cuda.kernels.fill(p, 4, 8, 'float32', cuda.Stream.ptds);
      cuda.Stream.ptds.synchronize();
      const out = new Float32Array(16);
      p.copyToHost(out);
      console.log(JSON.stringify({ worker: m, main: [out[0], out[15]] }));
    });
    worker.once('error', (e) => { console.error(e); process.exit(1) });
  `)
  t.deepEqual(r, { worker: { first: 9, last: 7, refused: true, nul: '<Stream null>', ptds: true }, main: [4, 3] })
})
