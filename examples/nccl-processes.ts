// NCCL across processes: the parent makes the unique id and hands it to each rank over
// process.send; every rank joins, all-reduces its rank number + 1, and reports the sum. The same
// code spans machines: only the id has to travel (see the README, "Multi-GPU and NCCL").
//
//   npx tsx examples/nccl-processes.ts [nranks]
import { fork } from 'node:child_process'
import { alloc, Device, kernels, nccl } from '..'


async function rank(r: number, nranks: number, id: Buffer): Promise<number[]> {
  // One GPU per rank, as NCCL requires: rank r on device r (mod the devices this machine has).
  new Device(r % Device.count()).use()
  const comm = await nccl.NcclCommunicator.init(nranks, id, r)
  const buf = alloc(4 * 4)
  kernels.fill(buf, r + 1, 4, 'float32')
  comm.allReduce(buf, buf, 4, 'float32', 'sum') // on the current stream of the rank's device
  const out = new Float32Array(4)
  buf.copyToHost(out)
  comm.destroy()
  return [...out]
}

if (process.argv[2] === 'rank') {
  process.once('message', (m: { rank: number; nranks: number; id: string }) => {
    rank(m.rank, m.nranks, Buffer.from(m.id, 'base64')).then(
      (sum) => process.send!({ rank: m.rank, sum }, () => process.exit(0)),
      (e) => process.send!({ rank: m.rank, error: `${e.code}: ${e.message}` }, () => process.exit(1)),
    )
  })
} else {
  const nranks = Number(process.argv[2] ?? 2)
  // The simulator gives each process the same devices: give it one per rank.
  process.env.CUDA_NODE_SIM_DEVICES ??= String(nranks)
  const id = nccl.getUniqueId() // this process hosts the rendezvous until every rank has joined
  const results: Promise<void>[] = []
  for (let r = 0; r < nranks; r++) {
    const child = fork(__filename, ['rank'])
    results.push(
      new Promise((resolve, reject) => {
        child.once('message', (m: { rank: number; sum?: number[]; error?: string }) => {
          if (m.error) reject(new Error(`rank ${m.rank}: ${m.error}`))
          else console.log(`rank ${m.rank} of ${nranks}: all-reduced sum ${m.sum!.join(', ')}`)
        })
        child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`rank ${r} exited with ${code}`))))
      }),
    )
    child.send({ rank: r, nranks, id: id.toString('base64') })
  }
  Promise.all(results).then(
    () => console.log(`${nranks} processes agreed: expected ${(nranks * (nranks + 1)) / 2}`),
    (e) => {
      console.error(e.message)
      process.exit(1)
    },
  )
}
