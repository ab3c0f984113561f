// Pools: allocations come from a caching pool; a custom allocator can be scoped to a task.
import { alloc, getDefaultMemoryPool, mallocPlain, usingAllocator } from '..'

const pool = getDefaultMemoryPool()
const a = alloc(1000) // rounded up to 512-byte bins
console.log(`alloc(1000) gives ${a.size} bytes; the pool has ${pool.usedBytes()} in use`)
a.free()
const b = alloc(1024) // reuses the freed block: no driver call
console.log(`freed and reused: ${pool.nFreeBlocks()} free blocks, ${pool.totalBytes()} bytes held`)
b.free()
const plain = usingAllocator((n) => mallocPlain(n), () => alloc(1000))
console.log(`with a cudaMalloc allocator: ${plain.size} bytes`)
pool.setLimit({ size: 1 << 20 })
try {
  alloc(2 << 20)
} catch (e) {
  console.log(`past the limit: ${(e as { code: string }).code}`)
}
