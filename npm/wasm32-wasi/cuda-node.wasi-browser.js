// Loads cuda-node's WebAssembly build in a browser (or any ES-module host with fetch and
// WebAssembly), through emnapi. Browsers compile a module of this size only asynchronously on
// their main thread, so loading is a promise: `await load()` before the first call (the page in
// examples/browser does this, then hands the exports to the TS layer).
import { instantiateNapiModule, WASI, emnapiAsyncWorkPlugin, emnapiTSFNPlugin } from '@napi-rs/wasm-runtime'
import { createContext } from '@emnapi/runtime'

/** The addon's exports, from the .wasm at `url` (default: beside this file). */
export async function load(url = new URL('./cuda-node.wasm32-wasi.wasm', import.meta.url)) {
  const response = await fetch(url)
  if (!response.ok) throw new Error(`cuda-node could not fetch its WebAssembly build from ${url}: ${response.status}`)
  const bytes = await response.arrayBuffer()
  // Not shared: the build has no threads.
  const memory = new WebAssembly.Memory({ initial: 512, maximum: 65536 })
  const { napiModule } = await instantiateNapiModule(bytes, {
    context: createContext(),
    asyncWorkPoolSize: 0,
    wasi: new WASI({ version: 'preview1' }),
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
  return napiModule.exports
}
