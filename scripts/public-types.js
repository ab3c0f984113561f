// Takes the `@internal` constructors out of the emitted .d.ts files (`npm run build:ts` runs this
// after tsc), so the public types show only what a user can call. A class's internal constructor
// takes the module-private `INTERNAL` token; users never hold it, and the types should not offer
// it. An internal overload beside a public one is dropped; a class whose only constructor is
// internal (Graph, PinnedMemory, the base NativeObject) gets `protected constructor()`, so `new`
// from outside is a type error while subclasses still extend it. tsc's `stripInternal` cannot do
// this: it would drop the base class itself, which every public class extends, and leave a class
// whose one constructor it dropped constructible with no arguments.
'use strict'
const fs = require('node:fs')
const path = require('node:path')

/** A constructor that takes the `INTERNAL` token: only the package's own code can call it. */
const INTERNAL_CONSTRUCTOR = /^\s*constructor\(token: typeof INTERNAL\b/

/** `text` (one .d.ts) without internal constructors (and the doc comments over them). */
function publicTypes(text) {
  const lines = text.split('\n')
  const out = []
  for (let i = 0; i < lines.length; i++) {
    if (!INTERNAL_CONSTRUCTOR.test(lines[i])) {
      out.push(lines[i])
      continue
    }
    // Its doc comment, already copied, goes too.
    if (/\*\/\s*$/.test(out.at(-1) ?? '')) {
      while (out.length && !/^\s*\/\*\*/.test(out.at(-1))) out.pop()
      out.pop()
    }
    if (countConstructors(lines, i) === 1) out.push(`${/^\s*/.exec(lines[i])[0]}protected constructor();`)
  }
  return out.join('\n')
}

/** How many constructor declarations the class around line `at` has (its body's own level). */
function countConstructors(lines, at) {
  let start = at
  while (start > 0 && !/^(export )?(declare )?(abstract )?class /.test(lines[start].trimStart())) start--
  let n = 0
  for (let j = start + 1; j < lines.length && !lines[j].startsWith('}'); j++) if (/^ {4}constructor\(/.test(lines[j])) n++
  return n
}

/** Every .d.ts under `dir`, recursively, skipping node_modules. */
function declarationFiles(dir) {
  return fs
    .readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith('.d.ts') && !f.split(path.sep).includes('node_modules'))
    .map((f) => path.join(dir, f))
}

module.exports = { publicTypes }

if (require.main === module) {
  const root = path.join(__dirname, '..')
  const files = [path.join(root, 'index.d.ts'), ...declarationFiles(path.join(root, 'lib')), ...declarationFiles(path.join(root, 'cli'))]
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8')
    const stripped = publicTypes(text)
    if (stripped !== text) fs.writeFileSync(file, stripped)
  }
}
