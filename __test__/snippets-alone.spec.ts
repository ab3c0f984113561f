// Every TypeScript block of the README and the user guide runs as a user pastes it (#33.2): alone,
// as a module of its own (an .mts file, so top-level await works), importing 'cuda-node' from
// node_modules as an installed package is imported. A block right after
// `<!-- continues the block above -->` is pasted below the one before it (that one's code, then
// its own) and runs as one module with it. snippets.spec.ts runs each document's blocks in order
// in one script; this test is what catches a block that uses a name only an earlier block made.
// The gpu-only and not-on-WebAssembly markers mean what they mean there: such a block must fail
// with the CudaError its comment names where it cannot run.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { onGpu, onWasm, root, scratchDir } from './helpers'

interface Block {
  code: string
  line: number
  gpuOnly: boolean
  notOnWasm: boolean
  continues: boolean
}

/** The ```ts blocks of a markdown file, with the line each starts on and the marker above it. */
function blocks(markdown: string): Block[] {
  const lines = markdown.split('\n')
  const out: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```ts') continue
    let j = i + 1
    while (j < lines.length && lines[j].trim() !== '```') j++
    const before = lines[i - 1] ?? ''
    out.push({
      code: lines.slice(i + 1, j).join('\n'),
      line: i + 2,
      gpuOnly: /<!--\s*gpu only/.test(before),
      notOnWasm: /<!--\s*not on WebAssembly/.test(before),
      continues: /<!--\s*continues the block above\s*-->/.test(before),
    })
    i = j
  }
  return out
}

/** A project folder whose node_modules/cuda-node is this package, as an install makes it. */
function project(): string {
  const dir = scratchDir('alone-')
  mkdirSync(path.join(dir, 'node_modules'))
  symlinkSync(root, path.join(dir, 'node_modules/cuda-node'), 'junction')
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'paste', version: '1.0.0', private: true, type: 'module' }))
  return dir
}

const docs = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]

for (const doc of docs) {
  const found = blocks(readFileSync(path.join(root, doc), 'utf8'))
  if (found.length === 0) continue
  test(`each TypeScript block of ${doc} runs alone, as a user pastes it into a file (${found.length} blocks)`, (t) => {
    const dir = project()
    const failures: string[] = []
    let pasted = ''
    found.forEach((b, i) => {
      pasted = b.continues ? `${pasted}\n${b.code}` : b.code
      if (b.continues && i === 0) failures.push(`${doc}:${b.line}: the first block cannot continue one above it`)
      const file = path.join(dir, `block-${i}.mts`)
      writeFileSync(file, `${pasted}\n`)
      const r = spawnSync(process.execPath, ['--import', require.resolve('tsx'), file], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
      const mustFail = (b.gpuOnly && !onGpu) || (b.notOnWasm && onWasm)
      if (mustFail) {
        const codes = b.gpuOnly ? /CUDA_ERROR_NOT_SUPPORTED|NVRTC_ERROR_NOT_FOUND|NVJITLINK_ERROR_NOT_FOUND/ : /CUDA_ERROR_NOT_SUPPORTED/
        if (r.status === 0 || !codes.test(r.stderr)) failures.push(`${doc}:${b.line}: must throw ${codes.source} here, but exited ${r.status}:\n${r.stderr.slice(-1500)}`)
      } else if (r.status !== 0) {
        failures.push(`${doc}:${b.line}: exited ${r.status}:\n${r.stderr.slice(-1500)}`)
      }
    })
    t.deepEqual(failures, [])
  })
}
