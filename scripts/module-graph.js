// The layout checks, over every file of crates/ and the TS layer (index.ts, lib/, cli/):
// - Import loops. Rust: a node per file, an edge per path a file writes that names another
//   file's module (`use` trees and inline paths; `crate::`, `super::`, `self::` and child-module
//   paths resolved through `mod` files, inline `mod x { … }` and `use`/`pub use` bindings to the
//   file that defines the name; a macro call is its `macro_rules!` file's). TS: a node per file, an
//   edge per relative import, `import type` and `export … from` included, so a loop of types alone
//   is still a loop. `loopEdges` gives every edge whose target reaches back.
// - What the binding (crates/node/src) names in the core: only what core's lib.rs declares or
//   re-exports, never a backend or the seam (`BINDING_MAY_NOT`), nor the runtime's `.backend`.
// - Driver calls (`sys::cuX(`, or a `use …sys::cuX`) only in the raw layer (`RAW_LAYER`).
// - And, at module level (a folder such as `cuda/` one node), that the backends reach no module
//   that calls `runtime()`: they see only the seam (`rustGraph`, `reach`).
// `node scripts/module-graph.js` prints every finding, with its line, and exits 1 if there is
// one; __test__/layout.spec.ts runs the same functions, with an allowlist of known ones.
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

// ---- the file-level checks over crates/ ---------------------------------------------------------

/** A crate's source files by module path: `lib.rs` is ``, `sim/mod.rs` and `sim.rs` are `sim`. */
function moduleFiles(src) {
  const byModule = new Map()
  for (const f of walk(src, '.rs')) {
    const rel = path.relative(src, f).split(path.sep).map((s) => s.replace(/\.rs$/, ''))
    if (rel[rel.length - 1] === 'mod' || (rel.length === 1 && rel[0] === 'lib')) rel.pop()
    byModule.set(rel.join('::'), f)
  }
  return byModule
}

/** 1-based line of `offset` in `text`. */
function lineAt(text, offset) {
  let n = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++
  return n
}

/**
 * Rust code with comments, strings, char literals, `$crate` and `pub(in …)` blanked out (same
 * length, newlines kept, so offsets still give lines).
 */
function rustBlanked(text) {
  const blank = (m) => m.replace(/[^\n]/g, ' ')
  return text
    .replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|r(#*)"[\s\S]*?"\1|b?"(?:[^"\\]|\\[\s\S])*"|b?'(?:[^'\\\n]|\\[^\n]{1,10}?)'/g, blank)
    .replace(/\$crate|\bpub\s*\(\s*in\s[^)]*\)/g, blank)
}

/** The paths of a `use` tree (`a::{b, c::d as e, f::*}`), each `{ segs, alias }`. */
function useTree(text) {
  const tokens = text.match(/::|\{|\}|,|\*|\bas\b|[A-Za-z_]\w*/g) ?? []
  let i = 0
  const out = []
  const tree = (prefix) => {
    const segs = [...prefix]
    for (;;) {
      const t = tokens[i]
      if (t === '::') i++
      else if (t === '{') {
        i++
        while (i < tokens.length && tokens[i] !== '}') {
          tree(segs)
          if (tokens[i] === ',') i++
        }
        i++
        return
      } else if (t === '*') {
        i++
        out.push({ segs: [...segs, '*'], alias: null })
        return
      } else if (t !== undefined && /^\w+$/.test(t) && t !== 'as') {
        segs.push(t)
        i++
      } else break
    }
    let alias = segs[segs.length - 1]
    if (tokens[i] === 'as') {
      alias = tokens[i + 1]
      i += 2
    }
    if (segs.length > prefix.length) out.push({ segs, alias: alias === 'self' ? segs[segs.length - 2] : alias })
  }
  while (i < tokens.length) {
    tree([])
    if (tokens[i] === ',' || tokens[i] === '}') i++
  }
  return out.map((u) => (u.segs[u.segs.length - 1] === 'self' ? { segs: u.segs.slice(0, -1), alias: u.alias } : u))
}

/**
 * What one crate's files say about each other: for each file, its modules (the file's own and its
 * inline `mod x { … }`), the names each module's `use` binds, and every path it writes, with lines.
 */
function rustCrate(src) {
  const files = moduleFiles(src)
  const modules = new Map() // module path -> file
  const binds = new Map() // module path -> Map<name, { ctx, segs }>
  const refs = [] // { file, ctx, segs, line, inUse }
  const macros = new Map() // macro name -> the file of its macro_rules!
  const macroCalls = [] // { file, name, line }
  for (const [mod, file] of files) modules.set(mod, file)
  for (const [mod, file] of files) {
    const text = rustBlanked(fs.readFileSync(file, 'utf8'))
    const base = mod ? mod.split('::') : []
    // Inline modules: the module path at each offset.
    const opens = new Map()
    for (const m of text.matchAll(/\bmod\s+(\w+)\s*\{/g)) opens.set(m.index + m[0].length - 1, m[1])
    const regions = [{ from: 0, ctx: base }]
    const stack = []
    let depth = 0
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '{') {
        depth++
        if (opens.has(i)) {
          stack.push({ name: opens.get(i), depth })
          const ctx = [...base, ...stack.map((s) => s.name)]
          modules.set(ctx.join('::'), file)
          regions.push({ from: i, ctx })
        }
      } else if (text[i] === '}') {
        if (stack.length && stack[stack.length - 1].depth === depth) {
          stack.pop()
          regions.push({ from: i, ctx: [...base, ...stack.map((s) => s.name)] })
        }
        depth--
      }
    }
    const ctxAt = (off) => {
      let ctx = base
      for (const r of regions) if (r.from <= off) ctx = r.ctx
      return ctx
    }
    let rest = text
    for (const m of text.matchAll(/\buse\s+([^;]+);/g)) {
      const ctx = ctxAt(m.index)
      const key = ctx.join('::')
      if (!binds.has(key)) binds.set(key, new Map())
      for (const u of useTree(m[1])) {
        if (u.alias && u.alias !== '*') binds.get(key).set(u.alias, { ctx, segs: u.segs })
        refs.push({ file, ctx, segs: u.segs, line: lineAt(text, m.index), inUse: true })
      }
      rest = rest.slice(0, m.index) + m[0].replace(/[^\n]/g, ' ') + rest.slice(m.index + m[0].length)
    }
    for (const m of rest.matchAll(/(?<![\w:])[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)+(?!\w)(?!\s*!)/g)) {
      refs.push({ file, ctx: ctxAt(m.index), segs: m[0].split('::').map((s) => s.trim()), line: lineAt(text, m.index), inUse: false })
    }
    // A macro invoked (`crate::exports! {`, `js_object!(`) is its `macro_rules!` file's.
    for (const m of rest.matchAll(/\b(\w+)\s*!\s*[({[]/g)) macroCalls.push({ file, name: m[1], line: lineAt(text, m.index) })
    for (const m of text.matchAll(/\bmacro_rules!\s*(\w+)/g)) macros.set(m[1], file)
  }
  return { src, files, modules, binds, refs, macros, macroCalls }
}

/**
 * The file a path written in module `ctx` names (the deepest module it reaches, through `use`
 * and `pub use` bindings), or null for one outside the crate (std, another crate) or a local name.
 */
function resolve(krate, ctx, segs, seen = 0) {
  if (seen > 16 || !segs.length) return null
  let at
  let i = 0
  if (segs[0] === 'crate') [at, i] = [[], 1]
  else if (segs[0] === 'self') [at, i] = [ctx, 1]
  else if (segs[0] === 'super') {
    at = ctx
    while (segs[i] === 'super') [at, i] = [at.slice(0, -1), i + 1]
  } else if (krate.modules.has([...ctx, segs[0]].join('::'))) at = ctx
  else {
    const b = krate.binds.get(ctx.join('::'))?.get(segs[0])
    if (!b || b.segs.join('::') === segs.join('::')) return null
    return resolve(krate, b.ctx, [...b.segs, ...segs.slice(1)], seen + 1)
  }
  for (; i < segs.length; i++) {
    const next = [...at, segs[i]]
    if (krate.modules.has(next.join('::'))) {
      at = next
      continue
    }
    const b = krate.binds.get(at.join('::'))?.get(segs[i])
    if (b) {
      const via = resolve(krate, b.ctx, [...b.segs, ...segs.slice(i + 1)], seen + 1)
      if (via) return via
    }
    break
  }
  return krate.modules.get(at.join('::')) ?? null
}

/**
 * The file graph of the crate in `src`: `Map<file, Map<file, line>>` (relative to `root`), an
 * edge per path one file writes that names another file's module, at its first line.
 */
function rustFileGraph(root, src) {
  const krate = rustCrate(src)
  const rel = (f) => path.relative(root, f).split(path.sep).join('/')
  const nodes = new Map([...krate.files.values()].map((f) => [rel(f), new Map()]))
  const edge = (from, to, line) => {
    if (!to || to === from) return
    const edges = nodes.get(rel(from))
    if (!edges.has(rel(to)) || edges.get(rel(to)) > line) edges.set(rel(to), line)
  }
  for (const r of krate.refs) edge(r.file, resolve(krate, r.ctx, r.segs), r.line)
  for (const c of krate.macroCalls) edge(c.file, krate.macros.get(c.name), c.line)
  return nodes
}

/** The crates under `crates/` with a src/lib.rs, as src folders. */
function crateSrcs(root) {
  const dir = path.join(root, 'crates')
  return fs
    .readdirSync(dir)
    .sort()
    .map((c) => path.join(dir, c, 'src'))
    .filter((s) => fs.existsSync(path.join(s, 'lib.rs')))
}

/**
 * Every edge that closes a loop: `file:line → file` where the target reaches back to the file
 * (both in one strongly connected component), over every crate's file graph and the TS files.
 */
function loopEdges(root) {
  const out = []
  const graphs = crateSrcs(root).map((src) => rustFileGraph(root, src))
  const ts = tsGraph(tsFiles(root))
  const rel = (f) => path.relative(root, f).split(path.sep).join('/')
  const tsLines = new Map()
  for (const [f, tos] of ts) {
    const m = new Map()
    const info = require('typescript').preProcessFile(fs.readFileSync(f, 'utf8'), true, true)
    for (const { fileName, pos } of info.importedFiles) {
      const base = path.resolve(path.dirname(f), fileName)
      const to = [base, `${base}.ts`, path.join(base, 'index.ts')].find((p) => tos.has(p))
      if (to && !m.has(rel(to))) m.set(rel(to), lineAt(fs.readFileSync(f, 'utf8'), pos))
    }
    tsLines.set(rel(f), m)
  }
  graphs.push(tsLines)
  for (const g of graphs) {
    const plain = new Map([...g].map(([f, tos]) => [f, new Set(tos.keys())]))
    const comp = components(plain)
    for (const [f, tos] of g) for (const [to, line] of tos) if (comp.get(f) === comp.get(to)) out.push({ file: f, line, to })
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.to.localeCompare(b.to))
}

/** Each node's strongly connected component (an id shared by the nodes of one). */
function components(nodes) {
  const comp = new Map()
  for (const [i, c] of cycles(nodes, true).entries()) for (const v of c) comp.set(v, `loop${i}`)
  for (const v of nodes.keys()) if (!comp.has(v)) comp.set(v, v)
  return comp
}

/** The core's root: its `lib.rs` names, each a module (`pub mod`) or a re-export (`pub use`). */
function coreRoot(root) {
  const krate = rustCrate(path.join(root, 'crates/core/src'))
  const names = new Set(krate.binds.get('')?.keys() ?? [])
  const mods = new Set([...krate.modules.keys()].filter((m) => m && !m.includes('::')))
  return { names, mods }
}

/**
 * The core's modules the binding must not name: the backends and the seam. A name lib.rs
 * re-exports at the root is the model's API whatever module holds it.
 */
const BINDING_MAY_NOT = ['backend', 'cuda', 'driver_sys', 'dynlib', 'ops', 'sim']

/**
 * What the binding (crates/node/src) names in the core beyond its public model: `{ file, line,
 * what }` for each `cuda_node_core::m::…` whose `m` is a backend or the seam, or which lib.rs
 * neither declares nor re-exports.
 */
function bindingReach(root) {
  const { names, mods } = coreRoot(root)
  const krate = rustCrate(path.join(root, 'crates/node/src'))
  const rel = (f) => path.relative(root, f).split(path.sep).join('/')
  const out = []
  for (const r of krate.refs) {
    // Each `use cuda_node_core::…` and each path written out in full (a name a `use` brought
    // in is that `use`'s).
    const segs = r.segs
    if (segs[0] !== 'cuda_node_core') continue
    const first = segs[1]
    if (first === undefined || first === '*') continue
    const bad = BINDING_MAY_NOT.includes(first) || !(names.has(first) || mods.has(first))
    if (bad) out.push({ file: rel(r.file), line: r.line, what: segs.join('::') })
  }
  // Around the model through the runtime: `runtime()?.backend.device_count()`.
  for (const f of krate.files.values()) {
    const text = rustBlanked(fs.readFileSync(f, 'utf8'))
    for (const m of text.matchAll(/\.\s*backend\b/g)) out.push({ file: rel(f), line: lineAt(text, m.index), what: '.backend (the seam, through the runtime)' })
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
}

/** The raw layer: the only files that may call the driver (cudarc's `driver::sys`). */
const RAW_LAYER = /^crates\/core\/src\/cuda\/raw(\.rs$|\/)/
/** Bench code behind the `floor` feature, never in the shipped core: it times the bare driver. */
const DRIVER_EXEMPT = ['crates/core/src/floor.rs', 'crates/core/examples/hot.rs']

/**
 * Driver calls outside the raw layer, in every .rs file under crates/: `{ file, line, what }` for
 * each `sys::cuX(` call and each `use …sys::cuX` (a driver function brought in by name).
 */
function driverCalls(root) {
  const out = []
  for (const f of walk(path.join(root, 'crates'), '.rs')) {
    const file = path.relative(root, f).split(path.sep).join('/')
    if (RAW_LAYER.test(file) || DRIVER_EXEMPT.includes(file)) continue
    const text = rustBlanked(fs.readFileSync(f, 'utf8'))
    for (const m of text.matchAll(/\bsys\s*::\s*(cu[A-Z]\w*)\s*\(/g)) out.push({ file, line: lineAt(text, m.index), what: `sys::${m[1]}(` })
    for (const m of text.matchAll(/\buse\s+([^;]+);/g)) {
      for (const u of useTree(m[1])) {
        const last = u.segs[u.segs.length - 1]
        if (u.segs.includes('sys') && /^cu[A-Z]/.test(last)) out.push({ file, line: lineAt(text, m.index), what: `use ${u.segs.join('::')}` })
      }
    }
  }
  return out
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
function cycles(nodes, asComponents = false) {
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
      if (scc.length > 1) found.push(asComponents ? scc : loopThrough(nodes, new Set(scc)))
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
  const within = (dir) => (fs.existsSync(path.join(root, dir)) ? walk(path.join(root, dir), '.ts') : [])
  return [...[path.join(root, 'index.ts')].filter((f) => fs.existsSync(f)), ...within('lib'), ...within('cli')]
}

/** What is wrong with the repository at `root`, as sentences with file and line; empty when nothing is. */
/**
 * Every Rust file of a crate's `src/` that no module declares: a file is declared by a `mod name`
 * (any visibility, any attribute) in its parent module's file (`lib.rs`, `x/mod.rs` or `x.rs`),
 * or by that file's `automod::dir!("src/x")` naming its folder (every file of it, a folder's
 * `mod.rs` left out, as automod does). A file found here compiles into nothing.
 */
function undeclared(root) {
  const out = []
  for (const src of crateSrcs(root)) {
    const crateDir = path.dirname(src)
    const declares = new Map() // parent file -> { mods: Set<name>, dirs: Set<crate-relative folder> }
    const of = (file) => {
      if (!declares.has(file)) {
        const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '') : ''
        const mods = new Set([...text.matchAll(/\bmod\s+(\w+)\s*;/g)].map((m) => m[1]))
        const dirs = new Set([...text.matchAll(/\bautomod::dir!\s*\(\s*(?:pub(?:\s*\([^)]*\))?\s*)?"([^"]*)"/g)].map((m) => path.normalize(m[1]).replace(/[\\/]$/, '')))
        declares.set(file, { mods, dirs })
      }
      return declares.get(file)
    }
    for (const f of walk(src, '.rs')) {
      const rel = path.relative(src, f)
      if (rel === 'lib.rs' || rel === 'main.rs') continue
      const isMod = path.basename(f) === 'mod.rs'
      // The module's folder (where its parent looks for it) and its name.
      const dir = isMod ? path.dirname(path.dirname(f)) : path.dirname(f)
      const name = isMod ? path.basename(path.dirname(f)) : path.basename(f, '.rs')
      const parents = dir === src ? [path.join(src, 'lib.rs')] : [path.join(dir, 'mod.rs'), `${dir}.rs`]
      const ok = parents.some((p) => {
        const d = of(p)
        return d.mods.has(name) || (!isMod && d.dirs.has(path.relative(crateDir, dir)))
      })
      if (!ok) out.push(path.relative(root, f))
    }
  }
  return out
}

function problems(root) {
  const out = []
  const core = rustGraph(path.join(root, 'crates/core/src'))
  for (const b of BACKENDS) {
    const bad = [...reach(core.nodes, b)].filter((m) => core.callsRuntime.has(m))
    if (bad.length) out.push(`crates/core/src: the ${b} backend reaches ${bad.join(', ')}, which call runtime(): it may import only the seam`)
  }
  for (const e of loopEdges(root)) out.push(`${e.file}:${e.line}: imports ${e.to}, which imports it back (a loop)`)
  for (const v of bindingReach(root)) out.push(`${v.file}:${v.line}: the binding names ${v.what}, not the model's public API`)
  for (const v of driverCalls(root)) out.push(`${v.file}:${v.line}: ${v.what} is a driver call outside the raw layer`)
  for (const f of undeclared(root)) out.push(`${f}: no module declares it (a \`mod\` line in its parent, or the parent's automod::dir! of its folder)`)
  return out
}

module.exports = {
  rustGraph,
  tsGraph,
  tsFiles,
  cycles,
  reach,
  problems,
  BACKENDS,
  rustFileGraph,
  crateSrcs,
  loopEdges,
  bindingReach,
  BINDING_MAY_NOT,
  driverCalls,
  RAW_LAYER,
  DRIVER_EXEMPT,
  undeclared,
}

if (require.main === module) {
  const root = path.join(__dirname, '..')
  const core = rustGraph(path.join(root, 'crates/core/src'))
  for (const b of BACKENDS) console.log(`${b} imports: ${[...reach(core.nodes, b)].sort().join(', ')}`)
  const found = problems(root)
  for (const p of found) console.error(p)
  if (found.length) {
    console.error(`${found.length} findings; those known today are listed in __test__/layout.spec.ts (ALLOWLIST)`)
    process.exit(1)
  }
  console.log('no import loop, the binding names only the model, driver calls only in the raw layer')
}
