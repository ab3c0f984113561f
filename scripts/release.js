// Assembles and publishes a release: the main package `cuda-node` (JavaScript only, with an
// optional dependency on each platform package), one package a platform, `@cuda-node/<platform>`
// under npm/<platform>/, each holding that platform's built addon, and the WebAssembly package
// `@cuda-node/wasm32-wasi` under npm/wasm32-wasi/ (the `sim` backend built by
// scripts/wasm-build.sh, with its two loaders; docs/wasm.md), which native.js falls back to where
// no addon loads. The release job in .github/workflows/release.yml runs these two commands;
// __test__/release.spec.ts runs them too, with `--dry-run`, so what the job publishes is what the
// test checked.
//
//   node scripts/release.js assemble --artifacts DIR [--tag vX.Y.Z] [--repository OWNER/NAME] [--cwd DIR]
//       `napi artifacts`: copies each `cuda-node.<platform>.node` found under DIR (the build jobs'
//       uploads) into npm/<platform>/, and the one `cuda-node.wasm32-wasi.wasm` found there (the
//       wasm job's upload) into npm/wasm32-wasi/ (napi's `wasm32-wasi` target is the threaded
//       build, with loaders napi writes; ours is single-threaded with loaders of its own, so napi
//       is not given this one); then takes
//       the addons out of the main package (napi also copies them beside package.json), gives
//       every package the main package's version and repository (npm's provenance needs it),
//       lists the platform packages and the WebAssembly one as the main package's
//       optionalDependencies and drops what only a clone needs (scripts/pack-manifest.js: `prepare`,
//       the build from source, devDependencies, the ava config). --tag, when given,
//       must name that version.
//   node scripts/release.js publish [--dry-run] [--cwd DIR]
//       `npm publish --provenance --access public` in each npm/<platform>/ and npm/wasm32-wasi/,
//       then in the main package (its scripts are not run: `prepare` would build from source).
//   node scripts/release.js check [--cwd DIR]
//       Fails unless the main package is assembled as above (the main package's prepublishOnly,
//       so that `npm publish` from a clone cannot publish the single-platform package by mistake).
'use strict'
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { userManifest } = require('./pack-manifest')

const repoRoot = path.join(__dirname, '..')

function parseArgs(argv) {
  const [command, ...rest] = argv
  const opts = { command, cwd: repoRoot, dryRun: false }
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]
    if (a === '--dry-run') opts.dryRun = true
    else if (a === '--artifacts' || a === '--tag' || a === '--repository' || a === '--cwd') {
      const v = rest[++i]
      if (v === undefined) fail(`${a} needs a value`)
      opts[a.slice(2)] = a === '--cwd' || a === '--artifacts' ? path.resolve(v) : v
    } else fail(`unknown argument ${a}`)
  }
  return opts
}

function fail(message) {
  console.error(`release: ${message}`)
  process.exit(1)
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'))
const writeJson = (file, value) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`)

/** The WebAssembly package's folder under npm/ (the suffix napi-rs gives wasm32-wasi builds). */
const WASM_DIR = 'wasm32-wasi'

/**
 * The packages under npm/, in publishing order: npm/<dir>/ for each, with its name and the files
 * it must ship (`built`: the one that comes from a build job; the rest are in the repository).
 */
function platformPackages(cwd) {
  const main = readJson(path.join(cwd, 'package.json'))
  const bin = main.napi.binaryName
  const npmDir = path.join(cwd, 'npm')
  return fs.readdirSync(npmDir).sort().map((dir) => {
    const pkgDir = path.join(npmDir, dir)
    const pkg = readJson(path.join(pkgDir, 'package.json'))
    // Under the project's own scope, so no one else can take a platform package's name.
    if (pkg.name !== `@${main.name}/${dir}`) fail(`${pkgDir}/package.json is named ${pkg.name}, not @${main.name}/${dir}`)
    if (dir === WASM_DIR) {
      // The .wasm, its Node loader (package `main`, what native.js requires) and its browser
      // loader (package `browser`, what a bundler takes).
      const built = `${bin}.${dir}.wasm`
      const files = [built, `${bin}.wasi.cjs`, `${bin}.wasi-browser.js`]
      if (pkg.main !== files[1] || pkg.browser !== files[2] || JSON.stringify(pkg.files) !== JSON.stringify(files)) {
        fail(`${pkgDir}/package.json must ship exactly ${files.join(', ')} (main ${files[1]}, browser ${files[2]})`)
      }
      // It is the fallback where no addon fits (and what a bundler on any host resolves), so no
      // cpu or os may keep npm from installing it (as napi-rs's `napi.wasm.cpu: false` does).
      if (pkg.cpu !== undefined || pkg.os !== undefined) fail(`${pkgDir}/package.json must not name a cpu or os: npm would skip it where it is needed`)
      return { dir, pkgDir, pkg, built, files }
    }
    const addon = `${bin}.${dir}.node`
    if (pkg.main !== addon || JSON.stringify(pkg.files) !== JSON.stringify([addon])) fail(`${pkgDir}/package.json must ship exactly ${addon}`)
    return { dir, pkgDir, pkg, built: addon, files: [addon] }
  })
}

/** The reasons the main package at `cwd` is not ready to publish (none when it is). */
function problems(cwd) {
  const main = readJson(path.join(cwd, 'package.json'))
  const found = []
  const addons = fs.readdirSync(cwd).filter((f) => f.endsWith('.node'))
  if (addons.length) found.push(`the main package must carry no addon, but ${addons.join(', ')} lie beside its package.json`)
  for (const { pkgDir, pkg, files } of platformPackages(cwd)) {
    if (main.optionalDependencies?.[pkg.name] !== main.version) found.push(`optionalDependencies lacks ${pkg.name}@${main.version}`)
    if (pkg.version !== main.version) found.push(`${pkg.name} is at ${pkg.version}, the main package at ${main.version}`)
    for (const f of files) if (!fs.existsSync(path.join(pkgDir, f))) found.push(`${pkgDir} has no ${f}`)
  }
  return found
}

/** Every file under `dir`, as paths. */
function filesUnder(dir) {
  return fs.readdirSync(dir, { recursive: true }).map((f) => path.join(dir, f)).filter((f) => fs.statSync(f).isFile())
}

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit', shell: process.platform === 'win32' })
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed in ${cwd} (exit ${r.status})`)
}

function assemble(opts) {
  const { cwd } = opts
  if (!opts.artifacts) fail('assemble needs --artifacts DIR (where the build jobs\' addons and the wasm job\'s .wasm were downloaded)')
  const main = readJson(path.join(cwd, 'package.json'))
  if (opts.tag !== undefined && opts.tag !== `v${main.version}`) fail(`the tag ${opts.tag} does not name version ${main.version} (package.json)`)
  const repository = opts.repository ?? process.env.GITHUB_REPOSITORY
  if (main.repository === undefined && repository === undefined) {
    fail('npm provenance needs each package\'s repository: give --repository OWNER/NAME (GITHUB_REPOSITORY in Actions)')
  }
  // The WebAssembly build goes to its package by hand; napi artifacts sees only the addons (it
  // refuses a .wasm for a target package.json does not name), from a copy of DIR without it.
  const wasmName = `${main.napi.binaryName}.${WASM_DIR}.wasm`
  const wasms = filesUnder(opts.artifacts).filter((f) => path.basename(f) === wasmName)
  if (wasms.length !== 1) {
    fail(`the release needs exactly one WebAssembly build ${wasmName} under ${opts.artifacts} (the wasm job's upload), found ${wasms.length ? wasms.join(', ') : 'none'}`)
  }
  const addons = fs.mkdtempSync(path.join(os.tmpdir(), 'cuda-node-addons-'))
  try {
    fs.cpSync(opts.artifacts, addons, { recursive: true, filter: (src) => !src.endsWith('.wasm') })
    const napi = require.resolve('@napi-rs/cli/package.json', { paths: [cwd, repoRoot] })
    const napiBin = path.join(path.dirname(napi), readJson(napi).bin.napi)
    run(process.execPath, [napiBin, 'artifacts', '--cwd', cwd, '--output-dir', addons, '--npm-dir', 'npm'], cwd)
  } finally {
    fs.rmSync(addons, { recursive: true, force: true })
  }
  fs.copyFileSync(wasms[0], path.join(cwd, 'npm', WASM_DIR, wasmName))
  // napi artifacts also puts every addon beside the main package.json: the main package ships
  // none (package.json `files` would take them); each platform package carries its own.
  for (const f of fs.readdirSync(cwd).filter((f) => f.endsWith('.node'))) fs.rmSync(path.join(cwd, f))

  // --repository, where given, names the repository the packages are published from (a fork's
  // release); else package.json's own, else the one Actions runs in.
  const fromName = (name) => ({ type: 'git', url: `git+https://github.com/${name}.git` })
  const repoField = opts.repository ? fromName(opts.repository) : (main.repository ?? fromName(repository))
  const optional = {}
  for (const { pkgDir, pkg } of platformPackages(cwd)) {
    writeJson(path.join(pkgDir, 'package.json'), { ...pkg, version: main.version, repository: repoField })
    optional[pkg.name] = main.version
  }
  // What only a clone needs goes (scripts/pack-manifest.js): `prepare` builds from source, and
  // npm would list it among the install scripts a consumer has to approve.
  writeJson(path.join(cwd, 'package.json'), { ...userManifest(main), repository: repoField, optionalDependencies: optional })
  const left = problems(cwd)
  if (left.length) fail(`assembled, yet:\n  ${left.join('\n  ')}`)
  console.log(`release: assembled ${main.name}@${main.version} and ${Object.keys(optional).join(', ')}`)
}

function publish(opts) {
  const { cwd } = opts
  const left = problems(cwd)
  if (left.length) fail(`not assembled (run assemble first):\n  ${left.join('\n  ')}`)
  const args = ['publish', '--provenance', '--access', 'public', ...(opts.dryRun ? ['--dry-run'] : [])]
  for (const { pkgDir } of platformPackages(cwd)) run('npm', args, pkgDir)
  run('npm', [...args, '--ignore-scripts'], cwd)
}

function check(opts) {
  const left = problems(opts.cwd)
  if (left.length) {
    fail(`this is not an assembled release: publish through .github/workflows/release.yml (a version tag), or \`node scripts/release.js assemble\` first.\n  ${left.join('\n  ')}`)
  }
}

const opts = parseArgs(process.argv.slice(2))
const commands = { assemble, publish, check }
if (!commands[opts.command]) fail('usage: node scripts/release.js assemble --artifacts DIR [--tag vX.Y.Z] [--repository OWNER/NAME] | publish [--dry-run] | check  [--cwd DIR]')
commands[opts.command](opts)
