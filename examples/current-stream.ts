// The current stream follows async code: two tasks, two streams, never mixed up across awaits.
import { setTimeout as sleep } from 'node:timers/promises'
import { alloc, getCurrentStream, kernels, Stream } from '..'

async function task(name: string, value: number): Promise<void> {
  const s = new Stream({ nonBlocking: true })
  await s.run(async () => {
    const p = alloc(4 * 1024)
    kernels.fill(p, value, 1024) // no stream given: the current one, s
    await sleep(10) // other tasks run meanwhile
    const out = new Float32Array(1024)
    p.copyToHost(out) // still on s after the await
    console.log(`${name}: current stream is its own: ${getCurrentStream() === s}; data ${out[0]}`)
  })
}

async function main(): Promise<void> {
  await Promise.all([task('a', 1), task('b', 2)])
  console.log(`outside: ${getCurrentStream() === Stream.null ? 'Stream.null' : 'other'}`)
}

main()
