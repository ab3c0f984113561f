// Counts distinct tests over several TAP logs (ava --tap, one log per Node version), for .ci/run:
// a test is failed if any run failed it, else passed if any run passed it, else skipped.
// Prints `passed failed skipped`.
'use strict'
const fs = require('node:fs')
const state = new Map()
for (const file of process.argv.slice(2)) {
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^(ok|not ok)(?: \d+)? - (.*?)( # (?:SKIP|TODO).*)?$/.exec(line)
    if (!m) continue
    const now = m[1] === 'not ok' ? 'failed' : m[3] ? 'skipped' : 'passed'
    const was = state.get(m[2])
    if (was === 'failed' || (was === 'passed' && now === 'skipped')) continue
    state.set(m[2], now)
  }
}
const n = (s) => [...state.values()].filter((v) => v === s).length
console.log(n('passed'), n('failed'), n('skipped'))
