// Globals Node has and the page lacks, injected by the bundler (build.mjs).
export { process } from './process.js'
export function setImmediate(fn, ...args) {
  const t = setTimeout(fn, 0, ...args)
  return { unref() { return this }, ref() { return this }, hasRef() { return true }, [Symbol.toPrimitive]() { return t } }
}
