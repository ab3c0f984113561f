// The compile cache: kernels compiled by NVRTC are kept in memory and on disk (CuPy's kernel
// cache), keyed by source, options, name expressions, architecture and NVRTC version.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { native } from '../native'

/** What a compile produced. */
export type CompileOutput = ReturnType<typeof native.nvrtcCompile>

/** Where compiled kernels are kept between processes (CuPy's `CUPY_CACHE_DIR`). */
export function cacheDir(): string {
  return process.env.CUDA_NODE_CACHE_DIR ?? path.join(homedir(), '.cuda-node', 'kernel_cache')
}

const memoryCache = new Map<string, CompileOutput>()
/** Counts of how this process's kernels were obtained (see {@link kernelCacheStats}). */
export interface KernelCacheStats {
  /** Compiled by NVRTC, found in neither cache. */
  compiles: number
  /** Found in this process's in-memory cache. */
  memoryHits: number
  /** Found in the on-disk cache under {@link cacheDir}. */
  diskHits: number
}

const stats: KernelCacheStats = { compiles: 0, memoryHits: 0, diskHits: 0 }

/** How this process's kernels were obtained: compiled by NVRTC, or found in the caches. A copy. */
export function kernelCacheStats(): Readonly<KernelCacheStats> {
  return { ...stats }
}

export interface Source {
  code: string
  options: string[]
  nameExpressions: string[]
  fileName: string
}

/** What NVRTC makes: a cubin for one architecture, PTX, or LTO-IR for nvJitLink. */
export type CompileTarget = 'cubin' | 'ptx' | 'ltoir'

/** Compiles `src` for `arch` into `target`, through the memory and disk caches. */
export function compileCached(src: Source, arch: string, target: CompileTarget = 'cubin'): CompileOutput {
  const [major, minor] = native.nvrtcVersion()
  const key = createHash('sha256')
    .update(JSON.stringify([`nvrtc ${major}.${minor}`, arch, target, src.options, src.nameExpressions, src.fileName, src.code]))
    .digest('hex')
  const inMemory = memoryCache.get(key)
  if (inMemory) {
    stats.memoryHits++
    return inMemory
  }
  const file = path.join(cacheDir(), `${key}.bin`)
  const fromDisk = readEntry(file)
  if (fromDisk) {
    stats.diskHits++
    memoryCache.set(key, fromDisk)
    return fromDisk
  }
  const out = native.nvrtcCompile(src.code, src.fileName, src.options, src.nameExpressions, arch, target)
  stats.compiles++
  memoryCache.set(key, out)
  writeEntry(file, out)
  return out
}

const MAGIC = 'cuda-node kernel 3'

// An entry is one line of JSON (what the image is), then the image. A torn or foreign file
// reads as a miss.
function readEntry(file: string): CompileOutput | undefined {
  let data: Buffer
  try {
    data = readFileSync(file)
  } catch {
    return undefined
  }
  const nl = data.indexOf(10)
  if (nl < 0) return undefined
  try {
    const head = JSON.parse(data.subarray(0, nl).toString('utf8'))
    const image = data.subarray(nl + 1)
    if (head.magic !== MAGIC || image.length !== head.length) return undefined
    return { image: Buffer.from(image), target: head.target, log: head.log, lowered: head.lowered }
  } catch {
    return undefined
  }
}

// Written to a unique temporary file and renamed into place: rename is atomic, so processes
// writing the same entry at once never leave a torn file, and readers see old or new, whole.
function writeEntry(file: string, out: CompileOutput): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true })
    const head = JSON.stringify({ magic: MAGIC, length: out.image.length, target: out.target, log: out.log, lowered: out.lowered })
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
    writeFileSync(tmp, Buffer.concat([Buffer.from(head + '\n'), out.image]))
    renameSync(tmp, file)
  } catch {
    // A cache that cannot be written only costs a compile next time.
  }
}
