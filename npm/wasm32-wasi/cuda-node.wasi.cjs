// Loads cuda-node's WebAssembly build (wasm32-wasip1, the `sim` backend only) in Node.js,
// through emnapi: Node-API implemented in JS over the module's memory. Single-threaded: async
// work and threadsafe functions are emnapi's JS plugins, and the simulator runs cooperatively.
'use strict'
const { readFileSync } = require('node:fs')
const path = require('node:path')
const { WASI } = requireQuietly('node:wasi')
const { instantiateNapiModuleSync, emnapiAsyncWorkPlugin, emnapiTSFNPlugin } = require('@napi-rs/wasm-runtime')
const { createContext } = require('@emnapi/runtime')

/**
 * `require(id)` without Node 20's "ExperimentalWarning: WASI is an experimental feature" in the
 * user's output (emitted when node:wasi loads): the warning is ours to take, not the user's to read.
 */
function requireQuietly(id) {
  const emit = process.emitWarning
  process.emitWarning = function (warning, ...rest) {
    const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type
    if (type === 'ExperimentalWarning' && /WASI/.test(String(warning))) return
    return emit.call(this, warning, ...rest)
  }
  try {
    return require(id)
  } finally {
    process.emitWarning = emit
  }
}

const file = process.env.CUDA_NODE_WASM_PATH || path.join(__dirname, 'cuda-node.wasm32-wasi.wasm')
const wasi = new WASI({ version: 'preview1', env: process.env })
// Not shared: the build has no threads. 32 MiB to start (the 8 MiB stack included), 4 GiB at most.
const memory = new WebAssembly.Memory({ initial: 512, maximum: 65536 })

const { napiModule } = instantiateNapiModuleSync(readFileSync(file), {
  context: createContext(),
  asyncWorkPoolSize: 0,
  wasi,
  plugins: [emnapiAsyncWorkPlugin, emnapiTSFNPlugin],
  overwriteImports(importObject) {
    importObject.env = { ...importObject.env, ...importObject.napi, ...importObject.emnapi, memory }
    return importObject
  },
  beforeInit({ instance }) {
    for (const name of Object.keys(instance.exports)) {
      if (name.startsWith('__napi_register__')) instance.exports[name]()
    }
  },
})

module.exports = napiModule.exports
