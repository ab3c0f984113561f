// Per-call costs of the hot paths, each piece alone (node bench/micro.js), to see where time goes.
const cuda = require('..')
const { native } = require('../lib/native.js')
const { own } = require('../lib/object.js')
function t(name, n, f) {
  for (let i = 0; i < Math.min(n, 10000); i++) f()
  const res = []
  for (let b = 0; b < 9; b++) { const t0 = process.hrtime.bigint(); for (let i = 0; i < n; i++) f(); res.push(Number(process.hrtime.bigint() - t0) / n) }
  res.sort((a, b) => a - b); console.log(name.padEnd(44), res[4].toFixed(1).padStart(8), 'ns')
}
const n = 100000
const s = new cuda.Stream({ nonBlocking: true })
const ev = new cuda.Event({ disableTiming: true })
const sid = own(s), eid = own(ev)
console.log('backend', cuda.backend().name)
t('memLive (raw, no args)', n, () => native.memLive())
t('streamQuery (raw)', n, () => native.streamQuery(sid))
t('streamSynchronize (raw)', n, () => native.streamSynchronize(sid))
t('s.synchronize()', n, () => s.synchronize())
t('eventQuery (raw)', n, () => native.eventQuery(eid))
t('streamRecord (raw)', n, () => native.streamRecord(sid, eid))
t('ev.record(s); ev.done', n, () => { ev.record(s); return ev.done })
t('nvtx push+pop', n, () => { cuda.nvtx.rangePush('r'); cuda.nvtx.rangePop() })
const owner = {}
const pid = native.poolCreate(owner, 0)
t("poolMalloc+memFree (raw)", n, () => native.memFree(native.poolMalloc(pid, 1 << 20, sid)))
const pool = new cuda.MemoryPool()
s.run(() => t('pool.malloc(1 MiB).free()', n, () => pool.malloc(1 << 20).free()))
t('getCurrentStream()', n, () => cuda.getCurrentStream())
if (cuda.backend().name === 'cuda') {
  const k = new cuda.RawKernel('extern "C" __global__ void k(float* p, int n) { if (n < 0) p[0] = 1; }', 'k')
  const p = cuda.alloc(1024)
  const args = [p, cuda.i32(1)]
  t('RawKernel.launch (ptr, i32)', 20000, () => k.launch([1, 1, 1], [32, 1, 1], args, { stream: s }))
  s.synchronize()
  t('kernels.sleep(0, s)', 20000, () => cuda.kernels.sleep(0, s))
  s.synchronize()
}
