// `npm run bench`: builds the addon again with the `floor` feature (the in-process driver floor the
// table's ratios are taken against) into bench/addon, then runs bench/bench.ts on that addon.
// The package's own addon never carries the floor; only this build does.
'use strict'
const { spawnSync } = require('node:child_process')
const { readdirSync } = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const out = path.join(__dirname, 'addon')

function run(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env, shell: process.platform === 'win32' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}

if (!process.env.CUDA_NODE_BENCH_ADDON) {
  run('npx', ['napi', 'build', '--platform', '--release', '--manifest-path', 'crates/node/Cargo.toml', '--package-json-path', 'package.json',
    '--features', 'floor', '--target-dir', 'target/bench', '--output-dir', out, '--no-js', '--dts', 'ignored.d.ts'])
}
const addon = process.env.CUDA_NODE_BENCH_ADDON ?? path.join(out, readdirSync(out).find((f) => f.endsWith('.node')))
run(process.execPath, ['--import', 'tsx', path.join(__dirname, 'bench.ts'), ...process.argv.slice(2)], { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: addon })
