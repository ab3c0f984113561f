import test from 'ava'
import { CudaError, Device } from '..'

const rangeErrors: unknown[] = [1.5, NaN, Infinity, -0.5]
const typeErrors: unknown[] = ['x', '0', 1n, null, {}, [0], true]

for (const id of rangeErrors) {
  test(`new Device(${String(id)}) is a RangeError`, (t) => {
    t.throws(() => new Device(id as number), { instanceOf: RangeError, message: /device id must be an integer/ })
  })
}

for (const id of typeErrors) {
  test(`new Device(${typeof id === 'bigint' ? `${id}n` : JSON.stringify(id)}) is a TypeError`, (t) => {
    t.throws(() => new Device(id as number), { instanceOf: TypeError, message: /device id must be a number/ })
  })
}

for (const id of [-1, 2 ** 40, 2 ** 31, Number.MAX_SAFE_INTEGER, 'count']) {
  test(`new Device(${id === 'count' ? 'Device.count()' : id}) is CUDA_ERROR_INVALID_DEVICE`, (t) => {
    const n = id === 'count' ? Device.count() : (id as number)
    const e = t.throws(() => new Device(n), { instanceOf: CudaError })
    t.is(e!.code, 'CUDA_ERROR_INVALID_DEVICE')
    t.regex(e!.message, new RegExp(`no device ${n}`))
  })
}

test('a failed Device construction leaves the current device unchanged', (t) => {
  t.throws(() => new Device(-1))
  t.is(Device.current().id, 0)
})
