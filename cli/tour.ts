// The tour (`npm start`, `npx cuda-node tour`): what cuda-node does, on whatever backend is here.
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { alloc, backend, Device, Event, getElapsedTime, kernels, nvtx, profiler, Stream } from '../index'

/**
 * Runs the tour; the timeline goes to `outDir`, by default a fresh directory under the system's
 * temporary directory (the tour prints where), so running it leaves nothing where it was started.
 */
export async function tour(outDir: string = mkdtempSync(path.join(tmpdir(), 'cuda-node-tour-'))): Promise<void> {
  const b = backend()
  console.log(`backend: ${b.name} (${b.reason})`)
  if (b.driverVersion) console.log(`driver: ${Math.floor(b.driverVersion / 1000)}.${(b.driverVersion % 1000) / 10}`)

  for (let i = 0; i < Device.count(); i++) {
    const d = new Device(i)
    const { free, total } = d.memInfo()
    console.log(
      `device ${d.id}: ${d.name}, compute capability ${d.computeCapability}, ` +
        `${d.attributes.multiProcessorCount} SMs, ${(free / 2 ** 30).toFixed(1)} of ${(total / 2 ** 30).toFixed(1)} GiB free`,
    )
  }

  // Everything from here on runs under a trace: a timeline you can open.
  const out = outDir
  mkdirSync(out, { recursive: true })
  const traceFile = path.join(out, 'tour-trace.json')
  await profiler.trace(async () => {
    // Streams and events: a copy on one stream, a kernel, two events, a wait across streams.
    const n = 1 << 20
    const producer = new Stream({ nonBlocking: true })
    const consumer = new Stream({ nonBlocking: true })
    const data = alloc(n * 4)
    const host = new Float32Array(n).fill(1)

    const start = new Event()
    const end = new Event()
    start.record(producer)
    data.copyFromHostAsync(host, undefined, producer) // host → device on the producer
    kernels.sleep(20e6, producer) // a 20 ms kernel
    kernels.fill(data, 42, n, 'float32', producer) // then overwrite every element
    end.record(producer)

    consumer.waitEvent(end) // the consumer waits for the producer's work, not the host
    const back = new Float32Array(n)
    data.copyToHostAsync(back, undefined, consumer)
    console.log(`consumer saw ${back[0]} … ${back[n - 1]} after waiting on the producer's event`)
    console.log(`producer: copy + 20 ms kernel + fill took ${getElapsedTime(start, end).toFixed(2)} ms (events)`)

    // Two non-blocking streams overlap.
    nvtx.mark('overlap')
    const t0 = performance.now()
    kernels.sleep(50e6, producer)
    kernels.sleep(50e6, consumer)
    await Promise.all([producer.synchronizeAsync(), consumer.synchronizeAsync()])
    console.log(`two 50 ms kernels on two streams: ${(performance.now() - t0).toFixed(1)} ms of wall time`)

    // A graph: capture 100 kernels once, replay them with one launch.
    const tiles = alloc(100 * 1024)
    const graph = producer.capture(() => {
      for (let i = 0; i < 100; i++) kernels.fill(tiles.offset(i * 1024), i, 256, 'float32')
    })
    const g0 = new Event().record(producer)
    graph.launch(producer)
    const g1 = new Event().record(producer)
    await g1.synchronizeAsync()
    const tile = new Float32Array(256)
    tiles.offset(99 * 1024).copyToHost(tile)
    console.log(`graph of 100 captured fills: one launch, ${getElapsedTime(g0, g1).toFixed(3)} ms; tile 99 holds ${tile[0]}`)

    // A host callback runs on the JS thread once the stream reaches it.
    await new Promise<void>((resolve) => {
      kernels.sleep(10e6, producer)
      producer.launchHostFunc((msg: string) => {
        console.log(msg)
        resolve()
      }, 'host callback: ran after the 10 ms kernel, on the JS thread')
    })
  }, { path: traceFile })
  console.log(`timeline: ${traceFile} (Perfetto or chrome://tracing) and ${traceFile.replace(/json$/, 'svg')}`)
}
