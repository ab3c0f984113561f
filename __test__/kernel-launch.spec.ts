// Launch configurations (cooperative, clusters, programmatic dependent launch), occupancy,
// attributes, module globals and modules from files. On the simulator the host implementation
// runs for launches of every kind, and what cannot run says so.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { alloc, CudaError, Device, f32, getCurrentStream, i32, LaunchConfig, Linker, Program, RawKernel, RawModule, type KernelArg } from '..'
import { gpuTest, linkTest, nvrtcTest, onGpu, scratchDir } from './helpers'

const EXTRA = readFileSync(path.join(__dirname, 'fixtures', 'kernels-extra.cu'), 'utf8')
const NOOP = `extern "C" __global__ void noop(int* p) {}`

test.before(() => {
  process.env.CUDA_NODE_CACHE_DIR = scratchDir('cuda-node-cache-')
})

test('LaunchConfig checks its fields with typed errors', (t) => {
  t.throws(() => new LaunchConfig(null as any), { instanceOf: TypeError })
  t.throws(() => new LaunchConfig({ grid: 0, block: 1 }), { instanceOf: RangeError })
  t.throws(() => new LaunchConfig({ grid: '1' as any, block: 1 }), { instanceOf: TypeError })
  t.throws(() => new LaunchConfig({ grid: 1, block: 1, sharedMem: -1 }), { instanceOf: RangeError })
  t.throws(() => new LaunchConfig({ grid: 1, block: 1, cooperative: 'yes' as any }), { instanceOf: TypeError })
  t.throws(() => new LaunchConfig({ grid: 1, block: 1, cluster: [0] }), { instanceOf: RangeError })
  const c = new LaunchConfig({ grid: [4, 2], block: 32, cluster: 2, cooperative: true })
  t.deepEqual([c.grid, c.block, c.cluster, c.cooperative, c.sharedMem], [[4, 2, 1], [32, 1, 1], [2, 1, 1], true, 0])
  t.true(Object.isFrozen(c))
})

test('a cooperative or cluster launch runs the host implementation with the same arguments on the simulator', (t) => {
  if (onGpu) return t.pass('simulator only')
  const seen: [number[], number[], LaunchConfig | undefined][] = []
  const k = new RawKernel(NOOP, 'noop', { simulate: (_args, grid, block, config) => void seen.push([grid, block, config]) })
  const p = alloc(4)
  const coop = new LaunchConfig({ grid: 4, block: 128, cooperative: true })
  k.launch(coop, [p])
  const cluster = new LaunchConfig({ grid: [8, 2], block: 64, cluster: [2, 2] })
  k.launch(cluster, [p])
  k.launch(new LaunchConfig({ grid: 1, block: 1, programmaticDependentLaunch: true }), [p])
  k.launch(1, 1, [p])
  // The launches only queued the host implementation (in stream order, as on the GPU): wait for them.
  getCurrentStream().synchronize()
  t.deepEqual(seen.map((s) => s[0]), [[4, 1, 1], [8, 2, 1], [1, 1, 1], [1, 1, 1]])
  t.is(seen[0][2], coop)
  t.is(seen[1][2], cluster)
  t.is(seen[3][2], undefined)
})

test('a cooperative grid larger than the device holds at once is a RangeError before the launch', (t) => {
  const k = new RawKernel(NOOP, 'noop', { simulate: () => t.fail('must not run') })
  const per = k.maxActiveBlocksPerMultiprocessor(1024)
  const most = per * new Device().attributes.multiProcessorCount
  t.true(most > 0)
  const e = t.throws(() => k.launch(new LaunchConfig({ grid: most + 1, block: 1024, cooperative: true }), [alloc(4)]), { instanceOf: RangeError })
  t.regex(e!.message, /cooperative launch of \d+ blocks is more than device 0 can hold at once/)
})

test('cluster dimensions must divide the grid and stay within 16 blocks', (t) => {
  const k = new RawKernel(NOOP, 'noop', { simulate: () => t.fail('must not run') })
  t.throws(() => k.launch(new LaunchConfig({ grid: 3, block: 32, cluster: 2 }), [alloc(4)]), { instanceOf: RangeError, message: /multiple of cluster x/ })
  t.throws(() => k.launch(new LaunchConfig({ grid: 32, block: 32, cluster: 32 }), [alloc(4)]), { instanceOf: RangeError, message: /cluster of 32 blocks/ })
})

test('k.launch(config, args) checks its arguments as the positional form does', (t) => {
  const k = new RawKernel(NOOP, 'noop', { simulate: () => {} })
  const c = new LaunchConfig({ grid: 1, block: 1 })
  t.throws(() => k.launch(c, 'x' as any), { instanceOf: TypeError })
  t.throws(() => k.launch(c, [] as KernelArg[]), { instanceOf: TypeError, message: /takes 1 arguments/ })
  t.throws(() => k.launch(c, [f32(1)]), { instanceOf: TypeError, message: /pointer/ })
})

test('occupancy: the simulator answers from the device\'s limits', (t) => {
  if (onGpu) return t.pass('simulator only')
  const k = new RawKernel(NOOP, 'noop')
  t.is(k.maxActiveBlocksPerMultiprocessor(256), 8) // 2048 threads a multiprocessor
  t.is(k.maxActiveBlocksPerMultiprocessor(32), 32) // 32 blocks a multiprocessor
  t.is(k.maxActiveBlocksPerMultiprocessor(100), 16) // 100 threads take 4 warps
  t.is(k.maxActiveBlocksPerMultiprocessor(256, 100 * 1024), 2) // 228 KB of shared memory
  t.deepEqual(k.suggestedBlockSize(), { minGridSize: 8, blockSize: 1024 })
  t.deepEqual(k.suggestedBlockSize(0, 512), { minGridSize: 16, blockSize: 512 })
  t.is(k.maxPotentialClusterSize(new LaunchConfig({ grid: 8, block: 128 })), 8)
  const e = t.throws(() => k.maxActiveClusters(new LaunchConfig({ grid: 8, block: 128, cluster: 2 })), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_NOT_SUPPORTED')
})

test('occupancy refuses bad sizes with typed errors', (t) => {
  const k = new RawKernel(NOOP, 'noop')
  t.throws(() => k.maxActiveBlocksPerMultiprocessor(0), { instanceOf: RangeError })
  t.throws(() => k.maxActiveBlocksPerMultiprocessor(4096), { instanceOf: RangeError })
  t.throws(() => k.maxActiveBlocksPerMultiprocessor('1' as any), { instanceOf: TypeError })
  t.throws(() => k.maxActiveBlocksPerMultiprocessor(32, -1), { instanceOf: RangeError })
  t.throws(() => k.maxActiveBlocksPerMultiprocessor(32, 10 ** 7), { instanceOf: RangeError })
  t.throws(() => k.suggestedBlockSize(1.5), { instanceOf: RangeError })
  t.throws(() => k.maxPotentialClusterSize({ grid: 1, block: 1 } as any), { instanceOf: TypeError })
  t.throws(() => k.maxActiveClusters(new LaunchConfig({ grid: 1, block: 1 })), { instanceOf: TypeError, message: /cluster dimensions/ })
})

test('every function attribute is there; setAttribute and setCacheConfig check names and values', (t) => {
  const k = new RawKernel(NOOP, 'noop', { simulate: () => {} })
  const a = k.attributes
  t.deepEqual(Object.keys(a).sort(), [
    'binaryVersion', 'cacheModeCa', 'clusterSchedulingPolicyPreference', 'clusterSizeMustBeSet', 'constSizeBytes', 'localSizeBytes',
    'maxDynamicSharedSizeBytes', 'maxThreadsPerBlock', 'nonPortableClusterSizeAllowed', 'numRegs', 'preferredSharedMemoryCarveout',
    'ptxVersion', 'requiredClusterDepth', 'requiredClusterHeight', 'requiredClusterWidth', 'sharedSizeBytes',
  ].sort())
  t.throws(() => k.setAttribute('numRegs' as any, 1), { instanceOf: TypeError, message: /read-only.*maxDynamicSharedSizeBytes/ })
  t.throws(() => k.setAttribute('nope' as any, 1), { instanceOf: TypeError, message: /no kernel attribute 'nope'/ })
  t.throws(() => k.setAttribute('preferredSharedMemoryCarveout', 101), { instanceOf: RangeError })
  t.throws(() => k.setAttribute('maxDynamicSharedSizeBytes', -1), { instanceOf: RangeError })
  t.throws(() => k.setAttribute('maxDynamicSharedSizeBytes', 1.5), { instanceOf: RangeError })
  t.throws(() => k.setAttribute('maxDynamicSharedSizeBytes', '1' as any), { instanceOf: TypeError })
  t.throws(() => k.setCacheConfig('preferAll' as any), { instanceOf: TypeError, message: /preferShared/ })
  if (!onGpu) {
    k.setAttribute('preferredSharedMemoryCarveout', 50)
    k.setCacheConfig('preferShared')
  }
})

test('getGlobal on the simulator is CUDA_ERROR_NOT_SUPPORTED, saying why', (t) => {
  if (onGpu) return t.pass('simulator only')
  const m = new RawModule({ ptx: `.version 6.0\n.target sm_50\n.address_size 64\n.global .align 4 .b8 g[16];` })
  const e = t.throws(() => m.getGlobal('g'), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(e!.message, /needs a GPU/)
  t.throws(() => m.getGlobal(''), { instanceOf: TypeError })
})

test('RawModule({ path }) reads PTX, cubin, fatbin or LTO-IR files; a missing file is CUDA_ERROR_FILE_NOT_FOUND', (t) => {
  const dir = scratchDir('cuda-node-mod-')
  const file = path.join(dir, 'here.ptx')
  writeFileSync(file, `.version 6.0\n.target sm_50\n.address_size 64\n.visible .entry here(.param .u64 p) { ret; }`)
  const m = new RawModule({ path: file })
  t.is(m.getFunction('here').name, 'here')
  t.is(t.throws(() => m.getFunction('absent'), { instanceOf: CudaError })?.code, 'CUDA_ERROR_NOT_FOUND')
  t.is(t.throws(() => new RawModule({ path: path.join(dir, 'none.cubin') }), { instanceOf: CudaError })?.code, 'CUDA_ERROR_FILE_NOT_FOUND')
  t.throws(() => new RawModule({ path: 3 as any }), { instanceOf: TypeError })
  t.throws(() => new RawModule({ fatbin: 'x' as any }), { instanceOf: TypeError })
  t.throws(() => new RawModule({ ltoir: [] }), { instanceOf: RangeError })
  t.throws(() => new RawModule({ ltoir: [new Uint8Array(0)] }), { instanceOf: RangeError })
})

// ---- On the GPU: each feature run for real.

gpuTest('a kernel reads a __constant__ table set from JS through getGlobal', (t) => {
  const m = new RawModule({ code: EXTRA })
  const table = m.getGlobal('table')
  t.is(table.size, 32)
  table.copyFromHost(new Float32Array([0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]))
  const counter = m.getGlobal('counter')
  counter.memset(0, 4)
  const idx = alloc(4 * 8)
  idx.copyFromHost(new Int32Array([7, 6, 5, 4, 3, 2, 1, 0]))
  const out = alloc(4 * 8)
  m.getFunction('lookup').launch(1, 8, [idx, out])
  const h = new Float32Array(8)
  out.copyToHost(h)
  t.deepEqual([...h], [7.5, 6.5, 5.5, 4.5, 3.5, 2.5, 1.5, 0.5])
  const c = new Int32Array(1)
  counter.copyToHost(c)
  t.is(c[0], 8)
  t.is(t.throws(() => m.getGlobal('absent'), { instanceOf: CudaError })?.code, 'CUDA_ERROR_NOT_FOUND')
})

gpuTest('a cooperative launch of as many blocks as fit at once passes a grid-wide barrier', (t) => {
  const k = new RawModule({ code: EXTRA }).getFunction('gridsync')
  const grid = k.maxActiveBlocksPerMultiprocessor(64) * new Device().attributes.multiProcessorCount
  const arrived = alloc(4)
  arrived.memset(0, 4)
  const slots = alloc(4 * grid)
  const seen = alloc(4 * grid)
  k.launch(new LaunchConfig({ grid, block: 64, cooperative: true }), [arrived, slots, seen])
  const h = new Int32Array(grid)
  seen.copyToHost(h)
  t.true(h.every((v, b) => v === ((b + 1) % grid) + 1), `grid ${grid}`)
})

gpuTest('a cluster launch shares shared memory across the cluster (sm_90)', (t) => {
  const k = new RawModule({ code: EXTRA }).getFunction('dsm')
  const out = alloc(4 * 8)
  const config = new LaunchConfig({ grid: 8, block: 32, cluster: 4 })
  k.launch(config, [out])
  const h = new Int32Array(8)
  out.copyToHost(h)
  t.deepEqual([...h], [2, 3, 4, 1, 2, 3, 4, 1])
  t.true(k.maxPotentialClusterSize(config) >= 8)
  t.true(k.maxActiveClusters(config) >= 1)
})

gpuTest('setAttribute and setCacheConfig reach the driver', (t) => {
  const k = new RawModule({ code: EXTRA }).getFunction('occ')
  k.setAttribute('preferredSharedMemoryCarveout', 50)
  t.is(k.attributes.preferredSharedMemoryCarveout, 50)
  k.setAttribute('maxDynamicSharedSizeBytes', 64 * 1024)
  t.is(k.attributes.maxDynamicSharedSizeBytes, 64 * 1024)
  k.setCacheConfig('preferShared')
  t.throws(() => k.setAttribute('maxDynamicSharedSizeBytes', 10 ** 8), { instanceOf: CudaError })
})

gpuTest('occupancy equals what the CUDA runtime reports from C++ for the same cubin (nvcc)', (t) => {
  const nvcc = spawnSync('which', ['nvcc'], { encoding: 'utf8' }).stdout.trim()
  if (!nvcc) return t.pass('no nvcc here')
  const dir = scratchDir('cuda-node-occ-')
  const cu = path.join(dir, 'occ.cu')
  writeFileSync(cu, `${EXTRA}
#include <cstdio>
int main() {
  int a = 0, b = 0, c = 0, grid = 0, block = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&a, occ, 256, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, occ, 1024, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c, occ, 128, 48 * 1024);
  cudaOccupancyMaxPotentialBlockSize(&grid, &block, occ, 0, 0);
  printf("{\\"a\\":%d,\\"b\\":%d,\\"c\\":%d,\\"grid\\":%d,\\"block\\":%d}\\n", a, b, c, grid, block);
}`)
  const arch = `-arch=sm_${new Device().computeCapability}`
  const exe = spawnSync(nvcc, [arch, '-o', path.join(dir, 'occ'), cu], { encoding: 'utf8' })
  t.is(exe.status, 0, exe.stderr)
  const cubin = spawnSync(nvcc, [arch, '-cubin', '-o', path.join(dir, 'occ.cubin'), cu], { encoding: 'utf8' })
  t.is(cubin.status, 0, cubin.stderr)
  const cpp = JSON.parse(spawnSync(path.join(dir, 'occ'), { encoding: 'utf8' }).stdout.trim())
  const k = new RawModule({ path: path.join(dir, 'occ.cubin') }).getFunction('occ')
  const ours = {
    a: k.maxActiveBlocksPerMultiprocessor(256),
    b: k.maxActiveBlocksPerMultiprocessor(1024),
    c: k.maxActiveBlocksPerMultiprocessor(128, 48 * 1024),
    ...(({ minGridSize, blockSize }) => ({ grid: minGridSize, block: blockSize }))(k.suggestedBlockSize()),
  }
  t.deepEqual(ours, cpp)
  t.log(JSON.stringify(cpp))
  if (existsSync(path.join(dir, 'occ.cubin'))) t.pass()
})

linkTest('an LTO-IR link runs: two programs, linked by nvJitLink, loaded and launched', (t) => {
  if (!onGpu) return t.pass('compiled and linked only (simulator)')
  const arch = Number(new Device().computeCapability)
  const a = new Program(`extern "C" __device__ int add1(int x);
extern "C" __global__ void use(int* p) { p[threadIdx.x] = add1(p[threadIdx.x]); }`).compile({ target: 'ltoir', arch })
  const b = new Program(`extern "C" __device__ int add1(int x) { return x + 1; }`).compile({ target: 'ltoir', arch })
  const p = alloc(4 * 32)
  p.copyFromHost(new Int32Array(32).map((_, i) => i))
  const linked = new Linker([a, b], { arch }).link()
  new RawModule({ cubin: linked.code }).getFunction('use').launch(1, 32, [p])
  new RawModule({ ltoir: [a.code, b.code] }).getFunction('use').launch(1, 32, [p])
  const h = new Int32Array(32)
  p.copyToHost(h)
  t.true(h.every((v, i) => v === i + 2))
})

nvrtcTest('a RawKernel compiled on the simulator still runs its host implementation', (t) => {
  if (onGpu) return t.pass('simulator only')
  let ran = 0
  const k = new RawKernel(`extern "C" __global__ void k(int* p, int v) { p[0] = v; }`, 'k', { simulate: () => void ran++ })
  k.launch(1, 1, [alloc(4), i32(1)])
  // The launch queues the host implementation on the current stream: wait for that stream.
  getCurrentStream().synchronize()
  t.is(ran, 1)
})
