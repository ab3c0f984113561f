import test from 'ava'
import { alloc, allocPinned, AsyncMemoryPool, CudaError, Device, Event, graphCallbacks, Graph, kernels, mallocPlain, MemoryPointer, Stream } from '..'
import { onGpu, runNode, root } from './helpers'

const N = 4096

/** 100 kernels and copies over `buf`: fills of several widths at varied offsets, then copies. */
function work(buf: MemoryPointer, scratch: MemoryPointer, s?: Stream): void {
  for (let i = 0; i < 100; i++) {
    if (i % 4 === 3) buf.copyFromDeviceAsync(scratch, 256, s)
    else if (i % 4 === 2) kernels.fill(scratch, i, 64, 'int32', s)
    else kernels.fill(buf.offset((i * 40) % (N - 256)), i * 1.5, 64, i % 2 ? 'float32' : 'uint16', s)
  }
}

function bytesOf(p: MemoryPointer, n = N): Buffer {
  const out = Buffer.alloc(n)
  p.copyToHost(out, n)
  return out
}

test('100 captured kernels launched as a graph give the same result as eager', (t) => {
  const s = new Stream({ nonBlocking: true })
  const [eager, eagerScratch, graphed, graphScratch] = [alloc(N), alloc(1024), alloc(N), alloc(1024)]
  for (const p of [eager, graphed]) p.memset(0, N)
  for (const p of [eagerScratch, graphScratch]) p.memset(0, 1024)
  work(eager, eagerScratch, s)
  s.synchronize()
  const g = s.capture(() => work(graphed, graphScratch))
  t.true(bytesOf(graphed).every((b) => b === 0), 'capturing ran nothing')
  g.launch(s)
  s.synchronize()
  t.true(bytesOf(graphed).equals(bytesOf(eager)))
  t.true(bytesOf(graphed).some((b) => b !== 0))
})

test('a graph launched on two different streams works', (t) => {
  const [s1, s2, s3] = [new Stream({ nonBlocking: true }), new Stream({ nonBlocking: true }), new Stream({ nonBlocking: true })]
  const p = alloc(1024)
  p.memset(0, 1024)
  const g = s1.capture(() => kernels.fill(p, 2.5, 256))
  g.launch(s2)
  s2.synchronize()
  t.is(new Float32Array(bytesOf(p, 1024).buffer)[255], 2.5)
  p.memset(0, 1024)
  g.launch(s3)
  s3.synchronize()
  t.is(new Float32Array(bytesOf(p, 1024).buffer)[0], 2.5)
})

// Serial: graphCallbacks() counts every graph's callbacks, and the async fork test below holds one
// across its awaits (on WebAssembly, where synchronizeAsync polls, the two interleaved).
test.serial('a captured host callback fires once per launch, and lives as long as the graph', async (t) => {
  const s = new Stream({ nonBlocking: true })
  const seen: string[] = []
  const before = graphCallbacks()
  const g = s.capture(() => {
    kernels.sleep(1e6)
    s.launchHostFunc((x: string) => seen.push(x), 'ran')
  })
  t.deepEqual(seen, [], 'capturing runs nothing')
  t.is(graphCallbacks(), before + 1)
  for (let i = 0; i < 3; i++) g.launch(s)
  await s.synchronizeAsync()
  // Each callback reaches this thread through the event loop: wait for them, a bounded while.
  for (let k = 0; k < 500 && seen.length < 3; k++) await new Promise((r) => setTimeout(r, 10))
  t.deepEqual(seen, ['ran', 'ran', 'ran'])
  g.destroy()
  t.is(graphCallbacks(), before)
})

test('a capture whose fn throws leaves the stream usable, and rethrows', (t) => {
  const s = new Stream({ nonBlocking: true })
  const p = alloc(64)
  t.throws(
    () =>
      s.capture(() => {
        kernels.fill(p, 1, 16)
        throw new Error('inside the capture')
      }),
    { message: 'inside the capture' },
  )
  t.false(s.isCapturing())
  kernels.fill(p, 7, 16, 'float32', s)
  s.synchronize()
  t.is(new Float32Array(bytesOf(p, 64).buffer)[0], 7)
})

test('a capture whose async fn rejects leaves the stream usable', async (t) => {
  const s = new Stream({ nonBlocking: true })
  await t.throwsAsync(
    s.capture(async () => {
      await null
      throw new Error('rejected')
    }),
    { message: 'rejected' },
  )
  t.false(s.isCapturing())
  const g = await s.capture(async () => {
    await null
    kernels.sleep(1000)
  })
  t.true(g instanceof Graph)
})

test('update changes a captured fill value, and the next launch shows it', (t) => {
  const s = new Stream({ nonBlocking: true })
  const p = alloc(1024)
  const g = s.capture(() => kernels.fill(p, 1, 256))
  const g2 = s.capture(() => kernels.fill(p, 9, 256))
  g.launch(s)
  s.synchronize()
  t.is(new Float32Array(bytesOf(p, 1024).buffer)[100], 1)
  g.update(g2)
  g.launch(s)
  s.synchronize()
  t.is(new Float32Array(bytesOf(p, 1024).buffer)[100], 9)
})

test('update from a different topology is CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE', (t) => {
  const s = new Stream({ nonBlocking: true })
  const p = alloc(1024)
  const one = s.capture(() => kernels.fill(p, 1, 256))
  const two = s.capture(() => {
    kernels.fill(p, 1, 256)
    kernels.fill(p, 2, 256)
  })
  const e = t.throws(() => one.update(two), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE')
  one.launch(s)
  s.synchronize()
  t.pass()
})

test('toDot describes the captured nodes', (t) => {
  const s = new Stream({ nonBlocking: true })
  const p = alloc(1024)
  const g = s.capture(() => {
    kernels.fill(p, 1, 256)
    p.memsetAsync(0, 64)
  })
  const dot = g.toDot()
  t.regex(dot, /^digraph/)
  t.regex(dot, /MEMSET/i)
  t.regex(dot, /->/)
})

test('upload prepares a graph, and a destroyed graph throws', (t) => {
  const s = new Stream({ nonBlocking: true })
  const g = s.capture(() => kernels.sleep(1000))
  g.upload(s)
  g.launch(s)
  s.synchronize()
  g.destroy()
  const e = t.throws(() => g.launch(s), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_INVALID_HANDLE')
})

test('capturing the legacy stream is a typed error', (t) => {
  const e = t.throws(() => Stream.null.beginCapture(), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED')
  t.regex(e!.message, /Stream\.null/)
})

test('beginning twice is CUDA_ERROR_ILLEGAL_STATE, as is ending a stream that is not capturing', (t) => {
  const s = new Stream()
  t.is(t.throws(() => s.endCapture(), { instanceOf: CudaError })!.code, 'CUDA_ERROR_ILLEGAL_STATE')
  s.beginCapture()
  t.is(t.throws(() => s.beginCapture(), { instanceOf: CudaError })!.code, 'CUDA_ERROR_ILLEGAL_STATE')
  t.true(s.isCapturing())
  s.endCapture()
  t.false(s.isCapturing())
  t.throws(() => s.beginCapture('eager' as any), { instanceOf: RangeError })
  t.throws(() => s.capture(42 as any), { instanceOf: TypeError })
})

test("inside a capture the library's blocking calls throw, naming the call, and the capture survives", (t) => {
  const s = new Stream({ nonBlocking: true })
  const p = alloc(1024)
  const e0 = new Event()
  const g = s.capture(() => {
    kernels.fill(p, 3, 256)
    const e = new Event().record()
    for (const [call, f, code] of [
      ['synchronize', () => s.synchronize(), 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED'],
      ['done', () => s.done, 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED'],
      ['copyFromHost()', () => p.copyFromHost(new Uint8Array(16)), 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED'],
      ['copyToHost()', () => p.copyToHost(new Uint8Array(16)), 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED'],
      ['synchronize', () => e.synchronize(), 'CUDA_ERROR_CAPTURED_EVENT'],
      ['Device.synchronize', () => new Device().synchronize(), 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED'],
      ['addCallback', () => s.addCallback(() => {}), 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED'],
    ] as const) {
      const err = t.throws(f as () => unknown, { instanceOf: CudaError }, call)
      t.is(err!.code, code, call)
      t.true(err!.message.includes(call), `${call}: ${err!.message}`)
      t.regex(err!.stack!, /graph\.spec/, 'the JS stack points at the caller')
    }
    t.true(s.isCapturing())
    e0.synchronize() // an event recorded outside any capture is fine
  })
  g.launch(s)
  s.synchronize()
  t.is(new Float32Array(bytesOf(p, 1024).buffer)[0], 3)
})

test('the legacy stream cannot be used while a blocking stream captures', (t) => {
  const s = new Stream() // blocking
  const p = alloc(64)
  s.beginCapture()
  const e = t.throws(() => kernels.fill(p, 1, 4, 'float32', Stream.null), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_STREAM_CAPTURE_IMPLICIT')
  s.endCapture().destroy()
  kernels.fill(p, 1, 4, 'float32', Stream.null)
  Stream.null.synchronize()
  t.pass()
})

test('pinned copies and AsyncMemoryPool allocations work inside a capture', (t) => {
  const s = new Stream({ nonBlocking: true })
  const pool = new AsyncMemoryPool()
  const out = alloc(1024)
  const pinned = allocPinned(1024)
  pinned.set(new Float32Array(256).fill(4))
  const g = s.capture(() => {
    const tmp = pool.malloc(1024)
    tmp.copyFromHostAsync(pinned)
    kernels.fill(tmp, 5, 128)
    out.copyFromDeviceAsync(tmp, 1024)
    tmp.free()
  })
  for (let i = 0; i < 2; i++) {
    out.memset(0, 1024)
    g.launch(s)
    s.synchronize()
    const f = new Float32Array(bytesOf(out, 1024).buffer)
    t.is(f[0], 5)
    t.is(f[200], 4)
  }
})

test("cudaMalloc in a 'global' capture invalidates it; ending says so and frees the stream", (t) => {
  const s = new Stream({ nonBlocking: true })
  s.beginCapture('global')
  const e = t.throws(() => mallocPlain(1024), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED')
  const end = t.throws(() => s.endCapture(), { instanceOf: CudaError })
  t.is(end!.code, 'CUDA_ERROR_STREAM_CAPTURE_INVALIDATED')
  t.false(s.isCapturing())
  kernels.sleep(1000, s)
  s.synchronize()
})

test('a GC during a capture never breaks it: frees wait for the capture to end', (t) => {
  const r = runNode(
    `const { native } = require(${JSON.stringify(root + '/lib/native.js')});
     (async () => {
       const { Stream, mallocPlain, kernels, Device } = cuda;
       const s = new Stream({ nonBlocking: true });
       const keep = mallocPlain(1024);
       const live0 = native.memLive();
       for (let i = 0; i < 200; i++) mallocPlain(4096);
       await new Promise((r) => setImmediate(r));
       s.beginCapture('global');
       kernels.fill(keep, 1, 16, 'float32', s);
       for (let i = 0; i < 4; i++) { global.gc(); await new Promise((r) => setTimeout(r, 5)); }
       const status = s.isCapturing();
       const g = s.endCapture();
       g.launch(s); s.synchronize();
       console.log(JSON.stringify({ status, collected: native.memLive() === live0 }));
     })().catch((e) => { console.error(e); process.exit(1) });`,
    {},
    ['--expose-gc'],
  )
  t.is(r.status, 0, r.stderr)
  t.deepEqual(JSON.parse(r.stdout), { status: true, collected: true })
})

test('launches made before an update still run their callbacks, and the process is not kept alive after', (t) => {
  const r = runNode(`
    const { Stream, kernels } = cuda;
    const s = new Stream({ nonBlocking: true });
    let old = 0, fresh = 0;
    const g = s.capture(() => { kernels.sleep(20e6); s.launchHostFunc(() => old++) });
    g.launch(s); g.launch(s);
    g.update(s.capture(() => { kernels.sleep(20e6); s.launchHostFunc(() => fresh++) }));
    g.launch(s);
    process.on('exit', () => console.log(JSON.stringify({ old, fresh, pending: cuda.pendingCallbacks(), held: cuda.graphCallbacks() })));
  `)
  t.is(r.status, 0, r.stderr)
  t.true(r.ms < 15_000, `took ${r.ms} ms`)
  const out = JSON.parse(r.stdout.trim())
  t.is(out.old, 2)
  t.is(out.fresh, 1)
  t.is(out.pending, 0)
})

test('Stream.null.isCapturing() throws while a blocking stream captures, as any use of the legacy stream does (#19.9)', (t) => {
  for (const mode of ['global', 'threadLocal', 'relaxed'] as const) {
    const s = new Stream() // blocking
    s.beginCapture(mode)
    const e = t.throws(() => Stream.null.isCapturing(), { instanceOf: CudaError }, mode)
    t.is(e?.code, 'CUDA_ERROR_STREAM_CAPTURE_IMPLICIT')
    t.regex(e!.message, /isCapturing\(\)/)
    t.true(s.isCapturing(), 'the capture survives')
    s.endCapture().destroy()
    t.false(Stream.null.isCapturing())
  }
  const nb = new Stream({ nonBlocking: true })
  nb.beginCapture('global')
  t.false(Stream.null.isCapturing(), 'a non-blocking stream capturing leaves the legacy stream free')
  nb.endCapture().destroy()
})

test('a launch keeps its host callbacks after the graph and stream are destroyed while it is queued (#20)', (t) => {
  // On the GPU this was a SIGSEGV every time: the host node called into the destroyed graph's slot.
  const r = runNode(`
    const { Stream, kernels } = cuda;
    const s = new Stream({ nonBlocking: true });
    let ran = 0;
    const g = s.capture(() => s.launchHostFunc(() => ran++));
    kernels.sleep(5e6, s); g.launch(s); g.destroy(); s.destroy();
    global.gc();
    setTimeout(() => console.log(JSON.stringify({ ran, pending: cuda.pendingCallbacks(), held: cuda.graphCallbacks() })), 100);
  `, {}, ['--expose-gc'])
  t.is(r.signal, null, r.stderr)
  t.is(r.status, 0, r.stderr)
  t.deepEqual(JSON.parse(r.stdout.trim()), { ran: 1, pending: 0, held: 0 })
})

test('a capture forked to other streams keeps what they captured: pinned copies and host functions on the joined streams (fork and join by events)', async (t) => {
  const [origin, side] = [new Stream({ nonBlocking: true }), new Stream({ nonBlocking: true })]
  const d = alloc(4096)
  let calls = 0
  const graph = (() => {
    const input = allocPinned(4096)
    input.set(new Float32Array(1024).fill(5)) // set(), not .buffer: the WebAssembly build has no view of pinned memory
    return origin.capture(() => {
      side.waitEvent(new Event({ disableTiming: true }).record(origin))
      d.copyFromHostAsync(input, 4096, side) // the pinned memory is dropped by this scope: the graph keeps it
      side.launchHostFunc(() => calls++)
      origin.waitEvent(new Event({ disableTiming: true }).record(side))
    })
  })()
  for (let i = 0; i < 3; i++) graph.launch(origin)
  await origin.synchronizeAsync()
  for (let k = 0; k < 100 && calls < 3; k++) await new Promise((r) => setTimeout(r, 5))
  t.is(calls, 3, 'the side stream\'s host function runs at every launch')
  const out = new Float32Array(1024)
  d.copyToHost(out)
  t.true(out.every((v) => v === 5))
  graph.destroy()
})

test('a stream that a pool keeps alive (its blocks were used on it), destroyed or collected inside its capture, still ends the capture (#20: the GPU fuzzer found the device left capturing)', (t) => {
  const r = runNode(`
    (async () => {
    const out = [];
    for (const letGo of ['destroy', 'gc']) {
      let s = new cuda.Stream();
      s.run(() => cuda.alloc(1024)).free(); // the default pool's arena for s now holds the stream
      s.beginCapture();
      if (letGo === 'destroy') s.destroy();
      s = null;
      // Node runs finalizers after the collection, from the event loop.
      if (letGo === 'gc') for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((r) => setImmediate(r)) }
      try { cuda.Stream.null.synchronize(); cuda.Device.current().synchronize(); out.push('ended') } catch (e) { out.push(e.code) }
    }
    console.log(JSON.stringify(out));
    })()`, {}, ['--expose-gc'])
  t.is(r.status, 0, r.stderr)
  t.deepEqual(JSON.parse(r.stdout.trim()), ['ended', 'ended'])
})

test('a stream destroyed inside its async capture ends the capture: the legacy stream, synchronize and frees work again (#20)', (t) => {
  // In a child: the bug left the device "capturing" for the rest of the process.
  const r = runNode(`
    (async () => {
      const s = new cuda.Stream();
      const captured = s.capture(async () => { await new Promise((r) => setTimeout(r, 10)) });
      s.destroy();
      const why = await captured.then(() => 'resolved', (e) => e.code);
      const out = { why };
      try { cuda.Stream.null.synchronize(); cuda.Device.current().synchronize(); out.legacy = 'ok' } catch (e) { out.legacy = e.code }
      const before = cuda.Device.current().memInfo().free;
      for (let i = 0; i < 4; i++) cuda.mallocPlain(1 << 20).free();
      out.kept = before - cuda.Device.current().memInfo().free;
      console.log(JSON.stringify(out));
    })()`)
  t.is(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout.trim())
  t.is(out.why, 'CUDA_ERROR_INVALID_HANDLE', 'the capture of a destroyed stream rejects')
  t.is(out.legacy, 'ok')
  // Frees happen at once again. Only the simulator's memInfo is this process's own: on the GPU
  // other test processes move the device's free memory meanwhile (there the synchronize above,
  // refused while a capture is counted, says the same).
  if (!onGpu) t.true(out.kept < 4 << 20, `${out.kept} bytes were kept back`)
})
