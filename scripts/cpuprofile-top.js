// `node scripts/cpuprofile-top.js FILE.cpuprofile... [N]`: the N (25) functions with the most self
// time in V8 CPU profiles (`node --cpu-prof`), summed over the files. A native call's time counts
// as the self time of the JS function that made it (V8 sees no native frames); bench/profile.sh
// adds `perf` for those where it is installed. No dependencies.
'use strict'
const { readFileSync } = require('node:fs')
const path = require('node:path')

const args = process.argv.slice(2)
const n = args.length > 1 && /^\d+$/.test(args[args.length - 1]) ? Number(args.pop()) : 25
if (args.length === 0) {
  console.error('usage: node scripts/cpuprofile-top.js FILE.cpuprofile... [N]')
  process.exit(2)
}

const self = new Map()
let total = 0
for (const file of args) {
  const p = JSON.parse(readFileSync(file, 'utf8'))
  // Each sample names the node it hit; timeDeltas[i] is the µs before sample i.
  const us = new Map()
  p.samples.forEach((id, i) => us.set(id, (us.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)))
  for (const node of p.nodes) {
    const t = us.get(node.id) ?? 0
    if (t === 0) continue
    const f = node.callFrame
    const where = f.url ? ` ${path.basename(f.url)}:${f.lineNumber + 1}` : ''
    const key = `${f.functionName || '(anonymous)'}${where}`
    self.set(key, (self.get(key) ?? 0) + t)
    total += t
  }
}
console.log(`self time, top ${n} of ${self.size} functions, ${(total / 1e3).toFixed(1)} ms sampled in ${args.length} profile${args.length === 1 ? '' : 's'}`)
for (const [key, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, n)) {
  console.log(`${(t / 1e3).toFixed(1).padStart(10)} ms ${((100 * t) / total).toFixed(1).padStart(5)} %  ${key}`)
}
