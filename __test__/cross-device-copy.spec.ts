// Copies of another device's memory with no stream given (#32.1): they run on the current stream
// of the memory's device, wherever the call is made from, as CuPy's copy_from_host and PyTorch's
// copy_ do; between devices on the destination's current stream, ordered after the source
// device's current stream (an event recorded there and waited on, as PyTorch orders them). An
// explicit stream of the wrong device stays refused. On two real GPUs where this machine has
// them, else on the simulator with two devices, each script in a child process.
import test from 'ava'
import { Device } from '..'
import { onGpu, runJson } from './helpers'

const real = onGpu && Device.count() >= 2
const where = real ? 'two GPUs' : 'simulator, 2 devices'
const env: Record<string, string> = real ? { CUDA_NODE_BACKEND: 'cuda' } : { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' }
const two = (script: string) => runJson(script, env)

test(`with device 0 current, copies to, from and memset of device 1's memory work (${where})`, (t) => {
  const r = two(`
    const { Device, alloc } = cuda
    const p1 = new Device(1).run(() => alloc(4096))
    const q1 = new Device(1).run(() => alloc(4096))
    const p0 = alloc(4096)
    const src = new Uint8Array(4096).map((_, i) => (i * 7) & 255)
    const out = {}
    p1.copyFromHost(src)
    const back = new Uint8Array(4096)
    p1.copyToHost(back)
    out.hostRoundTrip = back.every((v, i) => v === src[i])
    q1.memset(9, 4096)
    q1.copyToHost(back)
    out.memset = back.every((v) => v === 9)
    p0.copyFromDevice(p1, 4096)
    p0.copyToHost(back)
    out.oneToZero = back.every((v, i) => v === src[i])
    q1.copyFromDevice(p0, 4096)
    q1.copyToHost(back)
    out.zeroToOne = back.every((v, i) => v === src[i])
    out.current = new Device().id
    console.log(JSON.stringify(out))`)
  t.deepEqual(r, { hostRoundTrip: true, memset: true, oneToZero: true, zeroToOne: true, current: 0 })
})

test(`a copy between devices with no stream waits for the source device's current stream (${where})`, (t) => {
  const r = two(`
    const { Device, Stream, alloc, kernels } = cuda
    const n = 1 << 16
    const p0 = alloc(n), p1 = new Device(1).run(() => alloc(n))
    p0.memset(1, n)
    // Device 0's current stream is busy for 200 ms, then writes 2s into the source.
    const s0 = new Stream({ nonBlocking: true }).use()
    kernels.sleep(200e6, s0)
    p0.memsetAsync(2, n, s0)
    // Issued from device 1: on its current stream, after what device 0's current stream queued.
    new Device(1).run(() => p1.copyFromDevice(p0, n))
    const back = new Uint8Array(n)
    p1.copyToHost(back)
    console.log(JSON.stringify({ ordered: back.every((v) => v === 2), first: back[0] }))`)
  t.deepEqual(r, { ordered: true, first: 2 })
})

test(`an explicit stream of the wrong device stays refused (${where})`, (t) => {
  const r = two(`
    const { Device, Stream, alloc } = cuda
    const p1 = new Device(1).run(() => alloc(512))
    const s0 = new Stream()
    const codes = []
    for (const f of [() => p1.copyFromHostAsync(new Uint8Array(512), 512, s0), () => p1.copyToHostAsync(new Uint8Array(512), 512, s0), () => p1.memsetAsync(0, 512, s0)]) {
      try { f(); codes.push('none') } catch (e) { codes.push(e.code) }
    }
    console.log(JSON.stringify(codes))`)
  t.is(r.length, 3)
  for (const c of r) t.regex(c, /^CUDA_ERROR_/)
})
