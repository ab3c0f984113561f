import test from 'ava'
import { runNode } from './helpers'

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
