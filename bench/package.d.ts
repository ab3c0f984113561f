// Types of bench/package.js: the package, and the internals it adds.
export * from '../index'
export { native } from '../lib/native'
export { own } from '../lib/object'
export { register } from '../lib/callbacks'
