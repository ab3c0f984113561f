// Run as: NAPI_RS_NATIVE_LIBRARY_PATH=bench/addon/<the addon>.node node --expose-gc --import tsx bench/floor-probe.ts
// The bare driver calls of the in-process floor (record+query, idle synchronize, an empty launch),
// timed in a fresh process, then again after each kind of work the bench does before its later
// rounds: whichever step makes them slower is what slows the driver in our process (#25; the C++
// floor process does none of it before its own rows). Each figure: median ns over 15 batches.
import { alloc, allocPinned, AsyncMemoryPool, backend, Device, Event, kernels, mallocPlain, RawKernel, registerHost, Stream, u64 } from './package'
import { spawn, spawnSync } from 'node:child_process'
import path from 'node:path'
import { driverFloor, floorAddon, median, type FloorOp } from './lib'

floorAddon()

let s = new Stream({ nonBlocking: true })
let ev = new Event({ disableTiming: true }).record(s)
const keep: unknown[] = []

function measure(step: string): void {
  new Device().synchronize()
  const at = (op: FloorOp, n: number) => median(Array.from({ length: 15 }, () => driverFloor(op, s, ev, n)))
  const [rq, sync, launch] = [at(0, 5000), at(1, 5000), at(2, 2000)]
  console.log(`${step.padEnd(58)} ${rq.toFixed(0).padStart(7)} ${sync.toFixed(0).padStart(7)} ${launch.toFixed(0).padStart(7)}`)
}

async function main(): Promise<void> {
  console.log(`${backend().name}, ${new Device().name}; ns per call, bare driver in this process`)
  console.log(`${'after'.padEnd(58)} ${'rec+qry'.padStart(7)} ${'sync'.padStart(7)} ${'launch'.padStart(7)}`)
  measure('nothing (a fresh process)')
  measure('nothing, again')
  const other = new Stream({ nonBlocking: true })
  await new Promise<void>((resolve) => other.launchHostFunc(() => resolve()))
  measure('a host function on another stream')
  for (let i = 0; i < 200; i++) await new Promise<void>((resolve) => s.launchHostFunc(() => resolve()))
  measure('200 host functions on this stream')
  const n = 64 << 20
  const d = alloc(n)
  const pinned = allocPinned(n)
  d.copyFromHostAsync(pinned, n, other)
  d.copyToHostAsync(pinned, n, other)
  other.synchronize()
  measure('pinned copies on another stream (holds)')
  const pageable = Buffer.alloc(n, 1)
  d.copyFromHostAsync(pageable, n, other)
  d.copyToHostAsync(pageable, n, other)
  other.synchronize()
  measure('pageable copies (staging threads)')
  const registered = registerHost(pageable)
  d.copyFromHostAsync(registered, n, other)
  other.synchronize()
  registered.free()
  measure('registerHost, a copy, free')
  const asyncPool = new AsyncMemoryPool()
  s.run(() => {
    for (let i = 0; i < 2000; i++) asyncPool.malloc(1 << 20).free()
  })
  measure('2000 AsyncMemoryPool malloc+free on this stream')
  for (let i = 0; i < 500; i++) mallocPlain(1 << 20).free()
  measure('500 cudaMalloc+cudaFree')
  for (let i = 0; i < 2000; i++) new Event().record(s).destroy()
  measure('2000 events made, recorded, destroyed')
  for (let i = 0; i < 2000; i++) keep.push(new Event().record(other))
  measure('2000 timing events recorded and kept alive')
  const side = new Stream({ nonBlocking: true })
  const graph = other.capture(() => {
    side.waitEvent(new Event({ disableTiming: true }).record(other))
    kernels.sleep(0, side)
    other.waitEvent(new Event({ disableTiming: true }).record(side))
  })
  graph.launch(other)
  other.synchronize()
  keep.push(graph)
  measure('a graph captured over two streams with events, launched, kept')
  if (backend().name === 'cuda') {
    const k = new RawKernel('extern "C" __global__ void k(float* x, unsigned long long n) { }', 'k')
    k.launch(1, 1, [d, u64(1)], { stream: other })
    other.synchronize()
    measure('NVRTC compile, a RawKernel launch')
  }
  s.destroy()
  ev.destroy()
  s = new Stream({ nonBlocking: true })
  ev = new Event({ disableTiming: true }).record(s)
  measure('a new stream and event (recycled handles)')
  keep.length = 0
  d.free()
  pinned.free()
  ;(globalThis as { gc?: () => void }).gc?.()
  measure('everything released, a full GC (with --expose-gc)')
  // Another process on the same GPU: the bench's floor and peers run in processes of their own
  // between our rounds, while ours stays alive.
  const other2 = `const c = require(${JSON.stringify(path.join(__dirname, '..', 'index.js'))}); const s = new c.Stream(); c.kernels.sleep(1e6, s); s.synchronize()`
  spawnSync(process.execPath, ['-e', other2], { stdio: 'inherit' })
  measure('another process used the GPU and exited')
  measure('again')
  const alive = spawn(process.execPath, ['-e', `${other2}; setTimeout(() => {}, 3000)`], { stdio: 'inherit' })
  await new Promise((resolve) => setTimeout(resolve, 1000))
  measure('another process holds a context on the GPU (idle)')
  await new Promise((resolve) => alive.on('exit', resolve))
  measure('it exited')
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
