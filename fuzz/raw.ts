// Every raw export of the addon, from its own table (`native.bindingDeclarations()`, the source of
// native.d.ts): each argument either a plausible value of its declared type (a live, freed or
// foreign handle of the right kind) or a hostile value of any type.
import fc from 'fast-check'
import { bigints, buffers, callback, numbers, strings, value, type Code } from './values'

export interface Param {
  name: string
  type: string
  optional: boolean
}
export interface RawExport {
  name: string
  params: Param[]
}

/** Parses the addon's table: `name(a: number, b?: bigint | null): void` per export. */
export function rawExports(declarations: string): RawExport[] {
  const out: RawExport[] = []
  for (const entry of declarations.split('\u0002')) {
    const decl = entry.split('\u0001')[1]
    if (!decl) continue
    const m = /^(\w+)\((.*?)\): /.exec(decl)
    if (!m) continue
    const params = m[2] === '' ? [] : m[2].split(', ').map((p) => {
      const [n, type] = p.split(': ')
      return { name: n.replace('?', ''), type, optional: n.endsWith('?') }
    })
    out.push({ name: m[1], params })
  }
  return out
}

/**
 * Exports left out, and why: the host dispatcher belongs to the TS layer's callbacks module,
 * which cannot re-register itself once a case replaced it (every later callback would be lost).
 */
export const SKIPPED: Record<string, string> = {
  registerHostDispatcher: "replacing the TS layer's dispatcher cannot be undone by the harness",
}

/** Raw objects of each kind, made through the raw calls themselves (handles are plain numbers). */
const defs: { name: string; code: Code; deps?: string[] }[] = [
  { name: 'hS', code: 'native.streamCreate(0, true, null)' },
  { name: 'hS1', code: 'native.streamCreate(1, false, null)' },
  { name: 'hSD', code: '(() => { const h = native.streamCreate(0, false, null); native.streamDestroy(h); return h })()' },
  { name: 'hSL', code: 'native.constants().stream.legacy' },
  { name: 'hE', code: 'native.eventCreate(0, 0)' },
  { name: 'hE1', code: 'native.eventCreate(1, 0)' },
  { name: 'hED', code: '(() => { const h = native.eventCreate(0, 0); native.eventDestroy(h); return h })()' },
  { name: 'hM', code: 'native.memAlloc(0, 256)' },
  { name: 'hM1', code: 'native.memAlloc(1, 256)' },
  { name: 'hMF', code: '(() => { const h = native.memAlloc(0, 64); native.memFree(h); return h })()' },
  { name: 'hPool', code: 'native.poolCreate({}, 0)' },
  { name: 'hAPool', code: 'native.asyncPoolCreate({}, 0)' },
  { name: 'hPPool', code: 'native.pinnedPoolCreate({})' },
  { name: 'hPin', code: 'native.pinnedPoolMalloc({}, hPPool, 64)', deps: ['hPPool'] },
  {
    name: 'hG',
    code: '(() => { native.streamBeginCapture(hS, "relaxed"); native.streamSleep(hS, 1e5); return native.streamEndCapture({}, hS) })()',
    deps: ['hS'],
  },
]
const handleNames = defs.map((d) => d.name)

/** Which handles a numeric parameter of this name takes. */
function handlesFor(param: string): string[] {
  if (/^(stream)$/.test(param)) return ['hS', 'hS1', 'hSD', 'hSL']
  if (/^(event|start|end)$/.test(param)) return ['hE', 'hE1', 'hED']
  if (/^(mem|dst|src|a|b|c|x|y)$/.test(param)) return ['hM', 'hM1', 'hMF', 'hPin']
  if (/^(pool)$/.test(param)) return ['hPool', 'hAPool', 'hPPool']
  if (/^(pinned)$/.test(param)) return ['hPin']
  if (/^(graph|other)$/.test(param)) return ['hG']
  if (/^(device)$/.test(param)) return ['0', '1', '2', '-1']
  return []
}

const smallCounts: Code[] = ['0', '1', '8', '16', '64', '256', '4096']

/** A plausible value of a declared type. */
function plausible(p: Param, e: RawExport, call: fc.Arbitrary<Code>): fc.Arbitrary<Code> {
  const t = p.type.replace(/ \| null$/, '')
  if (e.name === 'streamSleep' && p.name === 'ns') return fc.constantFrom('0', '1000', '1e6', '-1', 'NaN', 'Infinity', '0.5')
  if (t === 'number') {
    const hs = handlesFor(p.name)
    const pool = [...hs, ...smallCounts, ...numbers]
    return fc.constantFrom(...pool)
  }
  if (t === 'boolean') return fc.constantFrom('true', 'false')
  if (t === 'bigint') return fc.constantFrom(...bigints)
  if (t === 'string') return fc.constantFrom("'relaxed'", "'global'", "'float32'", "'float64'", "'sm_90'", 'kernelSource', ...strings)
  if (t === 'object') return fc.constantFrom('{}', '[]', '() => {}', 'hostile()')
  if (t === 'Function') return callback(call)
  if (t.endsWith('Array') || t === 'ArrayBuffer') {
    return fc.constantFrom(...buffers, 'new Uint32Array([1, 1, 1, 1, 1, 1, 0])', 'new Float64Array([4, 4, 4, 4, 4, 4, 0, 0])')
  }
  if (t === 'string[]') return fc.constantFrom('[]', "['-O3']", 'new Array(2**32 - 1)', 'Object.assign(new Array(4096), { 7: "x" })', '[1]', 'hostile()')
  return fc.constant('undefined')
}

/**
 * A sleep's nanoseconds: a valid huge value is a long wait, not a hang (as api.ts's SLEEP_NS), so
 * its hostile values are of other types. A handle passed as nanoseconds is a number too: on the
 * GPU run, `streamSleep(hSL, hPPool)` slept 69 s (a handle is generation · 2³² + slot) and the next
 * free of pinned memory waited for it (fuzz/repro/raw-87-141.js).
 */
const isSleep = (e: RawExport, p: Param): boolean => e.name === 'streamSleep' && p.name === 'ns'
const notLong = fc.constantFrom(...bigints, ...strings.slice(0, 4), 'undefined', 'null', '{}', '[]', 'hostile()', 'unconvertible()', "Symbol('fuzz')")

/** One raw call. */
function rawCall(exps: RawExport[], call: fc.Arbitrary<Code>, depth: number): fc.Arbitrary<Code> {
  const hostile = value(handleNames, call, depth)
  return fc.constantFrom(...exps).chain((e) => {
    const argArbs = e.params.map((p) => fc.oneof({ weight: 3, arbitrary: plausible(p, e, call) }, { weight: 1, arbitrary: isSleep(e, p) ? notLong : hostile }))
    // Sometimes fewer arguments than declared, sometimes one more.
    const n = fc.integer({ min: Math.max(0, e.params.length - 1), max: e.params.length + 1 })
    return fc.tuple(fc.tuple(...argArbs), n, hostile).map(([xs, k, extra]) => {
      const all = [...xs, extra].slice(0, k)
      return `native.${e.name}(${all.join(', ')})`
    })
  })
}

/**
 * Exports to leave out besides SKIPPED (`FUZZ_RAW_SKIP`, comma-separated): a case is picked from
 * the addon's list as it is, so printing or replaying a case that a build lacking some exports
 * generated (an older commit, run on another machine) takes that build's list.
 */
function absent(): string[] {
  return (process.env.FUZZ_RAW_SKIP ?? '').split(',').filter(Boolean)
}

export function cases(all: RawExport[]): fc.Arbitrary<Code[]> {
  const gone = absent()
  const exps = all.filter((e) => !(e.name in SKIPPED) && !gone.includes(e.name))
  const nested = rawCall(exps, fc.constant('native.deviceCount()'), 0)
  const stmt = fc.oneof(
    { weight: 20, arbitrary: rawCall(exps, nested, 1).map((c) => `t(() => ${c})`) },
    { weight: 2, arbitrary: fc.constant('collect()') },
    { weight: 2, arbitrary: fc.constant('await tick()') },
  )
  return fc.array(stmt, { minLength: 1, maxLength: 12 }).map((steps) => {
    const text = steps.join('\n')
    const used = new Set<string>()
    const need = (name: string): void => {
      if (used.has(name)) return
      used.add(name)
      for (const d of defs.find((x) => x.name === name)?.deps ?? []) need(d)
    }
    for (const d of defs) if (new RegExp(`\\b${d.name}\\b`).test(text)) need(d.name)
    const lines = defs.filter((d) => used.has(d.name)).map((d) => `const ${d.name} = t(() => ${d.code}, 'making ${d.name}')`)
    if (/\bkernelSource\b/.test(text)) lines.unshift(`const kernelSource = 'extern "C" __global__ void k() {}'`)
    return [...lines, ...steps]
  })
}
