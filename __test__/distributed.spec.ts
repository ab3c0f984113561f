import test from 'ava'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { Device, nccl, NcclCommunicator, TcpStore, TcpStoreServer } from '..'
import { nativeTest, onGpu, root, runJson } from './helpers'
import { freePort, launch, type Launched, script } from './launch-helpers'

// Ranks under `cuda-node run` on the simulator (or the GPUs, when the suite runs on them).
const backendEnv = { CUDA_NODE_BACKEND: onGpu ? 'cuda' : 'sim' }
/** On the simulator, `k` devices a node: the suite may run with CUDA_NODE_SIM_DEVICES set (CI's 2- and 4-device runs), which the launcher passes on. */
const simDevices = (k: number): Record<string, string> => (onGpu ? {} : { CUDA_NODE_SIM_DEVICES: String(k) })
const native = nativeTest('the ranks need threads and sockets, which the WebAssembly build has not')

/**
 * A rank that joins through the launcher's store and all-reduces RANK + 1; with `check`, one whose
 * all-reduce failed says so (its async error, exit code 1) instead of printing its sum.
 */
const allReduceRank = (extra = '', check = true): string =>
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
      ${check ? 'comm.checkAsyncError()' : ''}
      console.log('sum ' + out[0] + ' on device ' + comm.deviceId + ' rank ' + comm.rankId + ' of ' + comm.size)
      comm.destroy()
    })().catch((e) => { console.error(e.code + ': ' + e.message); process.exit(1) })`,
  )

native('one launcher, three ranks: initProcessGroup from the environment, then an all-reduce', async (t) => {
  const n = onGpu ? Math.min(Device.count(), 4) : 3
  if (n < 2) return t.pass('one GPU: nothing to reduce across')
  const r = await launch(['--nproc-per-node', String(n), '--node-arg=--import=tsx', allReduceRank()], { env: { ...backendEnv, ...simDevices(n) }, timeout: 120_000 })
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
    launch([...common, '--node-rank', '0', script], { env: { ...backendEnv, ...simDevices(per), ...half(0) }, timeout: 120_000 }),
    launch([...common, '--node-rank', '1', script], { env: { ...backendEnv, ...simDevices(per), ...half(1) }, timeout: 120_000 }),
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
  // The others do not check their async error: the first failure the launcher sees is rank 1's.
  const s = allReduceRank(`if (process.env.RANK === '1') { await new Promise((r) => setTimeout(r, 500)); process.kill(process.pid, 'SIGKILL') }`, false)
  const r = await launch(['--nproc-per-node', String(n), '--stop-timeout', '3', '--node-arg=--import=tsx', s], {
    env: { ...backendEnv, ...simDevices(n) },
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

// NCCL at nccl4py's level: split, allToAll, non-blocking init with a config, abort.
const ncclEnv = onGpu ? {} : { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '4' }

native('split groups the ranks by color, orders them by key, and each child reduces on its own', (t) => {
  const out = runJson(
    `(async () => {
      const n = Math.min(cuda.Device.count(), 4)
      if (n < 4) return console.log(JSON.stringify({ skip: 'needs 4 devices' }))
      const comms = cuda.nccl.NcclCommunicator.initAll(n)
      // Even ranks color 0, odd color 1, rank 3 none; key = -rank reverses the order.
      const kids = await Promise.all(comms.map((c, i) => c.split(i === 3 ? null : i % 2, -i)))
      const places = kids.map((k) => (k === null ? null : [k.rankId, k.size]))
      const bufs = kids.map((k, i) => {
        if (k === null) return null
        new cuda.Device(i).use()
        const b = cuda.alloc(4)
        cuda.kernels.fill(b, i + 1, 1, 'float32')
        return b
      })
      cuda.nccl.groupStart()
      kids.forEach((k, i) => k && k.allReduce(bufs[i], bufs[i], 1, 'float32', 'sum'))
      cuda.nccl.groupEnd()
      const sums = bufs.map((b, i) => {
        if (b === null) return null
        new cuda.Device(i).use()
        const o = new Float32Array(1)
        b.copyToHost(o)
        return o[0]
      })
      console.log(JSON.stringify({ places, sums }))
    })().catch((e) => console.log(JSON.stringify({ error: e.code + ': ' + e.message })))`,
    ncclEnv,
  )
  if (out.skip) return t.pass(out.skip)
  if (onGpu && /needs NCCL 2\.18/.test(out.error ?? '')) return t.pass(out.error)
  t.deepEqual(out.places, [[1, 2], [0, 1], [0, 2], null], JSON.stringify(out))
  t.deepEqual(out.sums, [4, 2, 4, null])
})

native('allToAll gives rank i the i-th part of every rank\'s buffer', (t) => {
  const out = runJson(
    `const n = Math.min(cuda.Device.count(), 4)
    const comms = cuda.nccl.NcclCommunicator.initAll(n)
    const bufs = comms.map((c, r) => {
      new cuda.Device(r).use()
      const send = cuda.alloc(4 * n), recv = cuda.alloc(4 * n)
      send.copyFromHost(Float32Array.from({ length: n }, (_, i) => 10 * r + i))
      return [send, recv]
    })
    cuda.nccl.groupStart()
    comms.forEach((c, r) => c.allToAll(bufs[r][0], bufs[r][1], 1, 'float32'))
    cuda.nccl.groupEnd()
    console.log(JSON.stringify(bufs.map(([, recv], r) => { new cuda.Device(r).use(); const o = new Float32Array(n); recv.copyToHost(o); return [...o] })))`,
    ncclEnv,
  )
  const n = out.length
  out.forEach((got: number[], r: number) => t.deepEqual(got, Array.from({ length: n }, (_, i) => 10 * i + r)))
})

native('a non-blocking init waiting for a rank that never comes is stopped by its AbortSignal with a typed error', (t) => {
  const out = runJson(
    `(async () => {
      const id = cuda.nccl.getUniqueId()
      const ac = new AbortController()
      setTimeout(() => ac.abort(), 200)
      const t0 = Date.now()
      try {
        await cuda.nccl.NcclCommunicator.init(2, id, 0, { config: { blocking: false }, signal: ac.signal })
        console.log(JSON.stringify({ joined: true }))
      } catch (e) {
        console.log(JSON.stringify({ code: e.code, message: e.message, ms: Date.now() - t0 }))
      }
      process.exit(0)
    })()`,
    ncclEnv,
  )
  t.is(out.code, 'NCCL_ERROR_INVALID_USAGE', JSON.stringify(out))
  t.regex(out.message, /aborted/)
  t.true(out.ms < 10_000)
})

test('bad configs, colors and keys are TypeError or RangeError before NCCL sees them', async (t) => {
  const id = Buffer.alloc(128)
  await t.throwsAsync(NcclCommunicator.init(1, id, 0, { config: { minCTAs: -1 } }), { instanceOf: RangeError })
  await t.throwsAsync(NcclCommunicator.init(1, id, 0, { config: { blocking: 'no' as any } }), { instanceOf: TypeError })
  await t.throwsAsync(NcclCommunicator.init(1, id, 0, { config: { netName: 5 as any } }), { instanceOf: TypeError })
  await t.throwsAsync(NcclCommunicator.init(1, id, 0, { signal: {} as any }), { instanceOf: TypeError })
  await t.throwsAsync(NcclCommunicator.init(1, id, 0, { config: { minCTAs: 8, maxCTAs: 2 } }), { instanceOf: RangeError })
})

native('ncclMemAlloc is an allocator, and buffers register and deregister once', (t) => {
  const out = runJson(
    `(async () => {
      const comm = await cuda.nccl.NcclCommunicator.init(1, cuda.nccl.getUniqueId(), 0)
      const p = cuda.usingAllocator(cuda.nccl.memAlloc, () => cuda.alloc(1024))
      cuda.kernels.fill(p, 2, 256, 'float32')
      comm.allReduce(p, p, 256, 'float32', 'sum')
      const o = new Float32Array(1); p.copyToHost(o)
      const h = comm.register(p, 1024)
      let twice = ''
      comm.deregister(h)
      try { comm.deregister(h) } catch (e) { twice = e.code }
      let past = ''
      try { comm.register(p, 2048) } catch (e) { past = e.name }
      console.log(JSON.stringify({ value: o[0], handle: typeof h, twice, past }))
      comm.destroy()
    })().catch((e) => console.log(JSON.stringify({ error: e.code + ': ' + e.message })))`,
    ncclEnv,
  )
  if (onGpu && /needs NCCL 2\.19/.test(out.error ?? '')) return t.pass(out.error)
  t.deepEqual(out, { value: 2, handle: 'bigint', twice: 'NCCL_ERROR_INVALID_ARGUMENT', past: 'RangeError' })
})

native('without a launcher, rank 0 hosts the store at MASTER_ADDR:MASTER_PORT and the ranks meet there', async (t) => {
  const port = await freePort()
  const s = allReduceRank()
  const rank = (r: number): Promise<Launched> =>
    new Promise((resolve) => {
      const started = Date.now()
      const child = spawn(process.execPath, ['--import', 'tsx', s], {
        env: { ...process.env, ...backendEnv, ...(onGpu ? {} : { CUDA_NODE_SIM_DEVICES: '2' }), RANK: String(r), WORLD_SIZE: '2', LOCAL_RANK: String(r), MASTER_ADDR: '127.0.0.1', MASTER_PORT: String(port), CUDA_NODE_STORE_TOKEN: 'by-hand' },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
      child.on('close', (status, signal) => {
        clearTimeout(timer)
        resolve({ status, signal, stdout, stderr, ms: Date.now() - started })
      })
    })
  if (onGpu && Device.count() < 2) return t.pass('needs 2 GPUs')
  const [a, b] = await Promise.all([rank(0), rank(1)])
  t.is(a.status, 0, a.stderr)
  t.is(b.status, 0, b.stderr)
  t.regex(a.stdout, /sum 3 on device 0 rank 0 of 2/)
  t.regex(b.stdout, /sum 3 on device 1 rank 1 of 2/)
})
