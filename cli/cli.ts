#!/usr/bin/env node
// npx cuda-node info | tour | memviz | top
import path from 'node:path'

const [cmd, arg] = process.argv.slice(2)
const usage = 'usage: cuda-node info | tour [output-dir] | memviz snapshot.json [-o out.html] | top [--once]'

async function main(): Promise<void> {
  switch (cmd) {
    case 'info':
      console.log((await import('./info')).info())
      break
    case 'tour':
      await (await import('./tour')).tour(arg === undefined ? undefined : path.resolve(arg))
      break
    case 'top':
      process.exitCode = await (await import('./top')).main(process.argv.slice(3))
      break
    case 'memviz':
      process.exitCode = (await import('./memviz')).main(process.argv.slice(3))
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
