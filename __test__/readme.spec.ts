// The README starts with the library (#33.5): what it is, install, the two commands, and a first
// example within its first 60 lines; measurements live on docs/benchmarks.md, linked from it.
// CuPy's names are CuPy's (#33.8): what CuPy does not have is credited to whoever has it.
import test from 'ava'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { root } from './helpers'

const readme = readFileSync(path.join(root, 'README.md'), 'utf8')
const lines = readme.split('\n')

test('the README leads with what it is, install, the two commands and a first example within its first 60 lines', (t) => {
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l))
  const install = at(/^## Install$/)
  const commands = at(/^## The two commands$/)
  const open = at(/^```ts$/)
  const close = lines.findIndex((l, i) => i > open && l === '```')
  t.true(install > 0 && install < commands && commands < open, `Install (${install}), the two commands (${commands}), then the example (${open})`)
  t.true(close >= 0 && close < 60, `the first example ends on line ${close + 1}`)
  const example = lines.slice(open + 1, close).join('\n')
  t.regex(example, /^import \{[^}]+\} from 'cuda-node'$/m, 'it imports what it uses, so it runs pasted alone')
  t.regex(lines.slice(0, install).join('\n'), /CuPy/, 'the first paragraph says what it is')
  t.regex(readme, /npm install && npm start {3}# the tour/)
  t.regex(readme, /\nnpm test {19}# /)
})

test('the README links the benchmark page and carries no measurements itself', (t) => {
  t.regex(readme, /\]\(docs\/benchmarks\.md\)/)
  t.notRegex(readme, /\| (µs|GB\/s) \|/, 'no rows of per-call timings or bandwidths')
  t.notRegex(readme, /NVIDIA H100 80GB HBM3, \d{4}-\d{2}-\d{2}/)
  const bench = readFileSync(path.join(root, 'docs/benchmarks.md'), 'utf8')
  t.regex(bench, /\| stream create\+destroy \| µs \|/)
  t.regex(bench, /npm run bench:nccl/)
  t.true(lines.length < 250, `${lines.length} lines`)
})

test('the README says to add @types/node', (t) => {
  t.regex(readme, /`@types\/node`/)
  t.regex(readme, /"types": \["node"\]/)
})

test('CuPy is credited with its own names only: event IPC, peer access, cooperative launches', (t) => {
  const docs = ['README.md', 'docs/reference.md', 'docs/events-tutorial.md', 'docs/guide.md'].map((f) => [f, readFileSync(path.join(root, f), 'utf8')] as const)
  const sources = ['lib/event.ts', 'lib/device.ts'].map((f) => [f, readFileSync(path.join(root, f), 'utf8')] as const)
  for (const [f, text] of [...docs, ...sources]) {
    t.notRegex(text, /CuPy's `(Event\.)?(from_)?ipc_handle`/, f)
    t.notRegex(text, /CuPy's `(Device\.)?(can_access_peer|enable_peer_access)`/, f)
    t.notRegex(text, /cooperative_launch/, `${f}: cuda.core's LaunchConfig says is_cooperative`)
    t.notRegex(text, /kernel\([^)]*enable_cooperative_groups/, `${f}: enable_cooperative_groups is RawKernel's constructor argument`)
  }
  // The mapping table's rows for them.
  t.regex(readme, /\| `runtime\.ipcGetEventHandle`, `ipcOpenEventHandle` \(PyTorch: `Event\.ipc_handle`, `from_ipc_handle`; GPU only\) \|/)
  t.regex(readme, /`runtime\.deviceCanAccessPeer`, `deviceEnablePeerAccess` \(cuda\.core: `Device\.can_access_peer`\)/)
  t.regex(readme, /\| `RawKernel\(code, name, enable_cooperative_groups=True\)`; cuda\.core `LaunchConfig\(cluster=, is_cooperative=\)` \|/)
  t.regex(readFileSync(path.join(root, 'lib/event.ts'), 'utf8'), /CuPy's `runtime\.ipcOpenEventHandle`/)
  t.regex(readFileSync(path.join(root, 'lib/device.ts'), 'utf8'), /CuPy's `runtime\.deviceCanAccessPeer`/)
})
