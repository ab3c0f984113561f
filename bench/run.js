// `npm run bench`: builds the addon again with the `floor` feature (the in-process driver floor the
// table's ratios are taken against) into bench/addon, then runs bench/bench.ts on that addon.
// The package's own addon never carries the floor (the `floor` feature of crates/node, which turns on
// crates/core's); only this build does.
'use strict'
const { spawnSync } = require('node:child_process')
const { existsSync, readdirSync } = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const out = path.join(__dirname, 'addon')

function run(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env, shell: process.platform === 'win32' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}

// The GPU machine has no Rust: there, the addon built here (and carried in .gpu/build.tgz) is used.
const haveCargo = spawnSync('cargo', ['--version'], { stdio: 'ignore' }).status === 0
if (!process.env.CUDA_NODE_BENCH_ADDON && haveCargo) {
  run('npx', ['napi', 'build', '--platform', '--release', '--manifest-path', 'crates/node/Cargo.toml', '--package-json-path', 'package.json',
    '--features', 'floor', '--target-dir', 'target/bench', '--output-dir', out, '--no-js', '--dts', 'ignored.d.ts'],
  // With its symbols (the release profile strips the shipped addon), for perf in bench/split.sh and profile.sh.
  { ...process.env, CARGO_PROFILE_RELEASE_STRIP: 'false' })
}
const built = existsSync(out) ? readdirSync(out).find((f) => f.endsWith('.node')) : undefined
if (!process.env.CUDA_NODE_BENCH_ADDON && built === undefined) {
  console.error('npm run bench needs Rust to build bench/addon (the addon with the in-process floor), or one built elsewhere there')
  process.exit(1)
}
const addon = process.env.CUDA_NODE_BENCH_ADDON ?? path.join(out, built)
run(process.execPath, ['--import', 'tsx', path.join(__dirname, 'bench.ts'), ...process.argv.slice(2)], { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: addon })
