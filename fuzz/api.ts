// The public API, enumerated from the package itself: every exported class (constructor, methods,
// getters, statics), free function and namespace object, called with hostile values on valid,
// freed, destroyed and other-device objects, during captures, from host callbacks, with the GC
// and the event loop turning between calls, worker threads terminated with work queued, and
// stale handles (an object used after its slot was reused).
import fc from 'fast-check'
import { callback, numbers, value, type Code } from './values'

/** What the package exports, as the fuzzer reaches it. */
export interface Surface {
  classes: Record<string, { methods: string[]; getters: string[]; statics: string[] }>
  functions: string[]
  namespaces: Record<string, string[]>
}

const isClass = (f: unknown): boolean => typeof f === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(f))

/** Enumerates `pkg`'s exports. */
export function surface(pkg: Record<string, unknown>): Surface {
  const out: Surface = { classes: {}, functions: [], namespaces: {} }
  for (const name of Object.keys(pkg).sort()) {
    const v = pkg[name]
    if (isClass(v)) {
      const methods = new Set<string>()
      const getters = new Set<string>()
      for (let p = (v as { prototype: object }).prototype; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
        for (const k of Object.getOwnPropertyNames(p)) {
          if (k === 'constructor') continue
          const d = Object.getOwnPropertyDescriptor(p, k)!
          if (d.get) getters.add(k)
          else if (typeof d.value === 'function') methods.add(k)
        }
      }
      const statics = Object.getOwnPropertyNames(v).filter((k) => !['length', 'name', 'prototype'].includes(k)).sort()
      out.classes[name] = { methods: [...methods].sort(), getters: [...getters].sort(), statics }
    } else if (typeof v === 'function') out.functions.push(name)
    else if (typeof v === 'object' && v !== null) {
      out.namespaces[name] = Object.keys(v).filter((k) => typeof (v as Record<string, unknown>)[k] === 'function').sort()
    }
  }
  return out
}

/** An object a case may use: its name, the code that makes it, its class, and what it needs. */
interface Def {
  name: string
  code: Code
  cls: string
  deps?: string[]
}

const KERNEL = `'extern "C" __global__ void k(float* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1.0f; }'`

/** Objects of every kind, live and dead, on both devices (the fuzz runs with two simulated devices). */
export const defs: Def[] = [
  { name: 'oS', code: 'new cuda.Stream({ nonBlocking: true })', cls: 'Stream' },
  { name: 'oS2', code: 'new cuda.Stream()', cls: 'Stream' },
  { name: 'oSD', code: '(() => { const s = new cuda.Stream(); s.destroy(); return s })()', cls: 'Stream' },
  { name: 'oS1', code: 'new cuda.Device(1).run(() => new cuda.Stream())', cls: 'Stream' },
  { name: 'oSN', code: 'cuda.Stream.null', cls: 'Stream' },
  { name: 'oSP', code: 'cuda.Stream.ptds', cls: 'Stream' },
  { name: 'oX', code: 'new cuda.ExternalStream(oS.handle)', cls: 'ExternalStream', deps: ['oS'] },
  { name: 'oE', code: 'new cuda.Event()', cls: 'Event' },
  { name: 'oER', code: 'oS.record()', cls: 'Event', deps: ['oS'] },
  { name: 'oED', code: '(() => { const e = new cuda.Event(); e.destroy(); return e })()', cls: 'Event' },
  { name: 'oE1', code: 'new cuda.Event({ device: 1 })', cls: 'Event' },
  { name: 'oET', code: 'new cuda.Event({ disableTiming: true })', cls: 'Event' },
  { name: 'oM', code: 'cuda.alloc(256)', cls: 'MemoryPointer' },
  { name: 'oMO', code: 'oM.offset(128)', cls: 'MemoryPointer', deps: ['oM'] },
  { name: 'oMF', code: '(() => { const m = cuda.alloc(64); m.free(); return m })()', cls: 'MemoryPointer' },
  { name: 'oMP', code: 'cuda.mallocPlain(64)', cls: 'MemoryPointer' },
  { name: 'oM1', code: 'new cuda.Device(1).run(() => cuda.alloc(64))', cls: 'MemoryPointer' },
  { name: 'oMA', code: 'new cuda.AsyncMemoryPool().malloc(128)', cls: 'MemoryPointer' },
  { name: 'oRM', code: 'new cuda.Memory(32)', cls: 'Memory' },
  { name: 'oP', code: 'cuda.allocPinned(64)', cls: 'PinnedMemory' },
  { name: 'oPF', code: '(() => { const p = cuda.allocPinned(32); p.free(); return p })()', cls: 'PinnedMemory' },
  { name: 'oPool', code: 'new cuda.MemoryPool()', cls: 'MemoryPool' },
  { name: 'oAPool', code: 'new cuda.AsyncMemoryPool()', cls: 'AsyncMemoryPool' },
  { name: 'oPPool', code: 'new cuda.PinnedMemoryPool()', cls: 'PinnedMemoryPool' },
  {
    name: 'oG',
    code: '(() => { const m = cuda.alloc(64); return oS.capture(() => { m.memsetAsync(7, 64); cuda.kernels.sleep(1e5); oS.launchHostFunc(() => {}) }) })()',
    cls: 'Graph',
    deps: ['oS'],
  },
  { name: 'oGD', code: '(() => { const s = new cuda.Stream(); const g = s.capture(() => {}); g.destroy(); return g })()', cls: 'Graph' },
  { name: 'oD0', code: 'new cuda.Device(0)', cls: 'Device' },
  { name: 'oD1', code: 'new cuda.Device(1)', cls: 'Device' },
  { name: 'oMod', code: `new cuda.RawModule({ code: ${KERNEL} })`, cls: 'RawModule' },
  { name: 'oK', code: `new cuda.RawKernel(${KERNEL}, 'k')`, cls: 'RawKernel' },
  { name: 'oSc', code: 'cuda.f32(1.5)', cls: 'Scalar' },
]

const refs = defs.map((d) => d.name)

/** Sleeping is asked for in nanoseconds: a valid huge value is a long wait, not a hang. */
const SLEEP_NS: Code[] = numbers.filter((n) => {
  const v = Function(`return ${n}`)() as number
  return !(Number.isFinite(v) && v > 5e7)
})

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { STEP_NAMES } = require('./worker.js') as { STEP_NAMES: string[] }

/**
 * The worker move (helpers.js `terminated`): a worker thread queues work that needs things kept
 * alive — most often behind a sleep — on device 0 or 1, and is terminated before, while or after
 * it queues (`at`: the step it announced; 0 before it loaded the package), `wait` ms later.
 */
export const workerMove: fc.Arbitrary<Code> = fc
  .record({
    steps: fc.tuple(fc.boolean(), fc.array(fc.constantFrom(...STEP_NAMES), { minLength: 1, maxLength: 6 })),
    at: fc.nat(8),
    wait: fc.constantFrom(0, 0, 1, 3, 10),
    device: fc.nat(1),
    sleepNs: fc.constantFrom(1e6, 5e6, 2e7),
  })
  .map(({ steps: [sleepFirst, rest], at, ...r }) => {
    const steps = sleepFirst ? ['sleep', ...rest] : rest
    return `await terminated(${JSON.stringify({ steps, at: Math.min(at, steps.length + 2), ...r })})`
  })

/** The stale-handle move (helpers.js `stale`): an object let go, its slot reused, then it is used. */
export const staleMove: fc.Arbitrary<Code> = fc
  .tuple(fc.constantFrom('memory', 'plain', 'stream', 'event', 'pinned', 'graph'), fc.integer({ min: 1, max: 300 }))
  .map(([kind, cycles]) => `stale('${kind}', ${cycles})`)

/** One statement of a case. */
export function step(s: Surface): fc.Arbitrary<Code> {
  // Calls made from inside callbacks and capture bodies: one level deep.
  const nested = callExpr(s, fc.constant('cuda.Device.count()'), 0)
  const expr = callExpr(s, nested, 2)
  return fc.oneof(
    { weight: 20, arbitrary: expr.map((e) => `t(() => ${e})`) },
    { weight: 2, arbitrary: fc.constant('collect()') },
    { weight: 3, arbitrary: fc.constant('await tick()') },
    { weight: 1, arbitrary: fc.constantFrom(...refs).map((r) => `t(() => ${r}[Symbol.dispose]?.())`) },
    { weight: 1, arbitrary: workerMove },
    { weight: 1, arbitrary: staleMove },
  )
}

function args(refsArb: fc.Arbitrary<Code>, n: number): fc.Arbitrary<Code> {
  return fc.array(refsArb, { maxLength: n }).map((xs) => xs.join(', '))
}

/** A call expression on the surface, with hostile arguments. */
function callExpr(s: Surface, call: fc.Arbitrary<Code>, depth: number): fc.Arbitrary<Code> {
  const v = value(refs, call, depth > 0 ? 1 : 0)
  const a = args(v, 4)
  const byClass = Object.entries(s.classes)
  const onObject = fc.constantFrom(...defs).chain((d) => {
    const c = s.classes[d.cls] ?? { methods: [], getters: [] }
    const choices: fc.Arbitrary<Code>[] = []
    if (c.methods.length > 0) choices.push(fc.tuple(fc.constantFrom(...c.methods), a).map(([m, x]) => `${d.name}.${m}(${x})`))
    if (c.getters.length > 0) choices.push(fc.constantFrom(...c.getters).map((g) => `${d.name}.${g}`))
    return choices.length > 0 ? fc.oneof(...choices) : fc.constant(`${d.name}.toString()`)
  })
  const wrongThis = fc.tuple(fc.constantFrom(...byClass), fc.constantFrom(...refs), a).chain(([[cls, c], obj, x]) => {
    const choices: fc.Arbitrary<Code>[] = []
    if (c.methods.length > 0) choices.push(fc.constantFrom(...c.methods).map((m) => `cuda.${cls}.prototype.${m}.call(${obj}${x ? ', ' + x : ''})`))
    if (c.getters.length > 0) choices.push(fc.constantFrom(...c.getters).map((g) => `Reflect.get(cuda.${cls}.prototype, '${g}', ${obj})`))
    return choices.length > 0 ? fc.oneof(...choices) : fc.constant(`new cuda.${cls}()`)
  })
  const construct = fc.tuple(fc.constantFrom(...Object.keys(s.classes)), a).map(([cls, x]) => `new cuda.${cls}(${x})`)
  const statics = byClass.flatMap(([cls, c]) => c.statics.map((m) => `cuda.${cls}.${m}`))
  const staticCall = fc.tuple(fc.constantFrom(...statics), a).map(([m, x]) => `(typeof ${m} === 'function' ? ${m}(${x}) : ${m})`)
  const fn = fc.tuple(fc.constantFrom(...s.functions), a).map(([f, x]) => `cuda.${f}(${x})`)
  const nsCalls = Object.entries(s.namespaces).flatMap(([ns, fs]) => fs.map((f) => `cuda.${ns}.${f}`))
  const nsCall = fc.tuple(fc.constantFrom(...nsCalls), a).map(([f, x]) => `${f}(${x})`)
  const sleep = fc.tuple(fc.constantFrom(...SLEEP_NS), fc.option(fc.constantFrom(...refs), { nil: undefined })).map(([ns, st]) => `cuda.kernels.sleep(${ns}${st ? ', ' + st : ''})`)
  const hostFn = fc.tuple(fc.constantFrom('oS', 'oS2', 'oSN', 'oSP', 'oS1', 'oSD', 'oX'), fc.constantFrom('launchHostFunc', 'addCallback'), callback(call)).map(([st, m, cb]) => `${st}.${m}(${cb})`)
  const capture = fc.tuple(fc.constantFrom('oS', 'oS2', 'oSN', 'oS1', 'oX'), fc.constantFrom("'relaxed'", "'global'", "'threadLocal'", ''), fc.array(call, { maxLength: 3 }))
    .map(([st, mode, body]) => `${st}.capture(() => { ${body.map((c) => `t(() => ${c}); `).join('')}}${mode ? ', ' + mode : ''})`)
  return fc.oneof(
    { weight: 12, arbitrary: onObject },
    { weight: 3, arbitrary: wrongThis },
    { weight: 3, arbitrary: construct },
    { weight: 2, arbitrary: staticCall },
    { weight: 4, arbitrary: fn },
    { weight: 4, arbitrary: nsCall.filter((c) => !c.startsWith('cuda.kernels.sleep(')) },
    { weight: 2, arbitrary: sleep },
    { weight: depth > 0 ? 3 : 0, arbitrary: hostFn },
    { weight: depth > 0 ? 2 : 0, arbitrary: capture },
  )
}

/** A case: statements, with the objects they name defined first (and only those). */
export function program(steps: Code[]): Code[] {
  const text = steps.join('\n')
  const used = new Set<string>()
  const need = (name: string): void => {
    if (used.has(name)) return
    used.add(name)
    for (const d of defs.find((x) => x.name === name)?.deps ?? []) need(d)
  }
  for (const d of defs) if (new RegExp(`\\b${d.name}\\b`).test(text)) need(d.name)
  const lines = defs.filter((d) => used.has(d.name)).map((d) => `const ${d.name} = t(() => ${d.code}, 'making ${d.name}')`)
  return [...lines, ...steps]
}

export function cases(s: Surface): fc.Arbitrary<Code[]> {
  return fc.array(step(s), { minLength: 1, maxLength: 12 }).map(program)
}
