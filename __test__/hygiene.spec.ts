import test from 'ava'
import { readFileSync } from 'node:fs'
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
