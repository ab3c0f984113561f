import test from 'ava'
import path from 'node:path'
import { CudaError, Device } from '..'
import { onGpu, onWasm, runJson } from './helpers'

// Library handles as CuPy has them (#38 item 5): cuSPARSE, cuTENSOR and cuSOLVER's sparse handle,
// beside cuBLAS's and cuSOLVER's dense one: made on first use per thread and device, loaded at
// run time, destroyed at exit. On the GPU a library that is not installed is a typed error
// naming what was looked for; the simulator's handles are stable fakes, as its cuBLAS one is.

const LIBS = [
  ['cusparseHandle', 'CUSPARSE', /cuSPARSE could not be loaded: looked for .*libcusparse\.so\.12.*CUDA_NODE_CUSPARSE_PATH/s],
  ['cutensorHandle', 'CUTENSOR', /cuTENSOR could not be loaded: looked for .*libcutensor\.so\.2.*CUDA_NODE_CUTENSOR_PATH/s],
  ['cusolverSpHandle', 'CUSOLVER', /cuSOLVER \(sparse\) could not be loaded: looked for .*libcusolver\.so\.12.*CUDA_NODE_CUSOLVER_PATH/s],
] as const

/** The handle, or the typed error where the library is missing (only possible on the GPU). */
function handleOrMissing(name: (typeof LIBS)[number][0], d = new Device(0)): bigint | CudaError {
  try {
    return d[name]
  } catch (e) {
    if (!(e instanceof CudaError)) throw e
    return e
  }
}

for (const [name, prefix, missing] of LIBS) {
  test(`dev.${name} is a bigint made on first use, the same for every Device of the id, or a typed error naming what was looked for`, (t) => {
    const h = handleOrMissing(name)
    if (h instanceof CudaError) {
      t.true(onGpu, 'the simulator has every library')
      t.is(h.code, `${prefix}_STATUS_NOT_INITIALIZED`)
      t.regex(h.message, missing)
      t.log(`${name}: not installed here (${h.code})`)
      // Asking again fails the same way, and nothing else breaks.
      t.throws(() => new Device(0)[name], { instanceOf: CudaError, message: missing })
      t.is(typeof new Device(0).cublasHandle, 'bigint')
      return
    }
    t.is(typeof h, 'bigint')
    t.not(h, 0n)
    t.is(new Device(0)[name], h)
    t.not(h, new Device(0).cublasHandle)
    t.not(h, new Device(0).cusolverHandle)
  })
}

test('the three new handles differ from each other', (t) => {
  const hs = LIBS.map(([name]) => handleOrMissing(name)).filter((h): h is bigint => typeof h === 'bigint')
  t.is(new Set(hs).size, hs.length)
  if (!onGpu) t.is(hs.length, 3)
})

test('the handles are per device (two simulated devices)', (t) => {
  const r = runJson(
    `const names = ['cusparseHandle', 'cutensorHandle', 'cusolverSpHandle']
     const d0 = new cuda.Device(0), d1 = new cuda.Device(1)
     console.log(JSON.stringify(names.map((n) => ({ differ: d0[n] !== d1[n], stable: d1[n] === new cuda.Device(1)[n] }))))`,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.deepEqual(r, [0, 1, 2].map(() => ({ differ: true, stable: true })))
})

const perInstance = onWasm ? " (WebAssembly: a worker's handles may equal the main thread's in value)" : ''
test(`a worker has its own handles, and its ending destroys them${perInstance}`, async (t) => {
  const { Worker } = await import('node:worker_threads')
  const main = LIBS.map(([name]) => handleOrMissing(name))
  const w = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads')
     const cuda = require(workerData.root)
     const d = new cuda.Device(0)
     const get = (n) => { try { return d[n] } catch (e) { return e.code } }
     const names = ['cusparseHandle', 'cutensorHandle', 'cusolverSpHandle']
     parentPort.postMessage({ first: names.map(get), again: names.map(get) })`,
    { eval: true, workerData: { root: path.join(__dirname, '..') } },
  )
  const got = await new Promise<any>((resolve, reject) => w.once('message', resolve).once('error', reject))
  await w.terminate()
  t.deepEqual(got.again, got.first, 'stable within the worker')
  main.forEach((h, i) => {
    if (typeof h !== 'bigint') t.is(got.first[i], (h as CudaError).code, 'missing in the worker too')
    else if (!onWasm) t.not(got.first[i], h)
  })
  // The main thread's are unchanged by the worker's ending.
  t.deepEqual(LIBS.map(([name]) => handleOrMissing(name)), main)
})

test('a process that made every handle exits cleanly (they are destroyed at exit)', (t) => {
  const r = runJson(
    `const d = new cuda.Device(0)
     const out = {}
     for (const n of ['cublasHandle', 'cusolverHandle', 'cusparseHandle', 'cutensorHandle', 'cusolverSpHandle']) {
       try { out[n] = typeof d[n] } catch (e) { out[n] = e.code }
     }
     console.log(JSON.stringify(out))`,
  )
  t.is(r.cublasHandle, 'bigint')
  for (const v of Object.values(r)) t.regex(String(v), /^bigint$|_STATUS_NOT_INITIALIZED$/)
})
