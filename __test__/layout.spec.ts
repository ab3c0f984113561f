// The layout, over every file of crates/ and the TS layer: no file imports one that imports it
// back (types included); the binding names only the model's public API; driver calls only in the
// raw layer; the backends import only the seam. scripts/module-graph.js reads the code; this runs
// it. Known violations, which issue 31's other parts remove, are listed in ALLOWLIST below.
import test from 'ava'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'

const graph = require(path.join(root, 'scripts', 'module-graph.js'))

// Today's known violations, exactly: a finding not listed fails, and so does a listed one that is
// gone (remove it then). Each entry is `file: what`, without its line, so that edits above it do
// not move it; a failure prints the line. The lead empties these as the other parts land.
const ALLOWLIST = {
  // An edge `a → b` where b imports a back (directly or through others).
  loops: [
    // None left: a mod.rs only declares its files and re-exports, what its files share lives in
    // files that import none of them back, and a stream names its graphs, never the reverse.
  ],
  // The binding around the model: to the simulator, the seam's types, the runtime's backend (none left).
  binding: [
  ],
  // Driver calls outside the raw layer (none left).
  driver: [
  ],
}

interface Finding {
  file: string
  line: number
  what: string
}

/** Findings against their allowlist, both ways: what is new (with its line), what is gone. */
function versus(found: Finding[], allowed: string[]): { added: string[]; gone: string[] } {
  const left = [...allowed]
  const added: string[] = []
  for (const f of found) {
    const i = left.indexOf(`${f.file}: ${f.what}`)
    if (i === -1) added.push(`${f.file}:${f.line}: ${f.what}`)
    else left.splice(i, 1)
  }
  return { added, gone: left }
}

function files(dir: string, contents: Record<string, string>): string[] {
  return Object.entries(contents).map(([name, text]) => {
    const p = path.join(dir, name)
    mkdirSync(path.dirname(p), { recursive: true })
    writeFileSync(p, text)
    return p
  })
}

const loopFindings = (dir: string): Finding[] =>
  graph.loopEdges(dir).map((e: { file: string; line: number; to: string }) => ({ file: e.file, line: e.line, what: `→ ${e.to}` }))
const asLoops = (entries: string[]) => entries.map((e) => e.replace(' → ', ': → '))

test('no file of crates/ or the TS layer imports one that imports it back', (t) => {
  const { added, gone } = versus(loopFindings(root), asLoops(ALLOWLIST.loops))
  t.deepEqual(added, [], 'these imports close a loop: the target imports the file back')
  t.deepEqual(gone, [], 'these loops are gone: remove them from ALLOWLIST.loops')
})

test('the binding names only the model: no backend, no seam, no simulator', (t) => {
  const { added, gone } = versus(graph.bindingReach(root), ALLOWLIST.binding)
  t.deepEqual(added, [], `crates/node may name only what core's lib.rs declares or re-exports, never ${graph.BINDING_MAY_NOT.join(', ')}`)
  t.deepEqual(gone, [], 'these are fixed: remove them from ALLOWLIST.binding')
})

test('driver calls are made only in the raw layer', (t) => {
  const { added, gone } = versus(graph.driverCalls(root), ALLOWLIST.driver)
  t.deepEqual(added, [], 'call the driver through crates/core/src/cuda/raw.rs (or a cuda/raw/ folder)')
  t.deepEqual(gone, [], 'these are in the raw layer now: remove them from ALLOWLIST.driver')
})

test('every Rust file is declared: by a mod line in its parent, or the automod::dir! of its folder', (t) => {
  t.deepEqual(graph.undeclared(root), [], 'these files compile into nothing: declare them, or give their folder an automod::dir!')
})

test('a file no module declares is found; one in a folder automod::dir! names, or under a mod line, is not', (t) => {
  const dir = scratchDir('undeclared-')
  files(dir, {
    'crates/core/src/lib.rs': 'pub mod ops;\npub mod sim;\n',
    'crates/core/src/ops.rs': '// automod::dir!(pub "src/sim") in a comment declares nothing\nautomod::dir!(pub "src/ops");\n',
    'crates/core/src/ops/stream.rs': '',
    'crates/core/src/sim/mod.rs': 'automod::dir!(pub(crate) "src/sim");\nmod nccl;\n',
    'crates/core/src/sim/engine.rs': '',
    'crates/core/src/sim/nccl/mod.rs': 'mod wire;\n',
    'crates/core/src/sim/nccl/wire.rs': '',
    'crates/core/src/sim/nccl/hub.rs': '',
    'crates/core/src/sim/cuda/mod.rs': '',
    'crates/core/src/stray.rs': '',
  })
  t.deepEqual(graph.undeclared(dir).sort(), ['crates/core/src/sim/cuda/mod.rs', 'crates/core/src/sim/nccl/hub.rs', 'crates/core/src/stray.rs'])
})

test('a file-level loop through super::, a parent module and a macro is found, with its lines', (t) => {
  const dir = scratchDir('file-loop-')
  files(dir, {
    'crates/core/src/lib.rs': 'pub mod sim;\npub mod error;\npub use error::Error;\n',
    'crates/core/src/error.rs': 'pub struct Error;\n',
    'crates/core/src/sim/mod.rs': 'mod engine;\nmod op;\nuse engine::Queue;\npub(crate) fn lock() {}\n',
    'crates/core/src/sim/engine.rs': '// super::op in a comment is no import\nuse super::op::Op;\npub struct Queue;\n',
    'crates/core/src/sim/op.rs': 'pub struct Op(crate::Error);\nfn f() { super::lock() }\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n',
    'crates/node/src/lib.rs': 'mod raw;\nmod task;\n',
    'crates/node/src/raw.rs': 'macro_rules! exports { () => {} }\nfn f() { crate::task::run() }\n',
    'crates/node/src/task.rs': 'crate::exports! {}\npub fn run() {}\n',
  })
  t.deepEqual(loopFindings(dir), [
    { file: 'crates/core/src/sim/engine.rs', line: 2, what: '→ crates/core/src/sim/op.rs' },
    { file: 'crates/core/src/sim/mod.rs', line: 3, what: '→ crates/core/src/sim/engine.rs' },
    { file: 'crates/core/src/sim/op.rs', line: 2, what: '→ crates/core/src/sim/mod.rs' },
    { file: 'crates/node/src/raw.rs', line: 2, what: '→ crates/node/src/task.rs' },
    { file: 'crates/node/src/task.rs', line: 1, what: '→ crates/node/src/raw.rs' },
  ])
})

test('the binding reaching the simulator, the seam or the backend is found', (t) => {
  const dir = scratchDir('binding-')
  files(dir, {
    'crates/core/src/lib.rs': 'pub mod ops;\npub mod sim;\npub mod stream;\npub use ops::HostFn;\npub use stream::Stream;\n',
    'crates/node/src/lib.rs':
      'use cuda_node_core::{ops::Launch, HostFn, Stream};\nfn f() { cuda_node_core::sim::coop::pump(); runtime().backend.count(); rt.backend_kind(); }\n',
  })
  t.deepEqual(
    graph.bindingReach(dir).map((f: Finding) => `${f.line}: ${f.what}`),
    ['1: cuda_node_core::ops::Launch', '2: cuda_node_core::sim::coop::pump', '2: .backend (the seam, through the runtime)'],
  )
})

test('a driver call outside the raw layer is found, in the raw layer it is not', (t) => {
  const dir = scratchDir('driver-')
  files(dir, {
    'crates/core/src/cuda/raw.rs': 'pub unsafe fn sync() -> u32 { sys::cuCtxSynchronize() }\n',
    'crates/core/src/cuda/memory.rs': 'use cudarc::driver::sys::{self, cuMemFree_v2};\n// sys::cuMemAlloc(p) in a comment\nfn f() { unsafe { sys::cuCtxSynchronize() }; }\n',
  })
  t.deepEqual(
    graph.driverCalls(dir).map((f: Finding) => `${f.file}:${f.line}: ${f.what}`),
    ['crates/core/src/cuda/memory.rs:3: sys::cuCtxSynchronize(', 'crates/core/src/cuda/memory.rs:1: use cudarc::driver::sys::cuMemFree_v2'],
  )
})

test('crates/core has no import loop', (t) => {
  const { nodes } = graph.rustGraph(path.join(root, 'crates/core/src'))
  t.deepEqual(graph.cycles(nodes), [])
  t.true(nodes.get('stream').has('graph') && nodes.get('runtime').has('cuda'), 'the graph has its edges')
})

test('the backends import only the seam, never a module that calls runtime()', (t) => {
  const { nodes, callsRuntime } = graph.rustGraph(path.join(root, 'crates/core/src'))
  t.true(callsRuntime.has('stream') && callsRuntime.has('runtime'))
  t.deepEqual([...graph.reach(nodes, 'backend')].sort(), ['driver_sys', 'error', 'ops'], 'the seam imports only itself, error.rs and driver_sys.rs')
  for (const backend of graph.BACKENDS) {
    const reached = [...graph.reach(nodes, backend)]
    t.deepEqual(reached.filter((m: string) => callsRuntime.has(m)), [], `${backend} reaches ${reached.join(', ')}`)
    // A backend implements the seam's parts (`ops/`); `backend.rs` hands them out by a blanket
    // impl, so a backend need not name it.
    t.true(reached.includes('ops'), `${backend} implements the seam's parts`)
  }
})

test('the TS layer has no import loop, import type included', (t) => {
  const nodes = graph.tsGraph(graph.tsFiles(root))
  t.deepEqual(graph.cycles(nodes), [])
  t.true(nodes.get(path.join(root, 'lib/stream/stream.ts')).has(path.join(root, 'lib/event.ts')), 'the graph has its edges')
})

test('a loop of type imports alone is found', (t) => {
  const dir = scratchDir('ts-loop-')
  const ts = files(dir, {
    'a.ts': "import type { B } from './b'\nexport class A { b?: B }\n",
    'b.ts': "import { A } from './a'\nexport class B extends A {}\n",
    'c.ts': "import { A } from './a'\nexport const c = new A()\n",
  })
  t.deepEqual(graph.cycles(graph.tsGraph(ts)), [[ts[0], ts[1], ts[0]]])
})

test('a backend that reaches runtime() through a model file is a loop', (t) => {
  const dir = scratchDir('rust-loop-')
  files(dir, {
    'lib.rs': 'pub mod cuda;\npub mod device;\npub mod runtime;\npub use device::Props;\n',
    'runtime.rs': 'pub fn runtime() -> Box<dyn crate::cuda::Backend> { todo!() }\n',
    'device.rs': 'pub struct Props;\npub fn count() -> usize { crate::runtime::runtime().count() }\n',
    'cuda/mod.rs': 'mod props;\npub trait Backend { fn count(&self) -> usize; }\n',
    'cuda/props.rs': '// crate::runtime in a comment is no import\nuse super::Backend;\nfn f(_: crate::Props) {}\n',
  })
  const { nodes, callsRuntime } = graph.rustGraph(dir)
  t.deepEqual(graph.cycles(nodes), [['cuda', 'device', 'runtime', 'cuda']])
  t.deepEqual([...graph.reach(nodes, 'cuda')].filter((m: string) => callsRuntime.has(m)).sort(), ['device', 'runtime'])
})

// The floor (crates/core/src/floor.rs, crates/node/src/floor.rs) is bench code behind the `floor`
// feature of both crates: the addon `npm run build` makes must hold none of it. What is looked for:
// the binding's export name, a message of the core's floor, and its symbols' mangled path.
const FLOOR_MARKS = ['driverFloor', 'the floor is measured on a created stream', 'cuda_node_core5floor']

test('the addon npm run build makes carries no bench floor', (t) => {
  const addons = readdirSync(root).filter((f) => /^cuda-node\..+\.node$/.test(f))
  t.not(addons.length, 0, 'no cuda-node.*.node at the root: run npm run build first')
  for (const f of addons) {
    const bin = readFileSync(path.join(root, f))
    for (const mark of FLOOR_MARKS) t.is(bin.indexOf(mark), -1, `${f} holds "${mark}": the floor is compiled in without --features floor`)
  }
})

// The TS layer throws only TypeError and RangeError for its own argument checks: every CUDA rule,
// and so every CudaError, is core's (thrown by the binding).
test('the TS layer constructs no CudaError', (t) => {
  const found = graph
    .tsFiles(root)
    .filter((f: string) => !f.includes(`${path.sep}__test__${path.sep}`))
    .filter((f: string) => /\bnew\s+CudaError\s*\(/.test(readFileSync(f, 'utf8').replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '')))
    .map((f: string) => path.relative(root, f))
  t.deepEqual(found, [], 'throw a TypeError or RangeError for an argument check; a CUDA rule is core\'s')
})
