// Memory hooks the Node way: subscribe to cuda-node's diagnostics channels and tabulate every
// allocation by the line that made it (CuPy's LineProfileHook), plus what the pools released.
import diagnosticsChannel from 'node:diagnostics_channel'
import { alloc, getDefaultMemoryPool, type AllocMessage } from '..'

const sites = new Map<string, { calls: number; bytes: number }>()

/** The line that asked for memory: the first frame after cuda-node's own (and Node's) frames. */
function callSite(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1)
  const internal = (f: string) => /node:|[\\/]lib[\\/]|[\\/]index\.[jt]s/.test(f)
  let i = frames.findIndex(internal) // past this subscriber, into the publishing call
  while (i >= 0 && i < frames.length && internal(frames[i])) i++
  const frame = i >= 0 ? frames[i] : undefined
  return /([^\\/()\s]+:\d+):\d+\)?$/.exec(frame ?? '')?.[1] ?? '?'
}

function onAlloc(message: unknown): void {
  const m = message as AllocMessage
  const site = callSite()
  const row = sites.get(site) ?? { calls: 0, bytes: 0 }
  row.calls++
  row.bytes += m.size
  sites.set(site, row)
}
let released = 0
const onRelease = (m: unknown): void => void (released += (m as { bytes: number }).bytes)

diagnosticsChannel.subscribe('cuda-node:memory:alloc', onAlloc)
diagnosticsChannel.subscribe('cuda-node:memory:release', onRelease)

function makeBuffers(): void {
  for (let i = 0; i < 10; i++) alloc(1 << 20).free()
}
makeBuffers()
const big = alloc(64 << 20)
big.free()
getDefaultMemoryPool().freeAllBlocks()

diagnosticsChannel.unsubscribe('cuda-node:memory:alloc', onAlloc)
diagnosticsChannel.unsubscribe('cuda-node:memory:release', onRelease)

console.log('allocations by call site:')
for (const [site, { calls, bytes }] of [...sites].sort((a, b) => b[1].bytes - a[1].bytes)) {
  console.log(`  ${site.padEnd(24)} ${String(calls).padStart(4)} calls ${String(bytes).padStart(10)} bytes`)
}
console.log(`released to the driver: ${released} bytes`)
