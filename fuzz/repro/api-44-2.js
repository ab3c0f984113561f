// GPU fuzz finding #20: a CRASH (SIGSEGV) at FUZZ_REPLAY=api:44:2, from a run on 2 × H100
// (CUDA_NODE_BACKEND=cuda, FUZZ_SEED=23, FUZZ_SECONDS=30) of the build of about commit bcbbb7e.
// Below: cases 0 to 2 of that batch, in order (the state the crash happened in), as the generator
// makes them (it is seeded and depends on neither the backend nor the device count).
//
// Hypothesis (by reading; not run on a GPU here): case 2 statement 1, initAll(-1). Before d534705
// and 3a9cf2f the TS layer made the count -1 an empty device list (Array.from({ length: -1 })), and
// the core handed it on: ncclCommInitAll(comms, 0, devlist) over empty arrays (dangling pointers).
// NCCL takes ndev 0 as valid: it loads (first use of libnccl in this process), makes a
// rendezvous id (a bootstrap root thread waiting for ranks that never come), opens and closes an
// empty group, and sets the CUDA runtime's device on the JS thread. Nothing else in these cases
// reaches new driver code: case 0 and 1 are refused in the TS layer or are plain stream, event,
// pool and capture calls the suite runs on the GPU. Now refused twice: in the TS layer (count and
// list length) and in the core (Communicator::join_all, no communicators), so this script no
// longer reaches NCCL at HEAD; to see the crash again, run it in a checkout of bcbbb7e (copy
// fuzz/repro/ there). On the simulator it runs through.
//
// Fuzz api batch seed 44, cases 0 to 2: written by
// FUZZ_SCRIPT=fuzz/repro/api-44-2.js FUZZ_PRINT=api:44:..2 npm run fuzz
// Run from the repository root: node --expose-gc fuzz/repro/api-44-2.js
/* eslint-disable */
'use strict'
const { repro } = require("./harness.js")

repro(__filename, "Fuzz api batch seed 44, cases 0 to 2: written by\nFUZZ_SCRIPT=fuzz/repro/api-44-2.js FUZZ_PRINT=api:44:..2 npm run fuzz\nRun from the repository root: node --expose-gc fuzz/repro/api-44-2.js", [
  [0, [
    "const oS = t(() => new cuda.Stream({ nonBlocking: true }), 'making oS')",
    "const oX = t(() => new cuda.ExternalStream(oS.handle), 'making oX')",
    "const oE1 = t(() => new cuda.Event({ device: 1 }), 'making oE1')",
    "const oMF = t(() => (() => { const m = cuda.alloc(64); m.free(); return m })(), 'making oMF')",
    "const oPool = t(() => new cuda.MemoryPool(), 'making oPool')",
    "const oG = t(() => (() => { const m = cuda.alloc(64); return oS.capture(() => { m.memsetAsync(7, 64); cuda.kernels.sleep(1e5); oS.launchHostFunc(() => {}) }) })(), 'making oG')",
    "const oD0 = t(() => new cuda.Device(0), 'making oD0')",
    "const oD1 = t(() => new cuda.Device(1), 'making oD1')",
    "t(() => cuda.blas.sgemm({ priority: oMF, alpha: oD0, sharedMem: oX, dtype: 54724 }, '\\0'))",
    "collect()",
    "t(() => oG.toDot({  }, { interprocess: new ArrayBuffer(64), block: null, code: oPool }, [oD1, 62955]))",
    "t(() => oMF.copyToHost({ length: 2**32 }, {  }, {  }, 1n))",
    "t(() => cuda.RawKernel.prototype.setCacheConfig.call(oE1, '\\ud800', { beta: Buffer.alloc(64, 1), stream: { then() { throw mark() } }, sharedMem: () => {} }, new ArrayBuffer(8, { maxByteLength: 64 }), 'float32'))",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const oS = t(() => new cuda.Stream({ nonBlocking: true }), 'making oS')
    at(1); const oX = t(() => new cuda.ExternalStream(oS.handle), 'making oX')
    at(2); const oE1 = t(() => new cuda.Event({ device: 1 }), 'making oE1')
    at(3); const oMF = t(() => (() => { const m = cuda.alloc(64); m.free(); return m })(), 'making oMF')
    at(4); const oPool = t(() => new cuda.MemoryPool(), 'making oPool')
    at(5); const oG = t(() => (() => { const m = cuda.alloc(64); return oS.capture(() => { m.memsetAsync(7, 64); cuda.kernels.sleep(1e5); oS.launchHostFunc(() => {}) }) })(), 'making oG')
    at(6); const oD0 = t(() => new cuda.Device(0), 'making oD0')
    at(7); const oD1 = t(() => new cuda.Device(1), 'making oD1')
    at(8); t(() => cuda.blas.sgemm({ priority: oMF, alpha: oD0, sharedMem: oX, dtype: 54724 }, '\0'))
    at(9); collect()
    at(10); t(() => oG.toDot({  }, { interprocess: new ArrayBuffer(64), block: null, code: oPool }, [oD1, 62955]))
    at(11); t(() => oMF.copyToHost({ length: 2**32 }, {  }, {  }, 1n))
    at(12); t(() => cuda.RawKernel.prototype.setCacheConfig.call(oE1, '\ud800', { beta: Buffer.alloc(64, 1), stream: { then() { throw mark() } }, sharedMem: () => {} }, new ArrayBuffer(8, { maxByteLength: 64 }), 'float32'))
  }],
  [1, [
    "const oS2 = t(() => new cuda.Stream(), 'making oS2')",
    "const oM = t(() => cuda.alloc(256), 'making oM')",
    "const oMO = t(() => oM.offset(128), 'making oMO')",
    "const oMP = t(() => cuda.mallocPlain(64), 'making oMP')",
    "const oPPool = t(() => new cuda.PinnedMemoryPool(), 'making oPPool')",
    "t(() => new cuda.MemoryPool())",
    "t(() => oPPool.freeAllBlocks())",
    "await tick()",
    "t(() => cuda.blas.dgemm(oMO, 60856, 2n**53n))",
    "t(() => cuda.kernels.sleep(512, oMP))",
    "await tick()",
    "t(() => (typeof cuda.NcclCommunicator.init === 'function' ? cuda.NcclCommunicator.init({ stream: () => hostile(), transB: Infinity }) : cuda.NcclCommunicator.init))",
    "collect()",
    "t(() => (typeof cuda.Stream.priorityRange === 'function' ? cuda.Stream.priorityRange() : cuda.Stream.priorityRange))",
    "t(() => oS2.deviceId)",
    "collect()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const oS2 = t(() => new cuda.Stream(), 'making oS2')
    at(1); const oM = t(() => cuda.alloc(256), 'making oM')
    at(2); const oMO = t(() => oM.offset(128), 'making oMO')
    at(3); const oMP = t(() => cuda.mallocPlain(64), 'making oMP')
    at(4); const oPPool = t(() => new cuda.PinnedMemoryPool(), 'making oPPool')
    at(5); t(() => new cuda.MemoryPool())
    at(6); t(() => oPPool.freeAllBlocks())
    at(7); await tick()
    at(8); t(() => cuda.blas.dgemm(oMO, 60856, 2n**53n))
    at(9); t(() => cuda.kernels.sleep(512, oMP))
    at(10); await tick()
    at(11); t(() => (typeof cuda.NcclCommunicator.init === 'function' ? cuda.NcclCommunicator.init({ stream: () => hostile(), transB: Infinity }) : cuda.NcclCommunicator.init))
    at(12); collect()
    at(13); t(() => (typeof cuda.Stream.priorityRange === 'function' ? cuda.Stream.priorityRange() : cuda.Stream.priorityRange))
    at(14); t(() => oS2.deviceId)
    at(15); collect()
  }],
  [2, [
    "const oP = t(() => cuda.allocPinned(64), 'making oP')",
    "t(() => (typeof cuda.NcclCommunicator.initAll === 'function' ? cuda.NcclCommunicator.initAll(-1, 'a', 1) : cuda.NcclCommunicator.initAll))",
    "t(() => cuda.f32([2**64, true, '\\ud800'], () => hostile()))",
    "t(() => oP.freed)",
    "await tick()",
  ], async (h, at) => {
    const { cuda, native, t, tick, collect, mark, hostile, unconvertible, detached } = h
    at(0); const oP = t(() => cuda.allocPinned(64), 'making oP')
    at(1); t(() => (typeof cuda.NcclCommunicator.initAll === 'function' ? cuda.NcclCommunicator.initAll(-1, 'a', 1) : cuda.NcclCommunicator.initAll))
    at(2); t(() => cuda.f32([2**64, true, '\ud800'], () => hostile()))
    at(3); t(() => oP.freed)
    at(4); await tick()
  }],
])
