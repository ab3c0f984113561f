// The package as a user gets it (#33.3, #33.4): `npm pack` as the README runs it ships a
// package.json without what only a clone needs, with the metadata tools and users read, the
// LICENSE it names and a CHANGELOG; installing the tarball warns about nothing; where no addon and
// no WebAssembly build can load, the error says what a user can do. The platform packages live
// under the project's own scope.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'
import { installInto, npmEnv, packAsUser, pathWithoutRust } from './packaging'

const hasNpm = spawnSync('npm', ['--version']).status === 0
const packTest: typeof test = hasNpm && process.platform !== 'win32' ? test : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs npm and a POSIX shell)`, ...rest)) as any)
const clonePkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
const REPO = 'https://github.com/cuda-node/cuda-node'

packTest('the packed package.json carries what users need and nothing only a clone needs', (t) => {
  const { dir } = packAsUser(scratchDir('packed-'), root)
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
  for (const field of ['scripts', 'devDependencies', 'overrides', 'ava']) t.is(pkg[field], undefined, `${field} is not shipped`)
  t.like(pkg, {
    name: 'cuda-node',
    version: clonePkg.version,
    license: 'MIT',
    main: 'index.js',
    types: 'index.d.ts',
    bin: { 'cuda-node': 'cli/cli.js' },
    repository: { type: 'git', url: `git+${REPO}.git` },
    homepage: `${REPO}#readme`,
    bugs: { url: `${REPO}/issues` },
  })
  t.true(Array.isArray(pkg.keywords) && pkg.keywords.includes('cuda') && pkg.keywords.includes('cupy'), String(pkg.keywords))
  t.truthy(pkg.engines?.node)
  // The clone's package.json is untouched by the pack (postpack put it back).
  t.deepEqual(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')), clonePkg)
  const files = readdirSync(dir)
  for (const f of ['LICENSE', 'CHANGELOG.md', 'README.md', 'index.js', 'index.d.ts']) t.true(files.includes(f), f)
})

packTest('the package ships the MIT LICENSE its package.json names, and a CHANGELOG with this version', (t) => {
  const { dir } = packAsUser(scratchDir('packed-license-'), root)
  const license = readFileSync(path.join(dir, 'LICENSE'), 'utf8')
  t.regex(license, /^MIT License\n\nCopyright \(c\) \d{4} /)
  t.regex(license, /Permission is hereby granted, free of charge/)
  t.regex(license, /THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/)
  t.deepEqual(readFileSync(path.join(dir, 'LICENSE')), readFileSync(path.join(root, 'LICENSE')))
  t.regex(readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8'), new RegExp(`^## ${clonePkg.version.replace(/\./g, '\\.')}\\b`, 'm'))
})

packTest('the tarball installs without a warning, and where no addon loads the error says what a user can do', (t) => {
  const work = scratchDir('packed-install-')
  const { tgz } = packAsUser(work, root)
  const PATH = pathWithoutRust()
  const app = path.join(work, 'app')
  // npm's warnings shown (the other install tests keep npm quiet).
  const install = installInto(app, [tgz], PATH, { npm_config_loglevel: 'warn' })
  t.is(install.status, 0, String(install.stderr))
  t.notRegex(String(install.stderr), /prepare|warn/i, 'no warning from npm install')
  // A host with no addon: the packed one removed, no platform package, no WebAssembly package.
  for (const f of readdirSync(path.join(app, 'node_modules/cuda-node')).filter((f) => f.endsWith('.node'))) rmSync(path.join(app, 'node_modules/cuda-node', f))
  const env: NodeJS.ProcessEnv = { ...npmEnv, PATH }
  delete env.NAPI_RS_FORCE_WASI // (the suite's WebAssembly run sets it; a user's host would not)
  const r = spawnSync(process.execPath, ['-e', `require('cuda-node')`], { cwd: app, env, encoding: 'utf8' })
  t.not(r.status, 0)
  const message = r.stderr
  t.notRegex(message, /`npm run build`/, 'not a clone\'s command')
  t.regex(message, /Prebuilt addons exist for linux-x64-gnu, linux-arm64-gnu, darwin-arm64, win32-x64-msvc/)
  t.regex(message, /the WebAssembly build loads instead, with the simulator only: `npm install @cuda-node\/wasm32-wasi`/)
  t.regex(message, new RegExp(`in a clone of ${REPO}, \`npm install\` builds it`))
})

test('the platform packages live under the @cuda-node scope, as the loader and the release name them', (t) => {
  for (const dir of readdirSync(path.join(root, 'npm'))) {
    const pkg = JSON.parse(readFileSync(path.join(root, 'npm', dir, 'package.json'), 'utf8'))
    t.is(pkg.name, `@cuda-node/${dir}`)
    t.is(pkg.license, 'MIT')
    t.regex(readFileSync(path.join(root, 'npm', dir, 'README.md'), 'utf8'), new RegExp(`^# \`@cuda-node/${dir}\``))
  }
  const loader = readFileSync(path.join(root, 'native.js'), 'utf8')
  t.regex(loader, /require\(`@cuda-node\/\$\{suffix\}`\)/)
  t.regex(loader, /require\('@cuda-node\/wasm32-wasi'\)/)
  t.notRegex(loader, /require\([`']cuda-node-/)
})
