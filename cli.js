#!/usr/bin/env node
// npx cuda-node info | bench | tour
'use strict'
const path = require('node:path')
const [cmd, arg] = process.argv.slice(2)
const usage = 'usage: cuda-node info | bench [results-dir] | tour [output-dir]'

async function main() {
  switch (cmd) {
    case 'info':
      console.log(require('./lib/info.js').info())
      break
    case 'bench':
      await require('./lib/bench.js').bench(path.resolve(arg ?? 'bench-results'))
      break
    case 'tour':
      await require('./lib/tour.js').tour(path.resolve(arg ?? 'cuda-node-tour'))
      break
    default:
      console.error(usage)
      process.exitCode = cmd === undefined || cmd === '--help' || cmd === '-h' ? 0 : 2
  }
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
