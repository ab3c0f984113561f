#!/usr/bin/env node
// npx cuda-node info | tour | memviz | top
import path from 'node:path'

const [cmd, arg] = process.argv.slice(2)
const usage = 'usage: cuda-node info | tour [output-dir] | run [options] script.js (cuda-node run --help) | memviz snapshot.json [-o out.html] | top [--once]'

async function main(): Promise<void> {
  switch (cmd) {
    case 'info':
      console.log((await import('./info')).info())
      break
    case 'tour':
      await (await import('./tour')).tour(arg === undefined ? undefined : path.resolve(arg))
      break
    case 'run': {
      const { run, RUN_USAGE } = await import('./run')
      const rest = process.argv.slice(3)
      if (rest.length === 0 || rest[0] === '--help' || rest[0] === '-h') {
        console.error(RUN_USAGE)
        process.exitCode = rest.length === 0 ? 2 : 0
        break
      }
      process.exitCode = await run(rest)
      break
    }
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
