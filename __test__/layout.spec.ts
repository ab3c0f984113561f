// No module imports one that imports it back, in the core or the TS layer, types included; the
// backends import only the seam. scripts/module-graph.js reads the imports; this runs it.
import test from 'ava'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'

const graph = require(path.join(root, 'scripts', 'module-graph.js'))

function files(dir: string, contents: Record<string, string>): string[] {
  return Object.entries(contents).map(([name, text]) => {
    const p = path.join(dir, name)
    mkdirSync(path.dirname(p), { recursive: true })
    writeFileSync(p, text)
    return p
  })
}

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
    t.true(reached.includes('backend') && reached.includes('ops'))
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
