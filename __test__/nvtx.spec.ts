import test from 'ava'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { nvtx } from '..'
import { nativeTest, onWasm, root, runNode, scratchDir } from './helpers'

/** Builds the test-only NVTX tool, or says why it cannot. */
function buildInjection(): string | undefined {
  const dir = scratchDir('cuda-node-nvtx-')
  const lib = path.join(dir, 'inject.so')
  try {
    execFileSync('cc', ['-shared', '-fPIC', '-O1', '-I', path.join(root, 'crates/core'), '-o', lib, path.join(__dirname, 'fixtures/nvtx-inject.c')], { stdio: 'pipe' })
    return lib
  } catch {
    return undefined
  }
}

const injection = process.platform === 'linux' ? buildInjection() : undefined
const injectionTest: typeof test = onWasm
  ? nativeTest('no NVTX library, so no tool can be injected; NVTX calls do nothing')
  : injection
    ? test
    : (((title: string, ...rest: any[]) => (test.skip as any)(`${title} (needs a C compiler to build the test NVTX tool)`, ...rest)) as any)

interface Rec {
  kind: string
  argb: number
  hasColor: boolean
  message: string
  extra: number
}

function record(script: string): Rec[] {
  const out = path.join(scratchDir('cuda-node-nvtx-rec-'), 'calls.tsv')
  const r = runNode(script, { NVTX_INJECTION64_PATH: injection, NVTX_RECORD_PATH: out })
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`)
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [kind, argb, has, message, extra] = line.split('\t')
      return { kind, argb: Number(argb), hasColor: has === '1', message, extra: Number(extra) }
    })
}

injectionTest('markers reach an NVTX tool with their messages and colours', (t) => {
  const recs = record(`
    const { nvtx } = cuda;
    nvtx.mark('plain');
    nvtx.mark('palette 3', 3);
    nvtx.mark('palette 13 wraps', 13);
    nvtx.markC('argb', 0xFF112233);
  `)
  t.deepEqual(
    recs.map((r) => [r.kind, r.message, r.hasColor, r.argb]),
    [
      ['mark', 'plain', false, 0],
      ['mark', 'palette 3', true, 0xffff0000],
      ['mark', 'palette 13 wraps', true, 0xffff0000],
      ['mark', 'argb', true, 0xff112233],
    ],
  )
})

injectionTest('push and pop nest, and start/end pair by id', (t) => {
  const recs = record(`
    const { nvtx } = cuda;
    nvtx.rangePush('outer', 0);
    nvtx.rangePushC('inner', 0xFF00FF00);
    nvtx.rangePop();
    nvtx.rangePop();
    const id = nvtx.rangeStart('free', 2);
    nvtx.rangeEnd(id);
  `)
  t.deepEqual(
    recs.map((r) => [r.kind, r.message, r.extra]),
    [
      ['push', 'outer', 0],
      ['push', 'inner', 1],
      ['pop', '', 1],
      ['pop', '', 0],
      ['start', 'free', 1],
      ['end', '', 1],
    ],
  )
  t.is(recs[0].argb, 0xff00ff00)
  t.is(recs[4].argb, 0xff7f00ff)
})

injectionTest('nvtx.range is async-safe: interleaved tasks end their own ranges', (t) => {
  const recs = record(`
    const { nvtx } = cuda;
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    Promise.all([
      nvtx.range('a', async () => { await sleep(20); }),
      nvtx.range('b', async () => { await sleep(5); }),
      (async () => { try { await nvtx.range('c', async () => { await sleep(1); throw new Error('x') }) } catch {} })(),
    ]);
  `)
  const starts = new Map(recs.filter((r) => r.kind === 'start').map((r) => [r.extra, r.message]))
  const ends = recs.filter((r) => r.kind === 'end').map((r) => starts.get(r.extra))
  t.deepEqual([...starts.values()].sort(), ['a', 'b', 'c'])
  t.deepEqual(ends, ['c', 'b', 'a'], 'each range ended by its own id, as each task settled')
})

injectionTest('a 1 MB message is handled, and a NUL byte is a TypeError', (t) => {
  const recs = record(`
    const { nvtx } = cuda;
    nvtx.mark('x'.repeat(1 << 20));
    try { nvtx.mark('a\\0b') } catch (e) { nvtx.mark(e instanceof TypeError ? 'TypeError' : 'other') }
  `)
  t.is(recs[0].message.length, 1 << 20)
  t.is(recs[1].message, 'TypeError')
})

test('without a tool, NVTX calls are harmless', (t) => {
  nvtx.mark('m')
  nvtx.rangePush('r', 1)
  nvtx.rangePop()
  const id = nvtx.rangeStart('s')
  t.is(typeof id, 'bigint')
  // Ids are distinct whether or not a tool listens (#19.7): NVTX alone gives 0 for every range.
  const ids = [id, nvtx.rangeStart('t'), nvtx.rangeStartC('u', 0xff00ff00)]
  t.is(new Set(ids).size, 3)
  t.false(ids.includes(0n))
  ids.forEach((i) => nvtx.rangeEnd(i))
  t.is(nvtx.range('r', () => 7), 7)
})

test('bad NVTX input is a typed error, never a crash', (t) => {
  t.throws(() => nvtx.mark('a\0b'), { instanceOf: TypeError, message: /NUL byte/ })
  t.throws(() => nvtx.mark(42 as any), { instanceOf: TypeError })
  t.throws(() => nvtx.mark('m', 1.5), { instanceOf: RangeError })
  t.throws(() => nvtx.markC('m', 'red' as any), { instanceOf: TypeError })
  t.throws(() => nvtx.markC('m', -1), { instanceOf: RangeError })
  t.throws(() => nvtx.markC('m', 2 ** 32), { instanceOf: RangeError })
  t.throws(() => nvtx.rangeEnd(1 as any), { instanceOf: TypeError })
  t.throws(() => nvtx.range('r', 5 as any), { instanceOf: TypeError })
  nvtx.mark('x'.repeat(1 << 20))
  t.throws(() => nvtx.range('r', () => { throw new Error('inner') }), { message: 'inner' })
})

test('nvtx.range waits for any thenable, not only a Promise', async (t) => {
  const thenable = { then: (resolve: (v: number) => void) => setTimeout(() => resolve(5), 5) }
  t.is(await nvtx.range('r', () => thenable as unknown as Promise<number>), 5)
})
