// The pipeline users recognise (#25.6): a host buffer in chunks goes H2D → a kernel → D2H over 1,
// 2 and 4 streams, each chunk timed with events, and the same 4-stream pipeline captured into a
// graph and launched. Rows: throughput (input GB/s) and overlap (the sum of the stage times over
// the wall time: 1 is strictly serial, more means copy engines and compute ran at once).
// bench/peers/pipeline.py does the same in CuPy and PyTorch, with the same rows.
import { allocPinned, alloc, Event, getElapsedTime, RawKernel, Stream, u64, type Graph, type MemoryPointer, type PinnedMemory } from './package'
import { median, type Row } from './lib'

export const PIPELINE = { total: 256 << 20, chunk: 16 << 20, reps: 7 }

const SCALE = 'extern "C" __global__ void scale(float* x, unsigned long long n) { unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 2.0f + 1.0f; }'

interface Rig {
  inputs: PinnedMemory[]
  outputs: PinnedMemory[]
  kernel: RawKernel
}

/** One pass of every chunk over `streams`; returns the summed stage times (ms) from the events. */
function pass(rig: Rig, streams: Stream[], buffers: MemoryPointer[], timed: boolean): () => number {
  const n = PIPELINE.chunk / 4
  const marks: Event[][] = []
  rig.inputs.forEach((input, i) => {
    const k = i % streams.length
    const s = streams[k]
    const d = buffers[k]
    const e = timed ? [new Event(), new Event(), new Event(), new Event()] : []
    e[0]?.record(s)
    d.copyFromHostAsync(input, PIPELINE.chunk, s)
    e[1]?.record(s)
    rig.kernel.launch(Math.ceil(n / 256), 256, [d, u64(n)], { stream: s })
    e[2]?.record(s)
    d.copyToHostAsync(rig.outputs[i], PIPELINE.chunk, s)
    e[3]?.record(s)
    if (timed) marks.push(e)
  })
  // The events are released once read: nothing of a round is left for the GC to release during
  // the next round's hot calls.
  return () => {
    const sum = marks.reduce((sum, e) => sum + getElapsedTime(e[0], e[1]) + getElapsedTime(e[1], e[2]) + getElapsedTime(e[2], e[3]), 0)
    for (const e of marks.flat()) e.destroy()
    return sum
  }
}

/** Runs the eager pipelines and the captured one; GPU only (the kernel is compiled). */
export function pipeline(): Row[] {
  const chunks = PIPELINE.total / PIPELINE.chunk
  const rig: Rig = {
    inputs: Array.from({ length: chunks }, () => allocPinned(PIPELINE.chunk)),
    outputs: Array.from({ length: chunks }, () => allocPinned(PIPELINE.chunk)),
    kernel: new RawKernel(SCALE, 'scale'),
  }
  for (const input of rig.inputs) new Float32Array(input.buffer).fill(1)
  const rows: Row[] = []
  const streams = Array.from({ length: 4 }, () => new Stream({ nonBlocking: true }))
  const buffers = streams.map(() => alloc(PIPELINE.chunk))
  let graph: Graph | undefined
  try {
    for (const width of [1, 2, 4]) {
      const use = streams.slice(0, width)
      const sync = () => use.forEach((s) => s.synchronize())
      pass(rig, use, buffers, false)
      sync()
      const gbs: number[] = []
      const overlap: number[] = []
      for (let r = 0; r < PIPELINE.reps; r++) {
        const t0 = process.hrtime.bigint()
        const stages = pass(rig, use, buffers, true)
        sync()
        const ms = Number(process.hrtime.bigint() - t0) / 1e6
        gbs.push(PIPELINE.total / (ms / 1e3) / 1e9)
        overlap.push(stages() / ms)
      }
      rows.push({ key: `pipeline_${width}`, op: `pipeline H2D→kernel→D2H, 256 MiB in 16 MiB chunks, ${width} stream${width > 1 ? 's' : ''}`, value: median(gbs), unit: 'GB/s' })
      rows.push({ key: `pipeline_${width}_overlap`, op: `  overlap over ${width} stream${width > 1 ? 's' : ''} (stage time ÷ wall time)`, value: median(overlap), unit: '×' })
    }
    // The 4-stream pipeline captured: the first stream forks to the others and joins them.
    const [origin, ...side] = streams
    const marks: Event[] = []
    graph = origin.capture(() => {
      const fork = new Event({ disableTiming: true }).record(origin)
      marks.push(fork)
      side.forEach((s) => s.waitEvent(fork))
      pass(rig, streams, buffers, false)
      for (const s of side) {
        const join = new Event({ disableTiming: true }).record(s)
        marks.push(join)
        origin.waitEvent(join)
      }
    })
    for (const e of marks) e.destroy()
    graph.upload(origin)
    graph.launch(origin)
    origin.synchronize()
    const gbs: number[] = []
    for (let r = 0; r < PIPELINE.reps; r++) {
      const t0 = process.hrtime.bigint()
      graph.launch(origin)
      origin.synchronize()
      gbs.push(PIPELINE.total / (Number(process.hrtime.bigint() - t0) / 1e9) / 1e9)
    }
    rows.push({ key: 'pipeline_graph', op: 'the 4-stream pipeline captured into a graph, launched', value: median(gbs), unit: 'GB/s' })
    const out = new Float32Array(rig.outputs[chunks - 1].buffer)
    if (out[0] !== 3 || out[out.length - 1] !== 3) throw new Error(`the pipeline computed ${out[0]}, not 3`)
  } finally {
    streams.forEach((s) => s.synchronize())
    graph?.destroy()
    streams.forEach((s) => s.destroy())
    buffers.forEach((b) => b.free())
    rig.inputs.forEach((p) => p.free())
    rig.outputs.forEach((p) => p.free())
  }
  return rows
}
