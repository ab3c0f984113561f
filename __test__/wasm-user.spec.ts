// WebAssembly for users (#33.6): docs/wasm.md gives the browser demo a serve-and-open command and
// says how to bundle the package (Vite, esbuild) with the shims it needs, each of which exists;
// the build takes no flags a current rustc-web warns about; the sizes it states are the build's;
// and the package's loader keeps Node's ExperimentalWarning about WASI out of a user's output.
// What needs the WebAssembly build or its toolchain skips, saying why, where they are absent.
import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { root } from './helpers'

const doc = readFileSync(path.join(root, 'docs/wasm.md'), 'utf8')
const wasm = path.join(root, 'npm/wasm32-wasi/cuda-node.wasm32-wasi.wasm')
const built = existsSync(wasm)
const skipping = (why: string): typeof test => ((title: string, ...rest: any[]) => (test.skip as any)(`${title} (${why})`, ...rest)) as any
const builtTest = built ? test : skipping('no WebAssembly build: npm run build:wasm')
const toolchain = spawnSync('bash', ['-c', '. scripts/wasm-env.sh && echo "$WASM_RUSTC" && echo "$WASM_CARGO_FLAGS"'], { cwd: root, encoding: 'utf8' })
const toolchainTest = toolchain.status === 0 ? test : skipping('no WebAssembly toolchain: bash scripts/wasm-build.sh --install')

test('docs/wasm.md says how to serve and open the browser demo, and how to bundle the package with its shims', (t) => {
  t.regex(doc, /node examples\/browser\/serve\.mjs +# prints http:\/\/127\.0\.0\.1:8000\/: open it/)
  t.true(existsSync(path.join(root, 'examples/browser/serve.mjs')))
  t.regex(doc, /### From a bundler/)
  t.regex(doc, /Vite/)
  t.regex(doc, /esbuild/)
  for (const shim of readdirSync(path.join(root, 'examples/browser/shims')).filter((f) => f !== 'process.js')) t.regex(doc, new RegExp(`\`${shim.replace('.', '\\.')}\``), `the table names ${shim}`)
  t.notRegex(doc, /rustc-web` \(1\.85 on bookworm\)/)
  t.notRegex(doc, /1\.9 MB addon/)
})

toolchainTest('the build passes no flag the installed rustc-web has outgrown (each would warn)', (t) => {
  const [rustc, flags] = toolchain.stdout.trim().split('\n')
  const minor = Number(/^rustc 1\.(\d+)/.exec(spawnSync(rustc, ['--version'], { encoding: 'utf8' }).stdout)![1])
  t.is(flags.includes('unsigned_is_multiple_of'), minor < 87, `rustc 1.${minor}: ${flags}`)
  t.is(flags.includes('--ignore-rust-version'), minor < 88, `rustc 1.${minor}: ${flags}`)
})

builtTest('docs/wasm.md gives the size of the .wasm this build makes (with wasm-opt where binaryen is installed, without it where not)', (t) => {
  const mb = statSync(wasm).size / 1e6
  const optimised = spawnSync('sh', ['-c', 'command -v wasm-opt']).status === 0
  const stated = optimised ? /([\d.]+) MB `\.wasm` with binaryen's `wasm-opt`/.exec(doc) : /shrinks the module from\n?\s*([\d.]+) MB/.exec(doc)
  t.truthy(stated, 'the doc states it')
  t.true(Math.abs(mb - Number(stated![1])) <= 0.06, `the build is ${mb.toFixed(2)} MB, the doc says ${stated![1]} MB (${optimised ? 'with' : 'without'} wasm-opt)`)
})

builtTest('loading the WebAssembly build prints no ExperimentalWarning into the user\'s output', (t) => {
  const env: NodeJS.ProcessEnv = { ...process.env, NAPI_RS_FORCE_WASI: '1' }
  delete env.NODE_NO_WARNINGS
  delete env.NODE_OPTIONS
  const r = spawnSync(process.execPath, ['-e', `const c = require('.'); console.log(c.backend().name)`], { cwd: root, env, encoding: 'utf8', timeout: 60_000 })
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'sim')
  t.notRegex(r.stderr, /ExperimentalWarning/)
})

const servable = built && existsSync(path.join(root, 'examples/browser/dist/tour.js'))
const serveTest = servable ? test : skipping('no browser build: npm run build:wasm && node examples/browser/build.mjs')

serveTest('examples/browser/serve.mjs serves the page, its script and the .wasm as application/wasm', async (t) => {
  const child = spawn(process.execPath, [path.join(root, 'examples/browser/serve.mjs'), '0'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (d) => {
        out += d
        const m = /open (http:\/\/\S+)/.exec(out)
        if (m) resolve(m[1])
      })
      child.on('exit', (c) => reject(new Error(`serve.mjs exited ${c}`)))
    })
    const page = await fetch(url)
    t.is(page.status, 200)
    t.regex(await page.text(), /cuda-node/)
    const w = await fetch(new URL('dist/cuda-node.wasm32-wasi.wasm', url))
    t.is(w.headers.get('content-type'), 'application/wasm')
    t.is((await w.arrayBuffer()).byteLength, statSync(wasm).size)
  } finally {
    child.kill()
  }
})
