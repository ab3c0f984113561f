import test from 'ava'
import { alloc, backend, cufft, FftPlan, mallocPlain, MemoryPointer, Stream, usingAllocator } from '..'
import { gpuTest, onGpu, runJson, runNode } from './helpers'
import { signal, dft, dftNd, relError } from './fft-reference'

function upload(values: ArrayLike<number>, double: boolean): MemoryPointer {
  const host = double ? Float64Array.from(values) : Float32Array.from(values)
  const p = alloc(host.byteLength)
  p.copyFromHost(host)
  return p
}

function download(p: MemoryPointer, count: number, double: boolean): Float64Array {
  const host = double ? new Float64Array(count) : new Float32Array(count)
  p.copyToHost(host)
  return Float64Array.from(host)
}

function code(t: any, f: () => unknown, want: string): void {
  const e = t.throws(f) as any
  t.is(e?.code, want, e?.message)
}

for (const [type, double, tol] of [
  ['c2c', false, 1e-5],
  ['z2z', true, 1e-12],
] as const) {
  test(`${type}: a batched 1-D plan matches a naive DFT both ways, unnormalised`, (t) => {
    const [n, batch] = [60, 3]
    const x = signal(2 * n * batch, 7)
    const input = upload(x, double)
    const output = alloc(input.size)
    using plan = new cufft.Plan1d(n, type, batch)
    plan.exec(input, output)
    const forward = download(output, 2 * n * batch, double)
    t.true(relError(forward, dft(x, n, -1, batch)) < tol, `forward ${relError(forward, dft(x, n, -1, batch))}`)
    plan.exec(output, input, { direction: 'inverse' })
    const back = download(input, 2 * n * batch, double)
    t.true(relError(back, x.map((v) => v * n)) < tol, 'inverse of forward is n·x')
  })
}

for (const [r2c, c2r, double, tol] of [
  ['r2c', 'c2r', false, 1e-5],
  ['d2z', 'z2d', true, 1e-12],
] as const) {
  test(`${r2c} writes the n/2+1 points of the spectrum and ${c2r} brings back n·x`, (t) => {
    for (const n of [16, 15]) {
      const batch = 2
      const h = Math.floor(n / 2) + 1
      const x = signal(n * batch, n)
      const input = upload(x, double)
      const spectrum = alloc(2 * h * batch * (double ? 8 : 4))
      new cufft.Plan1d(n, r2c, batch).fft(input, spectrum, cufft.FORWARD)
      const got = download(spectrum, 2 * h * batch, double)
      const complex = new Float64Array(2 * n * batch)
      x.forEach((v, i) => (complex[2 * i] = v))
      const full = dft(complex, n, -1, batch)
      const want = new Float64Array(2 * h * batch)
      for (let b = 0; b < batch; b++) want.set(full.subarray(2 * b * n, 2 * (b * n + h)), 2 * b * h)
      t.true(relError(got, want) < tol, `n=${n}: ${relError(got, want)}`)
      const back = alloc(input.size)
      new cufft.Plan1d(n, c2r, batch).fft(spectrum, back, cufft.INVERSE)
      t.true(relError(download(back, n * batch, double), x.map((v) => v * n)) < tol, `n=${n} round trip`)
    }
  })
}

test('2-D and 3-D plans match the DFT along every axis', (t) => {
  for (const shape of [
    [6, 10],
    [3, 4, 5],
  ]) {
    const total = shape.reduce((a, b) => a * b, 1)
    const x = signal(2 * total * 2, total)
    const input = upload(x, true)
    const output = alloc(input.size)
    using plan = new cufft.PlanNd({ shape, type: 'z2z', batch: 2 })
    plan.exec(input, output)
    const got = download(output, 2 * total * 2, true)
    for (let b = 0; b < 2; b++) {
      const want = dftNd(x.subarray(2 * b * total, 2 * (b + 1) * total), shape, -1)
      t.true(relError(got.subarray(2 * b * total, 2 * (b + 1) * total), want) < 1e-12, `${shape} batch ${b}`)
    }
  }
})

test('a 2-D real plan round-trips: d2z then z2d gives n·x', (t) => {
  const shape = [4, 6]
  const total = 24
  const x = signal(total, 3)
  const input = upload(x, true)
  const spectrum = alloc(2 * 4 * 4 * 8)
  new FftPlan({ shape, type: 'd2z' }).exec(input, spectrum)
  const complex = new Float64Array(2 * total)
  x.forEach((v, i) => (complex[2 * i] = v))
  const full = dftNd(complex, shape, -1)
  const got = download(spectrum, 2 * 4 * 4, true)
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 4; c++) {
      t.true(Math.abs(got[2 * (r * 4 + c)] - full[2 * (r * 6 + c)]) < 1e-10 && Math.abs(got[2 * (r * 4 + c) + 1] - full[2 * (r * 6 + c) + 1]) < 1e-10)
    }
  }
  const back = alloc(total * 8)
  new FftPlan({ shape, type: 'z2d' }).exec(spectrum, back)
  t.true(relError(download(back, total, true), x.map((v) => v * total)) < 1e-12)
})

test('in place: the same pointer for input and output', (t) => {
  const n = 32
  const x = signal(2 * n, 11)
  const p = upload(x, true)
  new cufft.Plan1d(n, 'z2z').exec(p, p)
  t.true(relError(download(p, 2 * n, true), dft(x, n, -1)) < 1e-12)
})

test('an advanced layout reads and writes where it says (interleaved batches)', (t) => {
  const [n, batch] = [8, 2]
  const x = signal(2 * n * batch, 5)
  const input = upload(x, true)
  const output = alloc(input.size)
  const layout = { embed: [n], stride: batch, dist: 1 }
  new FftPlan({ shape: [n], type: 'z2z', batch, input: layout, output: layout }).exec(input, output)
  const got = download(output, 2 * n * batch, true)
  for (let b = 0; b < batch; b++) {
    const row = new Float64Array(2 * n)
    const gotRow = new Float64Array(2 * n)
    for (let j = 0; j < n; j++) {
      row.set(x.subarray(2 * (j * batch + b), 2 * (j * batch + b) + 2), 2 * j)
      gotRow.set(got.subarray(2 * (j * batch + b), 2 * (j * batch + b) + 2), 2 * j)
    }
    t.true(relError(gotRow, dft(row, n, -1)) < 1e-12, `batch ${b}`)
  }
})

test('a run is ordered on the stream given', async (t) => {
  const n = 64
  const x = signal(2 * n, 2)
  const s = new Stream({ nonBlocking: true })
  const input = upload(x, false)
  const output = alloc(input.size)
  const plan = new cufft.Plan1d(n, 'c2c')
  plan.exec(input, output, { stream: s })
  await s.synchronizeAsync()
  t.true(relError(download(output, 2 * n, false), dft(x, n, -1)) < 1e-5)
  plan.destroy()
  s.destroy()
})

test('an FFT captured into a graph runs again at each launch, the graph keeping the plan', (t) => {
  const n = 16
  const s = new Stream({ nonBlocking: true })
  const input = alloc(2 * n * 8)
  const output = alloc(2 * n * 8)
  const plan = new cufft.Plan1d(n, 'z2z')
  const g = s.capture(() => plan.exec(input, output))
  plan.destroy() // the graph holds the plan and its work area until it goes
  for (const seed of [1, 2]) {
    const x = signal(2 * n, seed)
    input.copyFromHost(x)
    g.launch(s)
    s.synchronize()
    t.true(relError(download(output, 2 * n, true), dft(x, n, -1)) < 1e-12, `launch with seed ${seed}`)
  }
  g.destroy()
  s.destroy()
})

test('the work area comes from the current allocator, and the plan holds it', (t) => {
  const asked: number[] = []
  const plan = usingAllocator(
    (n) => {
      asked.push(n)
      return mallocPlain(n)
    },
    () => new cufft.Plan1d(1000, 'c2c', 4),
  )
  if (!onGpu) t.true(plan.workSize > 0, 'the simulator models a work area')
  if (plan.workSize > 0) {
    t.deepEqual(asked, [plan.workSize])
    t.true(plan.workArea instanceof MemoryPointer)
    t.true(plan.workArea!.size >= plan.workSize)
  } else {
    t.deepEqual(asked, [])
    t.is(plan.workArea, null)
  }
  // Freeing the JS pointer does not take the area from the plan: it still runs.
  plan.workArea?.mem.free()
  const x = signal(2000 * 4, 9)
  const input = upload(x, false)
  const output = alloc(input.size)
  plan.exec(input, output)
  t.true(relError(download(output, 8000, false), dft(x, 1000, -1, 4)) < 1e-4)
  plan.destroy()
})

test('an allocator that throws makes the plan throw its error', (t) => {
  const probe = new cufft.Plan1d(1000, 'c2c', 4)
  const need = probe.workSize
  probe.destroy()
  if (need === 0) {
    t.pass('cuFFT needs no work area for this plan: nothing is allocated')
    return
  }
  const e = t.throws(() =>
    usingAllocator(
      () => {
        throw new Error('no memory here')
      },
      () => new cufft.Plan1d(1000, 'c2c', 4),
    ),
  )
  t.is(e?.message, 'no memory here')
})

test('plans the GC collects give their work areas back to the pool', (t) => {
  const r = runNode(
    `const pool = cuda.getDefaultMemoryPool();
     const before = pool.usedBytes();
     let need = 0;
     (() => { for (let i = 0; i < 50; i++) need = new cuda.cufft.Plan1d(1000, 'c2c', 4).workSize })();
     const held = pool.usedBytes() - before;
     (async () => {
       for (let i = 0; i < 6; i++) { global.gc(); await new Promise((r) => setTimeout(r, 10)) }
       console.log(JSON.stringify({ need, held, after: pool.usedBytes() - before }))
     })().catch((e) => { console.error(e); process.exit(1) })`,
    {},
    ['--expose-gc'],
  )
  t.is(r.status, 0, r.stderr)
  const { need, held, after } = JSON.parse(r.stdout.trim().split('\n').pop()!)
  if (need > 0) t.true(held >= 50 * need, `50 plans hold ${held} bytes of work area`)
  t.is(after, 0, 'every work area went back')
})

test('destroy() and using: a destroyed plan is a typed error; destroying again is nothing', (t) => {
  const p = alloc(64)
  const plan = new cufft.Plan1d(4, 'z2z')
  plan.destroy()
  plan.destroy()
  code(t, () => plan.exec(p, p), 'CUDA_ERROR_INVALID_HANDLE')
  let kept: FftPlan | undefined
  {
    using inner = new cufft.Plan1d(4, 'z2z')
    kept = inner
  }
  code(t, () => kept!.exec(p, p), 'CUDA_ERROR_INVALID_HANDLE')
})

test('bad plans: size 0, batch 0, rank 4, unknown type, wrong kinds', (t) => {
  code(t, () => new cufft.Plan1d(0, 'c2c'), 'CUFFT_INVALID_SIZE')
  code(t, () => new cufft.Plan1d(8, 'c2c', 0), 'CUFFT_INVALID_SIZE')
  code(t, () => new FftPlan({ shape: [2, 2, 2, 2], type: 'c2c' }), 'CUFFT_INVALID_SIZE')
  code(t, () => new FftPlan({ shape: [], type: 'c2c' }), 'CUFFT_INVALID_SIZE')
  code(t, () => new cufft.Plan1d(8, 'r2r' as any), 'CUFFT_INVALID_TYPE')
  t.throws(() => new cufft.Plan1d(-1, 'c2c'), { instanceOf: RangeError })
  t.throws(() => new FftPlan({ shape: 8, type: 'c2c', bogus: 1 } as any), { instanceOf: TypeError })
  t.throws(() => new FftPlan({ shape: 'eight', type: 'c2c' } as any), { instanceOf: TypeError })
  t.throws(() => new FftPlan({ shape: [8], type: 'c2c', input: { embed: [8] } }), { instanceOf: TypeError }, 'one layout without the other')
  t.throws(() => new FftPlan({ shape: [4, 8], type: 'c2c', input: { embed: [4, 4] }, output: { embed: [4, 8] } }), { instanceOf: RangeError }, 'an embed smaller than its axis')
})

test('bad runs: memory too small, misaligned, overlapping, freed, the wrong direction', (t) => {
  const n = 16
  using plan = new cufft.Plan1d(n, 'c2c', 2)
  const big = alloc(n * 2 * 8) // 2 batches of n complex64
  // 8 bytes short of what the plan needs: the last bytes of an allocation (pools round sizes up).
  const whole = alloc(4096)
  const small = new MemoryPointer(whole.mem, whole.mem.size - (n * 2 * 8 - 8))
  t.throws(() => plan.exec(small, big), { instanceOf: RangeError, message: /input .*runs past the end/ })
  t.throws(() => plan.exec(big, small), { instanceOf: RangeError, message: /output .*runs past the end/ })
  const roomy = alloc(2 * n * 2 * 8)
  code(t, () => plan.exec(new MemoryPointer(roomy.mem, 4), big), 'CUFFT_UNALIGNED_DATA')
  t.throws(() => plan.exec(roomy, new MemoryPointer(roomy.mem, 8)), { instanceOf: RangeError, message: /overlap/ })
  const freed = alloc(n * 2 * 8)
  freed.mem.free()
  code(t, () => plan.exec(freed, big), 'CUDA_ERROR_INVALID_VALUE')
  using r2c = new cufft.Plan1d(n, 'r2c')
  t.throws(() => r2c.exec(big, roomy, { direction: 'inverse' }), { instanceOf: RangeError, message: /forward only/ })
  t.throws(() => plan.exec(big, roomy, { direction: 'sideways' as any }), { instanceOf: TypeError })
  t.throws(() => plan.exec(big as any, 'out' as any), { instanceOf: TypeError })
})

test('memory and streams of another device are refused', (t) => {
  const r = runJson(
    `const p = new cuda.cufft.Plan1d(8, 'z2z')
     const mem1 = new cuda.Device(1).run(() => cuda.alloc(256))
     const mem0 = cuda.alloc(256)
     const s1 = new cuda.Device(1).run(() => new cuda.Stream())
     const codes = []
     for (const f of [() => p.exec(mem1, mem0), () => p.exec(mem0, mem1), () => p.exec(mem0, mem0, { stream: s1 })]) {
       try { f(); codes.push('none') } catch (e) { codes.push(e.code) }
     }
     console.log(JSON.stringify(codes))`,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.deepEqual(r, ['CUDA_ERROR_INVALID_VALUE', 'CUDA_ERROR_INVALID_VALUE', 'CUDA_ERROR_INVALID_VALUE'])
})

const agreeScript = `
  function signal(n, seed) { let s = seed >>> 0; const out = new Float64Array(n); for (let i = 0; i < n; i++) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; out[i] = s / 2 ** 32 - 0.5 } return out }
  const results = {}
  for (const [type, shape, batch, inLen, outLen, double] of [
    ['c2c', [4096], 3, 2 * 4096 * 3, 2 * 4096 * 3, false],
    ['z2z', [30, 40], 2, 2 * 1200 * 2, 2 * 1200 * 2, true],
    ['r2c', [1000], 2, 1000 * 2, 2 * 501 * 2, false],
    ['d2z', [8, 9, 10], 1, 720, 2 * 8 * 9 * 6, true],
    ['z2d', [64], 4, 2 * 33 * 4, 64 * 4, true],
  ]) {
    const T = double ? Float64Array : Float32Array
    const x = T.from(signal(inLen, inLen))
    if (type === 'z2d') {
      // A half spectrum of a real signal: its first and last points (DC and Nyquist) are real.
      for (let b = 0; b < batch; b++) { x[2 * (b * 33) + 1] = 0; x[2 * (b * 33 + 32) + 1] = 0 }
    }
    const input = cuda.alloc(x.byteLength); input.copyFromHost(x)
    const output = cuda.alloc(outLen * T.BYTES_PER_ELEMENT)
    const plan = new cuda.FftPlan({ shape, type, batch })
    plan.exec(input, output)
    const got = new T(outLen); output.copyToHost(got)
    results[type] = Array.from(got)
    plan.destroy()
  }
  console.log(JSON.stringify(results))`

gpuTest('the GPU and the simulator agree on the same inputs, every type', (t) => {
  const gpu = runJson(agreeScript)
  const sim = runJson(agreeScript, { CUDA_NODE_BACKEND: 'sim' })
  for (const type of Object.keys(sim)) {
    const err = relError(gpu[type], sim[type])
    t.true(err < (type === 'c2c' || type === 'r2c' ? 1e-5 : 1e-12), `${type}: relative difference ${err}`)
    t.log(`${type}: relative difference ${err.toExponential(2)}`)
  }
})

gpuTest('a 2^24-point c2c plan runs on the GPU with its work area from the pool', (t) => {
  const n = 2 ** 24
  const plan = new cufft.Plan1d(n, 'c2c')
  t.log(`work area: ${plan.workSize} bytes (${backend().name})`)
  const p = alloc(n * 8)
  p.memset(0, p.size)
  plan.exec(p, p)
  const head = new Float32Array(4)
  p.copyToHost(head)
  t.deepEqual(Array.from(head), [0, 0, 0, 0])
  plan.destroy()
})
