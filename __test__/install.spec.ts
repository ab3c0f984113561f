import test from 'ava'
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { nativeTest, onWasm, root, scratchDir } from './helpers'

// Installs the npm pack tarballs (the main package and this platform's binary package) into a
// fresh project, with no Rust toolchain on PATH, and uses the package through require and import.
const binary = readdirSync(root).find((f) => /^cuda-node\.linux-x64-gnu\.node$/.test(f))
const npmCli = (() => {
  try {
    return execFileSync('npm', ['--version'], { encoding: 'utf8' }) && 'npm'
  } catch {
    return undefined
  }
})()
const installTest: typeof test = onWasm
  ? nativeTest('it packs and installs the linux-x64 addon package; the wasm32-wasi package is not among the tarballs')
  : process.platform === 'linux' && process.arch === 'x64' && binary && npmCli
    ? test
    : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs linux-x64, a built addon and npm)`, ...rest)) as any)

installTest('the packed tarballs install into a fresh project without Rust, and work with require and import', (t) => {
  const work = scratchDir('cuda-node-install-')
  const env = { ...process.env, npm_config_loglevel: 'error', npm_config_audit: 'false', npm_config_fund: 'false' }
  // The binary package, as napi-rs's npm/ layout publishes it.
  const binDir = path.join(work, 'binary')
  mkdirSync(binDir)
  copyFileSync(path.join(root, 'npm/linux-x64-gnu/package.json'), path.join(binDir, 'package.json'))
  copyFileSync(path.join(root, binary!), path.join(binDir, binary!))
  const pack = (dir: string) => execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: dir, env, encoding: 'utf8' }).trim().split('\n').pop()!
  const binTgz = pack(binDir)
  const mainTgz = pack(root)
  // A fresh project; PATH keeps node and npm but no cargo or rustc.
  const app = path.join(work, 'app')
  mkdirSync(app)
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }))
  // Only node, npm and sh, linked into a folder of their own: the system's bin folders may hold a
  // rustc (Debian's rustc-web, which the WebAssembly build installs, is /usr/bin/rustc).
  const tools = path.join(work, 'tools')
  mkdirSync(tools)
  for (const [name, target] of [['node', process.execPath], ...['npm', 'sh'].map((n) => [n, execFileSync('sh', ['-c', `command -v ${n}`], { encoding: 'utf8' }).trim()])]) {
    symlinkSync(target, path.join(tools, name))
  }
  const PATH = tools
  t.not(spawnSync('sh', ['-c', 'command -v cargo || command -v rustc'], { env: { PATH } }).status, 0, 'no Rust on this PATH')
  const install = spawnSync('npm', ['install', '--offline', path.join(work, binTgz), path.join(work, mainTgz)], { cwd: app, env: { ...env, PATH }, encoding: 'utf8' })
  t.is(install.status, 0, install.stderr)
  t.false(existsSync(path.join(app, 'node_modules/cuda-node/cuda-node.linux-x64-gnu.node')), 'the main package ships no binary')
  const script = (mod: string) => `
    const s = new cuda.Stream({ nonBlocking: true });
    const a = new cuda.Event(), b = new cuda.Event();
    a.record(s); cuda.kernels.sleep(2e6, s); b.record(s); b.synchronize();
    console.log(${JSON.stringify(mod)}, cuda.backend().name, cuda.getElapsedTime(a, b) > 0);`
  const cjs = spawnSync(process.execPath, ['-e', `const cuda = require('cuda-node');${script('cjs')}`], { cwd: app, env: { ...env, PATH, CUDA_NODE_BACKEND: 'sim' }, encoding: 'utf8' })
  t.is(cjs.status, 0, cjs.stderr)
  t.is(cjs.stdout.trim(), 'cjs sim true')
  const esm = spawnSync(process.execPath, ['--input-type=module', '-e', `import * as cuda from 'cuda-node';${script('esm')}`], { cwd: app, env: { ...env, PATH, CUDA_NODE_BACKEND: 'sim' }, encoding: 'utf8' })
  t.is(esm.status, 0, esm.stderr)
  t.is(esm.stdout.trim(), 'esm sim true')
  const cli = spawnSync(path.join(app, 'node_modules/.bin/cuda-node'), ['info'], { cwd: app, env: { ...env, PATH, CUDA_NODE_BACKEND: 'sim' }, encoding: 'utf8' })
  t.is(cli.status, 0, cli.stderr)
  t.regex(cli.stdout, /Device 0: "cuda-node simulator 0"/)
})
