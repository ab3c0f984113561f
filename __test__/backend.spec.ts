import test from 'ava'
import { backend, CudaError } from '..'
import { onWasm, runJson, runNode } from './helpers'

// What this machine picks when nothing is forced: cuda where a driver loads and finds a device.
const unforced = runJson('console.log(JSON.stringify(cuda.backend()))', { CUDA_NODE_BACKEND: undefined })

/** A test for a machine where the driver does not load (whatever backend this process was given). */
const noDriverTest: typeof test =
  unforced.name === 'sim' ? test : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs a machine without a usable CUDA driver)`, ...rest)) as any)

test('backend() names the backend and says why', (t) => {
  const b = backend()
  t.true(b.name === 'cuda' || b.name === 'sim')
  t.true(b.reason.length > 0)
  if (b.name === 'cuda') t.true(b.driverVersion! >= 11000)
  else t.is(b.driverVersion, undefined)
})

test('CUDA_NODE_BACKEND=sim forces the simulator', (t) => {
  const b = runJson('console.log(JSON.stringify(cuda.backend()))', { CUDA_NODE_BACKEND: 'sim' })
  t.is(b.name, 'sim')
  t.regex(b.reason, /CUDA_NODE_BACKEND=sim/)
})

noDriverTest('forcing cuda where no driver loads is a CudaError that says why', (t) => {
  const r = runJson(
    `try { cuda.backend(); console.log('{}') } catch (e) {
       console.log(JSON.stringify({ cls: e.constructor.name, isCuda: e instanceof cuda.CudaError, code: e.code, message: e.message }))
     }`,
    { CUDA_NODE_BACKEND: 'cuda' },
  )
  t.true(r.isCuda)
  t.is(r.cls, 'CudaError')
  t.is(r.code, 'CUDA_ERROR_NOT_INITIALIZED')
  if (onWasm) t.regex(r.message, /CUDA_NODE_BACKEND=cuda, but this is the WebAssembly build, which has the simulator only/)
  else t.regex(r.message, /CUDA_NODE_BACKEND=cuda, but the CUDA driver library could not be loaded/)
})

test('without CUDA_NODE_BACKEND the backend is cuda exactly when the driver loads, and sim says why not', (t) => {
  if (unforced.name === 'cuda') t.true(unforced.driverVersion >= 11000)
  else {
    t.is(unforced.name, 'sim')
    if (onWasm) t.is(unforced.reason, 'the WebAssembly build has the simulator only')
    else t.regex(unforced.reason, /CUDA driver .*; using the simulator/)
  }
})

test('forcing cuda fails every call the same way, without crashing, exactly where the driver does not load', (t) => {
  const r = runNode(
    `let n = 0; for (let i = 0; i < 3; i++) { try { cuda.Device.count(); } catch (e) { if (e instanceof cuda.CudaError) n++ } }
     console.log(n)`,
    { CUDA_NODE_BACKEND: 'cuda' },
  )
  t.is(r.status, 0, r.stderr)
  // Where unforced selection found the driver, forcing it succeeds; where it did not, forcing it
  // fails on every call (not only the first) with a CudaError.
  t.is(r.stdout.trim(), unforced.name === 'cuda' ? '0' : '3', `unforced: ${unforced.name} (${unforced.reason})`)
})

test('an unknown backend name is a RangeError', (t) => {
  const r = runJson(
    `try { cuda.backend(); console.log('{}') } catch (e) { console.log(JSON.stringify({ cls: e.constructor.name, message: e.message })) }`,
    { CUDA_NODE_BACKEND: 'opencl' },
  )
  t.is(r.cls, 'RangeError')
  t.regex(r.message, /must be 'cuda' or 'sim', got 'opencl'/)
})

test('CudaError is an Error with a name and a code', (t) => {
  const e = new CudaError('boom', 'CUDA_ERROR_INVALID_VALUE')
  t.true(e instanceof Error)
  t.is(e.name, 'CudaError')
  t.is(e.code, 'CUDA_ERROR_INVALID_VALUE')
  t.regex(String(e), /^CudaError: boom/)
})

test('CudaError takes a string message and code, and converts nothing else (#20: a huge array message hung)', (t) => {
  const huge = new Proxy([], { get: (a, k) => (k === 'length' ? 2 ** 32 - 1 : Reflect.get(a, k)) })
  t.throws(() => new CudaError(huge as any, 'CUDA_ERROR_UNKNOWN'), { instanceOf: TypeError, message: /message as a string/ })
  t.throws(() => new (CudaError as any)('boom'), { instanceOf: TypeError, message: /code as a string/ })
  t.throws(() => new CudaError({ toString: () => 'x' } as any, 'CUDA_ERROR_UNKNOWN'), { instanceOf: TypeError })
})
