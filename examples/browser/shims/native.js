// The addon, as the page's loader left it (cuda-node.wasi-browser.js `load()`, awaited first).
if (!globalThis.__cudaNodeNative) throw new Error('load the WebAssembly build first: await load() from cuda-node.wasi-browser.js')
module.exports = globalThis.__cudaNodeNative
