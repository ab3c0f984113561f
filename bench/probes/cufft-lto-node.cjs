// Which cuFFT, NVRTC and nvJitLink a plan with an LTO callback loads, and what it says.
const { readFileSync } = require('node:fs')
const cuda = require(process.cwd() + '/index.js')
const libsNow = (re) => [...new Set(readFileSync('/proc/self/maps', 'utf8').split('\n').filter((l) => re.test(l)).map((l) => l.split(/\s+/).pop()))]
console.log('before the plan:', libsNow(/ptxjit|cufft|nvJitLink|nvrtc/).join(' '))
const src = `
__device__ float2 times_two(void *dataIn, unsigned long long offset, void *callerInfo, void *sharedPtr) {
  float2 v = ((float2 *)dataIn)[offset]; float2 r; r.x = 2.0f * v.x; r.y = 2.0f * v.y; return r; }`
for (const type of ['c2c']) {
  try {
    new cuda.FftPlan({ shape: 128, type, batch: 1, callbacks: { load: { name: 'times_two', source: src } } })
    console.log(type, 'plan made')
  } catch (e) { console.log(type, 'error:', e.code, e.message) }
}
try { new cuda.cufft.Plan1d(128, 'c2c', 1); console.log('plain plan made') } catch (e) { console.log('plain error', e.message) }
const maps = readFileSync('/proc/self/maps', 'utf8').split('\n').filter((l) => /cufft|nvrtc|nvJitLink|nvjitlink/.test(l)).map((l) => l.split(/\s+/).pop())
console.log([...new Set(maps)].join('\n'))
// Our NVRTC's LTO-IR of the same source, for lto.py to try.
const prog = new cuda.Program(src, { fileName: 'cufft_callback.cu', options: ['--relocatable-device-code=true'] })
const out = prog.compile({ target: 'ltoir', arch: '90' })
require('node:fs').writeFileSync('/tmp/ours.ltoir', out.code)
console.log('wrote /tmp/ours.ltoir', require('node:fs').statSync('/tmp/ours.ltoir').size)
