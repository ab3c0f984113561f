// node:fs in the page: files written are kept in memory (the page shows the tour's timeline from
// them); nothing is read back.
export const files = (globalThis.__cudaNodeFiles ??= new Map())
export function writeFileSync(path, data) { files.set(String(path), String(data)) }
export function mkdirSync() {}
export function mkdtempSync(prefix) { return `${prefix}${Math.random().toString(36).slice(2, 8)}` }
export function renameSync(from, to) { files.set(to, files.get(from)); files.delete(from) }
export function readFileSync(path) { const e = new Error(`ENOENT: ${path}`); e.code = 'ENOENT'; throw e }
export function existsSync(path) { return files.has(String(path)) }
export default { writeFileSync, mkdirSync, mkdtempSync, renameSync, readFileSync, existsSync }
