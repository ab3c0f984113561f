// node:async_hooks in the page. Browsers have no async context: a store set by run() holds for
// the synchronous run only, and enterWith() until the next one (see docs/wasm.md).
export class AsyncLocalStorage {
  run(store, fn, ...args) {
    const prev = this.store
    this.store = store
    try { return fn(...args) } finally { this.store = prev }
  }
  getStore() { return this.store }
  enterWith(store) { this.store = store }
  static snapshot() { return (fn, ...args) => fn(...args) }
}
export default { AsyncLocalStorage }
