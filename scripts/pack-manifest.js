// The package.json a user installs: the clone's, without what only a clone needs — its scripts
// (`prepare` builds from source: npm would list it among the install scripts a user has to
// approve, and warn; the rest run the clone's tests and tools), `devDependencies`, `overrides`
// and the ava config.
// package.json's `prepack` writes it in place of the clone's (kept aside in .package.json.clone)
// and `postpack` puts the clone's back, so `npm pack` and `npm publish` ship it;
// scripts/release.js assemble writes it into the release's main package too.
// __test__/packed.spec.ts checks the packed tarball's package.json.
//
//   node scripts/pack-manifest.js prepack | postpack
'use strict'
const fs = require('node:fs')
const path = require('node:path')

/** Top-level fields a clone needs and an installed package does not. */
const CLONE_ONLY = ['scripts', 'devDependencies', 'overrides', 'ava']

/** `pkg` (a clone's package.json) as users get it. */
function userManifest(pkg) {
  const out = { ...pkg }
  for (const field of CLONE_ONLY) delete out[field]
  return out
}

module.exports = { userManifest, CLONE_ONLY }

if (require.main === module) {
  const dir = process.cwd()
  const file = path.join(dir, 'package.json')
  const kept = path.join(dir, '.package.json.clone')
  const step = process.argv[2]
  if (step === 'prepack') {
    if (fs.existsSync(kept)) throw new Error(`${kept} exists: an earlier pack did not finish; restore package.json from it (node scripts/pack-manifest.js postpack)`)
    const text = fs.readFileSync(file, 'utf8')
    fs.writeFileSync(kept, text)
    fs.writeFileSync(file, `${JSON.stringify(userManifest(JSON.parse(text)), null, 2)}\n`)
  } else if (step === 'postpack') {
    if (fs.existsSync(kept)) fs.renameSync(kept, file)
  } else {
    console.error('usage: node scripts/pack-manifest.js prepack | postpack')
    process.exit(1)
  }
}
