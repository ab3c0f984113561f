// The bits of Node's `process` the TS layer uses, for the page.
export const process = {
  env: {},
  pid: 1,
  platform: 'browser',
  exitCode: undefined,
  once() {},
  on() {},
  nextTick(fn, ...args) { queueMicrotask(() => fn(...args)) },
}
