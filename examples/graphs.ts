// Graphs: capture work once, launch it many times, update a parameter.
import { alloc, kernels, Stream } from '..'

const s = new Stream({ nonBlocking: true })
const p = alloc(4 * 256)
let launches = 0
let allRan: () => void
const ran = new Promise<void>((resolve) => (allRan = resolve))
const count = () => {
  if (++launches === 3) allRan()
}
const graph = s.capture(() => {
  kernels.fill(p, 1, 256)
  s.launchHostFunc(count)
})
graph.launch(s)
graph.launch(s)
graph.update(s.capture(() => {
  kernels.fill(p, 7, 256)
  s.launchHostFunc(count)
}))
graph.launch(s)
s.synchronize()
const out = new Float32Array(256)
p.copyToHost(out)
ran.then(() => console.log(`after update the graph fills ${out[0]}; host callback ran ${launches} times`))
