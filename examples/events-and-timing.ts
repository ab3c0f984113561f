// Events: time work on the GPU, and order work across streams.
import { Event, getElapsedTime, kernels, Stream } from '..'

const s1 = new Stream({ nonBlocking: true })
const s2 = new Stream({ nonBlocking: true })
const start = new Event()
const end = new Event()
start.record(s1)
kernels.sleep(25e6, s1) // 25 ms of GPU work
end.record(s1)
s2.waitEvent(end) // s2's later work starts only after s1's sleep
const after = new Event().record(s2)
after.synchronize()
console.log(`elapsed: ${getElapsedTime(start, end).toFixed(1)} ms`)
console.log(`s2 waited for s1: ${getElapsedTime(end, after) >= 0}`)
