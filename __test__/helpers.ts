import test from 'ava'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { backend, type MemoryPointer } from '..'

/** The package root, for child processes to `require`. */
export const root = path.join(__dirname, '..')

let scratchRoot: string | undefined

/** A fresh directory for one test's files; all of them are removed when this test process exits. */
export function scratchDir(prefix: string): string {
  if (scratchRoot === undefined) {
    const dir = mkdtempSync(path.join(tmpdir(), 'cuda-node-test-'))
    scratchRoot = dir
    process.on('exit', () => {
      try {
        rmSync(dir, { recursive: true, force: true })
      } catch {
        // Left behind; never let cleanup change the exit status.
      }
    })
  }
  return mkdtempSync(path.join(scratchRoot, prefix))
}

export const onGpu = backend().name === 'cuda'

/** The package runs its WebAssembly build (NAPI_RS_FORCE_WASI=1, or no native addon fits). */
export const onWasm = /WebAssembly build/.test(backend().reason ?? '')

/**
 * A test of what only the native build has (threads, an injected NVTX tool, external
 * ArrayBuffers…); on WebAssembly it is reported as skipped, saying why (docs/wasm.md lists these).
 */
export function nativeTest(why: string): typeof test {
  return onWasm ? (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (not on WebAssembly: ${why})`, ...rest)) as any) : test
}

/** A test of what the WebAssembly build does instead; skipped natively, saying so. */
export const wasmTest: typeof test = onWasm
  ? test
  : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (WebAssembly only: NAPI_RS_FORCE_WASI=1)`, ...rest)) as any)

/** A test that needs the real GPU; on sim it is reported as skipped, saying why. */
export const gpuTest: typeof test = onGpu
  ? test
  : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (GPU only: backend is sim)`, ...rest)) as any)

/** A test of what the simulator does; on the GPU it is reported as skipped, saying `why`. */
export function simOnly(why = 'simulator only: backend is cuda'): typeof test {
  return onGpu ? (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (${why})`, ...rest)) as any) : test
}

/** A test of what the simulator does (see {@link simOnly}). */
export const simTest: typeof test = simOnly()

/** A test that needs a machine with no CUDA driver at all. */
export const noDriverTest: typeof test = !onGpu
  ? test
  : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs a machine without a CUDA driver)`, ...rest)) as any)

export interface Child {
  status: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
}

/** Runs `script` in a fresh node with the package as `cuda` in scope (killed after `timeout` ms). */
export function runNode(script: string, env: Record<string, string | undefined> = {}, args: string[] = [], timeout = 60_000): Child {
  const started = Date.now()
  const r = spawnSync(process.execPath, [...args, '-e', `const cuda = require(${JSON.stringify(root)});\n${script}`], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout,
  })
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started }
}

/** Runs `script` in a child and parses the JSON it prints last. */
export function runJson(script: string, env: Record<string, string | undefined> = {}, args: string[] = []): any {
  const r = runNode(script, env, args)
  if (r.status !== 0) throw new Error(`child failed (${r.status} ${r.signal}): ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split('\n').pop()!)
}

function loads(f: () => unknown): boolean {
  try {
    f()
    return true
  } catch {
    return false
  }
}

/** Whether NVRTC and nvJitLink load here (the toolkit's, or NVIDIA's wheels under CUDA_NODE_LIBRARY_PATH). */
export const hasNvrtc = loads(() => require('../lib/native').native.nvrtcVersion())
export const hasNvJitLink = loads(() => require('../lib/native').native.nvJitLinkVersion())

const WHEELS = 'pip install --target DIR nvidia-cuda-nvrtc nvidia-nvjitlink, then CUDA_NODE_LIBRARY_PATH=DIR'

/** A test that needs NVRTC (compiling only: it runs on the simulator too). */
export const nvrtcTest: typeof test = hasNvrtc
  ? test
  : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs NVRTC: ${WHEELS})`, ...rest)) as any)

/** A test that needs NVRTC and nvJitLink. */
export const linkTest: typeof test = hasNvrtc && hasNvJitLink
  ? test
  : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs NVRTC and nvJitLink: ${WHEELS})`, ...rest)) as any)

/** `n` values in [-0.5, 0.5) from a linear congruential generator seeded with `seed`: the same inputs every run. */
export function seededValues(n: number, seed: number): Float64Array {
  let s = seed >>> 0
  const out = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    out[i] = s / 2 ** 32 - 0.5
  }
  return out
}

/** The first `n` float32 values of device memory `p`, copied back. */
export function floats(p: MemoryPointer, n: number): Float32Array {
  const out = new Float32Array(n)
  p.copyToHost(out)
  return out
}

/** The first `n` float64 values of device memory `p`, copied back. */
export function doubles(p: MemoryPointer, n: number): Float64Array {
  const out = new Float64Array(n)
  p.copyToHost(out)
  return out
}
