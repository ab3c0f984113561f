import test from 'ava'
import { fork, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { alloc, AsyncMemoryPool, CudaError, Device, getDefaultMemoryPool, PinnedMemoryPool, Stream } from '..'
import { gpuTest, nativeTest, onGpu, runNode, scratchDir, wasmTest, simTest } from './helpers'

const PEER = path.join(__dirname, 'fixtures', 'shared-pool-peer.js')

/** `test.skip` with the reason in the title, so the skip says why. */
/** Unix sockets: the native build only. */
const socketTest = nativeTest('no Unix sockets; the wasmTest below says connect() is CUDA_ERROR_NOT_SUPPORTED')

/** A forked peer process, stepped by messages (fixtures/shared-pool-peer.js). */
class Peer {
  readonly child: ChildProcess
  constructor() {
    this.child = fork(PEER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  }
  step(step: string, args: object = {}): Promise<any> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the peer exited (${code}) during ${step}`))
      this.child.once('exit', onExit)
      this.child.once('message', (m: any) => {
        this.child.off('exit', onExit)
        resolve(m)
      })
      this.child.send({ step, ...args })
    })
  }
  /** Asks the peer to exit and waits for it. */
  async exit(): Promise<void> {
    const gone = new Promise((resolve) => this.child.once('exit', resolve))
    this.child.send({ step: 'exit' })
    await gone
  }
}

function ok(t: any, reply: any): any {
  t.true(reply.ok, `${reply.code}: ${reply.message}`)
  return reply
}

// ---- everywhere: options, and what the simulator says -----------------------------------------

test('AsyncMemoryPool checks its options before the driver sees them', (t) => {
  t.throws(() => new AsyncMemoryPool({ sharable: true } as any), { instanceOf: TypeError, message: /no option 'sharable'/ })
  t.throws(() => new AsyncMemoryPool({ shareable: 'yes' } as any), { instanceOf: TypeError, message: /boolean/ })
  t.throws(() => new AsyncMemoryPool({ shareable: true, location: 'disk' } as any), { instanceOf: TypeError, message: /'device' or 'host'/ })
  t.throws(() => new AsyncMemoryPool({ device: 0 }), { instanceOf: TypeError, message: /shareable/ })
})

test('a PinnedMemoryPool cannot be shared, and says what can: CUDA shares no pool of plain host memory', (t) => {
  const e = t.throws(() => new PinnedMemoryPool({ shareable: true }), { instanceOf: TypeError })
  t.regex(e!.message, /AsyncMemoryPool\(\{ shareable: true, location: 'host' \}\)/)
  t.throws(() => new PinnedMemoryPool({ sharable: true } as any), { instanceOf: TypeError, message: /no option 'sharable'/ })
  t.throws(() => new PinnedMemoryPool({ shareable: 1 } as any), { instanceOf: TypeError, message: /boolean/ })
  const pool = new PinnedMemoryPool({ shareable: false })
  pool.malloc(64).free()
})

test('an ordinary pool has no share, import or destroy', async (t) => {
  const pool = new AsyncMemoryPool()
  await t.throwsAsync(pool.share(), { instanceOf: TypeError, message: /shareable: true/ })
  t.throws(() => pool.unshare(), { instanceOf: TypeError })
  t.throws(() => pool.importPointer(Buffer.alloc(96)), { instanceOf: TypeError })
  t.throws(() => pool.destroy(), { instanceOf: TypeError })
})

test('exportPointer refuses memory that is not from a shareable pool', (t) => {
  const async = new AsyncMemoryPool()
  async.freeAllBlocks()
  getDefaultMemoryPool().freeAllBlocks()
  const free0 = new Device().memInfo().free
  const p = async.malloc(4096)
  const e = t.throws(() => p.exportPointer(), { instanceOf: CudaError })!
  t.is(e.code, 'CUDA_ERROR_INVALID_VALUE')
  t.regex(e.message, /shareable pool/)
  const q = alloc(1024)
  t.is(t.throws(() => q.exportPointer(), { instanceOf: CudaError })!.code, 'CUDA_ERROR_INVALID_VALUE')
  t.throws(() => p.exportPointer.call({ byteOffset: 8 } as any), { instanceOf: RangeError, message: /whole allocation/ })
  p.free()
  q.free()
  async.freeAllBlocks()
  getDefaultMemoryPool().freeAllBlocks()
  // memInfo is device-wide: on a GPU other test processes allocate at the same time.
  if (!onGpu) t.is(new Device().memInfo().free, free0, 'nothing leaked')
})

simTest('a shareable pool is CUDA_ERROR_NOT_SUPPORTED on the simulator, saying why', (t) => {
  const e = t.throws(() => new AsyncMemoryPool({ shareable: true }), { instanceOf: CudaError })!
  t.is(e.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(e.message, /between processes/)
})

socketTest('connecting where nothing answers is CUDA_ERROR_NOT_FOUND', async (t) => {
  const dir = scratchDir('shared-pool-')
  const e = await t.throwsAsync(AsyncMemoryPool.connect(path.join(dir, 'nothing.sock')), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_NOT_FOUND')
  t.regex(e!.message, /exited|unshared/)
  const file = path.join(dir, 'plain-file')
  writeFileSync(file, 'not a socket')
  t.is((await t.throwsAsync(AsyncMemoryPool.connect(file), { instanceOf: CudaError }))!.code, 'CUDA_ERROR_NOT_FOUND')
  await t.throwsAsync(AsyncMemoryPool.connect(42 as any), { instanceOf: TypeError })
})

socketTest('a socket that is not a pool is CUDA_ERROR_INVALID_VALUE', async (t) => {
  const sock = path.join(scratchDir('shared-pool-'), 'http.sock')
  const server = createServer((c) => c.end('HTTP/1.1 400 Bad Request\r\n\r\n'))
  await new Promise<void>((resolve) => server.listen(sock, resolve))
  try {
    const e = await t.throwsAsync(AsyncMemoryPool.connect(sock), { instanceOf: CudaError })
    t.is(e!.code, 'CUDA_ERROR_INVALID_VALUE')
    t.regex(e!.message, /not a cuda-node pool socket/)
  } finally {
    server.close()
  }
})

wasmTest('connect is CUDA_ERROR_NOT_SUPPORTED on WebAssembly, which has no Unix sockets', async (t) => {
  const e = await t.throwsAsync(AsyncMemoryPool.connect('/tmp/any.sock'), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(e!.message, /Unix sockets/)
})

// ---- on the GPU: two processes -----------------------------------------------------------------

gpuTest('two Node processes share an allocation: the exporter writes, the importer reads and frees', async (t) => {
  const pool = new AsyncMemoryPool({ shareable: true })
  const { path: sock } = await pool.share()
  t.deepEqual(await pool.share(), { path: sock }, 'sharing again gives the same socket')
  const p = pool.malloc(1 << 20)
  p.copyFromHost(Buffer.alloc(1 << 20, 0x5a))
  Stream.null.synchronize()
  const data = p.exportPointer()
  t.is(data.length, 96)
  const peer = new Peer()
  try {
    ok(t, await peer.step('connect', { path: sock }))
    ok(t, await peer.step('import', { id: 1, data: data.toString('hex') }))
    const { bytes } = ok(t, await peer.step('read', { id: 1 }))
    t.true(Buffer.from(bytes, 'hex').equals(Buffer.alloc(1 << 20, 0x5a)))
    t.is(ok(t, await peer.step('free', { id: 1 })).used, 0, 'the import is freed')
    ok(t, await peer.step('destroy'))
  } finally {
    await peer.exit()
  }
  p.free() // after the importer freed its import, as CUDA asks
  Stream.null.synchronize()
  t.is(pool.usedBytes(), 0, 'nothing of the pool is in use')
  pool.destroy()
  t.throws(() => pool.malloc(64), { instanceOf: CudaError, message: /gone/ })
})

gpuTest('an import outlives the exporter: it stays valid until the importer frees it', async (t) => {
  const exporter = new Peer()
  const importer = new Peer()
  try {
    const { path: sock, data } = ok(t, await exporter.step('export', { size: 65536, fill: 0x3c }))
    ok(t, await importer.step('connect', { path: sock }))
    ok(t, await importer.step('import', { id: 1, data }))
    await exporter.exit()
    const { bytes } = ok(t, await importer.step('read', { id: 1 }))
    t.true(Buffer.from(bytes, 'hex').equals(Buffer.alloc(65536, 0x3c)))
    ok(t, await importer.step('free', { id: 1 }))
    ok(t, await importer.step('destroy'))
    // The exporter is gone, and its socket with it.
    const e = await t.throwsAsync(AsyncMemoryPool.connect(sock), { instanceOf: CudaError })
    t.is(e!.code, 'CUDA_ERROR_NOT_FOUND')
  } finally {
    await importer.exit()
  }
})

gpuTest('an exporter freeing while imported: the importer reads undefined bytes but nothing faults, and its free succeeds', async (t) => {
  const pool = new AsyncMemoryPool({ shareable: true })
  const { path: sock } = await pool.share()
  const p = pool.malloc(65536)
  const data = p.exportPointer()
  const peer = new Peer()
  try {
    ok(t, await peer.step('connect', { path: sock }))
    ok(t, await peer.step('import', { id: 1, data: data.toString('hex') }))
    p.free() // against CUDA's rule: the bytes are the pool's again
    Stream.null.synchronize()
    const q = pool.malloc(65536) // and may be handed out again
    q.copyFromHost(Buffer.alloc(65536, 0x11))
    Stream.null.synchronize()
    ok(t, await peer.step('read', { id: 1 }))
    ok(t, await peer.step('free', { id: 1 }))
    ok(t, await peer.step('destroy'))
    q.free()
  } finally {
    await peer.exit()
    pool.destroy()
  }
})

gpuTest('bad input across processes: malformed data, another pool, an unshared pool', async (t) => {
  const a = new AsyncMemoryPool({ shareable: true })
  const b = new AsyncMemoryPool({ shareable: true })
  const { path: sock } = await a.share()
  const pa = a.malloc(4096)
  const pb = b.malloc(4096)
  const peer = new Peer()
  try {
    ok(t, await peer.step('connect', { path: sock }))
    const bad = async (data: Buffer, why: RegExp) => {
      const r = await peer.step('import', { id: 9, data: data.toString('hex') })
      t.false(r.ok)
      t.is(r.code, 'CUDA_ERROR_INVALID_VALUE')
      t.regex(r.message, why)
    }
    await bad(Buffer.alloc(64), /malformed/)
    const flipped = Buffer.from(pa.exportPointer())
    flipped[0] ^= 0xff
    await bad(flipped, /malformed/)
    await bad(pb.exportPointer(), /another pool/)
    t.is(t.throws(() => a.importPointer(pa.exportPointer()), { instanceOf: CudaError })!.code, 'CUDA_ERROR_INVALID_VALUE')
    a.unshare()
    const e = await t.throwsAsync(AsyncMemoryPool.connect(sock), { instanceOf: CudaError })
    t.is(e!.code, 'CUDA_ERROR_NOT_FOUND', 'an unshared pool answers no more')
    ok(t, await peer.step('destroy'))
  } finally {
    await peer.exit()
    pa.free()
    pb.free()
    a.destroy()
    b.destroy()
  }
})

gpuTest('a shared pool keeps no process alive', (t) => {
  const r = runNode(`
    const pool = new cuda.AsyncMemoryPool({ shareable: true })
    pool.malloc(4096)
    pool.share().then(({ path }) => console.log(JSON.stringify({ path })))
  `, {}, [], 30_000)
  t.is(r.status, 0, r.stderr)
  t.true(r.ms < 20_000)
})
