// `node --import tsx bench/graph-loop.ts`: a loop until a device-side flag says stop (issue 35.5),
// N = 10, 1,000 and 100,000 iterations, per-iteration cost in µs:
//  - JS-driven: each iteration launches the step, copies the flag back and tests it on the host;
//  - one while-node graph: the step and a set-condition node loop on the GPU, one launch in all;
//  - (GPU) the same while node with the step calling cudaGraphSetConditional itself.
// The step is a small kernel counting to N on the GPU (NVRTC); on the simulator, which cannot put
// a kernel's host implementation in a graph, it is two copies shifting a countdown buffer, and N
// is scaled down. bench/peers/graph_loop.py gives CuPy's host loop and cuda.core's while node.
import { alloc, backend, GraphBuilder, i32, RawKernel, Stream, type MemoryPointer } from './package'
import { median } from './lib'

const sim = backend().name === 'sim'
const NS = sim ? [10, 100, 1000] : [10, 1000, 100000]
const REPS = 3

const STEP = `
typedef unsigned long long cudaGraphConditionalHandle;
extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
extern "C" __global__ void step(int *counter, int limit, int *flag) { int n = ++*counter; *flag = n < limit; }
extern "C" __global__ void step_set(int *counter, int limit, cudaGraphConditionalHandle h) { int n = ++*counter; cudaGraphSetConditional(h, n < limit); }
`

function time(f: () => void): number {
  const t0 = process.hrtime.bigint()
  f()
  return Number(process.hrtime.bigint() - t0) / 1e3
}

interface Loop {
  /** Resets the loop's state to run `n` iterations. */
  reset(): void
  /** One iteration's enqueued work (the JS-driven loop's). */
  step(s: Stream): void
  /** The while body: the step, then the condition set from the flag. */
  body(b: GraphBuilder, c: ReturnType<GraphBuilder['condition']>): void
  flag: MemoryPointer
}

function gpuLoop(n: number, k: RawKernel): Loop {
  const counter = alloc(4)
  const flag = alloc(4)
  return {
    flag,
    reset: () => {
      counter.memset(0, 4)
      flag.memset(0, 4)
    },
    step: (s) => k.launch(1, 1, [counter, i32(n), flag], { stream: s }),
    body: (b, c) => {
      const st = b.addKernel(k, { grid: 1, block: 1 }, [counter, i32(n), flag])
      b.addSetCondition(c, flag, { dtype: 'int32', op: '!=', value: 0 }, { after: st })
    },
  }
}

function simLoop(n: number): Loop {
  const a = alloc((n + 1) * 4)
  const tmp = alloc(n * 4)
  return {
    flag: a,
    reset: () => a.copyFromHost(new Int32Array([...Array(n).fill(1), 0])),
    step: (s) => {
      tmp.copyFromAsync(a.offset(4), n * 4, s)
      a.copyFromAsync(tmp, n * 4, s)
    },
    body: (b, c) => {
      const x = b.addMemcpy(tmp, a.offset(4), n * 4)
      const y = b.addMemcpy(a, tmp, n * 4, { after: x })
      b.addSetCondition(c, a, { dtype: 'int32', op: '!=', value: 0 }, { after: y })
    },
  }
}

const s = new Stream({ nonBlocking: true })
const k = sim ? undefined : new RawKernel(STEP, 'step')
const kSet = sim ? undefined : new RawKernel(STEP, 'step_set')
const rows: { n: number; op: string; us: number }[] = []
for (const n of NS) {
  const loop = sim ? simLoop(n) : gpuLoop(n, k!)
  const host = new Int32Array(1)
  const js = median(
    Array.from({ length: REPS }, () => {
      loop.reset()
      return time(() => {
        for (let i = 0; i < n; i++) {
          loop.step(s)
          loop.flag.copyToHostAsync(host, 4, s)
          s.synchronize()
          if (host[0] === 0) break
        }
      })
    }),
  )
  rows.push({ n, op: 'JS-driven loop (launch, copy the flag back, test)', us: js / n })
  const b = new GraphBuilder()
  const c = b.condition({ default: 1 })
  b.addWhile(c, (body) => loop.body(body, c))
  const g = b.instantiate({ upload: s })
  const graphed = median(
    Array.from({ length: REPS }, () => {
      loop.reset()
      return time(() => {
        g.launch(s)
        s.synchronize()
      })
    }),
  )
  rows.push({ n, op: 'while node (step + addSetCondition)', us: graphed / n })
  if (kSet !== undefined) {
    const counter = alloc(4)
    const b2 = new GraphBuilder()
    const c2 = b2.condition({ default: 1 })
    b2.addWhile(c2, (body) => body.addKernel(kSet, { grid: 1, block: 1 }, [counter, i32(n), c2.handle]))
    const g2 = b2.instantiate({ upload: s })
    const t = median(
      Array.from({ length: REPS }, () => {
        counter.memset(0, 4)
        return time(() => {
          g2.launch(s)
          s.synchronize()
        })
      }),
    )
    rows.push({ n, op: 'while node (cudaGraphSetConditional in the step)', us: t / n })
  }
}
console.log(`graph loop on ${backend().name}${sim ? ' (scaled down: the simulator)' : ''}: per-iteration µs, median of ${REPS}`)
for (const r of rows) console.log(`${String(r.n).padStart(7)}  ${r.us.toFixed(2).padStart(9)} µs  ${r.op}`)
console.log(JSON.stringify({ bench: 'graph-loop', backend: backend().name, rows }))
