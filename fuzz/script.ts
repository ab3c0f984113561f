// A standalone repro script of fuzz cases (`FUZZ_SCRIPT=path FUZZ_PRINT=mode:seed:path npm run
// fuzz`): plain CommonJS that runs the cases in order under fuzz/repro/harness.js, each statement
// announced before it runs, with a watchdog for a statement that blocks. For a crash or a hang a
// GPU run reported: print the batch up to the case (`mode:seed:..N`) and run it on that machine.
import path from 'node:path'

/** The script's text; `file` is where it will be written (the harness is required relative to it). */
export function reproScript(file: string, title: string, cases: { n: number; lines: string[] }[]): string {
  let harness = path.relative(path.dirname(path.resolve(file)), path.join(__dirname, 'repro', 'harness.js')).split(path.sep).join('/')
  if (!harness.startsWith('.')) harness = `./${harness}`
  const body = cases.map(({ n, lines }) => {
    const stmts = lines.map((l, i) => `    at(${i}); ${l.replace(/\s*\n\s*/g, ' ')}`).join('\n')
    const texts = lines.map((l) => `    ${JSON.stringify(l.replace(/\s*\n\s*/g, ' '))},`).join('\n')
    return `  [${n}, [\n${texts}\n  ], async (h, at) => {\n    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached, terminated, stale } = h\n${stmts}\n  }],`
  })
  const comment = title.split('\n').map((l) => `// ${l}`.trimEnd()).join('\n')
  // Generated hostile code (thenables, unused names): the linter's rules are not for it.
  return `${comment}\n/* eslint-disable */\n'use strict'\nconst { repro } = require(${JSON.stringify(harness)})\n\nrepro(__filename, ${JSON.stringify(title)}, [\n${body.join('\n')}\n])\n`
}
