import test from 'ava'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { nativeTest, onWasm, root, scratchDir } from './helpers'
import { installInto, npmEnv, pathWithoutRust, useInstalled } from './packaging'

// `npm pack` in a built clone gives a package that carries this platform's addon beside index.js
// (package.json `files` takes `cuda-node.*.node`): installed into an empty project, with no Rust
// and no registry, it loads through require, import and its CLI. Nothing is copied in by hand.
const addon = readdirSync(root).find((f) => /^cuda-node\.[\w-]+\.node$/.test(f))
const hasNpm = spawnSync('npm', ['--version']).status === 0
const installTest: typeof test = onWasm
  ? nativeTest('it packs this platform\'s native addon; the wasm32-wasi package is tested by release.spec')
  : addon && hasNpm && process.platform !== 'win32'
    ? test
    : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs a built addon, npm and a POSIX shell)`, ...rest)) as any)

installTest('npm pack gives one tarball that installs into an empty project without Rust or a registry, and works with require, import and the CLI', (t) => {
  const work = scratchDir('cuda-node-install-')
  // --ignore-scripts: `prepare` would build again; the build this test runs in is the one packed.
  const tgz = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: root, env: npmEnv, encoding: 'utf8' }).trim().split('\n').pop()!
  const PATH = pathWithoutRust()
  t.not(spawnSync('/bin/sh', ['-c', 'command -v cargo || command -v rustc || command -v cc'], { env: { PATH } }).status, 0, 'no Rust on this PATH')
  const app = path.join(work, 'app')
  const install = installInto(app, [path.join(work, tgz)], PATH)
  t.is(install.status, 0, String(install.stderr))
  t.true(existsSync(path.join(app, 'node_modules/cuda-node', addon!)), `the package carries ${addon}`)
  const { cjs, esm, cli } = useInstalled(app, PATH)
  t.is(cjs.status, 0, String(cjs.stderr))
  t.is(String(cjs.stdout).trim(), 'cjs sim true')
  t.is(esm.status, 0, String(esm.stderr))
  t.is(String(esm.stdout).trim(), 'esm sim true')
  t.is(cli.status, 0, String(cli.stderr))
  t.regex(String(cli.stdout), /Device 0: "cuda-node simulator 0"/)
})
