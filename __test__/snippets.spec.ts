// Every TypeScript block of the README and of the user guide (docs/*.md) runs, in order, as the
// reader meets it (#19.16, #19.19). A document's first block runs at the top level and later
// blocks each in a scope of their own, so a later block may use what the first set up (the README's
// `s` and `p`) but not what another later block declared. `import … from 'cuda-node'` is the
// package itself. A block after `<!-- gpu only: why -->` runs on the GPU; on the simulator it
// must throw the CudaError the comment tells the reader of: CUDA_ERROR_NOT_SUPPORTED, or a
// library's *_NOT_FOUND where NVRTC or nvJitLink is absent. A block after
// `<!-- not on WebAssembly: why -->` runs natively; on the WebAssembly build it must throw
// CUDA_ERROR_NOT_SUPPORTED (NCCL, registerHost, pinned memory's `.buffer`: docs/wasm.md).
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { onGpu, onWasm, root, scratchDir } from './helpers'

interface Block {
  code: string
  line: number
  gpuOnly: boolean
  notOnWasm: boolean
}

/** The ```ts blocks of a markdown file, with the line each starts on. */
export function blocks(markdown: string): Block[] {
  const lines = markdown.split('\n')
  const out: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```ts') continue
    const start = i + 1
    let j = start
    while (j < lines.length && lines[j].trim() !== '```') j++
    const before = lines[i - 1] ?? ''
    out.push({ code: lines.slice(start, j).join('\n'), line: start + 1, gpuOnly: /<!--\s*gpu only/.test(before), notOnWasm: /<!--\s*not on WebAssembly/.test(before) })
    i = j
  }
  return out
}

/** `import { a, b as c } from 'm'` → a require; 'cuda-node' is this package. */
function requires(code: string): { imports: string[]; body: string } {
  const imports: string[] = []
  const body = code.replace(/^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'\s*;?\s*$/gm, (_, type, names: string, from: string) => {
    if (type) return ''
    const spec = names
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '' && !n.startsWith('type '))
      .map((n) => n.replace(/\s+as\s+/, ': '))
    imports.push(`const { ${spec.join(', ')} } = require(${JSON.stringify(from === 'cuda-node' ? root : from)})`)
    return ''
  })
  return { imports, body }
}

/** The script that runs a document's blocks in order, printing a marker as each one ends. */
function script(doc: Block[]): string {
  const head: string[] = [`const { CudaError: __CudaError } = require(${JSON.stringify(root)})`]
  const parts = doc.map((b, i) => {
    const { imports, body } = requires(b.code)
    head.push(...imports)
    const done = `console.log('<<block ${i} done>>')`
    if (b.gpuOnly && !onGpu) {
      return `try {\n${body}\nthrow new Error('a gpu-only block ran on the simulator')\n} catch (e: any) {\nif (!(e instanceof __CudaError) || !/^(CUDA_ERROR_NOT_SUPPORTED|NVRTC_ERROR_NOT_FOUND|NVJITLINK_ERROR_NOT_FOUND)$/.test(e.code)) throw e\n${done}\n}`
    }
    if (b.notOnWasm && onWasm) {
      return `try {\n${body}\nthrow new Error('a block marked not on WebAssembly ran there')\n} catch (e: any) {\nif (!(e instanceof __CudaError) || e.code !== 'CUDA_ERROR_NOT_SUPPORTED') throw e\n${done}\n}`
    }
    return i === 0 ? `${body}\n${done}` : `{\n${body}\n${done}\n}`
  })
  // Imports may repeat a name across blocks: keep the first of each.
  const seen = new Set<string>()
  const uniqueHead = head.map((line) =>
    line.replace(/const \{ ([^}]*) \}/, (_, names: string) => {
      const fresh = names.split(', ').filter((n) => {
        const local = n.includes(': ') ? n.split(': ')[1] : n
        if (seen.has(local)) return false
        seen.add(local)
        return true
      })
      return fresh.length ? `const { ${fresh.join(', ')} }` : 'const {}'
    }),
  )
  return `${uniqueHead.join('\n')}\nasync function main() {\n${parts.join('\n')}\n}\nmain().catch((e) => { console.error(e); process.exit(1) })\n`
}

const docs = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]

for (const doc of docs) {
  const found = blocks(readFileSync(path.join(root, doc), 'utf8'))
  if (found.length === 0) continue
  test(`every TypeScript block of ${doc} runs, in order (${found.length} blocks)`, (t) => {
    const file = path.join(scratchDir('snippets-'), 'doc.ts')
    writeFileSync(file, script(found))
    const r = spawnSync(process.execPath, ['--import', require.resolve('tsx'), file], { cwd: scratchDir('cwd-'), encoding: 'utf8', timeout: 90_000 })
    const ran = (r.stdout.match(/<<block \d+ done>>/g) ?? []).length
    const failed = found[ran]
    t.is(r.status, 0, `${doc}: the block at line ${failed?.line} failed:\n${r.stderr.slice(-3000)}`)
    t.is(ran, found.length, 'every block ran to its end')
  })
}
