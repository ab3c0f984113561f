import test from 'ava'
import { randomFillSync } from 'node:crypto'
import { readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { alloc, CudaError, f32, f64, i32, kernels, MemoryPointer, RawKernel, RawModule, Stream, u64 } from '..'
import { gpuTest, nativeTest, nvrtcTest, onGpu, onWasm, runJson, runNode, scratchDir } from './helpers'

const SAXPY = `
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, unsigned long long n) {
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
`

/** The simulator's stand-in for saxpy: host arithmetic through copies. */
function simulateSaxpy(args: readonly unknown[]): void {
  const [a, x, y, out, n] = args as [{ value: number }, MemoryPointer, MemoryPointer, MemoryPointer, { value: bigint }]
  const count = Number(n.value)
  const hx = new Float32Array(count)
  const hy = new Float32Array(count)
  x.copyToHost(hx)
  y.copyToHost(hy)
  const r = new Float32Array(count)
  for (let i = 0; i < count; i++) r[i] = Math.fround(Math.fround(a.value * hx[i]) + hy[i])
  out.copyFromHost(r)
}

// On the simulator the kernel is simulateSaxpy, the same arithmetic as the reference below: the
// comparison proves something only where NVRTC compiled the kernel, so it runs on the GPU only.
// The known-answer test after it proves the launch on both backends.
gpuTest('saxpy over 10^7 random floats matches a host reference exactly', (t) => {
  const n = 10_000_000
  const a = 2.5
  const x = new Float32Array(n)
  const y = new Float32Array(n)
  randomFillSync(x)
  randomFillSync(y)
  // Random bits make NaNs and infinities; keep finite values in a sane range.
  for (let i = 0; i < n; i++) {
    x[i] = (x[i] % 1000) || 0.5
    y[i] = (y[i] % 1000) || -0.25
  }
  const [dx, dy, dout] = [alloc(4 * n), alloc(4 * n), alloc(4 * n)]
  dx.copyFromHost(x)
  dy.copyFromHost(y)
  dout.memset(0xff, 4 * n) // poisoned: NaNs until written
  // --fmad=false: a*x + y as two IEEE roundings, exactly what the host computes.
  const k = new RawKernel(SAXPY, 'saxpy', { options: ['--fmad=false'], simulate: simulateSaxpy })
  k.launch(Math.ceil(n / 256), 256, [f32(a), dx, dy, dout, u64(n)])
  const out = new Float32Array(n)
  dout.copyToHost(out)
  let bad = 0
  for (let i = 0; i < n; i++) if (out[i] !== Math.fround(Math.fround(Math.fround(a) * x[i]) + y[i])) bad++
  t.is(bad, 0)
})

test('saxpy on known values: arguments reach the kernel in order, and results every thread wrote land in device memory', (t) => {
  // Inputs whose results are exact in float32, and a reference in integer arithmetic (twice the
  // result), so it shares nothing with the kernel or its simulation.
  const n = 1 << 20
  const x = Float32Array.from({ length: n }, (_, i) => i % 4096)
  const y = Float32Array.from({ length: n }, (_, i) => -(i % 7))
  const [dx, dy, dout] = [alloc(4 * n), alloc(4 * n), alloc(4 * n)]
  dx.copyFromHost(x)
  dy.copyFromHost(y)
  dout.memset(0xff, 4 * n)
  const seen: { args: readonly unknown[]; grid: number[]; block: number[] }[] = []
  const k = new RawKernel(SAXPY, 'saxpy', {
    simulate: (args, grid, block) => {
      seen.push({ args, grid, block })
      simulateSaxpy(args)
    },
  })
  const s = new Stream({ nonBlocking: true })
  k.launch([Math.ceil(n / 256), 1, 1], [256, 1, 1], [f32(2.5), dx, dy, dout, u64(n)], { stream: s })
  s.synchronize()
  const out = new Float32Array(n)
  dout.copyToHost(out)
  let bad = 0
  for (let i = 0; i < n; i++) if (out[i] * 2 !== 5 * (i % 4096) - 2 * (i % 7)) bad++
  t.is(bad, 0)
  if (!onGpu) {
    // The simulation was handed exactly what was launched, once.
    t.is(seen.length, 1)
    const [a, px, py, pout, count] = seen[0].args as any[]
    t.is(a.value, 2.5)
    t.true(px === dx && py === dy && pout === dout)
    t.is(Number(count.value), n)
    t.deepEqual([seen[0].grid, seen[0].block], [[n / 256, 1, 1], [256, 1, 1]])
  }
})

/** x = i, y = 1, out poisoned; saxpy with a = 2 makes out[i] = 2i + 1. */
function saxpyInputs(n: number): [MemoryPointer, MemoryPointer, MemoryPointer] {
  const [dx, dy, dout] = [alloc(4 * n), alloc(4 * n), alloc(4 * n)]
  dx.copyFromHost(Float32Array.from({ length: n }, (_, i) => i))
  dy.copyFromHost(new Float32Array(n).fill(1))
  dout.memset(0xff, 4 * n)
  return [dx, dy, dout]
}

nativeTest('the simulator has no threads to queue on')(
  'a launch queues the kernel and returns, behind a sleep on its stream; it runs in stream order (simulate, in its place)',
  (t) => {
    const n = 4096
    const [dx, dy, dout] = saxpyInputs(n)
    const k = new RawKernel(SAXPY, 'saxpy', { simulate: simulateSaxpy })
    t.true(k.attributes.maxThreadsPerBlock >= 256) // compiled and loaded here, not inside the timed launch (NVRTC takes seconds on the GPU)
    const s = new Stream({ nonBlocking: true })
    kernels.sleep(150e6, s)
    const start = performance.now()
    k.launch(Math.ceil(n / 256), 256, [f32(2), dx, dy, dout, u64(n)], { stream: s })
    const launched = performance.now() - start
    // The launch returned while the sleep ahead of it still held the stream.
    t.false(s.done)
    t.true(launched < 150, `the launch took ${launched} ms`)
    // Later work on the stream sees what the kernel wrote: a copy of out, queued behind it.
    const copy = alloc(4 * n)
    copy.copyFromDeviceAsync(dout, 4 * n, s)
    s.synchronize()
    const [out, copied] = [new Float32Array(n), new Float32Array(n)]
    dout.copyToHost(out)
    copy.copyToHost(copied)
    t.deepEqual([...out], Array.from({ length: n }, (_, i) => 2 * i + 1))
    t.deepEqual([...copied], [...out])
  },
)

nativeTest('the simulator has no threads to queue on')(
  'a synchronize right after a launch waits for it (no deadlock while the kernel waits for this thread) and sees its writes',
  (t) => {
    const n = 1024
    const [dx, dy, dout] = saxpyInputs(n)
    const k = new RawKernel(SAXPY, 'saxpy', { simulate: simulateSaxpy })
    for (const s of [new Stream(), Stream.null]) {
      dout.memset(0xff, 4 * n)
      kernels.sleep(20e6, s)
      k.launch(n / 256, 256, [f32(2), dx, dy, dout, u64(n)], { stream: s })
      s.synchronize()
      const out = new Float32Array(n)
      dout.copyToHost(out)
      t.deepEqual([...out], Array.from({ length: n }, (_, i) => 2 * i + 1))
    }
    // A synchronous copy on the current stream, right after the launch, waits for it too.
    dout.memset(0xff, 4 * n)
    k.launch(n / 256, 256, [f32(2), dx, dy, dout, u64(n)])
    const out = new Float32Array(n)
    dout.copyToHost(out)
    t.is(out[n - 1], 2 * (n - 1) + 1)
  },
)

nativeTest('on WebAssembly a simulated kernel runs inside launch(), so its error is thrown there')('an exception thrown by a simulated kernel reaches uncaughtException, and its stream goes on', (t) => {
  const r = runNode(
    `process.on('uncaughtException', (e) => { console.log('caught', e.message); });
     const k = new cuda.RawKernel('extern "C" __global__ void k(int* p) {}', 'k', { simulate() { throw new Error('from simulate') } });
     const s = new cuda.Stream();
     k.launch(1, 1, [cuda.alloc(4)], { stream: s });
     s.synchronize();
     console.log('synchronized');`,
    { CUDA_NODE_BACKEND: 'sim' },
  )
  t.is(r.status, 0, r.stderr)
  t.deepEqual(r.stdout.trim().split('\n').sort(), ['caught from simulate', 'synchronized'])
})

test('a wrong argument count or type is a TypeError before launch', (t) => {
  const k = new RawKernel(SAXPY, 'saxpy', { simulate: () => t.fail('must not launch') })
  const [x, y, out] = [alloc(64), alloc(64), alloc(64)]
  t.throws(() => k.launch(1, 16, [f32(1), x, y, out]), { instanceOf: TypeError, message: /takes 5 arguments/ })
  t.throws(() => k.launch(1, 16, [x, x, y, out, u64(16)]), { instanceOf: TypeError, message: /not a pointer/ })
  t.throws(() => k.launch(1, 16, [f32(1), f32(2), y, out, u64(16)]), { instanceOf: TypeError, message: /pointer/ })
  t.throws(() => k.launch(1, 16, [f64(1), x, y, out, u64(16)]), { instanceOf: TypeError, message: /4 bytes/ })
  t.throws(() => k.launch(1, 16, [1 as any, x, y, out, u64(16)]), { instanceOf: TypeError, message: /say its C type/ })
  t.throws(() => k.launch(1, 16, [f32(1), x, y, out, 'n' as any]), { instanceOf: TypeError })
  t.throws(() => k.launch(1, 16, 'args' as any), { instanceOf: TypeError })
})

test('grid and block are checked against the device limits', (t) => {
  const k = new RawKernel(SAXPY, 'saxpy', { simulate: () => t.fail('must not launch') })
  const args = [f32(1), alloc(64), alloc(64), alloc(64), u64(16)]
  t.throws(() => k.launch(1, 2048, args), { instanceOf: RangeError, message: /block x/ })
  t.throws(() => k.launch(1, [32, 32, 2], args), { instanceOf: RangeError, message: /threads/ })
  t.throws(() => k.launch([1, 70000], 1, args), { instanceOf: RangeError, message: /grid y/ })
  t.throws(() => k.launch(0, 1, args), { instanceOf: RangeError })
  t.throws(() => k.launch(1.5, 1, args), { instanceOf: RangeError })
  t.throws(() => k.launch('1' as any, 1, args), { instanceOf: TypeError })
  t.throws(() => k.launch([1, 1, 1, 1] as any, 1, args), { instanceOf: TypeError })
  t.throws(() => k.launch(1, 1, args, { sharedMem: -1 }), { instanceOf: RangeError })
})

test('scalars check their range', (t) => {
  t.throws(() => i32(2 ** 31).bytes(), { instanceOf: RangeError })
  t.throws(() => i32(1.5).bytes(), { instanceOf: RangeError })
  t.throws(() => f32('1' as any), { instanceOf: TypeError })
  t.deepEqual([...u64(2n ** 64n - 1n).bytes()], Array(8).fill(255))
})

test('on the simulator a kernel without a host implementation says so', (t) => {
  const r = runJson(
    `const k = new cuda.RawKernel('extern "C" __global__ void k(int* p) {}', 'k');
     try { k.launch(1, 1, [cuda.alloc(4)]); console.log('{}') } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`,
    { CUDA_NODE_BACKEND: 'sim' },
  )
  t.is(r.code, 'CUDA_ERROR_NOT_SUPPORTED')
  t.regex(r.message, /simulate\(args, grid, block\)/)
})

test('where NVRTC is missing, the error names the library it looked for', (t) => {
  const r = runJson(
    `const k = new cuda.RawKernel('extern "C" __global__ void k(int* p) {}', 'k');
     try { k.attributes; cuda.RawModule; const m = new cuda.RawModule({ code: 'x' }); m.getLoweredName('x'); console.log('{}') }
     catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`,
    { CUDA_NODE_NVRTC_PATH: '/nonexistent/libnvrtc.so', CUDA_NODE_LIBRARY_PATH: '', PATH: process.env.PATH },
  )
  if (r.code !== 'NVRTC_ERROR_NOT_FOUND') return t.pass('the system has its own NVRTC')
  t.is(r.code, 'NVRTC_ERROR_NOT_FOUND')
  if (onWasm) t.regex(r.message, /looked for nothing \(the WebAssembly build loads no libraries\)/)
  else t.regex(r.message, /looked for \/nonexistent\/libnvrtc\.so, libnvrtc\.so\.13/)
  t.regex(r.message, /CUDA_NODE_NVRTC_PATH/)
})

nvrtcTest('a compile error is a CudaError with NVRTC\'s log, line included (on the simulator too)', (t) => {
  const bad = 'extern "C" __global__ void k(int* p) {\n  int x = 1;\n  p[0] = y;\n}\n'
  const k = new RawKernel(bad, 'k')
  const e = t.throws(() => k.launch(1, 1, [alloc(4)]), { instanceOf: CudaError })
  t.is(e!.code, 'NVRTC_ERROR_COMPILATION')
  t.regex(e!.message, /kernel\.cu\(3\)/)
  t.regex(e!.message, /identifier "y" is undefined/)
})

gpuTest('function attributes, and raising the dynamic shared memory limit', (t) => {
  const code = `extern "C" __global__ void big(float* out) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
  }`
  const k = new RawKernel(code, 'big')
  const a = k.attributes
  t.true(a.maxThreadsPerBlock >= 256)
  t.true(a.numRegs > 0)
  const out = alloc(4 * 256)
  const bytes = 100 * 1024
  t.throws(() => k.launch(1, 256, [out], { sharedMem: bytes }), { instanceOf: CudaError })
  k.setMaxDynamicSharedSize(bytes)
  t.is(k.attributes.maxDynamicSharedSizeBytes, bytes)
  k.launch(1, 256, [out], { sharedMem: bytes })
  const h = new Float32Array(256)
  out.copyToHost(h)
  t.is(h[0], 1)
  t.is(h[255], 0)
})

gpuTest('RawModule loads PTX and compiles name expressions', (t) => {
  const ptx = `.version 6.0
.target sm_50
.address_size 64
.visible .entry put42(.param .u64 p) {
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, 42;
  st.global.u32 [%rd1], %r1;
  ret;
}`
  const p = alloc(4)
  new RawModule({ ptx }).getFunction('put42').launch(1, 1, [p])
  const h = new Int32Array(1)
  p.copyToHost(h)
  t.is(h[0], 42)

  const tmpl = `template<typename T> __global__ void fill_t(T* p, T v, int n) { int i = threadIdx.x; if (i < n) p[i] = v; }`
  const m = new RawModule({ code: tmpl, nameExpressions: ['fill_t<double>'] })
  t.regex(m.getLoweredName('fill_t<double>'), /^_Z/)
  const d = alloc(8 * 32)
  m.getFunction('fill_t<double>').launch(1, 32, [d, f64(1.25), i32(32)])
  const hd = new Float64Array(32)
  d.copyToHost(hd)
  t.true(hd.every((v) => v === 1.25))
})

gpuTest('the driver checks argument widths too, for modules without source', (t) => {
  const ptx = `.version 6.0\n.target sm_50\n.address_size 64\n.visible .entry two(.param .u64 p, .param .u32 n) { ret; }`
  const k = new RawModule({ ptx }).getFunction('two')
  t.throws(() => k.launch(1, 1, [alloc(4)]), { instanceOf: TypeError, message: /takes 2 arguments, 1 given/ })
  t.throws(() => k.launch(1, 1, [alloc(4), f64(1)]), { instanceOf: TypeError, message: /4 bytes wide/ })
  k.launch(1, 1, [alloc(4), i32(1)])
  t.pass()
})

gpuTest('a kernel captured into a graph runs at every launch', (t) => {
  const k = new RawKernel(`extern "C" __global__ void inc(int* p) { atomicAdd(p, 1); }`, 'inc')
  const p = alloc(4)
  p.memset(0, 4)
  const s = new Stream({ nonBlocking: true })
  k.launch(1, 1, [p], { stream: s }) // compiled outside the capture
  const g = s.capture(() => k.launch(1, 32, [p]))
  g.launch(s)
  g.launch(s)
  s.synchronize()
  const h = new Int32Array(1)
  p.copyToHost(h)
  t.is(h[0], 65)
})

gpuTest('a second process finds the kernel in the disk cache and skips NVRTC', (t) => {
  const dir = scratchDir('cuda-node-cache-')
  const script = `
    const t0 = process.hrtime.bigint();
    const k = new cuda.RawKernel(${JSON.stringify(SAXPY)}, 'saxpy');
    const a = k.attributes;
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    console.log(JSON.stringify({ ...cuda.kernelCacheStats(), ms, regs: a.numRegs }));`
  const first = runJson(script, { CUDA_NODE_CACHE_DIR: dir })
  const second = runJson(script, { CUDA_NODE_CACHE_DIR: dir })
  t.is(first.compiles, 1)
  t.is(first.diskHits, 0)
  t.is(second.compiles, 0)
  t.is(second.diskHits, 1)
  t.is(second.regs, first.regs)
  t.log(`compile + load ${first.ms.toFixed(1)} ms; from the disk cache ${second.ms.toFixed(1)} ms`)
})

gpuTest('processes writing the cache at once never corrupt it', async (t) => {
  const dir = scratchDir('cuda-node-cache-')
  const code = `extern "C" __global__ void w(int* p) { p[threadIdx.x] = threadIdx.x * 3; }`
  const script = `
    const k = new cuda.RawKernel(${JSON.stringify(code)}, 'w');
    const p = cuda.alloc(4 * 64);
    k.launch(1, 64, [p]);
    const h = new Int32Array(64); p.copyToHost(h);
    console.log(JSON.stringify({ ok: h.every((v, i) => v === i * 3), ...cuda.kernelCacheStats() }));`
  const { spawn } = await import('node:child_process')
  const runs = await Promise.all(
    Array.from({ length: 6 }, () =>
      new Promise<string>((resolve) => {
        const c = spawn(process.execPath, ['-e', `const cuda = require(${JSON.stringify(path.join(__dirname, '..'))});${script}`], {
          env: { ...process.env, CUDA_NODE_CACHE_DIR: dir },
        })
        let out = ''
        c.stdout.on('data', (d) => (out += d))
        c.on('close', () => resolve(out))
      }),
    ),
  )
  for (const r of runs) t.true(JSON.parse(r.trim()).ok, r)
  const after = runJson(script, { CUDA_NODE_CACHE_DIR: dir })
  t.true(after.ok)
  t.is(after.diskHits, 1)
  t.is(after.compiles, 0)
})

test('kernelCacheStats counts compiles, memory hits and disk hits as the cache serves them', (t) => {
  // NVRTC is replaced by a stand-in that counts its calls (the simulator has no NVRTC), so the
  // cache's own logic runs on every machine: each count is held to what actually happened.
  const dir = scratchDir('cuda-node-cache-')
  const script = (steps: string) => `
    const { native } = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'native.js'))});
    const { compileCached } = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'kernel', 'cache.js'))});
    let nvrtcCalls = 0;
    native.nvrtcVersion = () => [12, 8];
    native.nvrtcCompile = (code, fileName, options) => {
      nvrtcCalls++;
      return { image: Buffer.from('image of ' + code + ' ' + options.join(' ')), isCubin: true, log: '', lowered: [] };
    };
    const src = (code, options = []) => ({ code, options, nameExpressions: [], fileName: 'k.cu' });
    const images = [];
    ${steps}
    console.log(JSON.stringify({ ...cuda.kernelCacheStats(), nvrtcCalls, images }));`
  const first = runJson(
    script(`
      images.push(compileCached(src('A'), 'sm_90').image.toString());
      images.push(compileCached(src('A'), 'sm_90').image.toString());  // this process has it
      images.push(compileCached(src('A', ['-DX']), 'sm_90').image.toString());  // other options
      images.push(compileCached(src('A'), 'sm_80').image.toString());  // another architecture`),
    { CUDA_NODE_CACHE_DIR: dir },
  )
  t.deepEqual(first, { compiles: 3, memoryHits: 1, diskHits: 0, nvrtcCalls: 3, images: ['image of A ', 'image of A ', 'image of A -DX', 'image of A '] })
  const second = runJson(script(`images.push(compileCached(src('A', ['-DX']), 'sm_90').image.toString());`), { CUDA_NODE_CACHE_DIR: dir })
  t.deepEqual(second, { compiles: 0, memoryHits: 0, diskHits: 1, nvrtcCalls: 0, images: ['image of A -DX'] })
  // A torn entry reads as a miss and is compiled again.
  for (const f of readdirSync(dir)) writeFileSync(path.join(dir, f), '{"magic":"cuda-node kernel 2","length":99}\ntorn')
  const third = runJson(script(`images.push(compileCached(src('A'), 'sm_90').image.toString());`), { CUDA_NODE_CACHE_DIR: dir })
  t.deepEqual(third, { compiles: 1, memoryHits: 0, diskHits: 0, nvrtcCalls: 1, images: ['image of A '] })
})

test('a child process with a bad kernel source does not crash', (t) => {
  const r = runNode(
    `for (const bad of [null, 42, { code: 1 }, { ptx: 5 }, { cubin: 'x' }, {}]) {
       try { new cuda.RawModule(bad) } catch (e) { if (!(e instanceof TypeError)) throw e }
     }
     try { new cuda.RawKernel('x', '') } catch (e) { if (!(e instanceof TypeError)) throw e }
     console.log('ok')`,
  )
  t.is(r.status, 0, r.stderr)
  t.is(r.stdout.trim(), 'ok')
})

test('getFunction looks the kernel up at once: a missing name is CUDA_ERROR_NOT_FOUND, and the module stays usable (#19.5)', (t) => {
  const ptx = `.version 6.0\n.target sm_50\n.address_size 64\n.visible .entry here(.param .u64 p) { ret; }`
  const m = new RawModule({ ptx })
  const err = t.throws(() => m.getFunction('absent'), { instanceOf: CudaError })
  t.is(err?.code, 'CUDA_ERROR_NOT_FOUND')
  t.is(m.getFunction('here').name, 'here')
  const src = new RawModule({ code: 'extern "C" __global__ void real(int* p) { *p = 1; }' })
  t.is(t.throws(() => src.getFunction('unreal'), { instanceOf: CudaError })?.code, 'CUDA_ERROR_NOT_FOUND')
  const k = src.getFunction('real')
  if (onGpu) {
    const p = alloc(4)
    k.launch(1, 1, [p])
    const h = new Int32Array(1)
    p.copyToHost(h)
    t.is(h[0], 1)
  } else t.is(k.name, 'real')
})

test('a kernel name of any length or content is looked up as text, never as a pattern (the fuzzer: a megabyte name was a SyntaxError)', (t) => {
  const src = new RawModule({ code: 'extern "C" __global__ void real(int* p) { *p = 1; }' })
  for (const name of ['x'.repeat(1 << 20), '(', 'real(', '[a-z]+', 'rea.']) {
    const e = t.throws(() => src.getFunction(name))
    t.true(e instanceof CudaError || e instanceof TypeError || e instanceof RangeError, `${name.slice(0, 10)}: ${e?.constructor.name} ${e?.message.slice(0, 80)}`)
  }
  const ptx = new RawModule({ ptx: '.version 6.0\n.target sm_50\n.address_size 64\n.visible .entry k(.param .u64 p) { ret; }' })
  t.is(t.throws(() => ptx.getFunction('x'.repeat(1 << 20)), { instanceOf: CudaError })?.code, 'CUDA_ERROR_NOT_FOUND')
})

gpuTest('on the GPU the raw simulated launch is refused, so no host function waits for a JS thread that is blocked in a synchronize (the fuzzer: raw:74:127 hung)', (t) => {
  // Run in a child with a bound: before the fix the synchronize below never returned.
  const r = runNode(
    `const { native } = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'native.js'))});
     const h = native.streamCreate(0, true, null);
     let code = 'no error';
     try { native.streamLaunchSimulated(h, () => {}) } catch (e) { code = e.code }
     native.streamSynchronize(h);
     console.log(code)`,
    { CUDA_NODE_BACKEND: 'cuda' },
    [],
    30_000,
  )
  t.is(r.signal, null, 'the child finished (it hung before the fix)')
  t.is(r.stdout.trim(), 'CUDA_ERROR_NOT_SUPPORTED', r.stderr)
})
