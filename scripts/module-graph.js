// Fails on an import loop. Two graphs:
// - crates/core/src: a node per top-level module, a folder (`cuda/`, `sim/`, `ops/`) being one
//   node; an edge per `crate::x` path in the module's files (`use` or inline, a name lib.rs
//   re-exports counted as its module's; `super::` resolved against the file's own path). The
//   backends must also reach no module that calls `runtime()`: they see only the seam.
// - lib/, index.ts, cli/: a node per file; an edge per relative import, `import type` and
//   `export … from` included, so a loop of types alone is still a loop.
// `node scripts/module-graph.js` prints both and exits 1 on a loop; __test__/layout.spec.ts
// runs the same functions.
'use strict'
const fs = require('node:fs')
const path = require('node:path')

/** The modules that are backends: below the seam, never reaching `runtime()`. */
const BACKENDS = ['cuda', 'sim']

function walk(dir, ext) {
  const out = []
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) out.push(...walk(p, ext))
    else if (e.name.endsWith(ext) && !e.name.endsWith('.d.ts')) out.push(p)
  }
  return out.sort()
}

/** Rust text without comments, string literals and `$crate`, so only code paths remain. */
function rustCode(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/r#*"[\s\S]*?"#*/g, '""')
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\$crate/g, '')
}

/**
 * The core's module graph: `{ nodes: Map<node, Set<node>>, callsRuntime: Set<node> }` for the
 * crate whose `lib.rs` is in `src`.
 */
function rustGraph(src) {
  const files = walk(src, '.rs')
  // `lib.rs`'s `pub use m::{A, B}`: a root name's module.
  const reexported = new Map()
  const libText = rustCode(fs.readFileSync(path.join(src, 'lib.rs'), 'utf8'))
  for (const m of libText.matchAll(/pub use (\w+)::(\{[^}]*\}|\w+)/g)) {
    for (const name of m[2].replace(/[{}]/g, '').split(',')) {
      const n = name.trim().split(/\s+as\s+/).pop()
      if (n) reexported.set(n, m[1])
    }
  }
  const modules = new Set()
  for (const f of files) {
    const rel = path.relative(src, f).split(path.sep)
    if (rel[0] !== 'lib.rs') modules.add(rel[0].replace(/\.rs$/, ''))
  }
  const nodeOf = (name) => (modules.has(name) ? name : reexported.get(name))
  const nodes = new Map([...modules].map((m) => [m, new Set()]))
  const callsRuntime = new Set()
  for (const f of files) {
    const rel = path.relative(src, f).split(path.sep)
    if (rel[0] === 'lib.rs') continue
    const node = rel[0].replace(/\.rs$/, '')
    // The file's module path: `cuda/stream.rs` is cuda::stream, `cuda/mod.rs` is cuda.
    const own = rel.map((s) => s.replace(/\.rs$/, '')).filter((s, i, a) => !(s === 'mod' && i === a.length - 1))
    const code = rustCode(fs.readFileSync(f, 'utf8'))
    if (/\bruntime\(\)/.test(code)) callsRuntime.add(node)
    const targets = []
    for (const m of code.matchAll(/\bcrate::(\{[^}]*\}|\w+)/g)) {
      targets.push(...m[1].replace(/[{}]/g, '').split(',').map((s) => s.trim().split('::')[0]))
    }
    for (const m of code.matchAll(/\b((?:super::)+)(\w+)/g)) {
      const up = m[1].length / 'super::'.length
      const base = own.slice(0, Math.max(0, own.length - up))
      targets.push(base.length ? base[0] : m[2])
    }
    for (const t of targets) {
      const to = nodeOf(t)
      if (to && to !== node) nodes.get(node).add(to)
    }
  }
  return { nodes, callsRuntime }
}

/** The TS layer's import graph over `files` (absolute paths); imports outside them are left out. */
function tsGraph(files) {
  const ts = require('typescript')
  const known = new Set(files)
  const nodes = new Map(files.map((f) => [f, new Set()]))
  for (const f of files) {
    const info = ts.preProcessFile(fs.readFileSync(f, 'utf8'), true, true)
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue
      const base = path.resolve(path.dirname(f), fileName)
      const to = [base, `${base}.ts`, path.join(base, 'index.ts')].find((p) => known.has(p))
      if (to && to !== f) nodes.get(f).add(to)
    }
  }
  return nodes
}

/** Every loop in `nodes` (Map<node, Set<node>>), each as a path that returns to its start. */
function cycles(nodes) {
  // Tarjan's strongly connected components; each component of more than one node is a loop.
  let index = 0
  const idx = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const found = []
  const visit = (v) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of nodes.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)))
    }
    if (low.get(v) === idx.get(v)) {
      const scc = []
      let w
      do {
        w = stack.pop()
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1) found.push(loopThrough(nodes, new Set(scc)))
    }
  }
  for (const v of [...nodes.keys()].sort()) if (!idx.has(v)) visit(v)
  return found
}

/** One concrete loop inside a strongly connected component, from its first node back to it. */
function loopThrough(nodes, scc) {
  const start = [...scc].sort()[0]
  const prev = new Map([[start, null]])
  const queue = [start]
  while (queue.length) {
    const v = queue.shift()
    for (const w of [...(nodes.get(v) ?? [])].sort()) {
      if (!scc.has(w)) continue
      if (w === start) {
        const p = [start]
        for (let u = v; u !== null && u !== start; u = prev.get(u)) p.splice(1, 0, u)
        return [...p, start]
      }
      if (!prev.has(w)) {
        prev.set(w, v)
        queue.push(w)
      }
    }
  }
  return [...scc]
}

/** The modules `from` reaches, itself left out. */
function reach(nodes, from) {
  const seen = new Set([from])
  const queue = [from]
  while (queue.length) {
    for (const w of nodes.get(queue.shift()) ?? []) {
      if (seen.has(w)) continue
      seen.add(w)
      queue.push(w)
    }
  }
  seen.delete(from)
  return seen
}

/** The TS layer's files: index.ts, lib/ and cli/. */
function tsFiles(root) {
  return [path.join(root, 'index.ts'), ...walk(path.join(root, 'lib'), '.ts'), ...walk(path.join(root, 'cli'), '.ts')]
}

/** What is wrong with the repository at `root`, as sentences; empty when there is no loop. */
function problems(root) {
  const out = []
  const core = rustGraph(path.join(root, 'crates/core/src'))
  for (const c of cycles(core.nodes)) out.push(`crates/core/src: a loop ${c.join(' → ')}`)
  for (const b of BACKENDS) {
    const bad = [...reach(core.nodes, b)].filter((m) => core.callsRuntime.has(m))
    if (bad.length) out.push(`crates/core/src: the ${b} backend reaches ${bad.join(', ')}, which call runtime(): it may import only the seam`)
  }
  for (const c of cycles(tsGraph(tsFiles(root)))) out.push(`TS: a loop ${c.map((f) => path.relative(root, f)).join(' → ')}`)
  return out
}

module.exports = { rustGraph, tsGraph, tsFiles, cycles, reach, problems, BACKENDS }

if (require.main === module) {
  const root = path.join(__dirname, '..')
  const core = rustGraph(path.join(root, 'crates/core/src'))
  for (const b of BACKENDS) console.log(`${b} imports: ${[...reach(core.nodes, b)].sort().join(', ')}`)
  const found = problems(root)
  for (const p of found) console.error(p)
  if (found.length) process.exit(1)
  console.log('no import loop in crates/core/src or the TS layer')
}
