import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { alloc, CudaError, mallocPlain, MemoryPointer } from '..'
import { gpuTest, onGpu, root, scratchDir, simTest } from './helpers'

/** `test.skip` with the reason in the title, so the skip says why. */
function skipping(why: string): typeof test {
  return ((title: string, ...rest: any[]) => (test.skip as any)(`${title} (${why})`, ...rest)) as any
}

simTest('interprocess memory is CUDA_ERROR_NOT_SUPPORTED on the simulator, saying why', (t) => {
  const p = mallocPlain(64)
  const e = t.throws(() => p.ipcHandle(), { instanceOf: CudaError })!
  t.is(e.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(e.message, /GPU/)
  t.is(t.throws(() => MemoryPointer.fromIpcHandle(Buffer.alloc(64)), { instanceOf: CudaError })!.code, 'CUDA_ERROR_NOT_SUPPORTED')
})

test('fromIpcHandle checks the handle before the driver sees it', (t) => {
  t.throws(() => MemoryPointer.fromIpcHandle(Buffer.alloc(63)), { instanceOf: RangeError, message: /64 bytes/ })
  t.throws(() => MemoryPointer.fromIpcHandle('handle' as any), { instanceOf: TypeError })
  t.throws(() => MemoryPointer.fromIpcHandle(Buffer.alloc(64), { offset: -1 }), { instanceOf: RangeError })
})

/** A child Node process that opens what it is sent, checks it, writes it back changed. */
const CHILD = `
const cuda = require(${JSON.stringify(root)})
process.on('message', (m) => {
  const p = cuda.MemoryPointer.fromIpcHandle({ handle: Buffer.from(m.handle, 'hex'), offset: m.offset }, { size: m.size })
  const got = Buffer.alloc(m.size)
  p.copyToHost(got)
  const reply = Buffer.from(got).map((b) => b ^ 0xff)
  p.copyFromHost(reply)
  p.free()
  process.send({ got: got.toString('hex') }, () => process.exit(0))
})
`

gpuTest('two Node processes share device memory through IPC handles, a pool block at its offset', async (t) => {
  const dir = scratchDir('ipc-')
  const file = path.join(dir, 'child.js')
  writeFileSync(file, CHILD)
  alloc(1536) // the next block of the pool lies at an offset in a larger allocation
  const p = alloc(4096)
  const bytes = randomBytes(4096)
  p.copyFromHost(bytes)
  const { handle, offset } = p.ipcHandle()
  t.is(handle.length, 64)
  const child = spawn(process.execPath, [file], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const reply: any = await new Promise((resolve, reject) => {
    child.on('message', resolve)
    child.on('error', reject)
    child.on('exit', (code) => reject(new Error(`child exited ${code}`)))
    child.send({ handle: handle.toString('hex'), offset, size: 4096 })
  })
  t.is(reply.got, bytes.toString('hex'), 'the child read what the parent wrote')
  const back = Buffer.alloc(4096)
  p.copyToHost(back)
  t.true(back.equals(Buffer.from(bytes).map((b) => b ^ 0xff)), 'the parent reads what the child wrote')
})

const python = spawnSync('python3', ['-c', 'import cupy'], { encoding: 'utf8' })
const cupyTest: typeof test = onGpu && python.status === 0 ? test : skipping(onGpu ? 'needs CuPy: python3 -c "import cupy" failed' : 'GPU only, with CuPy: backend is sim')

const PRODUCER = `
import cupy, sys
cupy.cuda.set_allocator(None)  # a plain cudaMalloc, so the pointer is its allocation's base
a = cupy.arange(256, dtype=cupy.uint8)
h = cupy.cuda.runtime.ipcGetMemHandle(a.data.ptr)
print(bytes(h).hex(), flush=True)
sys.stdin.readline()
`

cupyTest('memory CuPy allocated in a Python process opens here through its IPC handle', async (t) => {
  const py = spawn('python3', ['-c', PRODUCER], { stdio: ['pipe', 'pipe', 'inherit'] })
  const line: string = await new Promise((resolve, reject) => {
    let out = ''
    py.stdout.on('data', (d) => {
      out += d
      if (out.includes('\n')) resolve(out.trim())
    })
    py.on('exit', (c) => reject(new Error(`python exited ${c}`)))
  })
  const p = MemoryPointer.fromIpcHandle(Buffer.from(line, 'hex'), { size: 256 })
  const got = Buffer.alloc(256)
  p.copyToHost(got)
  p.free()
  py.stdin.end('done\n')
  t.deepEqual([...got], [...Array(256).keys()])
})

const CONSUMER = `
import cupy, sys
h, off = sys.stdin.readline().split()
base = cupy.cuda.runtime.ipcOpenMemHandle(bytes.fromhex(h))
mem = cupy.cuda.UnownedMemory(base + int(off), 64, None)
a = cupy.ndarray((64,), dtype=cupy.uint8, memptr=cupy.cuda.MemoryPointer(mem, 0))
print(int(a.astype(cupy.int64).sum()), flush=True)
`

cupyTest('memory of a pool block opens in CuPy at its offset (the base handle plus the offset)', (t) => {
  alloc(2560)
  const p = alloc(64)
  p.memset(3, 64)
  const { handle, offset } = p.ipcHandle()
  const r = spawnSync('python3', ['-c', CONSUMER], { input: `${handle.toString('hex')} ${offset}\n`, encoding: 'utf8' })
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), String(3 * 64))
})
