// One rank of `npm run bench:nccl`'s launcher mode, started by `cuda-node run`: joins through the
// launcher's store (nccl.initProcessGroup), then times all-reduce at each size given, as
// nccl-tests does (float32 sum, in place, on one stream), and rank 0 prints one JSON line a size.
import { alloc, backend, kernels, nccl, Stream } from './package'

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number)
  const comm = await nccl.initProcessGroup({ timeout: 120_000 })
  const n = comm.size
  const stream = new Stream({ nonBlocking: true })
  const sim = backend().name === 'sim'
  for (const bytes of sizes) {
    const count = Math.max(1, Math.floor(bytes / 4))
    const buf = alloc(count * 4)
    kernels.fill(buf, 1, count, 'float32', stream)
    const warm = sim ? 2 : 20
    const iters = sim ? 3 : bytes <= 1 << 20 ? 500 : bytes >= 256 << 20 ? 20 : 100
    for (let i = 0; i < warm; i++) comm.allReduce(buf, buf, count, 'float32', 'sum', stream)
    stream.synchronize()
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < iters; i++) comm.allReduce(buf, buf, count, 'float32', 'sum', stream)
    stream.synchronize()
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9 / iters
    if (comm.rankId === 0) {
      const size = count * 4
      console.log(JSON.stringify({ bytes: size, us: seconds * 1e6, busbw: ((size / seconds) * (2 * (n - 1))) / n / 1e9 }))
    }
    buf.free()
  }
  comm.destroy()
}

main().catch((e) => {
  console.error(`${e.code ?? ''} ${e.message}`)
  process.exit(1)
})
