// GPU fuzz finding #20: a HANG at FUZZ_REPLAY=raw:87:141 ("one case ran for more than 20000 ms"),
// from a run on 2 × H100 (CUDA_NODE_BACKEND=cuda, FUZZ_SEED=23, FUZZ_SECONDS=30) of the build of
// about commit bcbbb7e. Below: cases 0 to 141 of that batch, in order, as that build's generator
// made them: FUZZ_RAW_SKIP=streamLaunchSimulated (an export that build did not have yet), and the
// raw generator as it was before it left huge sleeps out (fuzz/raw.ts `notLong`, this commit).
//
// Hypothesis (by reading; not run on a GPU here): not a hang of the library but a 69-second wait.
// Case 137 statement 4, `native.streamSleep(hSL, hPPool, () => 1)`, passes a pinned pool's handle
// as nanoseconds: a handle is generation · 2^32 + slot, here 16 · 2^32 = 68,719,476,736 ns, so a
// 69 s sleep kernel is queued on device 0's legacy stream. Cases 138 to 140 free nothing. In case
// 141 the GC (statement 13, collect()) drops that case's pinned pool and its block: cuMemFreeHost
// waits for the device's pending work (cuda/pinned.rs, M2), so the JS thread waits out the sleep,
// past the fuzzer's 20 s case bound. The simulator runs the sleep (a stream thread sleeping) but
// its frees do not wait for the device, so there the batch runs through in a second. Expected on
// the GPU: "HANG ... stuck in case 141 13 collect()" (this script's watchdog is 30 s).
//
// Updated for later exports, so that it still replays this: `eventCreate` takes (device, flags),
// cuEventCreate's bits (`constants.event`: blockingSync 1, disableTiming 2, interprocess 4), no
// longer (owner, device, blocking, disableTiming, interprocess), so each call passes the same
// device and those booleans as bits, and a malformed boolean (an array, an object) as the flags,
// still refused as before; and handles are now slot · 2^21 + generation, small numbers, so case
// 137 statement 4 passes the value hPPool had in that build (HPPOOL_THEN, 16 · 2^32) rather than
// today's handle, which would sleep a few milliseconds and replay nothing.
//
// Fuzz raw batch seed 87, cases 0 to 141: written by
// FUZZ_RAW_SKIP=streamLaunchSimulated FUZZ_SCRIPT=fuzz/repro/raw-87-141.js FUZZ_PRINT=raw:87:..141 npm run fuzz
// Run from the repository root: node --expose-gc fuzz/repro/raw-87-141.js
/* eslint-disable */
'use strict'
const { repro } = require("./harness.js")

/** Case 137's hPPool as that build numbered it (generation 16, slot 0): 68,719,476,736 ns, a 69 s sleep. */
const HPPOOL_THEN = 16 * 2 ** 32

repro(__filename, "Fuzz raw batch seed 87, cases 0 to 141: written by\nFUZZ_RAW_SKIP=streamLaunchSimulated FUZZ_SCRIPT=fuzz/repro/raw-87-141.js FUZZ_PRINT=raw:87:..141 npm run fuzz\nRun from the repository root: node --expose-gc fuzz/repro/raw-87-141.js", [
  [0, [
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); await tick()
  }],
  [1, [
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "collect()",
    "t(() => native.streamInfo(hSL))",
    "t(() => native.asyncPoolStats(15))",
    "t(() => native.asyncPoolSetLimit(2, 2**53 - 1))",
    "t(() => native.streamSynchronizeAsync(7, hM))",
    "t(() => native.simSetScheduler())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(1); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(2); collect()
    at(3); t(() => native.streamInfo(hSL))
    at(4); t(() => native.asyncPoolStats(15))
    at(5); t(() => native.asyncPoolSetLimit(2, 2**53 - 1))
    at(6); t(() => native.streamSynchronizeAsync(7, hM))
    at(7); t(() => native.simSetScheduler())
  }],
  [2, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "t(() => native.poolCreate(-1n, 3n, { a: () => {}, ldc: 63957 }))",
    "t(() => native.graphDestroy(-1))",
    "t(() => native.poolStats(2**31))",
    "t(() => native.asyncPoolUsedBytes({  }, hS))",
    "t(() => native.pointerGetAttributes())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); t(() => native.poolCreate(-1n, 3n, { a: () => {}, ldc: 63957 }))
    at(2); t(() => native.graphDestroy(-1))
    at(3); t(() => native.poolStats(2**31))
    at(4); t(() => native.asyncPoolUsedBytes({  }, hS))
    at(5); t(() => native.pointerGetAttributes())
  }],
  [3, [
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.eventInfo(64))",
    "t(() => native.asyncPoolTotalBytes(2**32 - 1, 255))",
    "t(() => native.kernelCheckShape(-Infinity))",
    "t(() => native.streamCreate(hPin, false, 4096))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(1); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(2); t(() => native.eventInfo(64))
    at(3); t(() => native.asyncPoolTotalBytes(2**32 - 1, 255))
    at(4); t(() => native.kernelCheckShape(-Infinity))
    at(5); t(() => native.streamCreate(hPin, false, 4096))
  }],
  [4, [
    "t(() => native.deviceProps())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.deviceProps())
  }],
  [5, [
    "t(() => native.moduleLoad(hostile(), -1e308, new Uint32Array(3)))",
    "collect()",
    "t(() => native.kernelCheckShape(2**32 + 0.5, []))",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.moduleLoad(hostile(), -1e308, new Uint32Array(3)))
    at(1); collect()
    at(2); t(() => native.kernelCheckShape(2**32 + 0.5, []))
    at(3); collect()
  }],
  [6, [
    "t(() => native.kernelMaxActiveClusters(255, []))",
    "await tick()",
    "t(() => native.streamBeginCapture(7))",
    "t(() => native.poolStats())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.kernelMaxActiveClusters(255, []))
    at(1); await tick()
    at(2); t(() => native.streamBeginCapture(7))
    at(3); t(() => native.poolStats())
  }],
  [7, [
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "await tick()",
    "t(() => native.ncclGroupStart(new Date(0)))",
    "t(() => native.streamSleep(new Uint8Array(4096), hSL))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(1); await tick()
    at(2); t(() => native.ncclGroupStart(new Date(0)))
    at(3); t(() => native.streamSleep(new Uint8Array(4096), hSL))
  }],
  [8, [
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.memFill(0.5, 512, 1, 4294967296.5, 3n, -Infinity, hPPool))",
    "t(() => native.asyncPoolStats(2))",
    "t(() => native.asyncPoolCreate([], 1))",
    "t(() => native.nvtxAttached())",
    "await tick()",
    "t(() => native.simSetScheduler(() => t(() => native.blasAxpy(Infinity, async () => { await tick() }, new Float32Array(3), 0, detached())), [new ArrayBuffer(0), -(2n**63n)]))",
    "t(() => native.pinnedUnregister())",
    "t(() => native.memCopyDtohPinned(Number.EPSILON, 4294967296.5, 4294967296.5, 0.5, -0, -0))",
    "t(() => native.streamEndCapture(0.5, -Infinity))",
    "t(() => native.memCopy2DDtod(-(2**31), 2**32, hE, Number.EPSILON, 4096, 2**31 - 1, 2**32 + 0.5, 16))",
    "t(() => native.nvrtcCompile('sm_90', 'float16', hostile(), [], hPin, [], ['x'.repeat(100000), -(2n**63n), 255]))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(1); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(2); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(3); t(() => native.memFill(0.5, 512, 1, 4294967296.5, 3n, -Infinity, hPPool))
    at(4); t(() => native.asyncPoolStats(2))
    at(5); t(() => native.asyncPoolCreate([], 1))
    at(6); t(() => native.nvtxAttached())
    at(7); await tick()
    at(8); t(() => native.simSetScheduler(() => t(() => native.blasAxpy(Infinity, async () => { await tick() }, new Float32Array(3), 0, detached())), [new ArrayBuffer(0), -(2n**63n)]))
    at(9); t(() => native.pinnedUnregister())
    at(10); t(() => native.memCopyDtohPinned(Number.EPSILON, 4294967296.5, 4294967296.5, 0.5, -0, -0))
    at(11); t(() => native.streamEndCapture(0.5, -Infinity))
    at(12); t(() => native.memCopy2DDtod(-(2**31), 2**32, hE, Number.EPSILON, 4096, 2**31 - 1, 2**32 + 0.5, 16))
    at(13); t(() => native.nvrtcCompile('sm_90', 'float16', hostile(), [], hPin, [], ['x'.repeat(100000), -(2n**63n), 255]))
  }],
  [9, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "await tick()",
    "t(() => native.deviceSynchronizeAsync())",
    "t(() => native.poolFreeAllBlocks(2**64, hS))",
    "t(() => native.asyncPoolCreate(hostile()))",
    "t(() => native.eventIpcHandle())",
    "t(() => native.memCopyDtohPinned(4096, 2**32 - 1, hAPool, 0x10000n, 4096, new Uint8Array(detached()), 255))",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(2); await tick()
    at(3); t(() => native.deviceSynchronizeAsync())
    at(4); t(() => native.poolFreeAllBlocks(2**64, hS))
    at(5); t(() => native.asyncPoolCreate(hostile()))
    at(6); t(() => native.eventIpcHandle())
    at(7); t(() => native.memCopyDtohPinned(4096, 2**32 - 1, hAPool, 0x10000n, 4096, new Uint8Array(detached()), 255))
    at(8); await tick()
  }],
  [10, [
    "t(() => native.memCopyHtodPinned(4096, 2**53, new DataView(new ArrayBuffer(8)), -Infinity, 1, 2**31 - 1))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.memCopyHtodPinned(4096, 2**53, new DataView(new ArrayBuffer(8)), -Infinity, 1, 2**31 - 1))
  }],
  [11, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.kernelSimulatedMaxActiveBlocks(-1, 2**31 - 1, 4294967296.5))",
    "t(() => native.deviceCanAccessPeer([hED], 512, { options: { then(r) { r(1) } } }))",
    "t(() => native.nvtxRangeEnd())",
    "t(() => native.streamPriorityRange(8, hS))",
    "t(() => native.memFromExternal(2n**64n, 1, 256, 'x'.repeat(100000), -0))",
    "t(() => native.streamSynchronize(-1))",
    "t(() => native.graphUpload([-(2**31), 0, () => 1, new Uint8Array(new SharedArrayBuffer(32))]))",
    "t(() => native.kernelSimulatedSuggestedBlockSize({ ldc: Object.create(cuda.MemoryPointer.prototype), path: hE, jitify: '__proto__' }, 0, { order: hAPool, k: hM1, path: new Date(0), simulate: '1' }, '\\ud800'))",
    "collect()",
    "t(() => native.memDesc(1, 0x10000n))",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(2); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(3); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(4); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(5); t(() => native.kernelSimulatedMaxActiveBlocks(-1, 2**31 - 1, 4294967296.5))
    at(6); t(() => native.deviceCanAccessPeer([hED], 512, { options: { then(r) { r(1) } } }))
    at(7); t(() => native.nvtxRangeEnd())
    at(8); t(() => native.streamPriorityRange(8, hS))
    at(9); t(() => native.memFromExternal(2n**64n, 1, 256, 'x'.repeat(100000), -0))
    at(10); t(() => native.streamSynchronize(-1))
    at(11); t(() => native.graphUpload([-(2**31), 0, () => 1, new Uint8Array(new SharedArrayBuffer(32))]))
    at(12); t(() => native.kernelSimulatedSuggestedBlockSize({ ldc: Object.create(cuda.MemoryPointer.prototype), path: hE, jitify: '__proto__' }, 0, { order: hAPool, k: hM1, path: new Date(0), simulate: '1' }, '\ud800'))
    at(13); collect()
    at(14); t(() => native.memDesc(1, 0x10000n))
    at(15); await tick()
  }],
  [12, [
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.memDesc(-1))",
    "collect()",
    "t(() => native.kernelLaunch(2**31 - 1, 0, ['-O3']))",
    "t(() => native.profilerSet())",
    "collect()",
    "t(() => native.memCopyHtodPinned(2**31, 2**64, 2**53, hM, hAPool, 1e308, new ArrayBuffer(64)))",
    "collect()",
    "t(() => native.streamAddCallback(hSL, 512, {  }))",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(1); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(2); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(3); t(() => native.memDesc(-1))
    at(4); collect()
    at(5); t(() => native.kernelLaunch(2**31 - 1, 0, ['-O3']))
    at(6); t(() => native.profilerSet())
    at(7); collect()
    at(8); t(() => native.memCopyHtodPinned(2**31, 2**64, 2**53, hM, hAPool, 1e308, new ArrayBuffer(64)))
    at(9); collect()
    at(10); t(() => native.streamAddCallback(hSL, 512, {  }))
    at(11); collect()
  }],
  [13, [
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "t(() => native.ncclGroupEnd(hSD))",
    "t(() => native.ncclGroupStart(hPool))",
    "t(() => native.graphUpdate(hED, 8))",
    "t(() => native.pinnedInfo(1))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(1); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(2); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(3); t(() => native.ncclGroupEnd(hSD))
    at(4); t(() => native.ncclGroupStart(hPool))
    at(5); t(() => native.graphUpdate(hED, 8))
    at(6); t(() => native.pinnedInfo(1))
  }],
  [14, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "t(() => native.memFromIpcHandle(Infinity, new Uint32Array(6), 1, NaN))",
    "t(() => native.memOwn({}, 7, Symbol.iterator))",
    "t(() => native.graphToDot())",
    "t(() => native.graphUpdate(0n))",
    "t(() => native.kernelParamSizes(-(2**53)))",
    "t(() => native.kernelSetMaxDynamicSharedSize(255, { disableTiming: '\\0', lda: () => t(() => native.callbacksPending(hS)) }, 'a'))",
    "t(() => native.blasGemm(4294967296.5, 'x'.repeat(100000), 2**53 - 1, 2**32 - 1, 2**53 - 1, -Infinity, new ArrayBuffer(0)))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); t(() => native.memFromIpcHandle(Infinity, new Uint32Array(6), 1, NaN))
    at(2); t(() => native.memOwn({}, 7, Symbol.iterator))
    at(3); t(() => native.graphToDot())
    at(4); t(() => native.graphUpdate(0n))
    at(5); t(() => native.kernelParamSizes(-(2**53)))
    at(6); t(() => native.kernelSetMaxDynamicSharedSize(255, { disableTiming: '\0', lda: () => t(() => native.callbacksPending(hS)) }, 'a'))
    at(7); t(() => native.blasGemm(4294967296.5, 'x'.repeat(100000), 2**53 - 1, 2**32 - 1, 2**53 - 1, -Infinity, new ArrayBuffer(0)))
  }],
  [15, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "t(() => native.nvrtcCompile('', { nonBlocking: hSL, fileName: 60978, fraction: Object.create(cuda.MemoryPointer.prototype) }, 0n, ['-O3'], 'float64'))",
    "t(() => native.ncclGetUniqueId([1, 2, 3]))",
    "t(() => native.memFromIpcHandle(2**53 - 1, 2**32, 2**64, 2**53 + 2, 2**32 + 0.5))",
    "t(() => native.simPump({ disableTiming: hSD }))",
    "t(() => native.bindingDeclarations())",
    "await tick()",
    "t(() => native.kernelAttributes(7, hS1))",
    "t(() => native.pointerGetAttributes(2n))",
    "t(() => native.streamSynchronizeAsync(2))",
    "t(() => native.eventSynchronize('1', [class {}]))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(2); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(3); t(() => native.nvrtcCompile('', { nonBlocking: hSL, fileName: 60978, fraction: Object.create(cuda.MemoryPointer.prototype) }, 0n, ['-O3'], 'float64'))
    at(4); t(() => native.ncclGetUniqueId([1, 2, 3]))
    at(5); t(() => native.memFromIpcHandle(2**53 - 1, 2**32, 2**64, 2**53 + 2, 2**32 + 0.5))
    at(6); t(() => native.simPump({ disableTiming: hSD }))
    at(7); t(() => native.bindingDeclarations())
    at(8); await tick()
    at(9); t(() => native.kernelAttributes(7, hS1))
    at(10); t(() => native.pointerGetAttributes(2n))
    at(11); t(() => native.streamSynchronizeAsync(2))
    at(12); t(() => native.eventSynchronize('1', [class {}]))
  }],
  [16, [
    "collect()",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); collect()
    at(1); await tick()
  }],
  [17, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "await tick()",
    "collect()",
    "t(() => native.memCopyDtohPinned(hED, 43750, false, 2**53 + 2, 2**64, 2**32 - 1, {  }))",
    "t(() => native.devicePciBusId())",
    "t(() => native.nvtxRangeEnd({ m: 37739, fraction: hE, transA: () => t(() => native.streamSleep(hS)) }, 30297))",
    "t(() => native.deviceCusolverHandle(2**31))",
    "t(() => native.memCopy2DDtod(256, 512, -Infinity, -(2**53), 512, 256, 16955, 2**63, NaN, 59208))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(2); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(3); await tick()
    at(4); collect()
    at(5); t(() => native.memCopyDtohPinned(hED, 43750, false, 2**53 + 2, 2**64, 2**32 - 1, {  }))
    at(6); t(() => native.devicePciBusId())
    at(7); t(() => native.nvtxRangeEnd({ m: 37739, fraction: hE, transA: () => t(() => native.streamSleep(hS)) }, 30297))
    at(8); t(() => native.deviceCusolverHandle(2**31))
    at(9); t(() => native.memCopy2DDtod(256, 512, -Infinity, -(2**53), 512, 256, 16955, 2**63, NaN, 59208))
  }],
  [18, [
    "await tick()",
    "t(() => native.graphToDot())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); await tick()
    at(1); t(() => native.graphToDot())
  }],
  [19, [
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "t(() => native.asyncPoolSetLimit(NaN, 1))",
    "t(() => native.eventElapsedTime(hMF, 2**53 + 2, -1))",
    "t(() => native.nvtxRangePop(new DataView(new ArrayBuffer(8))))",
    "t(() => native.memIpcHandle(255))",
    "t(() => native.streamRecord(2**31 - 1))",
    "t(() => native.streamSynchronize(4096))",
    "t(() => native.pinnedRegister(() => {}))",
    "collect()",
    "t(() => native.graphDestroy(new Uint8Array(detached())))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(1); t(() => native.asyncPoolSetLimit(NaN, 1))
    at(2); t(() => native.eventElapsedTime(hMF, 2**53 + 2, -1))
    at(3); t(() => native.nvtxRangePop(new DataView(new ArrayBuffer(8))))
    at(4); t(() => native.memIpcHandle(255))
    at(5); t(() => native.streamRecord(2**31 - 1))
    at(6); t(() => native.streamSynchronize(4096))
    at(7); t(() => native.pinnedRegister(() => {}))
    at(8); collect()
    at(9); t(() => native.graphDestroy(new Uint8Array(detached())))
  }],
  [20, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "t(() => native.bindingDeclarations('uint64'))",
    "t(() => native.poolStats())",
    "t(() => native.pinnedUnregister(2**32 + 0.5, [true, hPin, new Uint8Array(1 << 22)]))",
    "await tick()",
    "t(() => native.streamInfo())",
    "t(() => native.nvtxMark('\\0', () => t(() => native.nvtxRangeStart('a', 256, -1))))",
    "t(() => native.streamPerThread([], -0.5, Symbol.iterator))",
    "t(() => native.poolMallocFrom(3n, 2**31 - 1, 2**32 - 1, hE))",
    "t(() => native.nvtxRangePush('row', hSD))",
    "t(() => native.streamWaitEvent(7, hG, 'global'))",
    "t(() => native.eventCreate(-0, 1))",
    "t(() => native.simPump())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(2); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(3); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(4); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(5); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(6); t(() => native.bindingDeclarations('uint64'))
    at(7); t(() => native.poolStats())
    at(8); t(() => native.pinnedUnregister(2**32 + 0.5, [true, hPin, new Uint8Array(1 << 22)]))
    at(9); await tick()
    at(10); t(() => native.streamInfo())
    at(11); t(() => native.nvtxMark('\0', () => t(() => native.nvtxRangeStart('a', 256, -1))))
    at(12); t(() => native.streamPerThread([], -0.5, Symbol.iterator))
    at(13); t(() => native.poolMallocFrom(3n, 2**31 - 1, 2**32 - 1, hE))
    at(14); t(() => native.nvtxRangePush('row', hSD))
    at(15); t(() => native.streamWaitEvent(7, hG, 'global'))
    at(16); t(() => native.eventCreate(-0, 1))
    at(17); t(() => native.simPump())
  }],
  [21, [
    "t(() => native.nvtxMark('0x10', -(2**31), 19256))",
    "t(() => native.poolSetLimit(64))",
    "await tick()",
    "collect()",
    "t(() => native.bindingDeclarations(Buffer.alloc(64, 1)))",
    "t(() => native.asyncPoolGetLimit())",
    "await tick()",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.nvtxMark('0x10', -(2**31), 19256))
    at(1); t(() => native.poolSetLimit(64))
    at(2); await tick()
    at(3); collect()
    at(4); t(() => native.bindingDeclarations(Buffer.alloc(64, 1)))
    at(5); t(() => native.asyncPoolGetLimit())
    at(6); await tick()
    at(7); collect()
  }],
  [22, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "t(() => native.graphHostFnCount(0))",
    "t(() => native.ncclCall(hS1, 2**53 + 2, -Infinity, 2**32 - 1, 0.5, 256, { code: new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8), nameExpressions: hSD }, 4096, -1, 7, Number.EPSILON, hS1))",
    "t(() => native.nvtxRangeStart('float32', 21573, 8))",
    "t(() => native.memCopyHtodPinned(new SharedArrayBuffer(64), 64, 2, -0, 256))",
    "t(() => native.streamExternal(hostile(), 256))",
    "await tick()",
    "await tick()",
    "t(() => native.eventInfo(2**53 + 2))",
    "t(() => native.pinnedBuffer(-0))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(2); t(() => native.graphHostFnCount(0))
    at(3); t(() => native.ncclCall(hS1, 2**53 + 2, -Infinity, 2**32 - 1, 0.5, 256, { code: new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8), nameExpressions: hSD }, 4096, -1, 7, Number.EPSILON, hS1))
    at(4); t(() => native.nvtxRangeStart('float32', 21573, 8))
    at(5); t(() => native.memCopyHtodPinned(new SharedArrayBuffer(64), 64, 2, -0, 256))
    at(6); t(() => native.streamExternal(hostile(), 256))
    at(7); await tick()
    at(8); await tick()
    at(9); t(() => native.eventInfo(2**53 + 2))
    at(10); t(() => native.pinnedBuffer(-0))
  }],
  [23, [
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "t(() => native.poolMallocFrom(hPPool, 2n**63n, 2**53, () => { throw mark() }, 35348))",
    "t(() => native.streamQuery())",
    "t(() => native.poolSetLimit(2**53, 2**31))",
    "t(() => native.ncclCommAbort(-(2**31)))",
    "t(() => native.kernelSimulatedMaxActiveBlocks(4096, 512, 16, hAPool))",
    "t(() => native.nvtxRangePop(hostile()))",
    "t(() => native.memFromExternal(2n**64n, 1e308, 2**53 - 1, {}, '\\ud800'))",
    "t(() => native.memCopy2DDtohPinned(1, 2**53 - 1, 64, 4096, -1, 1e308, 2**40, Number.MIN_VALUE))",
    "t(() => native.memDesc(2**63))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(1); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(2); t(() => native.poolMallocFrom(hPPool, 2n**63n, 2**53, () => { throw mark() }, 35348))
    at(3); t(() => native.streamQuery())
    at(4); t(() => native.poolSetLimit(2**53, 2**31))
    at(5); t(() => native.ncclCommAbort(-(2**31)))
    at(6); t(() => native.kernelSimulatedMaxActiveBlocks(4096, 512, 16, hAPool))
    at(7); t(() => native.nvtxRangePop(hostile()))
    at(8); t(() => native.memFromExternal(2n**64n, 1e308, 2**53 - 1, {}, '\ud800'))
    at(9); t(() => native.memCopy2DDtohPinned(1, 2**53 - 1, 64, 4096, -1, 1e308, 2**40, Number.MIN_VALUE))
    at(10); t(() => native.memDesc(2**63))
  }],
  [24, [
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "await tick()",
    "t(() => native.eventFromIpc(hostile(), 4294967296.5, new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8), 2978))",
    "t(() => native.ncclCommAbort(-0.5, { incy: 256, path: new Uint8Array(1 << 22) }))",
    "t(() => native.ncclCall(8, 7, 255, 64, 1e308, 512, [{ then(r) { r(1) } }, '0x10'], -Infinity, false, 512, -(2**53), hPool))",
    "t(() => native.streamExternal(Promise.resolve(1), Number.EPSILON, 0x1000n, hM))",
    "await tick()",
    "t(() => native.graphUpdate(2**53 + 2))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(1); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(2); await tick()
    at(3); t(() => native.eventFromIpc(hostile(), 4294967296.5, new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8), 2978))
    at(4); t(() => native.ncclCommAbort(-0.5, { incy: 256, path: new Uint8Array(1 << 22) }))
    at(5); t(() => native.ncclCall(8, 7, 255, 64, 1e308, 512, [{ then(r) { r(1) } }, '0x10'], -Infinity, false, 512, -(2**53), hPool))
    at(6); t(() => native.streamExternal(Promise.resolve(1), Number.EPSILON, 0x1000n, hM))
    at(7); await tick()
    at(8); t(() => native.graphUpdate(2**53 + 2))
  }],
  [25, [
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "t(() => native.kernelSetAttribute(2**64, 'sm_90', 2**63, 1e308))",
    "t(() => native.graphLaunch(2**53 - 1, 2**53, { block: false, ldb: hSD }))",
    "t(() => native.ncclCommJoinAll(new Int8Array(5), async () => { await tick() }))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(1); t(() => native.kernelSetAttribute(2**64, 'sm_90', 2**63, 1e308))
    at(2); t(() => native.graphLaunch(2**53 - 1, 2**53, { block: false, ldb: hSD }))
    at(3); t(() => native.ncclCommJoinAll(new Int8Array(5), async () => { await tick() }))
  }],
  [26, [
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "t(() => native.deviceByPciBusId('NaN'))",
    "t(() => native.ncclVersion())",
    "t(() => native.deviceEnablePeerAccess(0))",
    "t(() => native.memFromIpcHandle(1, { a: new (class Stream {})() }, 1e308, Number.EPSILON))",
    "t(() => native.memDesc(hM1))",
    "t(() => native.kernelLaunch(2**63, -1, new Float64Array(4), new Uint32Array(3), Symbol.iterator))",
    "collect()",
    "await tick()",
    "t(() => native.eventDestroy(Number.EPSILON, {  }))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(1); t(() => native.deviceByPciBusId('NaN'))
    at(2); t(() => native.ncclVersion())
    at(3); t(() => native.deviceEnablePeerAccess(0))
    at(4); t(() => native.memFromIpcHandle(1, { a: new (class Stream {})() }, 1e308, Number.EPSILON))
    at(5); t(() => native.memDesc(hM1))
    at(6); t(() => native.kernelLaunch(2**63, -1, new Float64Array(4), new Uint32Array(3), Symbol.iterator))
    at(7); collect()
    at(8); await tick()
    at(9); t(() => native.eventDestroy(Number.EPSILON, {  }))
  }],
  [27, [
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "t(() => native.blasGemm(Number.MIN_VALUE, 28698, -(2**31), 1, 0, 16, new WebAssembly.Memory({ initial: 1 }).buffer, [hSL, Symbol('fuzz'), -1e308, new BigUint64Array(2)]))",
    "t(() => native.deviceProps(4096))",
    "t(() => native.graphToDot())",
    "t(() => native.kernelSimulatedMaxPotentialClusterSize(-0))",
    "t(() => native.nvrtcVersion(() => {}))",
    "t(() => native.streamSynchronize(2**40))",
    "t(() => native.pinnedInfo())",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(1); t(() => native.blasGemm(Number.MIN_VALUE, 28698, -(2**31), 1, 0, 16, new WebAssembly.Memory({ initial: 1 }).buffer, [hSL, Symbol('fuzz'), -1e308, new BigUint64Array(2)]))
    at(2); t(() => native.deviceProps(4096))
    at(3); t(() => native.graphToDot())
    at(4); t(() => native.kernelSimulatedMaxPotentialClusterSize(-0))
    at(5); t(() => native.nvrtcVersion(() => {}))
    at(6); t(() => native.streamSynchronize(2**40))
    at(7); t(() => native.pinnedInfo())
    at(8); await tick()
  }],
  [28, [
    "t(() => native.memDesc(-(2**31), { lda: async () => { await tick() }, n: () => { throw mark() } }))",
    "t(() => native.poolMalloc(256, 16, 255))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.memDesc(-(2**31), { lda: async () => { await tick() }, n: () => { throw mark() } }))
    at(1); t(() => native.poolMalloc(256, 16, 255))
  }],
  [29, [
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "t(() => native.kernelMaxPotentialClusterSize(0, 1e308, false))",
    "t(() => native.kernelCheckCacheConfig('1', hPPool))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(1); t(() => native.kernelMaxPotentialClusterSize(0, 1e308, false))
    at(2); t(() => native.kernelCheckCacheConfig('1', hPPool))
  }],
  [30, [
    "t(() => native.profilerSet())",
    "t(() => native.pinnedPoolNFreeBlocks(1e308))",
    "collect()",
    "collect()",
    "t(() => native.asyncPoolGetLimit())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.profilerSet())
    at(1); t(() => native.pinnedPoolNFreeBlocks(1e308))
    at(2); collect()
    at(3); collect()
    at(4); t(() => native.asyncPoolGetLimit())
  }],
  [31, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "await tick()",
    "t(() => native.ncclVersion())",
    "t(() => native.eventFromIpc({ options: { length: 2**32 } }, -Infinity))",
    "t(() => native.poolMalloc(1e308, NaN, { nonBlocking: new Uint8Array(0), options: 'constructor', beta: hSL }))",
    "t(() => native.nvtxRangeEnd(0x10000n, () => t(() => native.memCopy2DDtod(0, -0, 1, 64, -1, 2**64, 256, -Infinity, 2**32 - 1, new Proxy([], { get(t, k) { if (k === \"length\") return 2**32 - 1; return Reflect.get(t, k) } })))))",
    "t(() => native.pinnedPoolNFreeBlocks(2**31, { code: new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), ldb: hAPool, ldc: new Uint8Array(16), nonBlocking: 2n**57n }))",
    "t(() => native.memManagedBuffer())",
    "t(() => native.memCopy2DHtodPinned(unconvertible(), 16, { fraction: 2**64, device: new ArrayBuffer(0), b: 37700 }, 0.5, 2, 16, 4096, -(2**53), { code: false, jitify: -1e308, translateCucomplex: () => t(() => native.eventSynchronizeAsync(2, 54650)), size: -1n }, 1n))",
    "t(() => native.memCopyDtohPinned([unconvertible()], Number.MIN_VALUE, hSL, 255, 4096, hS1, [1, 2, 3]))",
    "t(() => native.nvtxAttached(2n**64n))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(2); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(3); await tick()
    at(4); t(() => native.ncclVersion())
    at(5); t(() => native.eventFromIpc({ options: { length: 2**32 } }, -Infinity))
    at(6); t(() => native.poolMalloc(1e308, NaN, { nonBlocking: new Uint8Array(0), options: 'constructor', beta: hSL }))
    at(7); t(() => native.nvtxRangeEnd(0x10000n, () => t(() => native.memCopy2DDtod(0, -0, 1, 64, -1, 2**64, 256, -Infinity, 2**32 - 1, new Proxy([], { get(t, k) { if (k === "length") return 2**32 - 1; return Reflect.get(t, k) } })))))
    at(8); t(() => native.pinnedPoolNFreeBlocks(2**31, { code: new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), ldb: hAPool, ldc: new Uint8Array(16), nonBlocking: 2n**57n }))
    at(9); t(() => native.memManagedBuffer())
    at(10); t(() => native.memCopy2DHtodPinned(unconvertible(), 16, { fraction: 2**64, device: new ArrayBuffer(0), b: 37700 }, 0.5, 2, 16, 4096, -(2**53), { code: false, jitify: -1e308, translateCucomplex: () => t(() => native.eventSynchronizeAsync(2, 54650)), size: -1n }, 1n))
    at(11); t(() => native.memCopyDtohPinned([unconvertible()], Number.MIN_VALUE, hSL, 255, 4096, hS1, [1, 2, 3]))
    at(12); t(() => native.nvtxAttached(2n**64n))
  }],
  [32, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "t(() => native.eventCreate(-(2**53), 2))",
    "t(() => native.eventIpcHandle(new WebAssembly.Memory({ initial: 1 }).buffer, hS))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); t(() => native.eventCreate(-(2**53), 2))
    at(2); t(() => native.eventIpcHandle(new WebAssembly.Memory({ initial: 1 }).buffer, hS))
  }],
  [33, [
    "t(() => native.poolCreate(() => {}, 4096))",
    "t(() => native.streamQuery())",
    "t(() => native.callbacksPending())",
    "await tick()",
    "t(() => native.pinnedRegister({}))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.poolCreate(() => {}, 4096))
    at(1); t(() => native.streamQuery())
    at(2); t(() => native.callbacksPending())
    at(3); await tick()
    at(4); t(() => native.pinnedRegister({}))
  }],
  [34, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "t(() => native.memCopy2DDtoh(hSL, hAPool, { b: hG }, 2**32 - 1, () => hostile(), 2n**64n, 2**31 - 1))",
    "t(() => native.deviceCusolverHandle(2, 37753))",
    "t(() => native.eventFromIpc({}, 2**53, new Float64Array([4, 4, 4, 4, 4, 4, 0, 0]), 8903))",
    "t(() => native.memPrefetch(2**32 + 0.5, -0.5, Symbol('fuzz'), ['-O3'], 2**40))",
    "t(() => native.pinnedPoolNFreeBlocks(-Infinity))",
    "t(() => native.memCopy2DHtodPinned(4294967296.5, 4096, { c: 3035, a: 'sm_90', order: hE1, n: hSL }, 2**31, 2**53, -0.5, Infinity, 4294967296.5, Infinity))",
    "t(() => native.poolFreeBytes(-0, 2n))",
    "t(() => native.asyncPoolTotalBytes())",
    "t(() => native.memFree(7, { order: hS, sharedMem: hS1 }))",
    "t(() => native.nvtxRangePop())",
    "t(() => native.ncclCommAbort('-1'))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(2); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(3); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(4); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(5); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(6); t(() => native.memCopy2DDtoh(hSL, hAPool, { b: hG }, 2**32 - 1, () => hostile(), 2n**64n, 2**31 - 1))
    at(7); t(() => native.deviceCusolverHandle(2, 37753))
    at(8); t(() => native.eventFromIpc({}, 2**53, new Float64Array([4, 4, 4, 4, 4, 4, 0, 0]), 8903))
    at(9); t(() => native.memPrefetch(2**32 + 0.5, -0.5, Symbol('fuzz'), ['-O3'], 2**40))
    at(10); t(() => native.pinnedPoolNFreeBlocks(-Infinity))
    at(11); t(() => native.memCopy2DHtodPinned(4294967296.5, 4096, { c: 3035, a: 'sm_90', order: hE1, n: hSL }, 2**31, 2**53, -0.5, Infinity, 4294967296.5, Infinity))
    at(12); t(() => native.poolFreeBytes(-0, 2n))
    at(13); t(() => native.asyncPoolTotalBytes())
    at(14); t(() => native.memFree(7, { order: hS, sharedMem: hS1 }))
    at(15); t(() => native.nvtxRangePop())
    at(16); t(() => native.ncclCommAbort('-1'))
  }],
  [35, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "t(() => native.streamRecord(256, async () => { await tick() }))",
    "t(() => native.memCopy2DHtod(2**53 - 1, 2**64, 0, 2**31, new SharedArrayBuffer(64), 0, -(2**53)))",
    "t(() => native.pointerGetAttributes(hG))",
    "t(() => native.streamSynchronizeAsync())",
    "t(() => native.poolFreeBytes())",
    "t(() => native.asyncPoolResetPeakStats(true, { fileName: 'NaN', transB: Infinity, code: 'sm_90' }))",
    "t(() => native.poolGetLimit())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(2); t(() => native.streamRecord(256, async () => { await tick() }))
    at(3); t(() => native.memCopy2DHtod(2**53 - 1, 2**64, 0, 2**31, new SharedArrayBuffer(64), 0, -(2**53)))
    at(4); t(() => native.pointerGetAttributes(hG))
    at(5); t(() => native.streamSynchronizeAsync())
    at(6); t(() => native.poolFreeBytes())
    at(7); t(() => native.asyncPoolResetPeakStats(true, { fileName: 'NaN', transB: Infinity, code: 'sm_90' }))
    at(8); t(() => native.poolGetLimit())
  }],
  [36, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "t(() => native.kernelParamSizes(8, []))",
    "t(() => native.moduleGetFunction({}, 0, 'float32', 2**63))",
    "t(() => native.deviceCount())",
    "collect()",
    "t(() => native.kernelSetMaxDynamicSharedSize(0))",
    "await tick()",
    "t(() => native.poolTotalBytes(0, NaN))",
    "t(() => native.nvtxRangeStart(2**32, -1, 2**32 - 1, async () => { await tick(); t(() => native.poolFreeAllBlocks(2**53 - 1, new Array(2**32 - 1))) }))",
    "t(() => native.profilerActive())",
    "t(() => native.externalBuffers(true))",
    "t(() => native.streamBeginCapture([1, 2, 3]))",
    "t(() => native.eventDestroy(hED, [hS, hMF, 'uint64', async () => { await tick() }]))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(2); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(3); t(() => native.kernelParamSizes(8, []))
    at(4); t(() => native.moduleGetFunction({}, 0, 'float32', 2**63))
    at(5); t(() => native.deviceCount())
    at(6); collect()
    at(7); t(() => native.kernelSetMaxDynamicSharedSize(0))
    at(8); await tick()
    at(9); t(() => native.poolTotalBytes(0, NaN))
    at(10); t(() => native.nvtxRangeStart(2**32, -1, 2**32 - 1, async () => { await tick(); t(() => native.poolFreeAllBlocks(2**53 - 1, new Array(2**32 - 1))) }))
    at(11); t(() => native.profilerActive())
    at(12); t(() => native.externalBuffers(true))
    at(13); t(() => native.streamBeginCapture([1, 2, 3]))
    at(14); t(() => native.eventDestroy(hED, [hS, hMF, 'uint64', async () => { await tick() }]))
  }],
  [37, [
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "t(() => native.deviceCusolverHandle())",
    "t(() => native.memFromIpcHandle(0, Object.create(cuda.MemoryPointer.prototype), 2**31, Symbol.iterator, [new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), -(2n**63n)]))",
    "t(() => native.poolMallocFrom(2**53 - 1, { ldb: async () => { await tick(); t(() => native.streamLaunchHostFn(256)) } }, 2**32 - 1, async () => { await tick(); t(() => native.deviceCublasHandle()) }, [7, Object.create(cuda.Stream.prototype)]))",
    "t(() => native.ncclCommJoinAll(hSD, [new Uint8Array(4096)]))",
    "t(() => native.kernelSuggestedBlockSize({ fileName: hSD, interprocess: hPool, beta: Object.create(null) }, NaN))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(1); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(2); t(() => native.deviceCusolverHandle())
    at(3); t(() => native.memFromIpcHandle(0, Object.create(cuda.MemoryPointer.prototype), 2**31, Symbol.iterator, [new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), -(2n**63n)]))
    at(4); t(() => native.poolMallocFrom(2**53 - 1, { ldb: async () => { await tick(); t(() => native.streamLaunchHostFn(256)) } }, 2**32 - 1, async () => { await tick(); t(() => native.deviceCublasHandle()) }, [7, Object.create(cuda.Stream.prototype)]))
    at(5); t(() => native.ncclCommJoinAll(hSD, [new Uint8Array(4096)]))
    at(6); t(() => native.kernelSuggestedBlockSize({ fileName: hSD, interprocess: hPool, beta: Object.create(null) }, NaN))
  }],
  [38, [
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "await tick()",
    "collect()",
    "t(() => native.poolTotalBytes(2**64))",
    "t(() => native.ncclCall(4294967296.5, 2**64, 2**53 + 2, Object.assign(new Array(4096), { 7: \"x\" }), 2**40, Infinity, -0, 2**64, 2n**53n, -(2**53)))",
    "await tick()",
    "t(() => native.streamCreate({ lda: hM1, incy: -(2n**63n), lda: new (class Stream {})() }, { incy: 2**32 - 1, stream: hED, sharedMem: hE1 }, true, 1e308, false))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(1); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(2); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(3); await tick()
    at(4); collect()
    at(5); t(() => native.poolTotalBytes(2**64))
    at(6); t(() => native.ncclCall(4294967296.5, 2**64, 2**53 + 2, Object.assign(new Array(4096), { 7: "x" }), 2**40, Infinity, -0, 2**64, 2n**53n, -(2**53)))
    at(7); await tick()
    at(8); t(() => native.streamCreate({ lda: hM1, incy: -(2n**63n), lda: new (class Stream {})() }, { incy: 2**32 - 1, stream: hED, sharedMem: hE1 }, true, 1e308, false))
  }],
  [39, [
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "t(() => native.memCopy2DDtod([1, 2, 3], { k: 'uint64', order: hSL }, 8, Number.MIN_VALUE, 2**32 - 1, 2**53 + 2, Infinity, 2**31 - 1, new Uint8Array(1 << 22)))",
    "t(() => native.poolFreeAllBlocks(hMF))",
    "collect()",
    "t(() => native.memCopy2DDtod(2**31 - 1, 8, -0.5, -(2**53), Number.MIN_VALUE, 2**64, 2, 2**31, 255, 12))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(1); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(2); t(() => native.memCopy2DDtod([1, 2, 3], { k: 'uint64', order: hSL }, 8, Number.MIN_VALUE, 2**32 - 1, 2**53 + 2, Infinity, 2**31 - 1, new Uint8Array(1 << 22)))
    at(3); t(() => native.poolFreeAllBlocks(hMF))
    at(4); collect()
    at(5); t(() => native.memCopy2DDtod(2**31 - 1, 8, -0.5, -(2**53), Number.MIN_VALUE, 2**64, 2, 2**31, 255, 12))
  }],
  [40, [
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "t(() => native.memCopyHtod(Symbol.iterator, 0, { ldc: true, ldb: new Uint8Array(1 << 22) }, new Uint8Array(0), hPool))",
    "t(() => native.ncclCommJoin(8))",
    "t(() => native.profilerSet(true))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(1); t(() => native.memCopyHtod(Symbol.iterator, 0, { ldc: true, ldb: new Uint8Array(1 << 22) }, new Uint8Array(0), hPool))
    at(2); t(() => native.ncclCommJoin(8))
    at(3); t(() => native.profilerSet(true))
  }],
  [41, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.streamInfo())",
    "t(() => native.graphUpload({ size: -0, dtype: hM1, device: 1 }))",
    "t(() => native.asyncPoolMalloc(hAPool, [0n, 68822, hSD, new Uint8Array(1 << 22)], Object.create(cuda.MemoryPointer.prototype), [hS1, 20656, hE1]))",
    "t(() => native.ncclCommJoin(255))",
    "t(() => native.streamExternal([], 2**53 + 2))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(2); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(3); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(4); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(5); t(() => native.streamInfo())
    at(6); t(() => native.graphUpload({ size: -0, dtype: hM1, device: 1 }))
    at(7); t(() => native.asyncPoolMalloc(hAPool, [0n, 68822, hSD, new Uint8Array(1 << 22)], Object.create(cuda.MemoryPointer.prototype), [hS1, 20656, hE1]))
    at(8); t(() => native.ncclCommJoin(255))
    at(9); t(() => native.streamExternal([], 2**53 + 2))
  }],
  [42, [
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "t(() => native.deviceSynchronize(4096, { b: 4294967296.5, k: hMF, alpha: hMF, code: hED }))",
    "t(() => native.ncclGroupEnd({ then() { throw mark() } }))",
    "t(() => native.asyncPoolCreate([], 4096))",
    "await tick()",
    "t(() => native.deviceMemInfo(0x10000n, -0.5))",
    "t(() => native.nvJitLinkLink([], Object.assign(new Array(4096), { 7: \"x\" }), new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), new ArrayBuffer(0), 2**53 + 2))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(1); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(2); t(() => native.deviceSynchronize(4096, { b: 4294967296.5, k: hMF, alpha: hMF, code: hED }))
    at(3); t(() => native.ncclGroupEnd({ then() { throw mark() } }))
    at(4); t(() => native.asyncPoolCreate([], 4096))
    at(5); await tick()
    at(6); t(() => native.deviceMemInfo(0x10000n, -0.5))
    at(7); t(() => native.nvJitLinkLink([], Object.assign(new Array(4096), { 7: "x" }), new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), new ArrayBuffer(0), 2**53 + 2))
  }],
  [43, [
    "t(() => native.memLive(Object.create(cuda.Stream.prototype)))",
    "t(() => native.streamAddCallback(1))",
    "t(() => native.eventSynchronize())",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.memLive(Object.create(cuda.Stream.prototype)))
    at(1); t(() => native.streamAddCallback(1))
    at(2); t(() => native.eventSynchronize())
    at(3); await tick()
  }],
  [44, [
    "t(() => native.asyncPoolSetLimit(2**40, Object.create(cuda.Stream.prototype), { interprocess: -(2n**63n) }))",
    "t(() => native.eventSynchronizeAsync())",
    "t(() => native.ncclGroupStart())",
    "t(() => native.kernelCheckAttribute('float32', 0, new Date(0)))",
    "collect()",
    "t(() => native.pinnedRead(4096, 2**32, new Uint8Array(detached()), new Float32Array(3)))",
    "t(() => native.deviceByPciBusId())",
    "await tick()",
    "t(() => native.pinnedWrite(-Infinity, 0))",
    "t(() => native.nvtxRangeStart('1', 256, 2**63, { options: new ArrayBuffer(0) }))",
    "t(() => native.nvrtcSupportedArchs({  }))",
    "t(() => native.kernelMaxPotentialClusterSize(-Infinity, []))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.asyncPoolSetLimit(2**40, Object.create(cuda.Stream.prototype), { interprocess: -(2n**63n) }))
    at(1); t(() => native.eventSynchronizeAsync())
    at(2); t(() => native.ncclGroupStart())
    at(3); t(() => native.kernelCheckAttribute('float32', 0, new Date(0)))
    at(4); collect()
    at(5); t(() => native.pinnedRead(4096, 2**32, new Uint8Array(detached()), new Float32Array(3)))
    at(6); t(() => native.deviceByPciBusId())
    at(7); await tick()
    at(8); t(() => native.pinnedWrite(-Infinity, 0))
    at(9); t(() => native.nvtxRangeStart('1', 256, 2**63, { options: new ArrayBuffer(0) }))
    at(10); t(() => native.nvrtcSupportedArchs({  }))
    at(11); t(() => native.kernelMaxPotentialClusterSize(-Infinity, []))
  }],
  [45, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "t(() => native.graphLaunch(-(2**31), 4096))",
    "t(() => native.kernelSetMaxDynamicSharedSize(2**31 - 1, [detached(), -(2n**63n)], hPPool))",
    "t(() => native.kernelCheckAttribute(new Uint8Array(64).subarray(3, 7), 2**53 + 2, 2n**53n))",
    "t(() => native.kernelSetCacheConfig(2**31 - 1, class {}, Number.MIN_VALUE))",
    "await tick()",
    "t(() => native.graphUpdate(hPin, hG, new ArrayBuffer(64)))",
    "t(() => native.memOwn(() => {}))",
    "await tick()",
    "await tick()",
    "collect()",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(2); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(3); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(4); t(() => native.graphLaunch(-(2**31), 4096))
    at(5); t(() => native.kernelSetMaxDynamicSharedSize(2**31 - 1, [detached(), -(2n**63n)], hPPool))
    at(6); t(() => native.kernelCheckAttribute(new Uint8Array(64).subarray(3, 7), 2**53 + 2, 2n**53n))
    at(7); t(() => native.kernelSetCacheConfig(2**31 - 1, class {}, Number.MIN_VALUE))
    at(8); await tick()
    at(9); t(() => native.graphUpdate(hPin, hG, new ArrayBuffer(64)))
    at(10); t(() => native.memOwn(() => {}))
    at(11); await tick()
    at(12); await tick()
    at(13); collect()
    at(14); collect()
  }],
  [46, [
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.streamWaitEvent(-(2**31), 256))",
    "t(() => native.kernelLaunch(hMF, {  }, { nonBlocking: hAPool, b: { then(r) { r(1) } }, incy: 2n**53n, fraction: undefined }, new BigUint64Array(2), 0x10000n))",
    "await tick()",
    "t(() => native.eventSynchronize())",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(1); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(2); t(() => native.streamWaitEvent(-(2**31), 256))
    at(3); t(() => native.kernelLaunch(hMF, {  }, { nonBlocking: hAPool, b: { then(r) { r(1) } }, incy: 2n**53n, fraction: undefined }, new BigUint64Array(2), 0x10000n))
    at(4); await tick()
    at(5); t(() => native.eventSynchronize())
    at(6); await tick()
  }],
  [47, [
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.nvtxRangePop(hAPool))",
    "t(() => native.streamExternal(hostile(), 2, 0x1000n))",
    "await tick()",
    "t(() => native.deviceCanAccessPeer(-Infinity, 0, hED))",
    "t(() => native.ncclVersion())",
    "t(() => native.memCopy2DDtohPinned(52219, 8, 4096, 'a', 'x'.repeat(100000), 0, 2**31 - 1, 8, 16))",
    "await tick()",
    "t(() => native.eventSynchronize(-1e308, -(2**31)))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(1); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(2); t(() => native.nvtxRangePop(hAPool))
    at(3); t(() => native.streamExternal(hostile(), 2, 0x1000n))
    at(4); await tick()
    at(5); t(() => native.deviceCanAccessPeer(-Infinity, 0, hED))
    at(6); t(() => native.ncclVersion())
    at(7); t(() => native.memCopy2DDtohPinned(52219, 8, 4096, 'a', 'x'.repeat(100000), 0, 2**31 - 1, 8, 16))
    at(8); await tick()
    at(9); t(() => native.eventSynchronize(-1e308, -(2**31)))
  }],
  [48, [
    "t(() => native.eventElapsedTime(-0.5, 0x10000n))",
    "t(() => native.poolStats())",
    "t(() => native.kernelMaxPotentialClusterSize(16))",
    "t(() => native.ncclCommJoin(2**31 - 1))",
    "t(() => native.poolMallocFrom(2**53 - 1, 2**31 - 1, 255))",
    "t(() => native.kernelParamSizes({ lda: 0, fileName: 'int8', code: () => t(() => native.nvtxRangePush('row', Infinity, 0.5, false)), size: {} }, 'column'))",
    "t(() => native.ncclVersion())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.eventElapsedTime(-0.5, 0x10000n))
    at(1); t(() => native.poolStats())
    at(2); t(() => native.kernelMaxPotentialClusterSize(16))
    at(3); t(() => native.ncclCommJoin(2**31 - 1))
    at(4); t(() => native.poolMallocFrom(2**53 - 1, 2**31 - 1, 255))
    at(5); t(() => native.kernelParamSizes({ lda: 0, fileName: 'int8', code: () => t(() => native.nvtxRangePush('row', Infinity, 0.5, false)), size: {} }, 'column'))
    at(6); t(() => native.ncclVersion())
  }],
  [49, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "t(() => native.memFree(hS1, new Uint8Array(new SharedArrayBuffer(32))))",
    "t(() => native.memCopyHtod(2**63, 0, hMF))",
    "t(() => native.memFree(new ArrayBuffer(0), 'column'))",
    "t(() => native.asyncPoolFreeBytes(new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8)))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(2); t(() => native.memFree(hS1, new Uint8Array(new SharedArrayBuffer(32))))
    at(3); t(() => native.memCopyHtod(2**63, 0, hMF))
    at(4); t(() => native.memFree(new ArrayBuffer(0), 'column'))
    at(5); t(() => native.asyncPoolFreeBytes(new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8)))
  }],
  [50, [
    "t(() => native.nvtxRangePop())",
    "t(() => native.streamLegacy(undefined))",
    "t(() => native.ncclCommJoinAll({ m: Object.create(cuda.MemoryPointer.prototype) }, 'column'))",
    "t(() => native.deviceMemInfo())",
    "t(() => native.eventQuery())",
    "t(() => native.eventSynchronize(8))",
    "collect()",
    "t(() => native.graphDestroy())",
    "t(() => native.asyncPoolResetPeakStats(1))",
    "t(() => native.streamLegacy(hostile()))",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.nvtxRangePop())
    at(1); t(() => native.streamLegacy(undefined))
    at(2); t(() => native.ncclCommJoinAll({ m: Object.create(cuda.MemoryPointer.prototype) }, 'column'))
    at(3); t(() => native.deviceMemInfo())
    at(4); t(() => native.eventQuery())
    at(5); t(() => native.eventSynchronize(8))
    at(6); collect()
    at(7); t(() => native.graphDestroy())
    at(8); t(() => native.asyncPoolResetPeakStats(1))
    at(9); t(() => native.streamLegacy(hostile()))
    at(10); await tick()
  }],
  [51, [
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "t(() => native.deviceCusolverHandle(2**32 + 0.5))",
    "await tick()",
    "t(() => native.nvrtcVersion())",
    "t(() => native.pointerGetAttributes(hM, '\\0'))",
    "t(() => native.nvtxRangeStart('column', 1))",
    "t(() => native.memManagedBuffer())",
    "collect()",
    "t(() => native.pinnedUnregister(-0.5))",
    "await tick()",
    "t(() => native.memCopy2DDtoh(256, -(2n**63n), 2**64, hM, Infinity, 2**53 + 2, new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8), 255))",
    "t(() => native.kernelSimulatedMaxActiveBlocks(-0, 2**53 - 1, {}, new Uint32Array(3)))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(1); t(() => native.deviceCusolverHandle(2**32 + 0.5))
    at(2); await tick()
    at(3); t(() => native.nvrtcVersion())
    at(4); t(() => native.pointerGetAttributes(hM, '\0'))
    at(5); t(() => native.nvtxRangeStart('column', 1))
    at(6); t(() => native.memManagedBuffer())
    at(7); collect()
    at(8); t(() => native.pinnedUnregister(-0.5))
    at(9); await tick()
    at(10); t(() => native.memCopy2DDtoh(256, -(2n**63n), 2**64, hM, Infinity, 2**53 + 2, new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8), 255))
    at(11); t(() => native.kernelSimulatedMaxActiveBlocks(-0, 2**53 - 1, {}, new Uint32Array(3)))
  }],
  [52, [
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "await tick()",
    "collect()",
    "t(() => native.memCopyHtodPinned(1e308, hPin, -0.5, 2**40, 2**63, 2**31))",
    "t(() => native.kernelMaxActiveClusters('row', detached()))",
    "t(() => native.streamSleep(0.5))",
    "t(() => native.ncclCommJoin(4096))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(1); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(2); await tick()
    at(3); collect()
    at(4); t(() => native.memCopyHtodPinned(1e308, hPin, -0.5, 2**40, 2**63, 2**31))
    at(5); t(() => native.kernelMaxActiveClusters('row', detached()))
    at(6); t(() => native.streamSleep(0.5))
    at(7); t(() => native.ncclCommJoin(4096))
  }],
  [53, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "t(() => native.asyncPoolSetLimit(-Infinity))",
    "t(() => native.kernelParamSizes(hAPool, hG))",
    "t(() => native.deviceDisablePeerAccess(Number.EPSILON, 4096, false))",
    "collect()",
    "t(() => native.memCopy2DDtoh(8, new Uint8Array(0), 2**53 - 1, 512, hSD, 512, new (class Stream {})(), 2**53 + 2))",
    "await tick()",
    "t(() => native.streamRecord(64))",
    "t(() => native.memCopy2DHtodPinned(2**53 + 2, 2**53 - 1, 8, { a: async () => { await tick() } }, 2**32 - 1, { incy: new Array(2**32 - 1), ldc: () => 1 }, new DataView(new ArrayBuffer(8)), { k: 59742, k: 4096, translateCucomplex: async () => { await tick() } }))",
    "t(() => native.poolFreeAllBlocks(3n))",
    "t(() => native.blasAxpy(hS, 'float32', hPin, 4096))",
    "collect()",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(2); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(3); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(4); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(5); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(6); t(() => native.asyncPoolSetLimit(-Infinity))
    at(7); t(() => native.kernelParamSizes(hAPool, hG))
    at(8); t(() => native.deviceDisablePeerAccess(Number.EPSILON, 4096, false))
    at(9); collect()
    at(10); t(() => native.memCopy2DDtoh(8, new Uint8Array(0), 2**53 - 1, 512, hSD, 512, new (class Stream {})(), 2**53 + 2))
    at(11); await tick()
    at(12); t(() => native.streamRecord(64))
    at(13); t(() => native.memCopy2DHtodPinned(2**53 + 2, 2**53 - 1, 8, { a: async () => { await tick() } }, 2**32 - 1, { incy: new Array(2**32 - 1), ldc: () => 1 }, new DataView(new ArrayBuffer(8)), { k: 59742, k: 4096, translateCucomplex: async () => { await tick() } }))
    at(14); t(() => native.poolFreeAllBlocks(3n))
    at(15); t(() => native.blasAxpy(hS, 'float32', hPin, 4096))
    at(16); collect()
    at(17); await tick()
  }],
  [54, [
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "t(() => native.poolUsedBytes())",
    "t(() => native.devicePciBusId(256, hM1))",
    "t(() => native.nvrtcSupportedArchs([new WebAssembly.Memory({ initial: 1 }).buffer, Object.assign(new Array(4096), { 7: \"x\" }), -(2n**63n), new Uint8Array(0)]))",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(1); t(() => native.poolUsedBytes())
    at(2); t(() => native.devicePciBusId(256, hM1))
    at(3); t(() => native.nvrtcSupportedArchs([new WebAssembly.Memory({ initial: 1 }).buffer, Object.assign(new Array(4096), { 7: "x" }), -(2n**63n), new Uint8Array(0)]))
    at(4); collect()
  }],
  [55, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "t(() => native.nvrtcSupportedArchs())",
    "t(() => native.kernelCheckShape(4430))",
    "t(() => native.moduleGetGlobal({ dtype: 2n**64n - 1n, size: -1e308 }, '1', hSD))",
    "t(() => native.ncclCommCreate(() => {}, 2, 2**53 + 2, Buffer.alloc(64, 1)))",
    "t(() => native.streamExternal({}, hSD))",
    "collect()",
    "t(() => native.graphHostFnCount(256))",
    "t(() => native.streamCreate(() => hostile(), [2n**53n, hS1, 1n, hM], 256, 0, new Uint8Array(0)))",
    "t(() => native.deviceByPciBusId('sm_90', { a: Object.create(cuda.Stream.prototype) }))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(2); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(3); t(() => native.nvrtcSupportedArchs())
    at(4); t(() => native.kernelCheckShape(4430))
    at(5); t(() => native.moduleGetGlobal({ dtype: 2n**64n - 1n, size: -1e308 }, '1', hSD))
    at(6); t(() => native.ncclCommCreate(() => {}, 2, 2**53 + 2, Buffer.alloc(64, 1)))
    at(7); t(() => native.streamExternal({}, hSD))
    at(8); collect()
    at(9); t(() => native.graphHostFnCount(256))
    at(10); t(() => native.streamCreate(() => hostile(), [2n**53n, hS1, 1n, hM], 256, 0, new Uint8Array(0)))
    at(11); t(() => native.deviceByPciBusId('sm_90', { a: Object.create(cuda.Stream.prototype) }))
  }],
  [56, [
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "t(() => native.deviceCanAccessPeer(2**64, 0, hMF))",
    "t(() => native.streamWaitEvent(2**53 + 2))",
    "t(() => native.memDesc())",
    "t(() => native.deviceMemInfo())",
    "t(() => native.eventCreate(2, [hM1, 18508, hMF, Object.create(cuda.Event.prototype)], { n: new ArrayBuffer(0) }))",
    "t(() => native.pinnedPoolNFreeBlocks())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(1); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(2); t(() => native.deviceCanAccessPeer(2**64, 0, hMF))
    at(3); t(() => native.streamWaitEvent(2**53 + 2))
    at(4); t(() => native.memDesc())
    at(5); t(() => native.deviceMemInfo())
    at(6); t(() => native.eventCreate(2, [hM1, 18508, hMF, Object.create(cuda.Event.prototype)], { n: new ArrayBuffer(0) }))
    at(7); t(() => native.pinnedPoolNFreeBlocks())
  }],
  [57, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "t(() => native.streamSynchronizeAsync(hMF, 256))",
    "t(() => native.streamLegacy(true, hED, { cubin: hMF, cubin: () => 1, device: 22497 }))",
    "t(() => native.graphToDot())",
    "t(() => native.asyncPoolFreeBytes())",
    "await tick()",
    "t(() => native.deviceSynchronize(2**32 - 1, hG))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(2); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(3); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(4); t(() => native.streamSynchronizeAsync(hMF, 256))
    at(5); t(() => native.streamLegacy(true, hED, { cubin: hMF, cubin: () => 1, device: 22497 }))
    at(6); t(() => native.graphToDot())
    at(7); t(() => native.asyncPoolFreeBytes())
    at(8); await tick()
    at(9); t(() => native.deviceSynchronize(2**32 - 1, hG))
  }],
  [58, [
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "t(() => native.eventElapsedTime(-0))",
    "t(() => native.graphDestroy(1e308))",
    "t(() => native.memCopyDtohPinned(256, -0.5, 0, 4096, 16, hED))",
    "t(() => native.streamCreate([], '\\0', true, -1e308))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(1); t(() => native.eventElapsedTime(-0))
    at(2); t(() => native.graphDestroy(1e308))
    at(3); t(() => native.memCopyDtohPinned(256, -0.5, 0, 4096, 16, hED))
    at(4); t(() => native.streamCreate([], '\0', true, -1e308))
  }],
  [59, [
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "t(() => native.arrayBufferDetach())",
    "t(() => native.memCopy2DDtoh(-(2**53), class {}, null, hM, -Infinity, 2**32 + 0.5, 1e308, 512, -(2**31)))",
    "t(() => native.nvrtcCompile('float64', 'column', hostile(), Object.assign(new Array(4096), { 7: \"x\" }), Promise.resolve(1), '', -Infinity))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(1); t(() => native.arrayBufferDetach())
    at(2); t(() => native.memCopy2DDtoh(-(2**53), class {}, null, hM, -Infinity, 2**32 + 0.5, 1e308, 512, -(2**31)))
    at(3); t(() => native.nvrtcCompile('float64', 'column', hostile(), Object.assign(new Array(4096), { 7: "x" }), Promise.resolve(1), '', -Infinity))
  }],
  [60, [
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); collect()
  }],
  [61, [
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.pinnedWrite({  }, -0))",
    "t(() => native.simPump())",
    "t(() => native.asyncPoolSetLimit(hPin))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(1); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(2); t(() => native.pinnedWrite({  }, -0))
    at(3); t(() => native.simPump())
    at(4); t(() => native.asyncPoolSetLimit(hPin))
  }],
  [62, [
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "await tick()",
    "t(() => native.graphDestroy())",
    "t(() => native.memIpcHandle())",
    "collect()",
    "t(() => native.pinnedPoolNFreeBlocks({  }, hAPool))",
    "t(() => native.ncclCommCheckAsyncError())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(1); await tick()
    at(2); t(() => native.graphDestroy())
    at(3); t(() => native.memIpcHandle())
    at(4); collect()
    at(5); t(() => native.pinnedPoolNFreeBlocks({  }, hAPool))
    at(6); t(() => native.ncclCommCheckAsyncError())
  }],
  [63, [
    "t(() => native.streamLaunchHostFn(8))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.streamLaunchHostFn(8))
  }],
  [64, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "t(() => native.eventSynchronize(4096, async () => { await tick(); t(() => native.deviceCusolverHandle(2**64, 1n)) }))",
    "t(() => native.nvtxRangePop(() => { throw mark() }))",
    "t(() => native.simSetScheduler())",
    "t(() => native.memCopyHtod(1, Number.EPSILON, 4096, new DataView(new ArrayBuffer(8))))",
    "t(() => native.eventElapsedTime([() => {}, 2n**63n], -0))",
    "await tick()",
    "t(() => native.deviceDisablePeerAccess(2**53 + 2))",
    "t(() => native.releaseLibraryHandles(hE1))",
    "t(() => native.memFill(2**40, hS1, 1, async () => { await tick() }, -1n, 2**53 + 2))",
    "t(() => native.eventDestroy(4294967296.5, 2**63))",
    "t(() => native.poolCreate([]))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(2); t(() => native.eventSynchronize(4096, async () => { await tick(); t(() => native.deviceCusolverHandle(2**64, 1n)) }))
    at(3); t(() => native.nvtxRangePop(() => { throw mark() }))
    at(4); t(() => native.simSetScheduler())
    at(5); t(() => native.memCopyHtod(1, Number.EPSILON, 4096, new DataView(new ArrayBuffer(8))))
    at(6); t(() => native.eventElapsedTime([() => {}, 2n**63n], -0))
    at(7); await tick()
    at(8); t(() => native.deviceDisablePeerAccess(2**53 + 2))
    at(9); t(() => native.releaseLibraryHandles(hE1))
    at(10); t(() => native.memFill(2**40, hS1, 1, async () => { await tick() }, -1n, 2**53 + 2))
    at(11); t(() => native.eventDestroy(4294967296.5, 2**63))
    at(12); t(() => native.poolCreate([]))
  }],
  [65, [
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "t(() => native.callbacksPending())",
    "t(() => native.graphUpdate(-(2**53), 1e308, { size: hMF }))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(1); t(() => native.callbacksPending())
    at(2); t(() => native.graphUpdate(-(2**53), 1e308, { size: hMF }))
  }],
  [66, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.nvJitLinkLink(['-O3'], new Array(2**32 - 1), new Uint32Array(3), new Float32Array(3), new Array(2**32 - 1), { fraction: hSL, dtype: hSL, ptx: new ArrayBuffer(8, { maxByteLength: 64 }), lda: true }))",
    "t(() => native.kernelSuggestedBlockSize(2**53, -0))",
    "await tick()",
    "t(() => native.streamRecord(hS, hAPool))",
    "t(() => native.memLive(() => {}))",
    "t(() => native.eventIpcHandle(2**32))",
    "t(() => native.graphDestroy(256))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(2); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(3); t(() => native.nvJitLinkLink(['-O3'], new Array(2**32 - 1), new Uint32Array(3), new Float32Array(3), new Array(2**32 - 1), { fraction: hSL, dtype: hSL, ptx: new ArrayBuffer(8, { maxByteLength: 64 }), lda: true }))
    at(4); t(() => native.kernelSuggestedBlockSize(2**53, -0))
    at(5); await tick()
    at(6); t(() => native.streamRecord(hS, hAPool))
    at(7); t(() => native.memLive(() => {}))
    at(8); t(() => native.eventIpcHandle(2**32))
    at(9); t(() => native.graphDestroy(256))
  }],
  [67, [
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "t(() => native.memFill(NaN, { order: Symbol.iterator }, 2**53 - 1, { transB: new Uint8Array(0), ldc: new Array(2**32 - 1), beta: null, order: 62671 }, 2n**53n))",
    "t(() => native.kernelSimulatedMaxPotentialClusterSize(-1e308, new SharedArrayBuffer(64), 8056))",
    "t(() => native.kernelAttributes(2**32))",
    "t(() => native.moduleLoad([], 2, new Float32Array(3)))",
    "t(() => native.pointerGetAttributes(hPPool))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(1); t(() => native.memFill(NaN, { order: Symbol.iterator }, 2**53 - 1, { transB: new Uint8Array(0), ldc: new Array(2**32 - 1), beta: null, order: 62671 }, 2n**53n))
    at(2); t(() => native.kernelSimulatedMaxPotentialClusterSize(-1e308, new SharedArrayBuffer(64), 8056))
    at(3); t(() => native.kernelAttributes(2**32))
    at(4); t(() => native.moduleLoad([], 2, new Float32Array(3)))
    at(5); t(() => native.pointerGetAttributes(hPPool))
  }],
  [68, [
    "t(() => native.poolMalloc(2, 2**64, 2))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.poolMalloc(2, 2**64, 2))
  }],
  [69, [
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "t(() => native.memFromExternal(2n**64n, Infinity, 4294967296.5))",
    "t(() => native.ncclCall(0, '', 1, Number.MIN_VALUE, 512, 255, 'NaN', 2**53 + 2, new Proxy([], { get(t, k) { if (k === \"length\") return 2**32 - 1; return Reflect.get(t, k) } }), -1, 2**32 + 0.5))",
    "t(() => native.memCopyDtohPinned(2**53 - 1, '', [async () => { await tick() }], hPPool, 4096, 16, hED))",
    "t(() => native.memDesc(1))",
    "t(() => native.memCopyDtohPinned(1e308, -(2**31), 256, [() => t(() => native.nvrtcCheckTarget('NaN', 'relaxed', new Uint8Array(4096))), new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), 'global', hSD], 2**31))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(1); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(2); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(3); t(() => native.memFromExternal(2n**64n, Infinity, 4294967296.5))
    at(4); t(() => native.ncclCall(0, '', 1, Number.MIN_VALUE, 512, 255, 'NaN', 2**53 + 2, new Proxy([], { get(t, k) { if (k === "length") return 2**32 - 1; return Reflect.get(t, k) } }), -1, 2**32 + 0.5))
    at(5); t(() => native.memCopyDtohPinned(2**53 - 1, '', [async () => { await tick() }], hPPool, 4096, 16, hED))
    at(6); t(() => native.memDesc(1))
    at(7); t(() => native.memCopyDtohPinned(1e308, -(2**31), 256, [() => t(() => native.nvrtcCheckTarget('NaN', 'relaxed', new Uint8Array(4096))), new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), 'global', hSD], 2**31))
  }],
  [70, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "t(() => native.profilerActive({  }))",
    "t(() => native.kernelLaunch(Infinity, hS1, new Float32Array(3), new Uint8Array(16)))",
    "t(() => native.memFromIpcHandle(-1e308, new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), 256, 64))",
    "t(() => native.streamLaunchHostFn(2**32, 64))",
    "t(() => native.nvJitLinkVersion(Symbol('fuzz')))",
    "t(() => native.memCopyHtod(-(2**53), 2**53 + 2, 2**53 + 2, new Float64Array([4, 4, 4, 4, 4, 4, 0, 0])))",
    "t(() => native.backendInfo())",
    "t(() => native.streamInfo('float16', 2n**64n))",
    "await tick()",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); t(() => native.profilerActive({  }))
    at(2); t(() => native.kernelLaunch(Infinity, hS1, new Float32Array(3), new Uint8Array(16)))
    at(3); t(() => native.memFromIpcHandle(-1e308, new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), 256, 64))
    at(4); t(() => native.streamLaunchHostFn(2**32, 64))
    at(5); t(() => native.nvJitLinkVersion(Symbol('fuzz')))
    at(6); t(() => native.memCopyHtod(-(2**53), 2**53 + 2, 2**53 + 2, new Float64Array([4, 4, 4, 4, 4, 4, 0, 0])))
    at(7); t(() => native.backendInfo())
    at(8); t(() => native.streamInfo('float16', 2n**64n))
    at(9); await tick()
    at(10); collect()
  }],
  [71, [
    "t(() => native.pinnedPoolFreeAllBlocks(-1, async () => { await tick(); t(() => native.streamEndCapture(hostile())) }))",
    "collect()",
    "t(() => native.eventInfo({  }, {  }))",
    "collect()",
    "t(() => native.eventFromIpc({}, Number.EPSILON))",
    "t(() => native.streamEndCapture(4096, -(2**31), { stream: Infinity, path: new Uint8Array(detached()), options: async () => { await tick() } }))",
    "await tick()",
    "t(() => native.pointerGetAttributes())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.pinnedPoolFreeAllBlocks(-1, async () => { await tick(); t(() => native.streamEndCapture(hostile())) }))
    at(1); collect()
    at(2); t(() => native.eventInfo({  }, {  }))
    at(3); collect()
    at(4); t(() => native.eventFromIpc({}, Number.EPSILON))
    at(5); t(() => native.streamEndCapture(4096, -(2**31), { stream: Infinity, path: new Uint8Array(detached()), options: async () => { await tick() } }))
    at(6); await tick()
    at(7); t(() => native.pointerGetAttributes())
  }],
  [72, [
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "t(() => native.pinnedPoolCreate([]))",
    "t(() => native.streamSynchronizeAsync(hSL, 0.5))",
    "t(() => native.memOwn({}, -1e308, hSD))",
    "t(() => native.deviceDisablePeerAccess(1e308))",
    "t(() => native.memFromExternal(2n**63n, [], 1))",
    "t(() => native.simPump())",
    "t(() => native.profilerSet())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(1); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(2); t(() => native.pinnedPoolCreate([]))
    at(3); t(() => native.streamSynchronizeAsync(hSL, 0.5))
    at(4); t(() => native.memOwn({}, -1e308, hSD))
    at(5); t(() => native.deviceDisablePeerAccess(1e308))
    at(6); t(() => native.memFromExternal(2n**63n, [], 1))
    at(7); t(() => native.simPump())
    at(8); t(() => native.profilerSet())
  }],
  [73, [
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "t(() => native.asyncPoolResetPeakStats(1, Symbol.iterator))",
    "t(() => native.deviceMemInfo(new (class Stream {})()))",
    "t(() => native.moduleGetGlobal(2**32 - 1, ''))",
    "collect()",
    "t(() => native.nvtxRangeEnd(-(2n**63n)))",
    "t(() => native.memCopy2DHtod({ k: hM }, '\\ud800', 2**40, 2, new Uint8Array(64).subarray(3, 7), 'constructor', 0))",
    "t(() => native.streamRecord(1, -0.5, '-1'))",
    "t(() => native.eventElapsedTime(-(2**31), 0.5, new Uint8Array(1 << 22)))",
    "t(() => native.streamInfo(new Uint32Array(6)))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(1); t(() => native.asyncPoolResetPeakStats(1, Symbol.iterator))
    at(2); t(() => native.deviceMemInfo(new (class Stream {})()))
    at(3); t(() => native.moduleGetGlobal(2**32 - 1, ''))
    at(4); collect()
    at(5); t(() => native.nvtxRangeEnd(-(2n**63n)))
    at(6); t(() => native.memCopy2DHtod({ k: hM }, '\ud800', 2**40, 2, new Uint8Array(64).subarray(3, 7), 'constructor', 0))
    at(7); t(() => native.streamRecord(1, -0.5, '-1'))
    at(8); t(() => native.eventElapsedTime(-(2**31), 0.5, new Uint8Array(1 << 22)))
    at(9); t(() => native.streamInfo(new Uint32Array(6)))
  }],
  [74, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "t(() => native.deviceEnablePeerAccess(2**31, 2**40, { size: () => t(() => native.streamSleep(8, -1, hE)), k: 2**32, b: 0x10000n, incy: Symbol.iterator }))",
    "t(() => native.streamEndCapture(() => {}, 'sm_90'))",
    "t(() => native.moduleGetFunction([], 2**31 - 1))",
    "t(() => native.kernelSimulatedMaxPotentialClusterSize(2**53 - 1, new Uint8Array(1 << 22)))",
    "t(() => native.ncclGetUniqueId(null))",
    "t(() => native.poolNFreeBlocks())",
    "t(() => native.asyncPoolTotalBytes(Infinity))",
    "collect()",
    "collect()",
    "t(() => native.memFromExternal(hS, Buffer.alloc(64, 1), 512, () => {}, [-Infinity]))",
    "t(() => native.memAlloc(2**31 - 1, -1e308))",
    "t(() => native.pinnedUnregister(2**53))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(2); t(() => native.deviceEnablePeerAccess(2**31, 2**40, { size: () => t(() => native.streamSleep(8, -1, hE)), k: 2**32, b: 0x10000n, incy: Symbol.iterator }))
    at(3); t(() => native.streamEndCapture(() => {}, 'sm_90'))
    at(4); t(() => native.moduleGetFunction([], 2**31 - 1))
    at(5); t(() => native.kernelSimulatedMaxPotentialClusterSize(2**53 - 1, new Uint8Array(1 << 22)))
    at(6); t(() => native.ncclGetUniqueId(null))
    at(7); t(() => native.poolNFreeBlocks())
    at(8); t(() => native.asyncPoolTotalBytes(Infinity))
    at(9); collect()
    at(10); collect()
    at(11); t(() => native.memFromExternal(hS, Buffer.alloc(64, 1), 512, () => {}, [-Infinity]))
    at(12); t(() => native.memAlloc(2**31 - 1, -1e308))
    at(13); t(() => native.pinnedUnregister(2**53))
  }],
  [75, [
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "t(() => native.pinnedRegister({ device: () => hostile(), m: 42821, simulate: hED, order: null }))",
    "t(() => native.streamPriorityRange(256))",
    "t(() => native.memCopyDtod(2**53 + 2, 4294967296.5, 1, 4096, -1))",
    "t(() => native.pointerGetAttributes())",
    "t(() => native.eventElapsedTime(false, hED))",
    "t(() => native.streamWaitEvent(-0.5))",
    "t(() => native.poolFreeBytes(2**31))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(1); t(() => native.pinnedRegister({ device: () => hostile(), m: 42821, simulate: hED, order: null }))
    at(2); t(() => native.streamPriorityRange(256))
    at(3); t(() => native.memCopyDtod(2**53 + 2, 4294967296.5, 1, 4096, -1))
    at(4); t(() => native.pointerGetAttributes())
    at(5); t(() => native.eventElapsedTime(false, hED))
    at(6); t(() => native.streamWaitEvent(-0.5))
    at(7); t(() => native.poolFreeBytes(2**31))
  }],
  [76, [
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "await tick()",
    "t(() => native.streamInfo(2**31 - 1, null))",
    "t(() => native.eventSynchronizeAsync(64, Symbol.iterator))",
    "collect()",
    "t(() => native.memLive())",
    "t(() => native.pinnedPoolNFreeBlocks())",
    "t(() => native.pinnedPoolMalloc(4096, hAPool, hE1, 'row'))",
    "t(() => native.kernelSetMaxDynamicSharedSize(64, 7))",
    "t(() => native.nvtxAttached())",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(1); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(2); await tick()
    at(3); t(() => native.streamInfo(2**31 - 1, null))
    at(4); t(() => native.eventSynchronizeAsync(64, Symbol.iterator))
    at(5); collect()
    at(6); t(() => native.memLive())
    at(7); t(() => native.pinnedPoolNFreeBlocks())
    at(8); t(() => native.pinnedPoolMalloc(4096, hAPool, hE1, 'row'))
    at(9); t(() => native.kernelSetMaxDynamicSharedSize(64, 7))
    at(10); t(() => native.nvtxAttached())
    at(11); collect()
  }],
  [77, [
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "t(() => native.deviceMemInfo(1e308, () => hostile()))",
    "t(() => native.graphToDot())",
    "t(() => native.memMemset(NaN, 0, 2**53 + 2, hE, 1e308, -(2**31)))",
    "t(() => native.blasGemm(-Infinity, '', 0, 2**53 - 1, { ldb: 66186, priority: 255, interprocess: -(2**31) }, 1, new Uint32Array(6)))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(1); t(() => native.deviceMemInfo(1e308, () => hostile()))
    at(2); t(() => native.graphToDot())
    at(3); t(() => native.memMemset(NaN, 0, 2**53 + 2, hE, 1e308, -(2**31)))
    at(4); t(() => native.blasGemm(-Infinity, '', 0, 2**53 - 1, { ldb: 66186, priority: 255, interprocess: -(2**31) }, 1, new Uint32Array(6)))
  }],
  [78, [
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.kernelParamSizes(7))",
    "t(() => native.streamPriorityRange())",
    "t(() => native.deviceSynchronize(2**40, { path: Object.create(cuda.Stream.prototype), interprocess: 2**32, m: new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), simulate: Promise.resolve(1) }))",
    "t(() => native.asyncPoolCreate(hostile()))",
    "t(() => native.kernelSimulatedMaxPotentialClusterSize(2**53, 'NaN'))",
    "t(() => native.memCopy2DHtodPinned([hPin, Object.create(cuda.Event.prototype), NaN, () => 1], 7, -(2**31), 2**32, undefined, Number.MIN_VALUE, -(2**31), 256, -Infinity, true))",
    "t(() => native.ncclCommJoinAll())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(1); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(2); t(() => native.kernelParamSizes(7))
    at(3); t(() => native.streamPriorityRange())
    at(4); t(() => native.deviceSynchronize(2**40, { path: Object.create(cuda.Stream.prototype), interprocess: 2**32, m: new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), simulate: Promise.resolve(1) }))
    at(5); t(() => native.asyncPoolCreate(hostile()))
    at(6); t(() => native.kernelSimulatedMaxPotentialClusterSize(2**53, 'NaN'))
    at(7); t(() => native.memCopy2DHtodPinned([hPin, Object.create(cuda.Event.prototype), NaN, () => 1], 7, -(2**31), 2**32, undefined, Number.MIN_VALUE, -(2**31), 256, -Infinity, true))
    at(8); t(() => native.ncclCommJoinAll())
  }],
  [79, [
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.memManagedBuffer(2**32 + 0.5, { nameExpressions: hAPool, lda: hAPool }))",
    "t(() => native.streamCaptureStatus(NaN))",
    "t(() => native.pinnedUnregister())",
    "t(() => native.memAlloc(2**63, 2**32 - 1, 0x1000n))",
    "t(() => native.kernelCheckCacheConfig('float64'))",
    "t(() => native.pinnedInfo('\\0', 2**31))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(1); t(() => native.memManagedBuffer(2**32 + 0.5, { nameExpressions: hAPool, lda: hAPool }))
    at(2); t(() => native.streamCaptureStatus(NaN))
    at(3); t(() => native.pinnedUnregister())
    at(4); t(() => native.memAlloc(2**63, 2**32 - 1, 0x1000n))
    at(5); t(() => native.kernelCheckCacheConfig('float64'))
    at(6); t(() => native.pinnedInfo('\0', 2**31))
  }],
  [80, [
    "t(() => native.kernelMaxPotentialClusterSize(-Infinity, new Uint32Array([1, 1, 1, 1, 1, 1, 0]), async () => { await tick() }))",
    "t(() => native.poolTotalBytes(4294967296.5, false))",
    "t(() => native.kernelSimulatedMaxActiveBlocks(2**32 - 1, 0))",
    "t(() => native.simSetScheduler())",
    "collect()",
    "t(() => native.memAdvise(Number.EPSILON, 11506, 2**53, 'global'))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.kernelMaxPotentialClusterSize(-Infinity, new Uint32Array([1, 1, 1, 1, 1, 1, 0]), async () => { await tick() }))
    at(1); t(() => native.poolTotalBytes(4294967296.5, false))
    at(2); t(() => native.kernelSimulatedMaxActiveBlocks(2**32 - 1, 0))
    at(3); t(() => native.simSetScheduler())
    at(4); collect()
    at(5); t(() => native.memAdvise(Number.EPSILON, 11506, 2**53, 'global'))
  }],
  [81, [
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.memCopy2DDtod(2**32, -1e308, 0, new Map(), 2**40, [() => t(() => native.poolStats()), hPin, 2**64], { lda: hM, sharedMem: 'none', transB: 2n }, 2**31, -(2**53), 2n**63n))",
    "t(() => native.asyncPoolSetLimit(1, 8))",
    "t(() => native.ncclGroupStart())",
    "t(() => native.eventInfo(1))",
    "t(() => native.poolSetLimit(4096, 2**31 - 1))",
    "await tick()",
    "await tick()",
    "t(() => native.graphLaunch(2**53 + 2, -0.5))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(1); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(2); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(3); t(() => native.memCopy2DDtod(2**32, -1e308, 0, new Map(), 2**40, [() => t(() => native.poolStats()), hPin, 2**64], { lda: hM, sharedMem: 'none', transB: 2n }, 2**31, -(2**53), 2n**63n))
    at(4); t(() => native.asyncPoolSetLimit(1, 8))
    at(5); t(() => native.ncclGroupStart())
    at(6); t(() => native.eventInfo(1))
    at(7); t(() => native.poolSetLimit(4096, 2**31 - 1))
    at(8); await tick()
    at(9); await tick()
    at(10); t(() => native.graphLaunch(2**53 + 2, -0.5))
  }],
  [82, [
    "const kernelSource = 'extern \"C\" __global__ void k() {}'",
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "t(() => native.nvtxRangeStart(kernelSource, 2**31, 2**53 - 1))",
    "collect()",
    "t(() => native.streamSynchronize(16, 2**40))",
    "await tick()",
    "t(() => native.memManagedBuffer())",
    "t(() => native.asyncPoolMalloc(2, hS))",
    "t(() => native.externalBuffers(new DataView(new ArrayBuffer(8))))",
    "t(() => native.deviceCanAccessPeer(1, 2**31, 4294967296.5))",
    "t(() => native.streamBeginCapture(2**53))",
    "t(() => native.profilerSet(false))",
    "t(() => native.streamCaptureStatus())",
    "t(() => native.deviceMemInfo(2**32 - 1, hM))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const kernelSource = 'extern "C" __global__ void k() {}'
    at(1); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(2); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(3); t(() => native.nvtxRangeStart(kernelSource, 2**31, 2**53 - 1))
    at(4); collect()
    at(5); t(() => native.streamSynchronize(16, 2**40))
    at(6); await tick()
    at(7); t(() => native.memManagedBuffer())
    at(8); t(() => native.asyncPoolMalloc(2, hS))
    at(9); t(() => native.externalBuffers(new DataView(new ArrayBuffer(8))))
    at(10); t(() => native.deviceCanAccessPeer(1, 2**31, 4294967296.5))
    at(11); t(() => native.streamBeginCapture(2**53))
    at(12); t(() => native.profilerSet(false))
    at(13); t(() => native.streamCaptureStatus())
    at(14); t(() => native.deviceMemInfo(2**32 - 1, hM))
  }],
  [83, [
    "t(() => native.streamPriorityRange(0, { size: undefined, incx: async () => { await tick(); t(() => native.poolStats(Infinity)) }, beta: 2**53 }))",
    "collect()",
    "t(() => native.graphToDot())",
    "t(() => native.memLive())",
    "collect()",
    "t(() => native.graphToDot(-0))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.streamPriorityRange(0, { size: undefined, incx: async () => { await tick(); t(() => native.poolStats(Infinity)) }, beta: 2**53 }))
    at(1); collect()
    at(2); t(() => native.graphToDot())
    at(3); t(() => native.memLive())
    at(4); collect()
    at(5); t(() => native.graphToDot(-0))
  }],
  [84, [
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "t(() => native.ncclCommDestroy(53729, [new Uint32Array(3), hPPool]))",
    "t(() => native.memCopyDtoh(1, new Float64Array([4, 4, 4, 4, 4, 4, 0, 0]), 2**31))",
    "t(() => native.kernelAttributes(new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8)))",
    "t(() => native.blasAxpy(4294967296.5, '-1', 0, 0, new Uint32Array(3), 34765))",
    "t(() => native.backendInfo())",
    "t(() => native.memDesc())",
    "t(() => native.eventDestroy())",
    "t(() => native.pinnedPoolCreate())",
    "t(() => native.asyncPoolStats(-1e308))",
    "t(() => native.asyncPoolMalloc(hPool, 2, NaN, 2**64))",
    "t(() => native.blasGemm(7, 2n**53n, { translateCucomplex: new Uint8Array(64).subarray(3, 7), ldb: '__proto__' }, 1e308, -0.5, 256))",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(1); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(2); t(() => native.ncclCommDestroy(53729, [new Uint32Array(3), hPPool]))
    at(3); t(() => native.memCopyDtoh(1, new Float64Array([4, 4, 4, 4, 4, 4, 0, 0]), 2**31))
    at(4); t(() => native.kernelAttributes(new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8)))
    at(5); t(() => native.blasAxpy(4294967296.5, '-1', 0, 0, new Uint32Array(3), 34765))
    at(6); t(() => native.backendInfo())
    at(7); t(() => native.memDesc())
    at(8); t(() => native.eventDestroy())
    at(9); t(() => native.pinnedPoolCreate())
    at(10); t(() => native.asyncPoolStats(-1e308))
    at(11); t(() => native.asyncPoolMalloc(hPool, 2, NaN, 2**64))
    at(12); t(() => native.blasGemm(7, 2n**53n, { translateCucomplex: new Uint8Array(64).subarray(3, 7), ldb: '__proto__' }, 1e308, -0.5, 256))
    at(13); collect()
  }],
  [85, [
    "t(() => native.profilerSet(false))",
    "t(() => native.kernelSuggestedBlockSize(2n**57n, 255, NaN, 2**53 - 1))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.profilerSet(false))
    at(1); t(() => native.kernelSuggestedBlockSize(2n**57n, 255, NaN, 2**53 - 1))
  }],
  [86, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "t(() => native.kernelSuggestedBlockSize([new Uint8Array(1 << 22), hS, hPool, new ArrayBuffer(8, { maxByteLength: 64 })], Infinity))",
    "t(() => native.arrayBufferDetach())",
    "t(() => native.bindingDeclarations())",
    "t(() => native.asyncPoolFreeBytes())",
    "t(() => native.arrayBufferDetach(new Float64Array([4, 4, 4, 4, 4, 4, 0, 0]), 2**53 - 1))",
    "t(() => native.asyncPoolFreeAllBlocks())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(2); t(() => native.kernelSuggestedBlockSize([new Uint8Array(1 << 22), hS, hPool, new ArrayBuffer(8, { maxByteLength: 64 })], Infinity))
    at(3); t(() => native.arrayBufferDetach())
    at(4); t(() => native.bindingDeclarations())
    at(5); t(() => native.asyncPoolFreeBytes())
    at(6); t(() => native.arrayBufferDetach(new Float64Array([4, 4, 4, 4, 4, 4, 0, 0]), 2**53 - 1))
    at(7); t(() => native.asyncPoolFreeAllBlocks())
  }],
  [87, [
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "t(() => native.streamSynchronize(-(2**31), []))",
    "t(() => native.kernelSetAttribute(Number.MIN_VALUE, hPPool))",
    "collect()",
    "t(() => native.eventElapsedTime(64, 2**53 + 2, 2**64))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(1); t(() => native.streamSynchronize(-(2**31), []))
    at(2); t(() => native.kernelSetAttribute(Number.MIN_VALUE, hPPool))
    at(3); collect()
    at(4); t(() => native.eventElapsedTime(64, 2**53 + 2, 2**64))
  }],
  [88, [
    "const kernelSource = 'extern \"C\" __global__ void k() {}'",
    "t(() => native.blasGemm(async () => { await tick(); t(() => native.pinnedBuffer(64857)) }, kernelSource, -1, Number.MIN_VALUE, false, undefined, new Int8Array(5), -1n))",
    "t(() => native.asyncPoolStats(512, 'NaN'))",
    "t(() => native.poolUsedBytes(1))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const kernelSource = 'extern "C" __global__ void k() {}'
    at(1); t(() => native.blasGemm(async () => { await tick(); t(() => native.pinnedBuffer(64857)) }, kernelSource, -1, Number.MIN_VALUE, false, undefined, new Int8Array(5), -1n))
    at(2); t(() => native.asyncPoolStats(512, 'NaN'))
    at(3); t(() => native.poolUsedBytes(1))
  }],
  [89, [
    "await tick()",
    "t(() => native.streamPerThread(hostile()))",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); await tick()
    at(1); t(() => native.streamPerThread(hostile()))
    at(2); collect()
  }],
  [90, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.nvtxRangeStart('threadLocal', Number.EPSILON, 512, detached()))",
    "t(() => native.poolCreate([], { nameExpressions: undefined, simulate: 51481, ptx: 255 }))",
    "t(() => native.memPrefetch(8, -1, 255, hS, 2**53, [2n, hPin, () => { throw mark() }]))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(2); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(3); t(() => native.nvtxRangeStart('threadLocal', Number.EPSILON, 512, detached()))
    at(4); t(() => native.poolCreate([], { nameExpressions: undefined, simulate: 51481, ptx: 255 }))
    at(5); t(() => native.memPrefetch(8, -1, 255, hS, 2**53, [2n, hPin, () => { throw mark() }]))
  }],
  [91, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "t(() => native.deviceUuid(2**53 + 2, { options: hPPool, ldb: hG }))",
    "t(() => native.streamSleep(4294967296.5))",
    "t(() => native.pointerGetAttributes(2n**57n, 0x1000n))",
    "t(() => native.backendInfo(3n))",
    "t(() => native.streamPerThread(() => {}, 0.5))",
    "t(() => native.deviceUuid({ alpha: 'float32', sharedMem: hE, jitify: class {} }, new ArrayBuffer(64)))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(2); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(3); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(4); t(() => native.deviceUuid(2**53 + 2, { options: hPPool, ldb: hG }))
    at(5); t(() => native.streamSleep(4294967296.5))
    at(6); t(() => native.pointerGetAttributes(2n**57n, 0x1000n))
    at(7); t(() => native.backendInfo(3n))
    at(8); t(() => native.streamPerThread(() => {}, 0.5))
    at(9); t(() => native.deviceUuid({ alpha: 'float32', sharedMem: hE, jitify: class {} }, new ArrayBuffer(64)))
  }],
  [92, [
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "t(() => native.memAdvise(2**53, 55702, -Infinity, '1', -1))",
    "t(() => native.memDesc(4096))",
    "t(() => native.memLive(57533))",
    "await tick()",
    "t(() => native.memCopyDtod(256, 2**63, 2**32 - 1, 0, { incy: -(2**31), priority: new Uint8Array(4096) }))",
    "t(() => native.memCopy2DDtoh(4294967296.5, new DataView(new ArrayBuffer(8)), Number.EPSILON, { fileName: Number.EPSILON, nonBlocking: NaN }, -(2**53), Number.EPSILON, { order: 2**40, translateCucomplex: 1e308, translateCucomplex: new Float64Array(4), priority: async () => { await tick() } }, { then(r) { r(1) } }, hM1))",
    "t(() => native.streamLaunchHostFn(2**31, 0))",
    "t(() => native.streamLegacy(Number.MIN_VALUE, Symbol('fuzz'), hostile()))",
    "t(() => native.ncclCommCheckAsyncError())",
    "t(() => native.nvtxRangeStart('row', -1n, 44845, hED))",
    "t(() => native.memCopyDtod(-1e308, 2**64, 16, hMF, 0))",
    "t(() => native.ncclGetUniqueId())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(1); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(2); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(3); t(() => native.memAdvise(2**53, 55702, -Infinity, '1', -1))
    at(4); t(() => native.memDesc(4096))
    at(5); t(() => native.memLive(57533))
    at(6); await tick()
    at(7); t(() => native.memCopyDtod(256, 2**63, 2**32 - 1, 0, { incy: -(2**31), priority: new Uint8Array(4096) }))
    at(8); t(() => native.memCopy2DDtoh(4294967296.5, new DataView(new ArrayBuffer(8)), Number.EPSILON, { fileName: Number.EPSILON, nonBlocking: NaN }, -(2**53), Number.EPSILON, { order: 2**40, translateCucomplex: 1e308, translateCucomplex: new Float64Array(4), priority: async () => { await tick() } }, { then(r) { r(1) } }, hM1))
    at(9); t(() => native.streamLaunchHostFn(2**31, 0))
    at(10); t(() => native.streamLegacy(Number.MIN_VALUE, Symbol('fuzz'), hostile()))
    at(11); t(() => native.ncclCommCheckAsyncError())
    at(12); t(() => native.nvtxRangeStart('row', -1n, 44845, hED))
    at(13); t(() => native.memCopyDtod(-1e308, 2**64, 16, hMF, 0))
    at(14); t(() => native.ncclGetUniqueId())
  }],
  [93, [
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.asyncPoolGetLimit(hAPool))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(1); t(() => native.asyncPoolGetLimit(hAPool))
  }],
  [94, [
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "t(() => native.ncclCommCheckAsyncError(new Uint8Array(4096)))",
    "collect()",
    "t(() => native.kernelLaunch(2**32 - 1, hPool, new ArrayBuffer(64), new ArrayBuffer(0), hM1))",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(1); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(2); t(() => native.ncclCommCheckAsyncError(new Uint8Array(4096)))
    at(3); collect()
    at(4); t(() => native.kernelLaunch(2**32 - 1, hPool, new ArrayBuffer(64), new ArrayBuffer(0), hM1))
    at(5); await tick()
  }],
  [95, [
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.deviceDisablePeerAccess(1, 2**31 - 1))",
    "t(() => native.asyncPoolResetPeakStats(detached()))",
    "t(() => native.poolStats(0.5))",
    "collect()",
    "t(() => native.deviceProps(256, Promise.resolve(1)))",
    "collect()",
    "t(() => native.graphToDot(0, 55498))",
    "t(() => native.asyncPoolFreeBytes(2**32, { m: hM, options: hAPool, k: new Float64Array(4) }))",
    "await tick()",
    "t(() => native.streamExternal([], 2**53 + 2, hPool, 2n**57n))",
    "t(() => native.callbacksCaptured())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(1); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(2); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(3); t(() => native.deviceDisablePeerAccess(1, 2**31 - 1))
    at(4); t(() => native.asyncPoolResetPeakStats(detached()))
    at(5); t(() => native.poolStats(0.5))
    at(6); collect()
    at(7); t(() => native.deviceProps(256, Promise.resolve(1)))
    at(8); collect()
    at(9); t(() => native.graphToDot(0, 55498))
    at(10); t(() => native.asyncPoolFreeBytes(2**32, { m: hM, options: hAPool, k: new Float64Array(4) }))
    at(11); await tick()
    at(12); t(() => native.streamExternal([], 2**53 + 2, hPool, 2n**57n))
    at(13); t(() => native.callbacksCaptured())
  }],
  [96, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "t(() => native.deviceProps(2**31 - 1, hS1))",
    "t(() => native.memCopyHtod(hE1, -0, -0.5, new Uint8Array(16)))",
    "t(() => native.ncclVersion([hSL]))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(2); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(3); t(() => native.deviceProps(2**31 - 1, hS1))
    at(4); t(() => native.memCopyHtod(hE1, -0, -0.5, new Uint8Array(16)))
    at(5); t(() => native.ncclVersion([hSL]))
  }],
  [97, [
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "t(() => native.eventCreate(0, { disableTiming: 38243 }, true))",
    "t(() => native.memCopyDtoh(1e308, new Uint8Array(0), hSL, 2**32 - 1))",
    "t(() => native.simPump('column'))",
    "t(() => native.asyncPoolResetPeakStats(1))",
    "t(() => native.nvtxRangePop(new Uint8Array(4096)))",
    "t(() => native.simSetScheduler())",
    "t(() => native.moduleLoad({}, hostile(), -0.5, new DataView(new ArrayBuffer(8))))",
    "t(() => native.nvtxRangePush('none', Number.MIN_VALUE))",
    "t(() => native.ncclCommCheckAsyncError())",
    "t(() => native.ncclGetUniqueId())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(1); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(2); t(() => native.eventCreate(0, { disableTiming: 38243 }, true))
    at(3); t(() => native.memCopyDtoh(1e308, new Uint8Array(0), hSL, 2**32 - 1))
    at(4); t(() => native.simPump('column'))
    at(5); t(() => native.asyncPoolResetPeakStats(1))
    at(6); t(() => native.nvtxRangePop(new Uint8Array(4096)))
    at(7); t(() => native.simSetScheduler())
    at(8); t(() => native.moduleLoad({}, hostile(), -0.5, new DataView(new ArrayBuffer(8))))
    at(9); t(() => native.nvtxRangePush('none', Number.MIN_VALUE))
    at(10); t(() => native.ncclCommCheckAsyncError())
    at(11); t(() => native.ncclGetUniqueId())
  }],
  [98, [
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.deviceProps(hE))",
    "t(() => native.kernelSetMaxDynamicSharedSize(Object.assign(new Array(4096), { 7: \"x\" })))",
    "t(() => native.graphLaunch(7, 256))",
    "t(() => native.pinnedPoolNFreeBlocks(hE, hSL))",
    "t(() => native.nvtxAttached(hPin))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(1); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(2); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(3); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(4); t(() => native.deviceProps(hE))
    at(5); t(() => native.kernelSetMaxDynamicSharedSize(Object.assign(new Array(4096), { 7: "x" })))
    at(6); t(() => native.graphLaunch(7, 256))
    at(7); t(() => native.pinnedPoolNFreeBlocks(hE, hSL))
    at(8); t(() => native.nvtxAttached(hPin))
  }],
  [99, [
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "t(() => native.streamLegacy(() => {}))",
    "t(() => native.pinnedRegister(new DataView(new ArrayBuffer(8)), new Uint8Array(new SharedArrayBuffer(32)), hM1))",
    "t(() => native.moduleGetGlobal(4096, 'column', () => 1))",
    "t(() => native.blasAxpy(2**53, 'threadLocal', Number.MIN_VALUE, 2**31 - 1, new Uint8Array(1 << 22), () => 1))",
    "t(() => native.streamLaunchHostFn(256))",
    "collect()",
    "t(() => native.kernelParamSizes({  }, new ArrayBuffer(64)))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(1); t(() => native.streamLegacy(() => {}))
    at(2); t(() => native.pinnedRegister(new DataView(new ArrayBuffer(8)), new Uint8Array(new SharedArrayBuffer(32)), hM1))
    at(3); t(() => native.moduleGetGlobal(4096, 'column', () => 1))
    at(4); t(() => native.blasAxpy(2**53, 'threadLocal', Number.MIN_VALUE, 2**31 - 1, new Uint8Array(1 << 22), () => 1))
    at(5); t(() => native.streamLaunchHostFn(256))
    at(6); collect()
    at(7); t(() => native.kernelParamSizes({  }, new ArrayBuffer(64)))
  }],
  [100, [
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.arrayBufferDetach(hSD, 2**31))",
    "t(() => native.eventFromIpc({}, new Uint8Array(4096), new Uint8Array(new SharedArrayBuffer(32)), new Uint8Array(4096)))",
    "collect()",
    "t(() => native.graphHostFnCount(7))",
    "t(() => native.nvtxRangeEnd())",
    "collect()",
    "t(() => native.kernelSetAttribute(-(2**53), hMF))",
    "t(() => native.deviceCanAccessPeer(2**31, NaN))",
    "t(() => native.poolStats(256))",
    "t(() => native.memAlloc([new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8), new DataView(new ArrayBuffer(8))], 2**31, hAPool))",
    "t(() => native.pinnedRead(-0.5, -1e308, new Float32Array(3), {  }))",
    "t(() => native.kernelCheckCacheConfig('\\0', [2n, new Uint32Array(6), new Map()]))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(1); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(2); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(3); t(() => native.arrayBufferDetach(hSD, 2**31))
    at(4); t(() => native.eventFromIpc({}, new Uint8Array(4096), new Uint8Array(new SharedArrayBuffer(32)), new Uint8Array(4096)))
    at(5); collect()
    at(6); t(() => native.graphHostFnCount(7))
    at(7); t(() => native.nvtxRangeEnd())
    at(8); collect()
    at(9); t(() => native.kernelSetAttribute(-(2**53), hMF))
    at(10); t(() => native.deviceCanAccessPeer(2**31, NaN))
    at(11); t(() => native.poolStats(256))
    at(12); t(() => native.memAlloc([new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8), new DataView(new ArrayBuffer(8))], 2**31, hAPool))
    at(13); t(() => native.pinnedRead(-0.5, -1e308, new Float32Array(3), {  }))
    at(14); t(() => native.kernelCheckCacheConfig('\0', [2n, new Uint32Array(6), new Map()]))
  }],
  [101, [
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "t(() => native.memCopyDtod(2**32 + 0.5, { translateCucomplex: -0, transB: Object.assign(new Array(4096), { 7: \"x\" }), b: hSL, transB: 2**32 + 0.5 }, 2**32, 0.5, 2**64, 2**32 - 1, 862))",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(1); t(() => native.memCopyDtod(2**32 + 0.5, { translateCucomplex: -0, transB: Object.assign(new Array(4096), { 7: "x" }), b: hSL, transB: 2**32 + 0.5 }, 2**32, 0.5, 2**64, 2**32 - 1, 862))
    at(2); collect()
  }],
  [102, [
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "await tick()",
    "t(() => native.nvtxRangeEnd())",
    "t(() => native.asyncPoolUsedBytes(hAPool, 2**40))",
    "await tick()",
    "await tick()",
    "t(() => native.moduleLoad(['float16', Promise.resolve(1), new Float64Array(4), 2n**64n], 16, new Float32Array(3), hMF))",
    "t(() => native.devicePciBusId(2**53 - 1))",
    "t(() => native.deviceEnablePeerAccess(2**32))",
    "t(() => native.ncclCommCheckAsyncError())",
    "t(() => native.kernelSimulatedSuggestedBlockSize(4294967296.5, 8))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(1); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(2); await tick()
    at(3); t(() => native.nvtxRangeEnd())
    at(4); t(() => native.asyncPoolUsedBytes(hAPool, 2**40))
    at(5); await tick()
    at(6); await tick()
    at(7); t(() => native.moduleLoad(['float16', Promise.resolve(1), new Float64Array(4), 2n**64n], 16, new Float32Array(3), hMF))
    at(8); t(() => native.devicePciBusId(2**53 - 1))
    at(9); t(() => native.deviceEnablePeerAccess(2**32))
    at(10); t(() => native.ncclCommCheckAsyncError())
    at(11); t(() => native.kernelSimulatedSuggestedBlockSize(4294967296.5, 8))
  }],
  [103, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "t(() => native.streamPriorityRange(-1))",
    "t(() => native.kernelMaxPotentialClusterSize(4294967296.5, new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), hE))",
    "collect()",
    "t(() => native.registerErrorClass(() => { throw mark() }, hS))",
    "t(() => native.asyncPoolUsedBytes())",
    "t(() => native.simPump(['-O3']))",
    "t(() => native.poolFreeAllBlocks(4096))",
    "await tick()",
    "t(() => native.ncclCommJoinAll())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(2); t(() => native.streamPriorityRange(-1))
    at(3); t(() => native.kernelMaxPotentialClusterSize(4294967296.5, new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), hE))
    at(4); collect()
    at(5); t(() => native.registerErrorClass(() => { throw mark() }, hS))
    at(6); t(() => native.asyncPoolUsedBytes())
    at(7); t(() => native.simPump(['-O3']))
    at(8); t(() => native.poolFreeAllBlocks(4096))
    at(9); await tick()
    at(10); t(() => native.ncclCommJoinAll())
  }],
  [104, [
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "t(() => native.streamCaptureStatus(hSL))",
    "t(() => native.blasAxpy(7, 'float32', Infinity, 2**32 + 0.5, new ArrayBuffer(0), { jitify: -(2n**63n), fileName: new Float32Array(3) }))",
    "t(() => native.profilerSet(false, [false]))",
    "t(() => native.ncclCommCheckAsyncError(4294967296.5))",
    "t(() => native.deviceByPciBusId())",
    "t(() => native.memCopy2DHtodPinned(0, -0, 256, 'uint64', -0, 1, 2**63, 2**32 + 0.5, 1e308))",
    "t(() => native.nvtxRangePush(new Proxy([], { get(t, k) { if (k === \"length\") return 2**32 - 1; return Reflect.get(t, k) } }), -(2**53), Infinity))",
    "t(() => native.pinnedFree())",
    "t(() => native.memFromIpcHandle(64, new ArrayBuffer(64), NaN))",
    "t(() => native.asyncPoolMalloc(2n**64n, Number.MIN_VALUE))",
    "t(() => native.graphDestroy())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(1); t(() => native.streamCaptureStatus(hSL))
    at(2); t(() => native.blasAxpy(7, 'float32', Infinity, 2**32 + 0.5, new ArrayBuffer(0), { jitify: -(2n**63n), fileName: new Float32Array(3) }))
    at(3); t(() => native.profilerSet(false, [false]))
    at(4); t(() => native.ncclCommCheckAsyncError(4294967296.5))
    at(5); t(() => native.deviceByPciBusId())
    at(6); t(() => native.memCopy2DHtodPinned(0, -0, 256, 'uint64', -0, 1, 2**63, 2**32 + 0.5, 1e308))
    at(7); t(() => native.nvtxRangePush(new Proxy([], { get(t, k) { if (k === "length") return 2**32 - 1; return Reflect.get(t, k) } }), -(2**53), Infinity))
    at(8); t(() => native.pinnedFree())
    at(9); t(() => native.memFromIpcHandle(64, new ArrayBuffer(64), NaN))
    at(10); t(() => native.asyncPoolMalloc(2n**64n, Number.MIN_VALUE))
    at(11); t(() => native.graphDestroy())
  }],
  [105, [
    "t(() => native.callbacksPending())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.callbacksPending())
  }],
  [106, [
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "await tick()",
    "t(() => native.nvrtcCompile('row', 'sm_90', [], [], new Float32Array(3), '\\0'))",
    "t(() => native.kernelSetMaxDynamicSharedSize(hSD))",
    "t(() => native.simSetScheduler())",
    "t(() => native.pinnedInfo(detached()))",
    "t(() => native.deviceEnablePeerAccess(2**53 - 1, 2**31, { transA: 8450, stream: -(2n**63n) }))",
    "t(() => native.streamPerThread(2n**64n - 1n, 2**32 - 1))",
    "t(() => native.streamLegacy(() => {}, 0))",
    "t(() => native.callbacksCaptured(new ArrayBuffer(0)))",
    "t(() => native.kernelSetCacheConfig(new DataView(new ArrayBuffer(8)), {  }))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(1); await tick()
    at(2); t(() => native.nvrtcCompile('row', 'sm_90', [], [], new Float32Array(3), '\0'))
    at(3); t(() => native.kernelSetMaxDynamicSharedSize(hSD))
    at(4); t(() => native.simSetScheduler())
    at(5); t(() => native.pinnedInfo(detached()))
    at(6); t(() => native.deviceEnablePeerAccess(2**53 - 1, 2**31, { transA: 8450, stream: -(2n**63n) }))
    at(7); t(() => native.streamPerThread(2n**64n - 1n, 2**32 - 1))
    at(8); t(() => native.streamLegacy(() => {}, 0))
    at(9); t(() => native.callbacksCaptured(new ArrayBuffer(0)))
    at(10); t(() => native.kernelSetCacheConfig(new DataView(new ArrayBuffer(8)), {  }))
  }],
  [107, [
    "t(() => native.deviceDisablePeerAccess(/re/))",
    "t(() => native.streamExternal(hostile(), 256, 0x10000n))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.deviceDisablePeerAccess(/re/))
    at(1); t(() => native.streamExternal(hostile(), 256, 0x10000n))
  }],
  [108, [
    "t(() => native.streamExternal(hostile(), 3n))",
    "await tick()",
    "t(() => native.poolResetPeakStats())",
    "await tick()",
    "t(() => native.asyncPoolSetLimit(2, 256))",
    "t(() => native.deviceMemInfo())",
    "t(() => native.ncclCommDestroy(Number.EPSILON))",
    "t(() => native.profilerActive())",
    "t(() => native.ncclCommAbort(16))",
    "collect()",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.streamExternal(hostile(), 3n))
    at(1); await tick()
    at(2); t(() => native.poolResetPeakStats())
    at(3); await tick()
    at(4); t(() => native.asyncPoolSetLimit(2, 256))
    at(5); t(() => native.deviceMemInfo())
    at(6); t(() => native.ncclCommDestroy(Number.EPSILON))
    at(7); t(() => native.profilerActive())
    at(8); t(() => native.ncclCommAbort(16))
    at(9); collect()
    at(10); collect()
  }],
  [109, [
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.eventElapsedTime(Number.MIN_VALUE, hPool))",
    "t(() => native.eventSynchronizeAsync(Number.EPSILON, { options: hM }))",
    "t(() => native.pinnedInfo(2**63, hPin))",
    "t(() => native.poolFreeBytes(2**53 + 2, { then(r) { r(1) } }))",
    "await tick()",
    "t(() => native.moduleLoad(() => {}, NaN, new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 }))))",
    "t(() => native.blasGemm({ order: 30038, block: detached() }, 'sm_90', 64, hMF, NaN, -1, new ArrayBuffer(0)))",
    "t(() => native.deviceEnablePeerAccess(35664, 1))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(1); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(2); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(3); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(4); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(5); t(() => native.eventElapsedTime(Number.MIN_VALUE, hPool))
    at(6); t(() => native.eventSynchronizeAsync(Number.EPSILON, { options: hM }))
    at(7); t(() => native.pinnedInfo(2**63, hPin))
    at(8); t(() => native.poolFreeBytes(2**53 + 2, { then(r) { r(1) } }))
    at(9); await tick()
    at(10); t(() => native.moduleLoad(() => {}, NaN, new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 }))))
    at(11); t(() => native.blasGemm({ order: 30038, block: detached() }, 'sm_90', 64, hMF, NaN, -1, new ArrayBuffer(0)))
    at(12); t(() => native.deviceEnablePeerAccess(35664, 1))
  }],
  [110, [
    "collect()",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); collect()
    at(1); await tick()
  }],
  [111, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "t(() => native.nvtxRangePush('int8', 0x10000n, { ldb: '0x10', device: new ArrayBuffer(0), sharedMem: () => t(() => native.streamExternal(hG, 256, 2n**64n - 1n)), b: 2n**64n - 1n }))",
    "t(() => native.graphUpdate(8, 2**64, hE1))",
    "t(() => native.streamQuery())",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(2); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(3); t(() => native.nvtxRangePush('int8', 0x10000n, { ldb: '0x10', device: new ArrayBuffer(0), sharedMem: () => t(() => native.streamExternal(hG, 256, 2n**64n - 1n)), b: 2n**64n - 1n }))
    at(4); t(() => native.graphUpdate(8, 2**64, hE1))
    at(5); t(() => native.streamQuery())
    at(6); collect()
  }],
  [112, [
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "t(() => native.deviceCount(Number.MIN_VALUE))",
    "t(() => native.pinnedPoolFreeAllBlocks(NaN, hED))",
    "t(() => native.memMemset(8, Symbol('fuzz'), 'none', 256, 4294967296.5))",
    "t(() => native.poolResetPeakStats(1e308, new ArrayBuffer(0)))",
    "collect()",
    "t(() => native.memPrefetch(2**32 - 1, 64, 2**53, { m: 30906 }, 2**31, {  }))",
    "t(() => native.memIpcHandle(2**53 - 1))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(1); t(() => native.deviceCount(Number.MIN_VALUE))
    at(2); t(() => native.pinnedPoolFreeAllBlocks(NaN, hED))
    at(3); t(() => native.memMemset(8, Symbol('fuzz'), 'none', 256, 4294967296.5))
    at(4); t(() => native.poolResetPeakStats(1e308, new ArrayBuffer(0)))
    at(5); collect()
    at(6); t(() => native.memPrefetch(2**32 - 1, 64, 2**53, { m: 30906 }, 2**31, {  }))
    at(7); t(() => native.memIpcHandle(2**53 - 1))
  }],
  [113, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "t(() => native.streamPriorityRange(2**64))",
    "t(() => native.deviceSynchronize(false, -0))",
    "collect()",
    "t(() => native.graphDestroy(hG))",
    "await tick()",
    "t(() => native.kernelSuggestedBlockSize(-0.5, -Infinity, 256))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(2); t(() => native.streamPriorityRange(2**64))
    at(3); t(() => native.deviceSynchronize(false, -0))
    at(4); collect()
    at(5); t(() => native.graphDestroy(hG))
    at(6); await tick()
    at(7); t(() => native.kernelSuggestedBlockSize(-0.5, -Infinity, 256))
  }],
  [114, [
    "t(() => native.graphUpdate(new Float32Array(3), 0, { then(r) { r(1) } }))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.graphUpdate(new Float32Array(3), 0, { then(r) { r(1) } }))
  }],
  [115, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "t(() => native.memCopy2DDtohPinned(2, 2, { stream: -(2n**63n) }, 1, hE1, NaN, -(2**31), -Infinity, -(2**31), [new WebAssembly.Memory({ initial: 1 }).buffer, hAPool]))",
    "t(() => native.kernelSimulatedMaxPotentialClusterSize(2**32 - 1, async () => { await tick(); t(() => native.memCopy2DDtohPinned(512, 256, 'int8', 2**32, 8, 512, new ArrayBuffer(64), hS, 2**40)) }, []))",
    "collect()",
    "t(() => native.kernelMaxActiveClusters(Number.MIN_VALUE, new Uint32Array([1, 1, 1, 1, 1, 1, 0])))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(2); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(3); t(() => native.memCopy2DDtohPinned(2, 2, { stream: -(2n**63n) }, 1, hE1, NaN, -(2**31), -Infinity, -(2**31), [new WebAssembly.Memory({ initial: 1 }).buffer, hAPool]))
    at(4); t(() => native.kernelSimulatedMaxPotentialClusterSize(2**32 - 1, async () => { await tick(); t(() => native.memCopy2DDtohPinned(512, 256, 'int8', 2**32, 8, 512, new ArrayBuffer(64), hS, 2**40)) }, []))
    at(5); collect()
    at(6); t(() => native.kernelMaxActiveClusters(Number.MIN_VALUE, new Uint32Array([1, 1, 1, 1, 1, 1, 0])))
  }],
  [116, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.streamPerThread({}, Infinity, 5064))",
    "t(() => native.deviceDisablePeerAccess(0, []))",
    "t(() => native.poolSetLimit(1e308, [], 2**32 - 1))",
    "t(() => native.asyncPoolFreeAllBlocks(Number.EPSILON, hE))",
    "t(() => native.memCopyHtod(256, -0, -0, -0, [0, [1, 2, 3]]))",
    "t(() => native.registerErrorClass())",
    "t(() => native.memCopy2DDtohPinned(255, 2**40, 512, 16, 1, 256, Symbol.iterator, 1, 4096, [hPool, new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8), new Float32Array(3), new WebAssembly.Memory({ initial: 1 }).buffer]))",
    "t(() => native.asyncPoolCreate(() => {}))",
    "t(() => native.ncclCommJoinAll(new Uint8Array(64).subarray(3, 7), hS1))",
    "t(() => native.asyncPoolGetLimit(64, hPin))",
    "t(() => native.kernelCheckAttribute('\\0', 2**40, async () => { await tick(); t(() => native.ncclCommCreate(undefined, '-1', 27900, new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), 2**63, ['-O3'])) }))",
    "t(() => native.deviceUuid())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(2); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(3); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(4); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(5); t(() => native.streamPerThread({}, Infinity, 5064))
    at(6); t(() => native.deviceDisablePeerAccess(0, []))
    at(7); t(() => native.poolSetLimit(1e308, [], 2**32 - 1))
    at(8); t(() => native.asyncPoolFreeAllBlocks(Number.EPSILON, hE))
    at(9); t(() => native.memCopyHtod(256, -0, -0, -0, [0, [1, 2, 3]]))
    at(10); t(() => native.registerErrorClass())
    at(11); t(() => native.memCopy2DDtohPinned(255, 2**40, 512, 16, 1, 256, Symbol.iterator, 1, 4096, [hPool, new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8), new Float32Array(3), new WebAssembly.Memory({ initial: 1 }).buffer]))
    at(12); t(() => native.asyncPoolCreate(() => {}))
    at(13); t(() => native.ncclCommJoinAll(new Uint8Array(64).subarray(3, 7), hS1))
    at(14); t(() => native.asyncPoolGetLimit(64, hPin))
    at(15); t(() => native.kernelCheckAttribute('\0', 2**40, async () => { await tick(); t(() => native.ncclCommCreate(undefined, '-1', 27900, new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 })), 2**63, ['-O3'])) }))
    at(16); t(() => native.deviceUuid())
  }],
  [117, [
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "t(() => native.kernelSetAttribute(512, 'threadLocal', NaN))",
    "t(() => native.pinnedPoolMalloc(hostile(), 8, 255))",
    "t(() => native.streamInfo(hSD, { alpha: () => hostile(), order: hM }))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(1); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(2); t(() => native.kernelSetAttribute(512, 'threadLocal', NaN))
    at(3); t(() => native.pinnedPoolMalloc(hostile(), 8, 255))
    at(4); t(() => native.streamInfo(hSD, { alpha: () => hostile(), order: hM }))
  }],
  [118, [
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "t(() => native.deviceSynchronize())",
    "t(() => native.memCopyDtod(0.5, 64, -1e308, 2**32 - 1, hPPool))",
    "t(() => native.pinnedRead(2**32, 2**32 + 0.5, hM, null))",
    "t(() => native.poolMalloc(Infinity, -(2**53), -(2**31)))",
    "t(() => native.arrayBufferDetach(new Uint32Array(6)))",
    "t(() => native.backendInfo(async () => { await tick() }))",
    "collect()",
    "t(() => native.memIpcHandle(512))",
    "t(() => native.eventInfo(2**53))",
    "t(() => native.memFromIpcHandle(0.5, new Uint8Array(64).subarray(3, 7), { size: hSL, transB: new ArrayBuffer(0), disableTiming: () => {}, incx: 2 }, 2**53))",
    "t(() => native.asyncPoolResetPeakStats(18650, hE1))",
    "t(() => native.pinnedPoolMalloc(() => {}, 2, Number.EPSILON, detached()))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(1); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(2); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(3); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(4); t(() => native.deviceSynchronize())
    at(5); t(() => native.memCopyDtod(0.5, 64, -1e308, 2**32 - 1, hPPool))
    at(6); t(() => native.pinnedRead(2**32, 2**32 + 0.5, hM, null))
    at(7); t(() => native.poolMalloc(Infinity, -(2**53), -(2**31)))
    at(8); t(() => native.arrayBufferDetach(new Uint32Array(6)))
    at(9); t(() => native.backendInfo(async () => { await tick() }))
    at(10); collect()
    at(11); t(() => native.memIpcHandle(512))
    at(12); t(() => native.eventInfo(2**53))
    at(13); t(() => native.memFromIpcHandle(0.5, new Uint8Array(64).subarray(3, 7), { size: hSL, transB: new ArrayBuffer(0), disableTiming: () => {}, incx: 2 }, 2**53))
    at(14); t(() => native.asyncPoolResetPeakStats(18650, hE1))
    at(15); t(() => native.pinnedPoolMalloc(() => {}, 2, Number.EPSILON, detached()))
  }],
  [119, [
    "t(() => native.deviceEnablePeerAccess(-1))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.deviceEnablePeerAccess(-1))
  }],
  [120, [
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "t(() => native.ncclCommAbort(64))",
    "t(() => native.ncclCommAbort())",
    "t(() => native.blasAxpy(1, '\\0', -1, 1))",
    "t(() => native.ncclGroupEnd())",
    "t(() => native.poolCreate({}, '__proto__', {  }))",
    "t(() => native.eventInfo(64, hPPool))",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(1); t(() => native.ncclCommAbort(64))
    at(2); t(() => native.ncclCommAbort())
    at(3); t(() => native.blasAxpy(1, '\0', -1, 1))
    at(4); t(() => native.ncclGroupEnd())
    at(5); t(() => native.poolCreate({}, '__proto__', {  }))
    at(6); t(() => native.eventInfo(64, hPPool))
    at(7); collect()
  }],
  [121, [
    "t(() => native.poolGetLimit())",
    "t(() => native.memIpcHandle())",
    "t(() => native.eventDestroy('__proto__', 2**53 + 2))",
    "t(() => native.nvtxMark('-1', 64, Number.EPSILON, new Uint8Array(4096)))",
    "t(() => native.callbacksCaptured())",
    "t(() => native.pointerGetAttributes(0n))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.poolGetLimit())
    at(1); t(() => native.memIpcHandle())
    at(2); t(() => native.eventDestroy('__proto__', 2**53 + 2))
    at(3); t(() => native.nvtxMark('-1', 64, Number.EPSILON, new Uint8Array(4096)))
    at(4); t(() => native.callbacksCaptured())
    at(5); t(() => native.pointerGetAttributes(0n))
  }],
  [122, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "t(() => native.graphLaunch(new Uint8Array(1 << 22), 4096))",
    "t(() => native.pinnedPoolMalloc({}, 4294967296.5))",
    "t(() => native.graphToDot(-0, '0x10'))",
    "t(() => native.asyncPoolSetLimit(hPool, 2**53 + 2, { a: undefined, options: 57136, ldb: '-1' }))",
    "t(() => native.streamWaitEvent(256, -0.5))",
    "t(() => native.releaseLibraryHandles())",
    "t(() => native.deviceSynchronize())",
    "t(() => native.deviceCusolverHandle(64, hS1))",
    "collect()",
    "t(() => native.simSetScheduler())",
    "t(() => native.memCopyHtodPinned(new Float32Array(3), { dtype: detached(), translateCucomplex: hMF }, Infinity, 4096, false, 2**31, /re/))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(2); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(3); t(() => native.graphLaunch(new Uint8Array(1 << 22), 4096))
    at(4); t(() => native.pinnedPoolMalloc({}, 4294967296.5))
    at(5); t(() => native.graphToDot(-0, '0x10'))
    at(6); t(() => native.asyncPoolSetLimit(hPool, 2**53 + 2, { a: undefined, options: 57136, ldb: '-1' }))
    at(7); t(() => native.streamWaitEvent(256, -0.5))
    at(8); t(() => native.releaseLibraryHandles())
    at(9); t(() => native.deviceSynchronize())
    at(10); t(() => native.deviceCusolverHandle(64, hS1))
    at(11); collect()
    at(12); t(() => native.simSetScheduler())
    at(13); t(() => native.memCopyHtodPinned(new Float32Array(3), { dtype: detached(), translateCucomplex: hMF }, Infinity, 4096, false, 2**31, /re/))
  }],
  [123, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.pinnedWrite(2**53, 0))",
    "t(() => native.ncclGetUniqueId({ device: hS1 }))",
    "t(() => native.memAlloc(-1, { a: -Infinity }, hSL))",
    "t(() => native.streamRecord(hS1, { transA: hAPool }))",
    "t(() => native.streamBeginCapture(255, 'NaN'))",
    "t(() => native.memOwn({ jitify: 'int8', cubin: undefined, sharedMem: hSD }))",
    "t(() => native.backendInfo())",
    "t(() => native.deviceProps())",
    "t(() => native.memCopy2DHtod(0.5, hPin, 64, 0.5, new Uint8Array(new SharedArrayBuffer(32)), 512, () => 1, 2**40, hE))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(2); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(3); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(4); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(5); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(6); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(7); t(() => native.pinnedWrite(2**53, 0))
    at(8); t(() => native.ncclGetUniqueId({ device: hS1 }))
    at(9); t(() => native.memAlloc(-1, { a: -Infinity }, hSL))
    at(10); t(() => native.streamRecord(hS1, { transA: hAPool }))
    at(11); t(() => native.streamBeginCapture(255, 'NaN'))
    at(12); t(() => native.memOwn({ jitify: 'int8', cubin: undefined, sharedMem: hSD }))
    at(13); t(() => native.backendInfo())
    at(14); t(() => native.deviceProps())
    at(15); t(() => native.memCopy2DHtod(0.5, hPin, 64, 0.5, new Uint8Array(new SharedArrayBuffer(32)), 512, () => 1, 2**40, hE))
  }],
  [124, [
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "t(() => native.externalBuffers())",
    "collect()",
    "t(() => native.eventInfo(Number.EPSILON, { sharedMem: hM1, fileName: NaN, interprocess: true }))",
    "t(() => native.nvrtcCompile('-1', () => {}, Object.assign(new Array(4096), { 7: \"x\" }), Object.assign(new Array(4096), { 7: \"x\" }), '\\0'))",
    "t(() => native.streamExternal(hostile(), -(2**31)))",
    "t(() => native.moduleGetFunction(() => {}, 4294967296.5))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(1); t(() => native.externalBuffers())
    at(2); collect()
    at(3); t(() => native.eventInfo(Number.EPSILON, { sharedMem: hM1, fileName: NaN, interprocess: true }))
    at(4); t(() => native.nvrtcCompile('-1', () => {}, Object.assign(new Array(4096), { 7: "x" }), Object.assign(new Array(4096), { 7: "x" }), '\0'))
    at(5); t(() => native.streamExternal(hostile(), -(2**31)))
    at(6); t(() => native.moduleGetFunction(() => {}, 4294967296.5))
  }],
  [125, [
    "t(() => native.streamLaunchHostFn(1))",
    "t(() => native.asyncPoolCreate([], Number.MIN_VALUE))",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.streamLaunchHostFn(1))
    at(1); t(() => native.asyncPoolCreate([], Number.MIN_VALUE))
    at(2); collect()
  }],
  [126, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "collect()",
    "t(() => native.nvrtcCompile('float32', 'none', [], hostile(), {  }, 'column', [undefined, 27679]))",
    "t(() => native.ncclCommCreate(() => {}, 0x1000n, -1e308, 512, Promise.resolve(1), hAPool))",
    "t(() => native.memManagedBuffer(false))",
    "await tick()",
    "t(() => native.streamSleep(hS1, { fraction: 1e308, nameExpressions: 2448, nameExpressions: hED, path: hG }))",
    "await tick()",
    "t(() => native.poolFreeBytes())",
    "t(() => native.memAdvise(2**32, 64, [hAPool, hS, hPPool], '__proto__', 2**32))",
    "collect()",
    "t(() => native.kernelCheckAttribute('float32', 4096))",
    "t(() => native.poolResetPeakStats(Number.EPSILON, new ArrayBuffer(0)))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(2); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(3); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(4); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(5); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(6); collect()
    at(7); t(() => native.nvrtcCompile('float32', 'none', [], hostile(), {  }, 'column', [undefined, 27679]))
    at(8); t(() => native.ncclCommCreate(() => {}, 0x1000n, -1e308, 512, Promise.resolve(1), hAPool))
    at(9); t(() => native.memManagedBuffer(false))
    at(10); await tick()
    at(11); t(() => native.streamSleep(hS1, { fraction: 1e308, nameExpressions: 2448, nameExpressions: hED, path: hG }))
    at(12); await tick()
    at(13); t(() => native.poolFreeBytes())
    at(14); t(() => native.memAdvise(2**32, 64, [hAPool, hS, hPPool], '__proto__', 2**32))
    at(15); collect()
    at(16); t(() => native.kernelCheckAttribute('float32', 4096))
    at(17); t(() => native.poolResetPeakStats(Number.EPSILON, new ArrayBuffer(0)))
  }],
  [127, [
    "collect()",
    "t(() => native.simPump(Object.defineProperty({}, \"device\", { get() { throw mark() } })))",
    "t(() => native.eventIpcHandle())",
    "t(() => native.eventElapsedTime(2**53 + 2))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); collect()
    at(1); t(() => native.simPump(Object.defineProperty({}, "device", { get() { throw mark() } })))
    at(2); t(() => native.eventIpcHandle())
    at(3); t(() => native.eventElapsedTime(2**53 + 2))
  }],
  [128, [
    "collect()",
    "t(() => native.memOwn(hostile(), -0.5))",
    "t(() => native.poolFreeBytes(detached(), { device: Object.assign(new Array(4096), { 7: \"x\" }) }))",
    "collect()",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); collect()
    at(1); t(() => native.memOwn(hostile(), -0.5))
    at(2); t(() => native.poolFreeBytes(detached(), { device: Object.assign(new Array(4096), { 7: "x" }) }))
    at(3); collect()
    at(4); collect()
  }],
  [129, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "await tick()",
    "t(() => native.poolNFreeBlocks(-Infinity))",
    "t(() => native.asyncPoolTotalBytes(hS, '__proto__'))",
    "t(() => native.kernelLaunch(2**32, 4096, new Uint8Array(new SharedArrayBuffer(32))))",
    "t(() => native.eventIpcHandle(2**53 - 1))",
    "t(() => native.streamDestroy(-0.5))",
    "await tick()",
    "t(() => native.deviceDisablePeerAccess(2**53 - 1, { device: [] }))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); await tick()
    at(2); t(() => native.poolNFreeBlocks(-Infinity))
    at(3); t(() => native.asyncPoolTotalBytes(hS, '__proto__'))
    at(4); t(() => native.kernelLaunch(2**32, 4096, new Uint8Array(new SharedArrayBuffer(32))))
    at(5); t(() => native.eventIpcHandle(2**53 - 1))
    at(6); t(() => native.streamDestroy(-0.5))
    at(7); await tick()
    at(8); t(() => native.deviceDisablePeerAccess(2**53 - 1, { device: [] }))
  }],
  [130, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "t(() => native.graphUpload(0, hS, hED))",
    "t(() => native.ncclCommJoin(2, [new Proxy([], { get(t, k) { if (k === \"length\") return 2**32 - 1; return Reflect.get(t, k) } }), 2n, 40480]))",
    "t(() => native.pinnedWrite(0, 2**32 - 1, new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8)))",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(2); t(() => native.graphUpload(0, hS, hED))
    at(3); t(() => native.ncclCommJoin(2, [new Proxy([], { get(t, k) { if (k === "length") return 2**32 - 1; return Reflect.get(t, k) } }), 2n, 40480]))
    at(4); t(() => native.pinnedWrite(0, 2**32 - 1, new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8)))
    at(5); await tick()
  }],
  [131, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "await tick()",
    "t(() => native.nvtxMark('NaN', -(2**53), 2**53, null))",
    "t(() => native.simSetScheduler(async () => { await tick() }, hPPool))",
    "t(() => native.deviceUuid(4096))",
    "t(() => native.poolNFreeBlocks(256, hS1))",
    "t(() => native.kernelAttributes())",
    "t(() => native.poolFreeBytes())",
    "t(() => native.bindingDeclarations())",
    "t(() => native.deviceByPciBusId('row', new Uint8Array(0)))",
    "t(() => native.eventIpcHandle())",
    "t(() => native.ncclGroupStart(2**32 - 1))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(2); await tick()
    at(3); t(() => native.nvtxMark('NaN', -(2**53), 2**53, null))
    at(4); t(() => native.simSetScheduler(async () => { await tick() }, hPPool))
    at(5); t(() => native.deviceUuid(4096))
    at(6); t(() => native.poolNFreeBlocks(256, hS1))
    at(7); t(() => native.kernelAttributes())
    at(8); t(() => native.poolFreeBytes())
    at(9); t(() => native.bindingDeclarations())
    at(10); t(() => native.deviceByPciBusId('row', new Uint8Array(0)))
    at(11); t(() => native.eventIpcHandle())
    at(12); t(() => native.ncclGroupStart(2**32 - 1))
  }],
  [132, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')",
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "const hG = t(() => (() => { native.streamBeginCapture(hS, \"relaxed\"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')",
    "t(() => native.ncclCommJoin({ code: undefined, incy: -1n, sharedMem: -(2**53), alpha: hG }, [true, () => 1]))",
    "t(() => native.streamPriorityRange(2**32 - 1, () => hostile()))",
    "t(() => native.ncclGroupEnd({ ptx: hED, fraction: hSL, simulate: hM1 }))",
    "t(() => native.memOwn([]))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(2); const hED = t(() => (() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })(), 'making hED')
    at(3); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(4); const hG = t(() => (() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })(), 'making hG')
    at(5); t(() => native.ncclCommJoin({ code: undefined, incy: -1n, sharedMem: -(2**53), alpha: hG }, [true, () => 1]))
    at(6); t(() => native.streamPriorityRange(2**32 - 1, () => hostile()))
    at(7); t(() => native.ncclGroupEnd({ ptx: hED, fraction: hSL, simulate: hM1 }))
    at(8); t(() => native.memOwn([]))
  }],
  [133, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hM = t(() => native.memAlloc(0, 256), 'making hM')",
    "const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')",
    "const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.poolNFreeBlocks())",
    "t(() => native.streamPriorityRange(-0, { priority: () => {}, b: Number.EPSILON, incy: hM, n: hS }))",
    "t(() => native.poolCreate([], -0.5))",
    "collect()",
    "t(() => native.memPrefetch(true, hPin, 64, 512, 255, hAPool))",
    "t(() => native.graphLaunch({ options: new Uint8Array(16) }, hM1, new Uint8Array(0)))",
    "t(() => native.memOwn(() => {}, NaN, 2))",
    "t(() => native.nvrtcSupportedArchs(new Array(2**32 - 1)))",
    "t(() => native.ncclCommCheckAsyncError(2**53))",
    "t(() => native.kernelCheckShape(2**40))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hM = t(() => native.memAlloc(0, 256), 'making hM')
    at(2); const hM1 = t(() => native.memAlloc(1, 256), 'making hM1')
    at(3); const hAPool = t(() => native.asyncPoolCreate({}, 0), 'making hAPool')
    at(4); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(5); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(6); t(() => native.poolNFreeBlocks())
    at(7); t(() => native.streamPriorityRange(-0, { priority: () => {}, b: Number.EPSILON, incy: hM, n: hS }))
    at(8); t(() => native.poolCreate([], -0.5))
    at(9); collect()
    at(10); t(() => native.memPrefetch(true, hPin, 64, 512, 255, hAPool))
    at(11); t(() => native.graphLaunch({ options: new Uint8Array(16) }, hM1, new Uint8Array(0)))
    at(12); t(() => native.memOwn(() => {}, NaN, 2))
    at(13); t(() => native.nvrtcSupportedArchs(new Array(2**32 - 1)))
    at(14); t(() => native.ncclCommCheckAsyncError(2**53))
    at(15); t(() => native.kernelCheckShape(2**40))
  }],
  [134, [
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')",
    "t(() => native.memDesc(NaN))",
    "t(() => native.nvrtcCompile(new Map(), 'float32', hostile(), new DataView(new ArrayBuffer(8)), 'global', { length: 2**32 }, hMF))",
    "await tick()",
    "t(() => native.poolUsedBytes({  }))",
    "t(() => native.pinnedFree(hE1, [2n, async () => { await tick() }, 0.5]))",
    "t(() => native.eventSynchronizeAsync(Infinity))",
    "t(() => native.eventDestroy(2**40, 2**32 + 0.5))",
    "collect()",
    "t(() => native.ncclGroupStart(2**64))",
    "t(() => native.ncclCommAbort(0, new ArrayBuffer(8, { maxByteLength: 64 })))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(1); const hMF = t(() => (() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })(), 'making hMF')
    at(2); t(() => native.memDesc(NaN))
    at(3); t(() => native.nvrtcCompile(new Map(), 'float32', hostile(), new DataView(new ArrayBuffer(8)), 'global', { length: 2**32 }, hMF))
    at(4); await tick()
    at(5); t(() => native.poolUsedBytes({  }))
    at(6); t(() => native.pinnedFree(hE1, [2n, async () => { await tick() }, 0.5]))
    at(7); t(() => native.eventSynchronizeAsync(Infinity))
    at(8); t(() => native.eventDestroy(2**40, 2**32 + 0.5))
    at(9); collect()
    at(10); t(() => native.ncclGroupStart(2**64))
    at(11); t(() => native.ncclCommAbort(0, new ArrayBuffer(8, { maxByteLength: 64 })))
  }],
  [135, [
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "t(() => native.nvrtcSupportedArchs())",
    "t(() => native.pointerGetAttributes())",
    "t(() => native.devicePciBusId(-1))",
    "t(() => native.ncclVersion(2**64))",
    "t(() => native.ncclGroupEnd([hE]))",
    "await tick()",
    "t(() => native.streamInfo(0))",
    "t(() => native.poolResetPeakStats(-0, new DataView(new ArrayBuffer(8))))",
    "t(() => native.ncclCall(Infinity, new Float32Array(3), NaN, NaN, -1e308, -0, 16, 2**31, Number.EPSILON, -1))",
    "collect()",
    "t(() => native.pinnedPoolCreate({ nonBlocking: '1', nameExpressions: 61823 }))",
    "t(() => native.ncclCommJoinAll())",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(1); t(() => native.nvrtcSupportedArchs())
    at(2); t(() => native.pointerGetAttributes())
    at(3); t(() => native.devicePciBusId(-1))
    at(4); t(() => native.ncclVersion(2**64))
    at(5); t(() => native.ncclGroupEnd([hE]))
    at(6); await tick()
    at(7); t(() => native.streamInfo(0))
    at(8); t(() => native.poolResetPeakStats(-0, new DataView(new ArrayBuffer(8))))
    at(9); t(() => native.ncclCall(Infinity, new Float32Array(3), NaN, NaN, -1e308, -0, 16, 2**31, Number.EPSILON, -1))
    at(10); collect()
    at(11); t(() => native.pinnedPoolCreate({ nonBlocking: '1', nameExpressions: 61823 }))
    at(12); t(() => native.ncclCommJoinAll())
  }],
  [136, [
    "const hPool = t(() => native.poolCreate({}, 0), 'making hPool')",
    "t(() => native.poolResetPeakStats(new Array(2**32 - 1), 'global'))",
    "t(() => native.ncclCommAbort(2**63))",
    "collect()",
    "await tick()",
    "t(() => native.poolStats(0, hPool))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hPool = t(() => native.poolCreate({}, 0), 'making hPool')
    at(1); t(() => native.poolResetPeakStats(new Array(2**32 - 1), 'global'))
    at(2); t(() => native.ncclCommAbort(2**63))
    at(3); collect()
    at(4); await tick()
    at(5); t(() => native.poolStats(0, hPool))
  }],
  [137, [
    "const hS = t(() => native.streamCreate(0, true, null), 'making hS')",
    "const hSL = t(() => native.constants().stream.legacy, 'making hSL')",
    "const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "t(() => native.streamSleep(hSL, HPPOOL_THEN, () => 1))",
    "t(() => native.poolSetLimit(Number.MIN_VALUE, 'relaxed', 2n**64n))",
    "t(() => native.asyncPoolStats(2**53 + 2, hS))",
    "t(() => native.pinnedPoolCreate())",
    "collect()",
    "t(() => native.asyncPoolCreate(() => {}, 16, { disableTiming: hE1, m: Infinity, dtype: Symbol('fuzz'), alpha: 'none' }))",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS = t(() => native.streamCreate(0, true, null), 'making hS')
    at(1); const hSL = t(() => native.constants().stream.legacy, 'making hSL')
    at(2); const hE1 = t(() => native.eventCreate(1, 0), 'making hE1')
    at(3); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(4); t(() => native.streamSleep(hSL, HPPOOL_THEN, () => 1))
    at(5); t(() => native.poolSetLimit(Number.MIN_VALUE, 'relaxed', 2n**64n))
    at(6); t(() => native.asyncPoolStats(2**53 + 2, hS))
    at(7); t(() => native.pinnedPoolCreate())
    at(8); collect()
    at(9); t(() => native.asyncPoolCreate(() => {}, 16, { disableTiming: hE1, m: Infinity, dtype: Symbol('fuzz'), alpha: 'none' }))
    at(10); collect()
  }],
  [138, [
    "collect()",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); collect()
    at(1); collect()
  }],
  [139, [
    "t(() => native.graphHostFnCount(Number.MIN_VALUE, 2n))",
    "collect()",
    "collect()",
    "t(() => native.memCopy2DHtodPinned(18580, 2**53, Number.MIN_VALUE, 255, new Uint8Array(64).subarray(3, 7), 2n**64n, 8, Number.EPSILON, 2**53, []))",
    "t(() => native.poolSetLimit(255))",
    "t(() => native.moduleGetGlobal(Infinity))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); t(() => native.graphHostFnCount(Number.MIN_VALUE, 2n))
    at(1); collect()
    at(2); collect()
    at(3); t(() => native.memCopy2DHtodPinned(18580, 2**53, Number.MIN_VALUE, 255, new Uint8Array(64).subarray(3, 7), 2n**64n, 8, Number.EPSILON, 2**53, []))
    at(4); t(() => native.poolSetLimit(255))
    at(5); t(() => native.moduleGetGlobal(Infinity))
  }],
  [140, [
    "const hE = t(() => native.eventCreate(0, 0), 'making hE')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "collect()",
    "t(() => native.memFree(47009, [new Uint8Array(64).subarray(3, 7)]))",
    "t(() => native.asyncPoolGetLimit())",
    "t(() => native.callbacksCaptured())",
    "t(() => native.memFill(hE, async () => { await tick() }, 2**40, { nameExpressions: hPPool }, 2n**57n, 2**40))",
    "t(() => native.poolMallocFrom(1, -Infinity, -1, {  }))",
    "t(() => native.streamInfo(hE, { jitify: new (class Stream {})(), block: () => 1, translateCucomplex: 0x10000n }))",
    "t(() => native.streamLegacy(() => {}, 256))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hE = t(() => native.eventCreate(0, 0), 'making hE')
    at(1); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(2); collect()
    at(3); t(() => native.memFree(47009, [new Uint8Array(64).subarray(3, 7)]))
    at(4); t(() => native.asyncPoolGetLimit())
    at(5); t(() => native.callbacksCaptured())
    at(6); t(() => native.memFill(hE, async () => { await tick() }, 2**40, { nameExpressions: hPPool }, 2n**57n, 2**40))
    at(7); t(() => native.poolMallocFrom(1, -Infinity, -1, {  }))
    at(8); t(() => native.streamInfo(hE, { jitify: new (class Stream {})(), block: () => 1, translateCucomplex: 0x10000n }))
    at(9); t(() => native.streamLegacy(() => {}, 256))
  }],
  [141, [
    "const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')",
    "const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')",
    "const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')",
    "const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')",
    "t(() => native.memFree(2**32 - 1))",
    "t(() => native.memCopyHtodPinned(2**64, 2**32 + 0.5, -0, 2**64, 64, () => t(() => native.streamPerThread(hostile(), 2**31)), { sharedMem: new Uint8Array(1 << 22), options: 50653, cubin: 'float32', sharedMem: hSD }))",
    "t(() => native.deviceEnablePeerAccess(2**64, 2**53, hPin))",
    "t(() => native.eventSynchronize())",
    "t(() => native.eventInfo(-1e308))",
    "t(() => native.memCopyHtodPinned(2**53 - 1, 'float32', 4294967296.5, 2**31, 8))",
    "t(() => native.pinnedUnregister(Number.EPSILON, { stream: 1, ldb: hS1, m: hS1, simulate: hPin }))",
    "t(() => native.streamPriorityRange())",
    "t(() => native.eventIpcHandle(2))",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const hS1 = t(() => native.streamCreate(1, false, null), 'making hS1')
    at(1); const hSD = t(() => (() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })(), 'making hSD')
    at(2); const hPPool = t(() => native.pinnedPoolCreate({}), 'making hPPool')
    at(3); const hPin = t(() => native.pinnedPoolMalloc({}, hPPool, 64), 'making hPin')
    at(4); t(() => native.memFree(2**32 - 1))
    at(5); t(() => native.memCopyHtodPinned(2**64, 2**32 + 0.5, -0, 2**64, 64, () => t(() => native.streamPerThread(hostile(), 2**31)), { sharedMem: new Uint8Array(1 << 22), options: 50653, cubin: 'float32', sharedMem: hSD }))
    at(6); t(() => native.deviceEnablePeerAccess(2**64, 2**53, hPin))
    at(7); t(() => native.eventSynchronize())
    at(8); t(() => native.eventInfo(-1e308))
    at(9); t(() => native.memCopyHtodPinned(2**53 - 1, 'float32', 4294967296.5, 2**31, 8))
    at(10); t(() => native.pinnedUnregister(Number.EPSILON, { stream: 1, ldb: hS1, m: hS1, simulate: hPin }))
    at(11); t(() => native.streamPriorityRange())
    at(12); t(() => native.eventIpcHandle(2))
    at(13); collect()
  }],
])
