// Compiling and linking (Program, Linker): NVRTC and nvJitLink run on the host, so these run on
// the simulator wherever the libraries are found (CI installs NVIDIA's wheels for them).
import test from 'ava'
import path from 'node:path'
import { CudaError, Linker, Program, RawModule, kernelCacheStats } from '..'
import { hasNvJitLink, hasNvrtc, linkTest, nativeTest, nvrtcTest, onWasm, root, runJson, runNode, scratchDir } from './helpers'

const ADD1 = `extern "C" __device__ int add1(int x) { return x + 1; }`
const USE = `extern "C" __device__ int add1(int x);
extern "C" __global__ void use(int* p) { p[threadIdx.x] = add1(p[threadIdx.x]); }`

test.before(() => {
  process.env.CUDA_NODE_CACHE_DIR = scratchDir('cuda-node-cache-')
})

test(`NVRTC ${hasNvrtc ? 'and' : 'or'} nvJitLink ${hasNvJitLink ? 'found' : 'missing'} here`, (t) => {
  t.log(hasNvrtc ? `NVRTC ${Program.nvrtcVersion().join('.')}` : 'no NVRTC', hasNvJitLink ? `nvJitLink ${Linker.version().join('.')}` : 'no nvJitLink')
  t.pass()
})

nvrtcTest('Program compiles to a cubin, PTX and LTO-IR, each with its log', (t) => {
  const p = new Program(`extern "C" __global__ void k(int* p) { int unused; p[0] = 1; }`)
  const cubin = p.compile({ arch: 90 })
  t.is(cubin.target, 'cubin')
  t.is(cubin.code.subarray(0, 4).toString('latin1'), '\x7fELF')
  t.regex(cubin.log, /"unused" was declared but never referenced/, 'the log of a successful compile keeps its warnings')
  const ptx = p.compile({ target: 'ptx', arch: 'sm_90' })
  t.is(ptx.target, 'ptx')
  t.regex(ptx.code.toString(), /\.visible \.entry k\(/)
  t.regex(ptx.code.toString(), /\.target sm_90/)
  const ltoir = p.compile({ target: 'ltoir', arch: 'compute_90' })
  t.is(ltoir.target, 'ltoir')
  t.true(ltoir.code.length > 0)
  t.notDeepEqual(ltoir.code, cubin.code)
})

nvrtcTest('Program gives the lowered names of name expressions', (t) => {
  const out = new Program(`template<typename T> __global__ void fill(T* p, T v) { p[threadIdx.x] = v; }`).compile({
    target: 'ptx',
    arch: 90,
    nameExpressions: ['fill<float>', 'fill<int>'],
  })
  t.regex(out.loweredNames['fill<float>'], /^_Z4fillIfEvPT_S0_$/)
  t.regex(out.loweredNames['fill<int>'], /^_Z4fillIiEvPT_S0_$/)
  t.true(out.code.toString().includes(out.loweredNames['fill<int>']))
})

nvrtcTest('a compile error is NVRTC_ERROR_COMPILATION with the log and the source line', (t) => {
  const bad = 'extern "C" __global__ void k(int* p) {\n  int x = 1;\n  p[0] = y;\n}\n'
  const e = t.throws(() => new Program(bad, { fileName: 'mine.cu' }).compile({ arch: 90 }), { instanceOf: CudaError })
  t.is(e!.code, 'NVRTC_ERROR_COMPILATION')
  t.regex(e!.message, /mine\.cu\(3\): error: identifier "y" is undefined/)
  t.regex(e!.message, /p\[0\] = y;/)
})

nvrtcTest('NVRTC lists the architectures it compiles for, and the version', (t) => {
  const archs = Program.supportedArchs()
  t.true(archs.includes(90), archs.join(','))
  t.deepEqual([...archs].sort((a, b) => a - b), archs)
  const [major] = Program.nvrtcVersion()
  t.true(major >= 11)
})

nvrtcTest('the simulator compiles a RawModule\'s source, so a source error shows there too', (t) => {
  const m = new RawModule({ code: 'extern "C" __global__ void k(int* p) { p[0] = nope; }' })
  t.is(t.throws(() => m.getFunction('k'), { instanceOf: CudaError })?.code, 'NVRTC_ERROR_COMPILATION')
})

test('Program refuses bad input with typed errors, before NVRTC', (t) => {
  t.throws(() => new Program(42 as any), { instanceOf: TypeError })
  t.throws(() => new Program('x', { options: 'x' as any }), { instanceOf: TypeError })
  t.throws(() => new Program('x', { fileName: '' }), { instanceOf: TypeError })
  const p = new Program('x')
  t.throws(() => p.compile({ target: 'exe' as any }), { instanceOf: TypeError, message: /'cubin', 'ptx' or 'ltoir'/ })
  t.throws(() => p.compile({ arch: 'volta' }), { instanceOf: TypeError, message: /arch/ })
  t.throws(() => p.compile({ arch: -1 }), { instanceOf: TypeError })
  t.throws(() => p.compile({ nameExpressions: [1 as any] }), { instanceOf: TypeError })
  t.throws(() => p.compile(null as any), { instanceOf: TypeError })
})

nvrtcTest('a second process finds a Program in the disk cache and skips NVRTC', (t) => {
  const dir = scratchDir('cuda-node-cache-')
  const script = `const out = new cuda.Program('extern "C" __global__ void k(float* p) { p[threadIdx.x] *= 2.f; }').compile({ arch: 90 });
    console.log(JSON.stringify({ ...cuda.kernelCacheStats(), n: out.code.length }))`
  const first = runJson(script, { CUDA_NODE_CACHE_DIR: dir })
  const second = runJson(script, { CUDA_NODE_CACHE_DIR: dir })
  t.deepEqual([first.compiles, first.diskHits], [1, 0])
  t.deepEqual([second.compiles, second.diskHits], [0, 1])
  t.is(second.n, first.n)
})

nvrtcTest('processes writing the same cache entry at once never corrupt it', async (t) => {
  const dir = scratchDir('cuda-node-cache-')
  const script = `const out = new cuda.Program('extern "C" __global__ void w(int* p) { p[threadIdx.x] = threadIdx.x * 3; }').compile({ target: 'ptx', arch: 90 });
    console.log(JSON.stringify({ ok: out.code.toString().includes('.entry w'), ...cuda.kernelCacheStats() }))`
  const { spawn } = await import('node:child_process')
  const runs = await Promise.all(
    Array.from({ length: 4 }, () =>
      new Promise<string>((resolve) => {
        const c = spawn(process.execPath, ['-e', `const cuda = require(${JSON.stringify(root)});${script}`], { env: { ...process.env, CUDA_NODE_CACHE_DIR: dir } })
        let out = ''
        c.stdout.on('data', (d) => (out += d))
        c.on('close', () => resolve(out))
      }),
    ),
  )
  for (const r of runs) t.true(JSON.parse(r.trim()).ok, r)
  const after = runJson(script, { CUDA_NODE_CACHE_DIR: dir })
  t.true(after.ok)
  t.deepEqual([after.compiles, after.diskHits], [0, 1])
})

nvrtcTest('the in-memory cache serves a repeated compile', (t) => {
  const p = new Program('extern "C" __global__ void again(int* p) { p[0] = 7; }')
  p.compile({ arch: 90 })
  const before = kernelCacheStats().memoryHits
  p.compile({ arch: 90 })
  t.is(kernelCacheStats().memoryHits, before + 1)
})

linkTest('Linker links LTO-IR from two programs into a cubin, or PTX, with its log', (t) => {
  const a = new Program(USE).compile({ target: 'ltoir', arch: 90 })
  const b = new Program(ADD1).compile({ target: 'ltoir', arch: 90 })
  const linker = new Linker([a, b], { arch: 90 })
  const cubin = linker.link()
  t.is(cubin.target, 'cubin')
  t.is(cubin.code.subarray(0, 4).toString('latin1'), '\x7fELF')
  t.is(typeof linker.log, 'string')
  const ptx = linker.link('ptx')
  t.is(ptx.target, 'ptx')
  t.regex(ptx.code.toString(), /\.entry use/)
})

linkTest('Linker links PTX inputs, and names a missing symbol in its error log', (t) => {
  // Calls across PTX modules need relocatable device code.
  const use = new Program(USE, { options: ['-rdc=true'] }).compile({ target: 'ptx', arch: 90 })
  const add = new Program(ADD1, { options: ['-rdc=true'] }).compile({ target: 'ptx', arch: 90 })
  t.is(new Linker([use, { ptx: add.code.toString(), name: 'add1.ptx' }], { arch: 90 }).link().target, 'cubin')
  const e = t.throws(() => new Linker([use], { arch: 90 }).link(), { instanceOf: CudaError })
  t.regex(e!.code!, /^NVJITLINK_ERROR_/)
  t.regex(e!.message, /add1/)
})

linkTest('a RawModule of LTO-IR is found by name on the simulator', (t) => {
  const a = new Program(USE).compile({ target: 'ltoir', arch: 90 })
  const b = new Program(ADD1).compile({ target: 'ltoir', arch: 90 })
  const m = new RawModule({ ltoir: [a.code, b.code] })
  t.is(m.getFunction('use').name, 'use')
})

test('Linker refuses bad input with typed errors, before nvJitLink', (t) => {
  t.throws(() => new Linker([]), { instanceOf: RangeError })
  t.throws(() => new Linker('x' as any), { instanceOf: TypeError })
  t.throws(() => new Linker([{ elf: new Uint8Array(4) } as any]), { instanceOf: TypeError })
  t.throws(() => new Linker([{ ltoir: 'x' } as any]), { instanceOf: TypeError })
  t.throws(() => new Linker([{ cubin: new Uint8Array(0) }]), { instanceOf: RangeError })
  t.throws(() => new Linker([{ ptx: 'x' }], { arch: 'x' }), { instanceOf: TypeError })
  t.throws(() => new Linker([{ ptx: 'x' }], { lto: 1 as any }), { instanceOf: TypeError })
  t.throws(() => new Linker([{ ptx: 'x' }], { arch: 90 }).link('exe' as any), { instanceOf: TypeError })
})

test('where nvJitLink is missing, the error names where it looked', (t) => {
  const r = runJson(
    `try { new cuda.Linker([{ ptx: '.version 8.0' }], { arch: 90 }).link(); console.log('{"found":true}') }
     catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`,
    { CUDA_NODE_NVJITLINK_PATH: '/nonexistent/libnvJitLink.so', CUDA_NODE_LIBRARY_PATH: '' },
  )
  if (r.found || r.code !== 'NVJITLINK_ERROR_NOT_FOUND') return t.pass('a system nvJitLink was found')
  if (onWasm) t.regex(r.message, /looked for nothing \(the WebAssembly build loads no libraries\)/)
  else t.regex(r.message, /looked for \/nonexistent\/libnvJitLink\.so/)
  t.regex(r.message, /CUDA_NODE_LIBRARY_PATH/)
})

nativeTest('the WebAssembly build loads no libraries, so it searches no folders')('CUDA_NODE_LIBRARY_PATH is searched in the wheels\' layouts', (t) => {
  const r = runNode(
    `try { new cuda.Program('x').compile({ arch: 90 }) } catch (e) { console.log(e.code === 'NVRTC_ERROR_NOT_FOUND' ? e.message : 'found') }`,
    { CUDA_NODE_NVRTC_PATH: '', CUDA_NODE_LIBRARY_PATH: path.join(root, 'no-such-wheels') },
  )
  const out = r.stdout.trim()
  if (out === 'found' || out.startsWith('{') || out === '') return t.pass('a system NVRTC was found')
  t.true(out.includes(path.join(root, 'no-such-wheels', 'nvidia', 'cu13', 'lib', 'libnvrtc.so.13')) || process.platform !== 'linux', out)
  t.true(out.includes(path.join(root, 'no-such-wheels', 'nvidia', 'cuda_nvrtc', 'lib', 'libnvrtc.so.12')) || process.platform !== 'linux', out)
})

test('a Linker refuses an input list longer than it takes, by its length, before walking it (the fuzzer: a proxy claiming 2**32 - 1 entries hung on the H100)', (t) => {
  const huge = new Proxy([], { get: (o, k) => (k === 'length' ? 2 ** 32 - 1 : Reflect.get(o, k)) })
  t.throws(() => new Linker(huge as any), { instanceOf: RangeError, message: /at most 4096 inputs/ })
  const sparse: unknown[] = []
  sparse.length = 5000
  t.throws(() => new Linker(sparse as any), { instanceOf: RangeError })
})
