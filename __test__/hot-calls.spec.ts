// The hot calls (crates/node/src/fast.rs) are raw Node-API callbacks: the TS layer checks its
// arguments first, but the native side must refuse anything itself, with a typed error and no
// crash. Called directly here, in a child process, so that a crash fails the test.
import test from 'ava'
import { runJson } from './helpers'

const script = `
const { native } = require(require('path').join(${JSON.stringify(require('node:path').resolve(__dirname, '..'))}, 'lib', 'native.js'))
const s = new cuda.Stream({ nonBlocking: true })
const e = new cuda.Event()
const pool = new native.NativePool(0)
const sid = s._id, eid = e._id, pid = pool.id
const gone = new cuda.Stream(); const goneId = gone._id; gone.destroy()
const calls = {
  'streamSynchronize()': () => native.streamSynchronize(),
  'streamSynchronize("1")': () => native.streamSynchronize('1'),
  'streamSynchronize(NaN)': () => native.streamSynchronize(NaN),
  'streamSynchronize(-1)': () => native.streamSynchronize(-1),
  'streamSynchronize(0.5)': () => native.streamSynchronize(0.5),
  'streamSynchronize(2**60)': () => native.streamSynchronize(2 ** 60),
  'streamSynchronize(destroyed)': () => native.streamSynchronize(goneId),
  'streamQuery({})': () => native.streamQuery({}),
  'streamRecord(sid)': () => native.streamRecord(sid),
  'streamRecord(sid, sid+1)': () => native.streamRecord(sid, eid + 4294967296),
  'eventQuery(sid-as-event)': () => native.eventQuery(12345678),
  'streamSleep(sid, -5)': () => native.streamSleep(sid, -5),
  'streamLaunchHostFn(sid, -1)': () => native.streamLaunchHostFn(sid, -1),
  'poolMalloc(pid, -1, sid)': () => native.poolMalloc(pid, -1, sid),
  'poolMalloc(pid, 1, destroyed)': () => native.poolMalloc(pid, 1, goneId),
  'poolMalloc(bad pool)': () => native.poolMalloc(999999, 1, sid),
  'memFree(never)': () => native.memFree(777),
  'nvtxRangePush()': () => native.nvtxRangePush(),
  'nvtxRangePush(5)': () => native.nvtxRangePush(5),
  'nvtxRangePush(NUL)': () => native.nvtxRangePush('a\\0b'),
  'nvtxRangePush(long NUL)': () => native.nvtxRangePush('x'.repeat(1000) + '\\0'),
  'kernelLaunch(no kernel)': () => native.kernelLaunch(424242, sid, new Uint32Array(8), new Uint8Array(0)),
  'driverFloor(2, ...)': () => native.driverFloor(2, sid, eid, 10),
  'driverFloor(on Stream.null)': () => native.driverFloor(0, cuda.Stream.null._id, eid, 10),
  'driverFloor(count -1)': () => native.driverFloor(1, sid, eid, -1),
  'driverFloor(destroyed)': () => native.driverFloor(1, goneId, eid, 10),
  'driverFloor(0, sid, eid, 100)': () => { const ns = native.driverFloor(0, sid, eid, 100); if (!(ns > 0)) throw new Error('not a time: ' + ns) },
}
const out = {}
for (const [name, f] of Object.entries(calls)) {
  try { f(); out[name] = 'no error' } catch (err) { out[name] = err.constructor.name + (err.code ? ' ' + err.code : '') }
}
// Still usable afterwards, and a long message (past the 256-byte stack buffer) goes through.
native.nvtxRangePush('y'.repeat(5000)); native.nvtxRangePop()
s.synchronize()
out.after = e.record(s).done === true || e.record(s).done === false ? 'ok' : 'broken'
console.log(JSON.stringify(out))
`

test('the hot calls refuse wrong arguments and stale handles with typed errors, never a crash', (t) => {
  const got = runJson(script)
  t.deepEqual(got, {
    'streamSynchronize()': 'TypeError',
    'streamSynchronize("1")': 'TypeError',
    'streamSynchronize(NaN)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamSynchronize(-1)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamSynchronize(0.5)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamSynchronize(2**60)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamSynchronize(destroyed)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamQuery({})': 'TypeError',
    'streamRecord(sid)': 'TypeError',
    'streamRecord(sid, sid+1)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'eventQuery(sid-as-event)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'streamSleep(sid, -5)': 'RangeError',
    'streamLaunchHostFn(sid, -1)': 'RangeError',
    'poolMalloc(pid, -1, sid)': 'RangeError',
    'poolMalloc(pid, 1, destroyed)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'poolMalloc(bad pool)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'memFree(never)': 'CudaError CUDA_ERROR_INVALID_VALUE',
    'nvtxRangePush()': 'TypeError',
    'nvtxRangePush(5)': 'TypeError',
    'nvtxRangePush(NUL)': 'TypeError',
    'nvtxRangePush(long NUL)': 'TypeError',
    'kernelLaunch(no kernel)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'driverFloor(2, ...)': 'RangeError',
    'driverFloor(on Stream.null)': 'RangeError',
    'driverFloor(count -1)': 'RangeError',
    'driverFloor(destroyed)': 'CudaError CUDA_ERROR_INVALID_HANDLE',
    'driverFloor(0, sid, eid, 100)': 'no error',
    after: 'ok',
  })
})
