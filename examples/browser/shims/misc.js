// node:os, node:crypto and node:worker_threads in the page: what the TS layer touches outside
// NVRTC's kernel cache (which the WebAssembly build never reaches: it has no NVRTC).
export const isMainThread = true
export function homedir() { return '/' }
export function tmpdir() { return '/tmp' }
export function randomBytes(n) { return crypto.getRandomValues(new Uint8Array(n)) }
export function createHash() { throw new Error('no hashing in the browser build (it has no NVRTC kernel cache)') }
export function timingSafeEqual(a, b) { return a.length === b.length && a.every((x, i) => x === b[i]) }
export default { isMainThread, homedir, tmpdir, randomBytes, createHash, timingSafeEqual }
