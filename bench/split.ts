// Run by bench/split.sh: one hot call for a while, either ours (from JS, through the addon) or
// the bare driver's (the in-process floor, a loop in Rust), so a profiler sees it alone.
//   node --import tsx bench/split.ts OP MODE SECONDS   (OP: record_query | idle_sync | launch | stream_use; MODE: ours | floor)
// Prints `ns/call N`: the time per call over the run.
import { driverFloor, floorAddon, type FloorOp } from './lib'
import { Event, kernels, Stream } from './package'

const [op, mode, seconds = '2'] = process.argv.slice(2)
floorAddon()
const s = new Stream({ nonBlocking: true })
const ev = new Event({ disableTiming: true }).record(s)
s.synchronize()

// Each batch: `n` calls; the floor's op numbers are driverFloor's.
const LAUNCHES = 5000
const ops: Record<string, { n: number; floorOp: FloorOp; ours: () => void }> = {
  record_query: { n: 5000, floorOp: 0, ours: () => { for (let i = 0; i < 5000; i++) { ev.record(s); void ev.done } } },
  idle_sync: { n: 5000, floorOp: 1, ours: () => { for (let i = 0; i < 5000; i++) s.synchronize() } },
  stream_use: { n: 500, floorOp: 5, ours: () => { for (let i = 0; i < 500; i++) { const t = new Stream(); void t.done; t.destroy() } } },
  launch: { n: LAUNCHES, floorOp: 2, ours: () => { for (let i = 0; i < LAUNCHES; i++) kernels.sleep(0, s); s.synchronize() } },
}
const o = ops[op]
if (o === undefined || (mode !== 'ours' && mode !== 'floor')) throw new Error(`usage: split.ts ${Object.keys(ops).join('|')} ours|floor [seconds]`)
const batch = mode === 'ours' ? o.ours : () => void driverFloor(o.floorOp, s, ev, o.n)
for (let i = 0; i < 20; i++) batch()
const t0 = process.hrtime.bigint()
const until = t0 + BigInt(Math.round(Number(seconds) * 1e9))
let calls = 0
while (process.hrtime.bigint() < until) {
  batch()
  calls += o.n
}
console.log(`ns/call ${(Number(process.hrtime.bigint() - t0) / calls).toFixed(1)}`)
s.destroy()
