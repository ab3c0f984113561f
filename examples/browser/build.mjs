// Builds the page's scripts into examples/browser/dist: the WebAssembly loader with emnapi, the
// tour with the TS layer (Node's modules replaced by the small shims beside this file), and a
// copy of the .wasm (npm run build:wasm makes it). Run: node examples/browser/build.mjs
import { build } from 'esbuild'
import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '../..')
const dist = path.join(here, 'dist')
const wasm = path.join(root, 'npm/wasm32-wasi/cuda-node.wasm32-wasi.wasm')
if (!existsSync(wasm)) throw new Error(`${wasm} is missing: run npm run build:wasm first`)
mkdirSync(dist, { recursive: true })
copyFileSync(wasm, path.join(dist, 'cuda-node.wasm32-wasi.wasm'))

const shim = (name) => path.join(here, 'shims', name)
const nodeShims = {
  'node:fs': shim('fs.js'),
  'node:path': shim('path.js'),
  'node:async_hooks': shim('async_hooks.js'),
  'node:diagnostics_channel': shim('diagnostics_channel.js'),
  'node:os': shim('misc.js'),
  'node:crypto': shim('misc.js'),
  'node:worker_threads': shim('misc.js'),
  'node:net': shim('net.js'),
}
const shims = {
  name: 'cuda-node-browser-shims',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (a) => (nodeShims[a.path] ? { path: nodeShims[a.path] } : { errors: [{ text: `no browser shim for ${a.path}` }] }))
    // lib/native.ts requires the addon loader: in the page, the exports index.html loaded.
    b.onResolve({ filter: /(^|\/)native\.js$/ }, (a) => (a.importer.includes(`${path.sep}lib${path.sep}`) ? { path: shim('native.js') } : undefined))
  },
}

const common = { bundle: true, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'warning', legalComments: 'none' }
await build({ ...common, entryPoints: [path.join(root, 'npm/wasm32-wasi/cuda-node.wasi-browser.js')], outfile: path.join(dist, 'cuda-node.wasi-browser.js') })
await build({ ...common, entryPoints: [path.join(here, 'main.ts')], outfile: path.join(dist, 'tour.js'), plugins: [shims], inject: [shim('globals.js')] })
console.log(`built ${path.relative(root, dist)}`)
