// Every throw is an Error, whatever else runs in the process (#32.3): the package's loader
// registers the addon's process-wide hooks (the error class, the host dispatcher, the simulator's scheduler)
// once on each JS thread, and a later call — the addon required by path, say — is refused with a
// typed error, so nothing can make later errors plain objects. And destroying an object of a kind
// a call in progress holds (a stream, inside a simulated kernel run by a synchronize) is a typed
// error, not a caught panic.
import test from 'ava'
import { nativeTest, onGpu, runJson } from './helpers'

test('a second registration of any process-wide hook is refused, and errors stay Errors', (t) => {
  const r = runJson(`
    const native = require(require('node:path').join(${JSON.stringify(require('node:path').join(__dirname, '..'))}, 'native.js'))
    const refused = {}
    const hooks = {
      registerErrorClass: () => native.registerErrorClass(function X() { return {} }),
      registerHostDispatcher: () => native.registerHostDispatcher(() => {}),
      simSetScheduler: () => native.simSetScheduler(() => {}),
    }
    for (const [name, call] of Object.entries(hooks)) {
      try { call(); refused[name] = 'accepted' } catch (e) { refused[name] = [e instanceof Error, e.name, e.code] }
    }
    let later
    try { new cuda.Device(1000) } catch (e) { later = [e instanceof Error, e instanceof cuda.CudaError, e.code] }
    const s = new cuda.Stream(); let ran = false
    s.launchHostFunc(() => (ran = true)); s.synchronize()
    console.log(JSON.stringify({ refused, later, ran }))`)
  for (const name of ['registerErrorClass', 'registerHostDispatcher', 'simSetScheduler']) {
    t.deepEqual(r.refused[name], [true, 'CudaError', 'CUDA_ERROR_NOT_PERMITTED'], name)
  }
  t.deepEqual(r.later, [true, true, 'CUDA_ERROR_INVALID_DEVICE'])
  t.true(r.ran, 'the package\'s own dispatcher still runs host functions')
})

nativeTest('a simulated kernel runs inside its launch there, after a synchronize, holding no table')('stream.destroy() inside a simulated kernel run by a synchronize is a typed error', (t) => {
  if (onGpu) return t.pass('GPU: a compiled kernel runs no host implementation')
  const r = runJson(`
    const other = new cuda.Stream(), s = new cuda.Stream()
    let got
    const k = new cuda.RawKernel('extern "C" __global__ void k(int* p) {}', 'k', { simulate: () => {
      try { other.destroy(); got = 'destroyed' } catch (e) { got = [e instanceof Error, e.code, e.message] }
    } })
    k.launch(1, 1, [cuda.alloc(4)], { stream: s })
    s.synchronize()
    other.synchronize()
    console.log(JSON.stringify(got))`)
  t.is(r[0], true)
  t.is(r[1], 'CUDA_ERROR_NOT_PERMITTED')
  t.notRegex(r[2], /internal error/)
  t.regex(r[2], /destroy it after that call/)
})
