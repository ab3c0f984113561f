// What install.spec.ts and release.spec.ts share: installing packed tarballs into an empty
// project, with no Rust and no registry, and using the installed package.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { scratchDir } from './helpers'

/** npm's environment for these runs: quiet, and never asking the registry about our packages. */
export const npmEnv = { ...process.env, npm_config_loglevel: 'error', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' }

/** A PATH holding node, npm, npx and sh, and nothing else (no cargo, no rustc, no compiler). */
export function pathWithoutRust(): string {
  const bin = scratchDir('cuda-node-bin-')
  const which = (cmd: string) => realpathSync(execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim())
  symlinkSync(process.execPath, path.join(bin, 'node'))
  for (const cmd of ['npm', 'npx', 'sh']) symlinkSync(which(cmd), path.join(bin, cmd))
  return bin
}

/** An empty project at `dir` with `tarballs` installed from disk, offline. */
export function installInto(dir: string, tarballs: string[], PATH: string, env: Record<string, string> = {}): ReturnType<typeof spawnSync> {
  mkdirSync(dir)
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }))
  return spawnSync('npm', ['install', '--offline', ...tarballs], { cwd: dir, env: { ...npmEnv, PATH, ...env }, encoding: 'utf8' })
}

/** Uses the installed package in `app` through require, import and the CLI; returns what each printed. */
export function useInstalled(app: string, PATH: string): { cjs: ReturnType<typeof spawnSync>; esm: ReturnType<typeof spawnSync>; cli: ReturnType<typeof spawnSync> } {
  const env = { ...npmEnv, PATH, CUDA_NODE_BACKEND: 'sim' }
  const script = (mod: string) => `
    const s = new cuda.Stream({ nonBlocking: true });
    const a = new cuda.Event(), b = new cuda.Event();
    a.record(s); cuda.kernels.sleep(2e6, s); b.record(s); b.synchronize();
    console.log(${JSON.stringify(mod)}, cuda.backend().name, cuda.getElapsedTime(a, b) > 0);`
  const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: app, env, encoding: 'utf8', timeout: 60_000 })
  return {
    cjs: run(['-e', `const cuda = require('cuda-node');${script('cjs')}`]),
    esm: run(['--input-type=module', '-e', `import * as cuda from 'cuda-node';${script('esm')}`]),
    cli: spawnSync('npx', ['--offline', 'cuda-node', 'info'], { cwd: app, env, encoding: 'utf8', timeout: 60_000 }),
  }
}


/**
 * `npm pack` as the README's install runs it, with the package's own prepack and postpack (the
 * package.json users get: scripts/pack-manifest.js), from a copy of the files it packs, so the
 * clone's package.json, which other tests read, is never rewritten under them. Returns the
 * unpacked tarball's folder (`package/`) and the tarball.
 */
export function packAsUser(work: string, root: string): { dir: string; tgz: string } {
  const list = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, env: npmEnv, encoding: 'utf8' }))[0].files as { path: string }[]
  const copy = path.join(work, 'clone')
  for (const f of [...list.map((e) => e.path), 'scripts/pack-manifest.js']) cpSync(path.join(root, f), path.join(copy, f))
  const out = path.join(work, 'packed')
  mkdirSync(out)
  const tgz = path.join(out, execFileSync('npm', ['pack', '--pack-destination', out], { cwd: copy, env: npmEnv, encoding: 'utf8' }).trim().split('\n').pop()!)
  execFileSync('tar', ['xzf', tgz, '-C', out])
  return { dir: path.join(out, 'package'), tgz }
}
