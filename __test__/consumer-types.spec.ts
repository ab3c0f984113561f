// The types as the strictest consumer sees them (#33.1): a project with `strict`,
// `module: nodenext`, `types: ["node"]` and `skipLibCheck: false` compiles against the packed
// package's .d.ts files, with the TypeScript users have: 5.x (`typescript`) and 7.x (the native
// compiler, `@typescript/native-preview`), both dev dependencies. A CommonJS file and an ES module
// use the API, and what users cannot call (the internal constructors) is a type error.
import test from 'ava'
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'
import { packAsUser } from './packaging'

const hasNpm = spawnSync('npm', ['--version']).status === 0
const compilers: [string, string][] = [
  ['TypeScript 5', path.join(root, 'node_modules/typescript/bin/tsc')],
  ['TypeScript 7', path.join(root, 'node_modules/@typescript/native-preview/bin/tsgo')],
]

const use = `
import { alloc, backend, Device, Event, getCurrentStream, getElapsedTime, Graph, kernels, nccl, PinnedMemory, Stream } from 'cuda-node'

export async function main(): Promise<number> {
  const name: 'cuda' | 'sim' = backend().name
  const dev = new Device(0)
  const s = new Stream({ nonBlocking: true })
  const p = alloc(4096)
  const start: Event = s.record()
  p.copyFromHostAsync(new Float32Array(1024), undefined, s)
  kernels.fill(p, 1, 1024, 'float32', s)
  const end = s.record()
  await end.synchronizeAsync()
  using _ = s.enter()
  const cur: Stream = getCurrentStream()
  const g: Graph = s.capture(() => kernels.fill(p, 2, 1024, 'float32'))
  g.launch()
  const id: Uint8Array = nccl.getUniqueId()
  // @ts-expect-error: a Graph is made by a capture, never by new
  new Graph()
  // @ts-expect-error: pinned memory comes from a pool or registerHost
  new PinnedMemory()
  void [name, dev.name, cur, id]
  return getElapsedTime(start, end)
}
`

const tsconfig = {
  compilerOptions: {
    strict: true,
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    types: ['node'],
    skipLibCheck: false,
    noEmit: true,
  },
  include: ['*.ts', '*.mts'],
}

/** An empty project with the packed package and @types/node (from this clone) in node_modules. */
function consumer(): string {
  const work = scratchDir('consumer-')
  const { dir } = packAsUser(work, root)
  const app = path.join(work, 'app')
  mkdirSync(path.join(app, 'node_modules/@types'), { recursive: true })
  cpSync(dir, path.join(app, 'node_modules/cuda-node'), { recursive: true })
  // @types/node and what it imports (undici-types), as npm installs them.
  symlinkSync(path.join(root, 'node_modules/@types/node'), path.join(app, 'node_modules/@types/node'), 'junction')
  symlinkSync(path.join(root, 'node_modules/undici-types'), path.join(app, 'node_modules/undici-types'), 'junction')
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }))
  writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2))
  writeFileSync(path.join(app, 'cjs.ts'), use)
  writeFileSync(path.join(app, 'esm.mts'), use)
  return app
}

const consumerTest: typeof test =
  hasNpm && process.platform !== 'win32' ? test : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs npm and a POSIX shell to pack)`, ...rest)) as any)

// The compilers and @types/node are dev dependencies: a machine that has only the test runner's
// packages (the GPU machine's bundle) has not got them.
const toolchain = [path.join(root, 'node_modules/@types/node'), ...compilers.map(([, bin]) => bin)].filter((p) => !existsSync(p))
const compileTest: typeof test =
  toolchain.length === 0 ? consumerTest : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs the dev dependencies: ${toolchain.map((p) => path.relative(root, p)).join(', ')} missing)`, ...rest)) as any)

compileTest('the packed types compile in a strict nodenext project with skipLibCheck false, on TypeScript 5 and 7', (t) => {
  const app = consumer()
  for (const [label, bin] of compilers) {
    const version = execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).trim()
    t.regex(version, label === 'TypeScript 5' ? /Version 5\./ : /Version 7\./, `${label}: ${version}`)
    const r = spawnSync(process.execPath, [bin, '-p', 'tsconfig.json'], { cwd: app, encoding: 'utf8', timeout: 120_000 })
    t.is(r.status, 0, `${label} (${version}):\n${r.stdout}${r.stderr}`)
  }
})

consumerTest('the packed types show no internal constructor and no required parameter after an optional one', (t) => {
  const { dir } = packAsUser(scratchDir('consumer-dts-'), root)
  const dts = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.d.ts'))
  t.true(dts.includes('index.d.ts') && dts.includes('native.d.ts'))
  for (const f of dts) {
    const text = readFileSync(path.join(dir, f), 'utf8')
    t.notRegex(text, /constructor\(token: typeof INTERNAL/, `${f} offers an internal constructor`)
    // native.d.ts: ncclCommCreate's `id` and ncclCall's buffers are optional values before
    // required ones, written `T | undefined`.
    for (const decl of text.split('\n').filter((l) => l.startsWith('export declare function '))) {
      const params = decl.slice(decl.indexOf('(') + 1, decl.lastIndexOf(')'))
      t.notRegex(params, /\?:[^,]*,\s*[\w$]+:/, `${f}: ${decl}`)
    }
  }
})
