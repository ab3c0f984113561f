import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { root } from './helpers'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const semver: { satisfies(version: string, range: string): boolean } = require('semver')

test('every installed package accepts this Node version: npm install prints no EBADENGINE warning', (t) => {
  // npm warns for each package it installs whose `engines.node` excludes the running Node; the
  // lock records each one's range, and its os and cpu (packages for other platforms are skipped).
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'))
  const fits = (list: string[] | undefined, value: string) =>
    list === undefined || (list.includes(value) || (list.some((x) => x.startsWith('!')) && !list.includes(`!${value}`)))
  const refused = Object.entries<any>(lock.packages)
    .filter(([dir, p]) => dir !== '' && p.engines?.node && fits(p.os, process.platform) && fits(p.cpu, process.arch))
    .filter(([, p]) => !semver.satisfies(process.versions.node, p.engines.node))
    .map(([dir, p]) => `${dir} wants node ${p.engines.node}`)
  t.deepEqual(refused, [], `on Node ${process.versions.node}`)
})

/** Every path `git status` reports under the checkout, ignored files included. */
function workingTree(): Set<string> {
  const r = spawnSync('git', ['status', '--porcelain', '--ignored', '--untracked-files=all'], { cwd: root, encoding: 'utf8' })
  return new Set(r.stdout.split('\n').filter(Boolean))
}
const inGit = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: root, encoding: 'utf8' }).stdout.trim() === root
const gitTest: typeof test = inGit ? test : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs a git checkout)`, ...rest)) as any)

gitTest('the tour, as `npm start` and as `npx cuda-node tour`, leaves nothing in the working tree', (t) => {
  const before = workingTree()
  const env = { ...process.env, CUDA_NODE_BACKEND: 'sim' }
  const start = spawnSync(process.execPath, ['--import', 'tsx', 'examples/tour.ts'], { cwd: root, env, encoding: 'utf8', timeout: 120_000 })
  t.is(start.status, 0, start.stderr)
  const cli = spawnSync(process.execPath, ['cli/cli.js', 'tour'], { cwd: root, env, encoding: 'utf8', timeout: 120_000 })
  t.is(cli.status, 0, cli.stderr)
  for (const r of [start, cli]) {
    // It says where the timeline went, and that is outside the checkout.
    const file = /^timeline: (\S+tour-trace\.json)/m.exec(r.stdout)?.[1]
    t.truthy(file, r.stdout)
    t.true(existsSync(file!))
    t.true(path.relative(root, file!).startsWith('..'), file)
    rmSync(path.dirname(file!), { recursive: true, force: true })
  }
  // target/ is cargo's (another test or a build may be writing there).
  t.deepEqual([...workingTree()].filter((e) => !before.has(e) && !e.startsWith('!! target/')), [])
})

test('the README and the other documents link only to files inside the repository, and each exists', (t) => {
  const docs = ['README.md', 'ARCHITECTURE.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
  const broken: string[] = []
  for (const doc of docs.filter((d) => existsSync(path.join(root, d)))) {
    const text = readFileSync(path.join(root, doc), 'utf8')
    // Markdown links and images, and any other path that climbs up (in code, in commands).
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1])
    const climbs = [...text.matchAll(/(?:^|[\s`'"])(\.\.\/[^\s`'")]+)/gm)].map((m) => m[1])
    for (const target of new Set([...targets, ...climbs])) {
      if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue
      const file = path.resolve(path.dirname(path.join(root, doc)), target.split('#')[0])
      if (path.relative(root, file).startsWith('..')) broken.push(`${doc}: ${target} (outside the repository)`)
      else if (!existsSync(file)) broken.push(`${doc}: ${target} (no such file)`)
    }
  }
  t.deepEqual(broken, [])
})
