import test from 'ava'
import { root, runNode } from './helpers'

function runGc(script: string): any {
  const r = runNode(
    `const { native } = require(${JSON.stringify(root + '/lib/native.js')});
     const tick = () => new Promise((r) => setImmediate(r));
     const collect = async () => { for (let i = 0; i < 4; i++) { global.gc(); await new Promise((r) => setTimeout(r, 5)); } };
     (async () => { ${script} })().then((out) => console.log(JSON.stringify(out)), (e) => { console.error(e); process.exit(1) });`,
    {},
    ['--expose-gc'],
  )
  if (r.status !== 0) throw new Error(`child failed (${r.status}): ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split('\n').pop()!)
}

test('an async copy from a dropped Buffer still delivers the right bytes', (t) => {
  const r = runGc(`
    const { alloc, Stream, kernels } = cuda;
    const crypto = require('node:crypto');
    const s = new Stream({ nonBlocking: true });
    const dev = alloc(1 << 20);
    let digest;
    (() => {
      const src = crypto.randomBytes(1 << 20);
      digest = crypto.createHash('sha256').update(src).digest('hex');
      kernels.sleep(200e6, s);
      dev.copyFromHostAsync(src, undefined, s);
    })();
    await collect();
    for (let i = 0; i < 50; i++) Buffer.alloc(1 << 20, i); // reuse freed host memory
    await s.synchronizeAsync();
    const back = Buffer.alloc(1 << 20);
    dev.copyToHost(back);
    return { same: crypto.createHash('sha256').update(back).digest('hex') === digest };
  `)
  t.true(r.same)
})

test('an async copy from dropped pinned memory still delivers the right bytes', (t) => {
  const r = runGc(`
    const { alloc, allocPinned, Stream, kernels } = cuda;
    const crypto = require('node:crypto');
    const s = new Stream({ nonBlocking: true });
    const dev = alloc(1 << 20);
    let digest;
    (() => {
      const pinned = allocPinned(1 << 20);
      const src = crypto.randomBytes(1 << 20);
      pinned.set(src);
      digest = crypto.createHash('sha256').update(src).digest('hex');
      kernels.sleep(200e6, s);
      dev.copyFromHostAsync(pinned, undefined, s);
    })();
    await collect();
    for (let i = 0; i < 4; i++) cuda.allocPinned(1 << 20).set(Buffer.alloc(1 << 20, 0xff)); // reuse freed pinned blocks
    await s.synchronizeAsync();
    const back = Buffer.alloc(1 << 20);
    dev.copyToHost(back);
    return { same: crypto.createHash('sha256').update(back).digest('hex') === digest };
  `)
  t.true(r.same)
})

test('a GC-freed pointer returns to its pool, reused elsewhere only after its stream passed the free', (t) => {
  const r = runGc(`
    const { MemoryPool, Stream, kernels } = cuda;
    const pool = new MemoryPool();
    const s1 = new Stream({ nonBlocking: true });
    const s2 = new Stream({ nonBlocking: true });
    const live0 = native.memLive();
    let ptr;
    (() => {
      const p = s1.run(() => pool.malloc(1 << 20));
      ptr = p.ptr;
      kernels.sleep(300e6, s1);
    })();
    await tick(); // past the lazy registration
    await collect();
    const freedByGc = pool.usedBytes() === 0 && native.memLive() === live0;
    const early = s2.run(() => pool.malloc(1 << 20));
    const reusedEarly = early.ptr === ptr;
    await s1.synchronizeAsync();
    const late = s2.run(() => pool.malloc(1 << 20));
    return { freedByGc, reusedEarly, reusedLate: late.ptr === ptr };
  `)
  t.deepEqual(r, { freedByGc: true, reusedEarly: false, reusedLate: true })
})

test('pointers left to the GC are all freed, and the pool gives its memory back', (t) => {
  // Device-wide memInfo is shared with the suite's other processes; this process's own figures
  // (live handles, pool bytes) are the oracle. Whole-device flatness is issue #9's serial soak.
  const r = runGc(`
    const { alloc, mallocPlain, getDefaultMemoryPool } = cuda;
    const live0 = native.memLive();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 2000; i++) { alloc(4096); mallocPlain(4096); }
      await tick();
      await collect();
    }
    const pool = getDefaultMemoryPool();
    const used = pool.usedBytes();
    pool.freeAllBlocks();
    return { live: native.memLive() - live0, used, held: pool.totalBytes() };
  `)
  t.deepEqual(r, { live: 0, used: 0, held: 0 })
})

test('a freed pointer is not freed again by the GC, even once its slot is reused', (t) => {
  const r = runGc(`
    const { alloc } = cuda;
    let a = alloc(512);
    await tick();
    a.free();
    const b = alloc(512); // may take the same slot
    a = null;
    await collect();
    b.copyFromHost(new Uint8Array(512)); // b must still be live
    return { ok: !b.mem.freed };
  `)
  t.true(r.ok)
})
