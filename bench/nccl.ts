// `npm run bench:nccl`: all-reduce bus bandwidth over every device of this process (one
// communicator per device, initAll, driven in a group), 1 MiB to 1 GiB of float32, as nccl-tests
// defines it: algbw = bytes / time, busbw = algbw × 2(n − 1) / n. Beside it, the same in PyTorch
// (bench/peers/nccl.py: torch.distributed's all_reduce through NCCL, one process per device), in
// the same run. Needs two or more devices; NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { alloc, backend, Device, kernels, nccl, NcclCommunicator, Stream, type MemoryPointer } from './package'

process.env.NCCL_NVLS_ENABLE = '0'
// The simulator's ranks reduce on the host: small sizes only there (its figures prove the bench runs, no more).
const SIZES = backend().name === 'sim' ? [1 << 20, 4 << 20] : [1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30]

function ours(n: number): Map<number, number> {
  const comms = NcclCommunicator.initAll(n)
  const streams = comms.map((c) => c.device.run(() => new Stream({ nonBlocking: true })))
  const out = new Map<number, number>()
  for (const bytes of SIZES) {
    const count = bytes / 4
    const bufs: MemoryPointer[] = comms.map((c) => c.device.run(() => alloc(bytes)))
    comms.forEach((c, i) => c.device.run(() => kernels.fill(bufs[i], 1, count, 'float32', streams[i])))
    const once = (): void => {
      nccl.groupStart()
      comms.forEach((c, i) => c.allReduce(bufs[i], bufs[i], count, 'float32', 'sum', streams[i]))
      nccl.groupEnd()
    }
    for (let i = 0; i < 5; i++) once()
    streams.forEach((s) => s.synchronize())
    const iters = backend().name === 'sim' ? 3 : bytes >= 256 << 20 ? 10 : 40
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < iters; i++) once()
    streams.forEach((s) => s.synchronize())
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9 / iters
    out.set(bytes, ((bytes / seconds) * (2 * (n - 1))) / n / 1e9)
    bufs.forEach((b) => b.free())
  }
  comms.forEach((c) => c.destroy())
  return out
}

function torch(n: number): Map<number, number> {
  const r = spawnSync('python3', [path.join(__dirname, 'peers', 'nccl.py'), String(n), ...SIZES.map(String)], {
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, NCCL_NVLS_ENABLE: '0' },
  })
  const out = new Map<number, number>()
  for (const line of r.stdout.split('\n').filter((l) => l.startsWith('{'))) {
    const { bytes, busbw } = JSON.parse(line)
    out.set(bytes, busbw)
  }
  if (out.size === 0) console.log(`PyTorch: not measured (${r.stderr.trim().split('\n').slice(-1)[0] ?? r.status})`)
  return out
}

const n = Device.count()
if (n < 2) {
  console.log(`all-reduce bus bandwidth needs two or more devices; this machine has ${n}`)
} else {
  const a = ours(n)
  const b = torch(n)
  const fmt = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(1))
  const rows = SIZES.map((s) => `| ${s >= 1 << 30 ? `${s / (1 << 30)} GiB` : `${s / (1 << 20)} MiB`} | ${fmt(a.get(s))} | ${fmt(b.get(s))} |`)
  console.log([`**all-reduce bus bandwidth (GB/s), float32 sum, ${n} × ${new Device(0).name}, NCCL ${nccl.getVersion()}**`, '', '| size | cuda-node | PyTorch |', '| --- | --- | --- |', ...rows].join('\n'))
}
