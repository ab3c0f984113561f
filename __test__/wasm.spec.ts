// The WebAssembly build (issue #26): the API slice and the tour under NAPI_RS_FORCE_WASI=1 in
// Node, and the tour in headless Chromium. Each test skips, saying why, where the build or the
// browser is absent (npm run build:wasm needs Debian's rustc-web, rust-web-src and wasi-libc;
// scripts/wasm-build.sh --install installs them).
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'

const wasm = path.join(root, 'npm/wasm32-wasi/cuda-node.wasm32-wasi.wasm')
const built = existsSync(wasm)
const noBuild = `no WebAssembly build at ${path.relative(root, wasm)} (npm run build:wasm; it needs Debian's rustc-web, rust-web-src and wasi-libc)`
const chromium = process.env.CHROMIUM ?? 'chromium'
const hasChromium = spawnSync(chromium, ['--version'], { encoding: 'utf8' }).status === 0
const wasiEnv = { ...process.env, NAPI_RS_FORCE_WASI: '1', NODE_NO_WARNINGS: '1' }

function node(args: string[], env = wasiEnv, timeout = 90_000) {
  return spawnSync(process.execPath, args, { cwd: root, env, encoding: 'utf8', timeout })
}

/** `test.skip` with the reason in the title, so the skip says why. */
function skipping(why: string): typeof test {
  return ((title: string, ...rest: any[]) => (test.skip as any)(`${title} (${why})`, ...rest)) as any
}

const wasmTest = built ? test : skipping(noBuild)

wasmTest('the WebAssembly build runs the API slice: copies, streams, events, a graph, a simulated kernel, a callback, typed errors', (t) => {
  const r = node([path.join(__dirname, 'fixtures/wasm-slice.js')])
  t.is(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!)
  t.like(out, {
    backend: { name: 'sim', reason: 'the WebAssembly build has the simulator only' },
    roundTrip: true,
    filled: true,
    waitedOnEvent: true,
    queryAfterMacrotasks: true,
    pinnedBuffer: 'CUDA_ERROR_NOT_SUPPORTED',
    graphTile7: 8,
    kernelSimulated: true,
    badAlloc: 'RangeError',
    cudaError: 'CudaError CUDA_ERROR_ILLEGAL_STATE',
  })
  // The 5 ms kernel between the events ran on the host clock, as natively.
  t.true(out.elapsedMs >= 5 && out.elapsedMs < 1000, String(out.elapsedMs))
})

wasmTest('the Node loader serves the calls every export makes without emnapi\'s views (cuda-node.wasi.cjs, fastCalls), and nothing reads the last error it leaves', (t) => {
  const all = WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(wasm)))
  t.true(all.some((i) => i.module === 'env' && i.name === 'memory' && i.kind === 'memory'), "the module imports the loader's memory, which fastCalls views")
  const imports = all.map((i) => i.name)
  t.true(imports.includes('napi_get_cb_info'))
  t.false(imports.includes('napi_get_last_error_info'), 'a success of fastCalls leaves the last error as it was')
  // Wrong kinds and missing arguments take emnapi's own path: the same typed errors.
  const r = node(['-e', `
    const { native } = require('./lib/native')
    const out = []
    for (const f of [() => native.memAlloc('0', 64), () => native.memAlloc(0), () => native.streamQuery(), () => native.memAlloc(0, true)]) {
      try { f(); out.push('ok') } catch (e) { out.push(e.constructor.name + ': ' + e.message) }
    }
    const h = native.memAlloc(0, 64)
    out.push(native.memDesc(h).size, typeof native.memFree(h))
    console.log(JSON.stringify(out))`])
  t.is(r.status, 0, r.stderr)
  // As the native addon says them.
  t.deepEqual(JSON.parse(r.stdout.trim().split('\n').pop()!), [
    'TypeError: device must be a number, got a string',
    'TypeError: size must be a number, got nothing',
    'TypeError: stream must be a number, got nothing',
    'TypeError: size must be a number, got a boolean',
    64,
    'undefined',
  ])
})

wasmTest('the tour runs on the WebAssembly build in Node', (t) => {
  const r = node(['--import', 'tsx', 'examples/tour.ts'])
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /backend: sim \(the WebAssembly build has the simulator only\)/)
  t.regex(r.stdout, /consumer saw 42 … 42/)
  t.regex(r.stdout, /tile 99 holds 99/)
  t.regex(r.stdout, /host callback: ran after the 10 ms kernel/)
})

wasmTest('forcing cuda on the WebAssembly build says it has the simulator only', (t) => {
  const r = node(['-e', `try { require('.').backend() } catch (e) { console.log(e.code, e.message) }`], { ...wasiEnv, CUDA_NODE_BACKEND: 'cuda' })
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /CUDA_ERROR_NOT_INITIALIZED .*WebAssembly build, which has the simulator only/)
})

const browserTest = !built ? skipping(noBuild) : hasChromium ? test : skipping(`no ${chromium} to open the page: apt-get install chromium`)

browserTest('headless Chromium runs the tour from examples/browser and draws the timeline', (t) => {
  const b = node(['examples/browser/build.mjs'], process.env, 60_000)
  t.is(b.status, 0, b.stderr)
  const shot = path.join(scratchDir('browser-'), 'tour.png')
  const r = node(['--experimental-websocket', 'examples/browser/smoke.mjs', shot], process.env, 120_000)
  const lines = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))
  const console_ = lines.filter((l) => l.console !== undefined).map((l) => l.console)
  t.is(r.status, 0, `${r.stdout}\n${r.stderr}`)
  t.true(console_.includes('backend: sim (the WebAssembly build has the simulator only)'), console_.join('\n'))
  t.true(console_.some((l) => /consumer saw 42 … 42/.test(l)))
  t.true(console_.some((l) => /tile 99 holds 99/.test(l)))
  t.true(console_.some((l) => /host callback: ran after the 10 ms kernel/.test(l)))
  t.true(console_.includes('cuda-node tour: done, timeline drawn'))
  const png = readFileSync(shot)
  t.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG')
  t.true(png.length > 10_000, `screenshot of ${png.length} bytes`)
})
