// NVTX ranges for Nsight Systems, and a timeline anyone can open.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { alloc, kernels, nvtx, profiler, Stream } from '..'

async function main(): Promise<void> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'cuda-node-nvtx-')), 'trace.json')
  const s = new Stream({ nonBlocking: true })
  const { slices } = await profiler.trace(async () => {
    nvtx.rangePush('prepare', 1)
    const p = alloc(1 << 20)
    p.memsetAsync(0, 1 << 20, s)
    nvtx.rangePop()
    await nvtx.range('compute', async () => {
      kernels.sleep(5e6, s)
      await s.synchronizeAsync()
    })
  }, { path: file })
  console.log(`traced ${slices.length} slices: ${slices.map((x) => x.name).join(', ')}`)
  console.log(`trace written to ${file} and an SVG beside it`)
}

main()
