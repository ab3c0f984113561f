import test from 'ava'
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'
import { installInto, npmEnv, pathWithoutRust, useInstalled } from './packaging'

// What .github/workflows/release.yml publishes, assembled as the job assembles it: the build
// jobs' addons (this platform's real one, stand-ins for the other three) and the wasm job's .wasm
// (the local build from `npm run build:wasm` where there is one, else a stand-in) under an
// artifacts folder, then `scripts/release.js assemble` (napi artifacts and the rest), then
// `scripts/release.js publish --dry-run`, which is the job's `npm publish --provenance` of each
// package with --dry-run added.
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
const suffixOf: Record<string, string> = {
  'x86_64-unknown-linux-gnu': 'linux-x64-gnu',
  'aarch64-unknown-linux-gnu': 'linux-arm64-gnu',
  'aarch64-apple-darwin': 'darwin-arm64',
  'x86_64-pc-windows-msvc': 'win32-x64-msvc',
}
const addon = readdirSync(root).find((f) => /^cuda-node\.[\w-]+\.node$/.test(f))
const localSuffix = addon?.split('.')[1]
const wasmFile = 'cuda-node.wasm32-wasi.wasm'
const localWasm = path.join(root, 'npm/wasm32-wasi', wasmFile)
const wasmBuilt = existsSync(localWasm)
const hasNpm = spawnSync('npm', ['--version']).status === 0
const hasNapiCli = (() => {
  try {
    require.resolve('@napi-rs/cli/package.json')
    return true
  } catch {
    return false
  }
})()
const releaseTest: typeof test =
  addon && hasNpm && hasNapiCli && process.platform !== 'win32'
    ? test
    : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs a built addon, npm, @napi-rs/cli (npm install) and a POSIX shell)`, ...rest)) as any)

const release = (args: string[]) =>
  spawnSync(process.execPath, [path.join(root, 'scripts/release.js'), ...args], { env: { ...npmEnv, npm_config_loglevel: 'notice' }, encoding: 'utf8', timeout: 120_000 })

/** The package as the release job's checkout holds it after the build: the packed files and npm/. */
function checkout(work: string): string {
  const tgz = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: root, env: npmEnv, encoding: 'utf8' }).trim().split('\n').pop()!
  execFileSync('tar', ['xzf', path.join(work, tgz), '-C', work])
  const dir = path.join(work, 'package')
  cpSync(path.join(root, 'npm'), path.join(dir, 'npm'), { recursive: true })
  return dir
}

/**
 * The build jobs' uploads, as actions/download-artifact lays them out: bindings-<target>/<addon>,
 * and the wasm job's bindings-wasm32-wasi/cuda-node.wasm32-wasi.wasm.
 */
function artifacts(work: string): string {
  const dir = path.join(work, 'artifacts')
  for (const target of pkg.napi.targets as string[]) {
    const suffix = suffixOf[target]
    const file = `cuda-node.${suffix}.node`
    mkdirSync(path.join(dir, `bindings-${target}`), { recursive: true })
    if (suffix === localSuffix) copyFileSync(path.join(root, addon!), path.join(dir, `bindings-${target}`, file))
    else writeFileSync(path.join(dir, `bindings-${target}`, file), `stand-in for the ${target} build\n`)
  }
  mkdirSync(path.join(dir, 'bindings-wasm32-wasi'))
  if (wasmBuilt) copyFileSync(localWasm, path.join(dir, 'bindings-wasm32-wasi', wasmFile))
  else writeFileSync(path.join(dir, 'bindings-wasm32-wasi', wasmFile), 'stand-in for the wasm32-wasi build\n')
  return dir
}

/**
 * The WebAssembly package's dependencies and theirs, as installed in this clone's node_modules:
 * offline, npm can resolve them only from tarballs it is given (npm ci caches no registry
 * metadata), so the install below packs them from there.
 */
function wasmRuntime(): string[] {
  const dirs: string[] = []
  const visit = (deps: Record<string, string> = {}) => {
    for (const name of Object.keys(deps)) {
      const dir = path.join(root, 'node_modules', name)
      if (dirs.includes(dir)) continue
      dirs.push(dir)
      visit(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies)
    }
  }
  visit(JSON.parse(readFileSync(path.join(root, 'npm/wasm32-wasi/package.json'), 'utf8')).dependencies)
  return dirs
}

/** Each package npm publish --dry-run packed (its notices, on stderr): name@version and its files. */
function packed(stderr: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  let files: string[] | undefined
  for (const line of stderr.split('\n')) {
    const name = /npm notice \S+\s+(\S+@\d\S*)$/u.exec(line)
    const file = /npm notice [\d.]+[kMG]?B (\S+)$/.exec(line)
    if (name && !line.includes('Tarball')) out.set(name[1], (files = []))
    else if (/Tarball Details/.test(line)) files = undefined
    else if (file && files) files.push(file[1])
  }
  for (const list of out.values()) list.sort()
  return out
}

test('the npm/ folders are the package.json targets and the WebAssembly package, which every host installs', (t) => {
  t.deepEqual([...(pkg.napi.targets as string[]).map((target) => suffixOf[target]), 'wasm32-wasi'].sort(), readdirSync(path.join(root, 'npm')).sort())
  const wasmPkg = JSON.parse(readFileSync(path.join(root, 'npm/wasm32-wasi/package.json'), 'utf8'))
  t.is(wasmPkg.name, '@cuda-node/wasm32-wasi')
  // napi-rs marks its fallback wasm package cpu ["wasm32"] unless told otherwise: npm would then
  // skip it on every real host, the ones without an addon included, and on a bundler's.
  t.is(wasmPkg.cpu, undefined)
  t.is(wasmPkg.os, undefined)
  // Its runtime is the one the WebAssembly tests ran with: the versions package-lock.json installs.
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'))
  for (const [name, version] of Object.entries(wasmPkg.dependencies)) t.is(version, lock.packages[`node_modules/${name}`]?.version, name)
})

releaseTest('the release job assembles six packages that npm publish --dry-run accepts: four platform packages with one addon each, the WebAssembly package with its .wasm and loaders, and a main package with neither', (t) => {
  const work = scratchDir('cuda-node-release-')
  const dir = checkout(work)
  const art = artifacts(work)
  const v = pkg.version
  const wrongTag = release(['assemble', '--cwd', dir, '--artifacts', art, '--tag', 'v0.0.0-not-this', '--repository', 'example/cuda-node'])
  t.is(wrongTag.status, 1)
  t.regex(wrongTag.stderr, /does not name version/)

  // A release without the wasm job's upload is refused before anything is written.
  const noWasm = path.join(work, 'artifacts-without-wasm')
  cpSync(art, noWasm, { recursive: true, filter: (src) => !src.endsWith('.wasm') })
  const withoutWasm = release(['assemble', '--cwd', dir, '--artifacts', noWasm, '--tag', `v${v}`, '--repository', 'example/cuda-node'])
  t.is(withoutWasm.status, 1)
  t.regex(withoutWasm.stderr, /needs exactly one WebAssembly build cuda-node\.wasm32-wasi\.wasm .* found none/)

  const assembled = release(['assemble', '--cwd', dir, '--artifacts', art, '--tag', `v${v}`, '--repository', 'example/cuda-node'])
  t.is(assembled.status, 0, assembled.stderr + assembled.stdout)
  const main = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
  const platformNames = [...Object.values(suffixOf), 'wasm32-wasi'].map((s) => `@cuda-node/${s}`).sort()
  t.deepEqual(main.optionalDependencies, Object.fromEntries(platformNames.map((n) => [n, v])), 'every platform package and the WebAssembly one')
  t.is(main.scripts?.prepare, undefined, 'the published package does not build from source')
  t.deepEqual(main.repository, { type: 'git', url: 'git+https://github.com/example/cuda-node.git' })

  const pub = release(['publish', '--dry-run', '--cwd', dir])
  t.is(pub.status, 0, pub.stderr + pub.stdout)
  const order = [...platformNames.map((n) => `${n}@${v}`), `cuda-node@${v}`]
  t.deepEqual(pub.stdout.split('\n').filter((l) => l.startsWith('+ ')).map((l) => l.slice(2)), order, 'each platform package and the WebAssembly one, then the main one')
  const seen = packed(pub.stderr)
  t.deepEqual([...seen.keys()], order)
  for (const suffix of Object.values(suffixOf)) {
    t.deepEqual(seen.get(`@cuda-node/${suffix}@${v}`), ['README.md', `cuda-node.${suffix}.node`, 'package.json'].sort())
    const platform = JSON.parse(readFileSync(path.join(dir, 'npm', suffix, 'package.json'), 'utf8'))
    t.is(platform.version, v)
    t.deepEqual(platform.repository, main.repository, 'provenance needs each package to name the repository')
  }
  t.deepEqual(seen.get(`@cuda-node/wasm32-wasi@${v}`), ['README.md', wasmFile, 'cuda-node.wasi-browser.js', 'cuda-node.wasi.cjs', 'package.json'].sort())
  t.deepEqual(readFileSync(path.join(dir, 'npm/wasm32-wasi', wasmFile)), readFileSync(path.join(art, 'bindings-wasm32-wasi', wasmFile)), 'the wasm job\'s .wasm')
  const wasmPkg = JSON.parse(readFileSync(path.join(dir, 'npm/wasm32-wasi/package.json'), 'utf8'))
  t.is(wasmPkg.version, v)
  t.deepEqual(wasmPkg.repository, main.repository)
  t.is(wasmPkg.cpu, undefined, 'npm installs it on any host')
  const mainFiles = seen.get(`cuda-node@${v}`)!
  t.deepEqual(mainFiles.filter((f) => f.endsWith('.node') || f.endsWith('.wasm') || f.startsWith('npm/')), [], 'the main package carries no addon and no .wasm')
  for (const f of ['index.js', 'index.mjs', 'index.d.ts', 'native.js', 'native.d.ts', 'cli/cli.js', 'lib/native.js', 'package.json', 'README.md']) t.true(mainFiles.includes(f), f)

  // The released packages for this host install together, offline, and the addon comes from the
  // platform package.
  const out = path.join(work, 'out')
  mkdirSync(out)
  const packOf = (d: string) => path.join(out, execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', out], { cwd: d, env: npmEnv, encoding: 'utf8' }).trim().split('\n').pop()!)
  const tarballs = [packOf(path.join(dir, 'npm', localSuffix!)), packOf(path.join(dir, 'npm/wasm32-wasi')), ...wasmRuntime().map(packOf), packOf(dir)]
  const PATH = pathWithoutRust()
  const app = path.join(work, 'app')
  const install = installInto(app, tarballs, PATH)
  t.is(install.status, 0, String(install.stderr))
  t.false(existsSync(path.join(app, 'node_modules/cuda-node', addon!)))
  t.true(existsSync(path.join(app, `node_modules/@cuda-node/${localSuffix}`, addon!)))
  const { cjs, esm, cli } = useInstalled(app, PATH)
  t.is(String(cjs.stdout).trim(), 'cjs sim true', String(cjs.stderr))
  t.is(String(esm.stdout).trim(), 'esm sim true', String(esm.stderr))
  t.regex(String(cli.stdout), /Device 0: "cuda-node simulator 0"/, String(cli.stderr))

  // The WebAssembly package is installed beside it; with a real .wasm, the installed cuda-node
  // loads it when forced, and where no addon is installed (a host without a platform package).
  t.true(existsSync(path.join(app, 'node_modules/@cuda-node/wasm32-wasi', wasmFile)))
  if (!wasmBuilt) {
    t.log(`the .wasm is a stand-in: no local build at ${path.relative(root, localWasm)} (npm run build:wasm) to load`)
    return
  }
  const reason = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['-e', `const c = require('cuda-node'); const s = new c.Stream(); c.kernels.sleep(1e6, s); s.synchronize(); console.log(c.backend().reason)`], {
      cwd: app,
      env: { ...npmEnv, PATH, NODE_NO_WARNINGS: '1', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    })
  const forced = reason({ NAPI_RS_FORCE_WASI: '1' })
  t.is(forced.stdout.trim(), 'the WebAssembly build has the simulator only', forced.stderr)
  rmSync(path.join(app, `node_modules/@cuda-node/${localSuffix}`), { recursive: true })
  const fallback = reason({})
  t.is(fallback.stdout.trim(), 'the WebAssembly build has the simulator only', fallback.stderr)
})

test('npm publish from a clone is refused: the clone is not an assembled release', (t) => {
  // package.json's prepublishOnly runs this check.
  t.is(pkg.scripts.prepublishOnly, 'node scripts/release.js check')
  const r = release(['check', '--cwd', root])
  t.is(r.status, 1)
  t.regex(r.stderr, /not an assembled release/)
  t.regex(r.stderr, /optionalDependencies lacks @cuda-node\/linux-x64-gnu/)
})

test('the release workflow runs on a version tag, builds every target, and publishes through the commands tested here', (t) => {
  const yml = readFileSync(path.join(root, '.github/workflows/release.yml'), 'utf8')
  t.regex(yml, /on:\s*\n\s*push:\s*\n\s*tags: \['v\*'\]/)
  for (const target of pkg.napi.targets as string[]) t.regex(yml, new RegExp(`target: ${target} \\}`), target)
  t.regex(yml, /name: bindings-\$\{\{ matrix\.target \}\}\n\s*path: cuda-node\.\*\.node/)
  t.regex(yml, /download-artifact@v4\n\s*with: \{ pattern: 'bindings-\*', path: artifacts \}/)
  // The WebAssembly build: Debian's toolchain, installed by the script developers use, its tests,
  // and an upload the publish job's download takes with the addons.
  const wasmJob = yml.slice(yml.indexOf('\n  wasm:\n'), yml.indexOf('\n  publish:\n'))
  t.regex(wasmJob, /container: debian:bookworm/)
  t.regex(wasmJob, /run: bash scripts\/wasm-build\.sh --install\n/)
  t.regex(wasmJob, /run: npx ava __test__\/wasm\.spec\.ts\n/)
  t.regex(wasmJob, /name: bindings-wasm32-wasi\n\s*path: npm\/wasm32-wasi\/cuda-node\.wasm32-wasi\.wasm/)
  t.regex(yml, /publish:\n\s*needs: \[build, wasm\]/)
  t.regex(yml, /id-token: write/, 'npm provenance needs the OIDC token')
  t.regex(yml, /run: node scripts\/release\.js assemble --artifacts artifacts --tag \$\{\{ github\.ref_name \}\}/)
  t.regex(yml, /run: node scripts\/release\.js publish\n/)
  // scripts/release.js publish is what passes --provenance, to every package.
  t.regex(readFileSync(path.join(root, 'scripts/release.js'), 'utf8'), /\['publish', '--provenance', '--access', 'public'/)
})

test('the README tells how to install today and what a release publishes, and claims no published binaries', (t) => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8')
  const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('\n## ', readme.indexOf('## Install') + 1))
  t.regex(install, /not on the npm registry yet/)
  t.regex(install, /npm pack/)
  t.regex(install, /\.github\/workflows\/release\.yml/)
  t.regex(install, /npm publish --provenance/)
  t.regex(install, /@cuda-node\/wasm32-wasi/)
  t.notRegex(readme, /binaries (are|have been) published/i)
})
