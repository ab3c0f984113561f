import test from 'ava'
import { nativeTest, runNode } from './helpers'

test('the addon loads in several workers at once, each with its own current stream', (t) => {
  const r = runNode(`
    const { Worker } = require('node:worker_threads');
    const src = \`
      const { parentPort, workerData } = require('node:worker_threads');
      const cuda = require(workerData.root);
      const s = new cuda.Stream({ nonBlocking: true });
      s.use();
      const p = cuda.alloc(4 * 1024);
      cuda.kernels.fill(p, workerData.id, 1024, 'float32');
      const out = new Float32Array(1024);
      p.copyToHost(out);
      s.launchHostFunc(() => parentPort.postMessage({ id: workerData.id, mine: cuda.getCurrentStream() === s, value: out[1023] }));
    \`;
    const root = ${JSON.stringify(require('node:path').join(__dirname, '..'))};
    Promise.all([1, 2, 3, 4].map((id) => new Promise((resolve, reject) => {
      const w = new Worker(src, { eval: true, workerData: { id, root } });
      w.once('message', (m) => { resolve(m); w.terminate(); });
      w.once('error', reject);
    }))).then((all) => {
      const main = cuda.getCurrentStream() === cuda.Stream.null;
      console.log(JSON.stringify({ all, main }));
    });
  `)
  t.is(r.status, 0, r.stderr)
  const { all, main } = JSON.parse(r.stdout.trim())
  t.true(main)
  t.deepEqual(all.map((m: any) => [m.id, m.mine, m.value]), [[1, true, 1], [2, true, 2], [3, true, 3], [4, true, 4]])
})

test('terminating a worker with work in flight does not crash the process', (t) => {
  const r = runNode(`
    const { Worker } = require('node:worker_threads');
    const root = ${JSON.stringify(require('node:path').join(__dirname, '..'))};
    const src = \`
      const { parentPort, workerData } = require('node:worker_threads');
      const cuda = require(workerData.root);
      const s = new cuda.Stream();
      cuda.kernels.sleep(300e6, s);
      s.launchHostFunc(() => {});
      const g = s.capture(() => cuda.kernels.sleep(1000));
      g.launch(s);
      s.synchronizeAsync();
      parentPort.postMessage('busy');
    \`;
    const w = new Worker(src, { eval: true, workerData: { root } });
    w.once('message', async () => {
      await w.terminate();
      const p = cuda.alloc(64); p.memset(1, 64);
      const out = new Uint8Array(64); p.copyToHost(out);
      console.log('survived', out[63]);
    });
  `)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'survived 1')
})

/**
 * Runs `steps` (a worker's body, with `cuda`, `s` and `post` in scope) in `rounds` workers in a
 * child, each terminated at a different moment while its work is queued; then the main thread uses
 * the device. The child prints `survived <value read back>`.
 */
function terminateWhileQueued(steps: string, rounds = 12) {
  const root = JSON.stringify(require('node:path').join(__dirname, '..'))
  return runNode(`
    const { Worker } = require('node:worker_threads');
    const src = \`
      const { parentPort, workerData } = require('node:worker_threads');
      const cuda = require(workerData.root);
      const s = new cuda.Stream();
      const post = (m) => parentPort.postMessage(m);
      cuda.kernels.sleep(workerData.sleep, s);
      ${steps.replace(/`/g, '\\`')}
      post('queued');
      setInterval(() => {}, 1000);
    \`;
    (async () => {
      for (let i = 0; i < ${rounds}; i++) {
        const w = new Worker(src, { eval: true, workerData: { root: ${root}, sleep: 2e6 * (i % 4) } });
        // Terminated as soon as it is made, once it queued, or a while after.
        if (i % 3 > 0) await new Promise((r) => w.once('message', r));
        if (i % 3 === 2) await new Promise((r) => setTimeout(r, i));
        await w.terminate();
      }
      const p = cuda.alloc(64); p.memset(7, 64);
      const out = new Uint8Array(64); p.copyToHost(out);
      cuda.Stream.null.synchronize();
      await cuda.Device.current().synchronizeAsync();
      console.log('survived', out[63]);
    })();
  `)
}

/**
 * Runs `moves` (statements that await `h.terminated(plan)`, the fuzzer's worker move, with `h` its
 * helpers) in a child on two simulated devices, then settles; the child prints `survived` or what
 * broke the fuzzer's rules.
 */
function fuzzWorkerMoves(moves: string) {
  return runNode(
    `const h = require(${JSON.stringify(require('node:path').join(__dirname, '..', 'fuzz', 'helpers.js'))});
    (async () => {
      ${moves}
      await h.settle();
      const bad = h.take();
      console.log(bad.length === 0 ? 'survived' : bad.join('\\n'));
    })();`,
    { CUDA_NODE_SIM_DEVICES: '2' },
    ['--expose-gc'],
  )
}

test('terminating a worker whose graph, holding a captured host function, is queued behind a sleep: no crash (#20)', (t) => {
  const r = terminateWhileQueued(`
    const g = s.capture(() => { cuda.kernels.sleep(1000); s.launchHostFunc(() => post('ran')) });
    g.launch(s); g.launch(s);
    const h = s.capture(() => s.launchHostFunc(() => {}));
    h.launch(s); h.destroy();
    s.launchHostFunc(() => {});
    s.addCallback(() => {});`)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'survived 7')
})

test('terminating a worker with copies queued into its registered buffer: they run before its JS heap goes (#20: the heap was corrupted)', (t) => {
  // The fuzzer's worker move (fuzz/worker.js), as it found it: a copy into bytes registerHost
  // page-locked in a worker, terminated at each moment, on each device (two simulated ones here).
  const r = fuzzWorkerMoves(`
    for (let round = 0; round < 4; round++)
      for (const steps of [['registered'], ['sleep', 'registered', 'pinnedFreed', 'registered']])
        for (let at = 0; at <= steps.length + 2; at++)
          for (const device of [0, 1]) await h.terminated({ steps, at, wait: round % 2, device, sleepNs: 1e6 });`)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'survived')
})

test('terminating a worker whose registered buffer the GC already took, with a copy into it still queued: the copy runs before the heap goes (#20: the heap was corrupted at exit)', (t) => {
  const r = fuzzWorkerMoves(`
    for (let round = 0; round < 12; round++)
      await h.terminated({ steps: ['sleep', 'registered', 'gc'], at: 5, wait: round % 2, device: round % 2, sleepNs: 20e6 });`)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'survived')
})

test('terminating a worker inside its async capture leaves no capture counted: the legacy stream works after (#20)', (t) => {
  const r = terminateWhileQueued(`
    s.capture(async () => { cuda.kernels.sleep(1000, s); await new Promise((r) => setTimeout(r, 1000)) });`)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'survived 7')
})

nativeTest('registerHost is native only (the WebAssembly build sees copies of JS bytes)')('terminating a worker inside its async capture, which copied into its registered buffer and recorded an event: the worker ends (#20: it waited forever for the captured copy)', (t) => {
  // The captured copy never runs; what the capture kept (and the event recorded in it, which
  // holds the simulator's capture) must go before the worker waits for its registered bytes.
  const r = terminateWhileQueued(
    `
    const bytes = new Uint8Array(4096);
    const reg = cuda.registerHost(bytes);
    const d = cuda.alloc(4096);
    s.capture(async () => { d.copyToHostAsync(bytes, 4096, s); s.record(); await new Promise((r) => setTimeout(r, 1000)) });`,
    6,
  )
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'survived 7')
})

test('terminating a worker with a simulated kernel queued behind a sleep: its stream goes on (#20)', (t) => {
  const r = terminateWhileQueued(`
    const d = cuda.alloc(128);
    const k = new cuda.RawKernel('extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }', 'k', { simulate: () => {} });
    k.launch([1], [32], [d], { stream: s });
    d.memsetAsync(1, 128, s);`)
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'survived 7')
})
