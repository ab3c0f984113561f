import test from 'ava'
import { backend, CudaError } from '..'
import { noDriverTest, onWasm, runJson, runNode } from './helpers'

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

test('forcing cuda where no driver loads fails every call the same way, without crashing', (t) => {
  // On a GPU machine this forces cuda successfully; either way the process must end normally.
  const r = runNode(
    `let n = 0; for (let i = 0; i < 3; i++) { try { cuda.Device.count(); } catch (e) { if (e instanceof cuda.CudaError) n++ } }
     console.log(n)`,
    { CUDA_NODE_BACKEND: 'cuda' },
  )
  t.is(r.status, 0, r.stderr)
  t.true(['0', '3'].includes(r.stdout.trim()))
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
