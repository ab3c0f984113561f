// node:path in the page: POSIX joins, enough for the tour's output names.
export function join(...parts) { return parts.filter(Boolean).join('/').replace(/\/+/g, '/') }
export function resolve(...parts) { const p = join(...parts); return p.startsWith('/') ? p : '/' + p }
export function dirname(p) { return p.replace(/\/[^/]*$/, '') || '/' }
export function basename(p) { return p.replace(/.*\//, '') }
export const sep = '/'
export default { join, resolve, dirname, basename, sep }
