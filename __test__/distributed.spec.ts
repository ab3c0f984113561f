import test from 'ava'
import path from 'node:path'
import { Device, nccl, NcclCommunicator, TcpStore, TcpStoreServer } from '..'
import { onGpu, onWasm, root, runJson } from './helpers'
import { freePort, launch, script } from './launch-helpers'

// Ranks under `cuda-node run` on the simulator (or the GPUs, when the suite runs on them).
const backendEnv = { CUDA_NODE_BACKEND: onGpu ? 'cuda' : 'sim' }
const native = onWasm ? test.skip : test

/** A rank that joins through the launcher's store and all-reduces RANK + 1. */
const allReduceRank = (extra = ''): string =>
  script(
    'rank.js',
    `const cuda = require(${JSON.stringify(path.join(root, 'index.ts'))})
    ;(async () => {
      const comm = await cuda.nccl.initProcessGroup({ timeout: 60000 })
      const buf = cuda.alloc(16)
      cuda.kernels.fill(buf, Number(process.env.RANK) + 1, 4, 'float32')
      ${extra}
      comm.allReduce(buf, buf, 4, 'float32', 'sum')
      const out = new Float32Array(4)
      buf.copyToHost(out)
      console.log('sum ' + out[0] + ' on device ' + comm.deviceId + ' rank ' + comm.rankId + ' of ' + comm.size)
      comm.destroy()
    })().catch((e) => { console.error(e.code + ': ' + e.message); process.exit(1) })`,
  )

native('one launcher, three ranks: initProcessGroup from the environment, then an all-reduce', async (t) => {
  const n = onGpu ? Math.min(Device.count(), 4) : 3
  if (n < 2) return t.pass('one GPU: nothing to reduce across')
  const r = await launch(['--nproc-per-node', String(n), '--node-arg=--import=tsx', allReduceRank()], { env: backendEnv, timeout: 120_000 })
  t.is(r.status, 0, r.stderr)
  const want = (n * (n + 1)) / 2
  for (let rank = 0; rank < n; rank++) t.regex(r.stdout, new RegExp(`\\[rank ${rank}\\] sum ${want} on device ${rank} rank ${rank} of ${n}`))
})

native('two launchers on one machine (--nnodes 2) meet through the store; device 1 of each node is its own GPU', async (t) => {
  const per = onGpu ? Math.floor(Device.count() / 2) : 2
  if (per < 1) return t.pass('needs 2 GPUs')
  const port = await freePort()
  const script = allReduceRank()
  const common = ['--nnodes', '2', '--nproc-per-node', String(per), '--rdzv-endpoint', `127.0.0.1:${port}`, '--token', 'two-nodes', '--rdzv-timeout', '60', '--node-arg=--import=tsx']
  // On GPUs, each node sees its half of the devices, as two hosts would.
  const half = (i: number): Record<string, string> => (onGpu ? { CUDA_VISIBLE_DEVICES: Array.from({ length: per }, (_, k) => String(i * per + k)).join(',') } : {})
  const [a, b] = await Promise.all([
    launch([...common, '--node-rank', '0', script], { env: { ...backendEnv, ...half(0) }, timeout: 120_000 }),
    launch([...common, '--node-rank', '1', script], { env: { ...backendEnv, ...half(1) }, timeout: 120_000 }),
  ])
  t.is(a.status, 0, a.stderr)
  t.is(b.status, 0, b.stderr)
  const world = 2 * per
  const want = (world * (world + 1)) / 2
  for (let rank = 0; rank < world; rank++) {
    const out = rank < per ? a.stdout : b.stdout
    t.regex(out, new RegExp(`\\[rank ${rank}\\] sum ${want} on device ${rank % per} rank ${rank} of ${world}`))
  }
})

native('a rank killed in the middle of a collective: the launcher stops the group and exits within 3 s + its grace', async (t) => {
  const n = onGpu ? Math.min(Device.count(), 4) : 3
  if (n < 2) return t.pass('needs 2 GPUs')
  // Rank 1 dies instead of joining the all-reduce the others are in; on GPUs the others would wait forever.
  const s = allReduceRank(`if (process.env.RANK === '1') { await new Promise((r) => setTimeout(r, 500)); process.kill(process.pid, 'SIGKILL') }`)
  const r = await launch(['--nproc-per-node', String(n), '--stop-timeout', '3', '--node-arg=--import=tsx', s], {
    env: backendEnv,
    timeout: 120_000,
  })
  t.is(r.status, 1, r.stderr)
  t.regex(r.stderr, /rank 1 \(node 0, local rank 1\) failed: killed by SIGKILL/)
  const ms = Number(/stopped (\d+) ms after the failure/.exec(r.stderr)?.[1])
  t.log(`the group stopped ${ms} ms after the failure`)
  // SIGTERM at once, SIGKILL at 3 s: the last survivor is gone by then (a margin for a loaded machine).
  t.true(ms <= 3000 + 2000, r.stderr)
})

native('a rank failing on one node stops the other node too', async (t) => {
  const port = await freePort()
  const s = script('fail-node1.js', `if (process.env.GROUP_RANK === '1') setTimeout(() => process.exit(5), 500); else setInterval(() => {}, 1000)`)
  const common = ['--nnodes', '2', '--rdzv-endpoint', `127.0.0.1:${port}`, '--token', 't', '--rdzv-timeout', '60', s]
  const [a, b] = await Promise.all([
    launch(['--node-rank', '0', ...common], { env: backendEnv, timeout: 60_000 }),
    launch(['--node-rank', '1', ...common], { env: backendEnv, timeout: 60_000 }),
  ])
  t.is(b.status, 1, b.stderr)
  t.regex(b.stderr, /rank 1 \(node 1, local rank 0\) failed: exit code 5/)
  t.is(a.status, 1, a.stderr)
  t.regex(a.stderr, /another node failed: rank 1 \(node 1, local rank 0\) failed: exit code 5/)
})

native('fromStore: rank 0 publishes the id, the others wait for it (two ranks in one process)', (t) => {
  if (onGpu && Device.count() < 2) return t.pass('needs 2 GPUs')
  const out = runJson(
    `(async () => {
      const server = await cuda.TcpStoreServer.listen({ token: 'in-process', log: () => {} })
      const stores = await Promise.all([0, 1].map(() => cuda.TcpStore.connect({ port: server.port, token: 'in-process', timeout: 30000 })))
      const comms = await Promise.all([1, 0].map(async (rank) => {
        new cuda.Device(rank).use()
        return cuda.NcclCommunicator.fromStore(stores[rank], { rank, size: 2 })
      }))
      const bufs = comms.map((c) => { new cuda.Device(c.deviceId).use(); const b = cuda.alloc(8); cuda.kernels.fill(b, c.rankId + 1, 2, 'float32'); return b })
      cuda.nccl.groupStart()
      comms.forEach((c, i) => c.allReduce(bufs[i], bufs[i], 2, 'float32', 'sum'))
      cuda.nccl.groupEnd()
      new cuda.Device(comms[0].deviceId).use()
      const out = new Float32Array(2)
      bufs[0].copyToHost(out)
      console.log(JSON.stringify({ ranks: comms.map((c) => [c.rankId, c.deviceId]), sum: [...out] }))
      comms.forEach((c) => c.destroy()); stores.forEach((s) => s.close()); await server.close()
    })()`,
    onGpu ? {} : { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.deepEqual(out.ranks, [[1, 1], [0, 0]])
  t.deepEqual(out.sum, [3, 3])
})

test('fromStore and initProcessGroup check their arguments', async (t) => {
  await t.throwsAsync(NcclCommunicator.fromStore({} as any, { rank: 0, size: 1 }), { instanceOf: TypeError })
  const server = await TcpStoreServer.listen({ token: 'x', log: () => {} })
  t.teardown(() => server.close())
  const store = await TcpStore.connect({ port: server.port, token: 'x', timeout: 5000 })
  t.teardown(() => store.close())
  await t.throwsAsync(NcclCommunicator.fromStore(store, { rank: 2, size: 2 }), { instanceOf: RangeError })
  await t.throwsAsync(NcclCommunicator.fromStore(store, { rank: 0, size: 0 }), { instanceOf: RangeError })
  const saved = { RANK: process.env.RANK, token: process.env.CUDA_NODE_STORE_TOKEN }
  delete process.env.RANK
  await t.throwsAsync(nccl.initProcessGroup(), { instanceOf: RangeError, message: /cuda-node run/ })
  if (saved.RANK !== undefined) process.env.RANK = saved.RANK
})

test('a rank waiting for an id nobody publishes gets a typed timeout', async (t) => {
  const server = await TcpStoreServer.listen({ token: 'x', log: () => {} })
  t.teardown(() => server.close())
  const store = await TcpStore.connect({ port: server.port, token: 'x', timeout: 10_000 })
  t.teardown(() => store.close())
  const e = await t.throwsAsync(NcclCommunicator.fromStore(store, { rank: 1, size: 2, timeout: 300 }))
  t.is((e as any).code, 'STORE_TIMEOUT')
})
