// Hostile values, each generated as the JS expression that makes it: a case is source text, so
// what runs and the repro that is printed are the same thing.
import fc from 'fast-check'

/** A JS expression. */
export type Code = string

export const numbers: Code[] = [
  '0', '-0', '1', '-1', '2', '7', '0.5', '-0.5', 'NaN', 'Infinity', '-Infinity', '255', '256', '512', '4096',
  '2**31', '2**31 - 1', '-(2**31)', '2**32', '2**32 - 1', '2**32 + 0.5', '2**40', '2**53', '2**53 - 1', '-(2**53)',
  '2**53 + 2', '2**63', '2**64', '1e308', '-1e308', 'Number.MIN_VALUE', 'Number.EPSILON', '4294967296.5',
]
export const bigints: Code[] = ['0n', '1n', '2n', '3n', '-1n', '0x1000n', '0x10000n', '2n**53n', '2n**57n', '2n**63n', '2n**64n - 1n', '2n**64n', '-(2n**63n)']
export const strings: Code[] = [
  "''", "'a'", "'relaxed'", "'global'", "'threadLocal'", "'none'", "'float32'", "'int8'", "'uint64'", "'float16'", "'column'",
  "'row'", "'\\0'", "'\\ud800'", "'x'.repeat(100000)", "'0x10'", "'1'", "'-1'", "'NaN'", "'sm_90'", "'constructor'", "'__proto__'",
]
export const others: Code[] = ['undefined', 'null', 'true', 'false', "Symbol('fuzz')", 'Symbol.iterator']
export const buffers: Code[] = [
  'new Uint8Array(0)', 'new Uint8Array(16)', 'Buffer.alloc(64, 1)', 'new Uint8Array(4096)', 'new Uint8Array(1 << 22)', 'new Float64Array(4)',
  'new Float32Array(3)', 'new Uint32Array(3)', 'new Uint32Array(6)', 'new Int8Array(5)', 'new BigUint64Array(2)', 'new DataView(new ArrayBuffer(8))',
  'new ArrayBuffer(0)', 'new ArrayBuffer(64)', 'new SharedArrayBuffer(64)', 'new Uint8Array(new SharedArrayBuffer(32))', 'detached()',
  'new Uint8Array(detached())', 'new WebAssembly.Memory({ initial: 1 }).buffer', 'new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, 8)',
  'new ArrayBuffer(8, { maxByteLength: 64 })', 'new Uint8Array(new ArrayBuffer(8, { maxByteLength: 64 }))', 'new Uint8Array(64).subarray(3, 7)',
]
export const objects: Code[] = [
  '{}', '[]', '[1, 2, 3]', "['-O3']", 'new Array(2**32 - 1)', 'Object.assign(new Array(4096), { 7: "x" })', '{ length: 2**32 }', 'hostile()',
  'unconvertible()', 'Object.create(null)', 'new Date(0)', '/re/', 'new Map()', 'Promise.resolve(1)', '{ then() { throw mark() } }',
  '{ then(r) { r(1) } }', 'new Proxy([], { get(t, k) { if (k === "length") return 2**32 - 1; return Reflect.get(t, k) } })',
  'Object.defineProperty({}, "device", { get() { throw mark() } })', 'new (class Stream {})()', 'Object.create(cuda.Stream.prototype)',
  'Object.create(cuda.MemoryPointer.prototype)', 'Object.create(cuda.Event.prototype)',
]
/** Option names the API reads: objects built from them reach deeper than `{}`. */
export const optionKeys = [
  'nonBlocking', 'priority', 'device', 'block', 'disableTiming', 'interprocess', 'size', 'fraction', 'code', 'ptx', 'cubin', 'options',
  'nameExpressions', 'fileName', 'path', 'm', 'n', 'k', 'a', 'b', 'c', 'alpha', 'beta', 'transA', 'transB', 'order', 'lda', 'ldb', 'ldc',
  'stream', 'sharedMem', 'simulate', 'jitify', 'translateCucomplex', 'incx', 'incy', 'dtype',
]

/** Values of one shape, picked from a list (shrinks to the first). */
const pick = (xs: Code[]) => fc.constantFrom(...xs)

/**
 * A hostile value. `refs` are names of objects the case defines (streams, pointers, ...), so that
 * wrong-kind, freed and other-device objects are passed too; `call` makes a nested API call, for
 * callbacks that re-enter the library.
 */
export function value(refs: Code[], call: fc.Arbitrary<Code>, depth = 2): fc.Arbitrary<Code> {
  const leaf = fc.oneof(
    { weight: 4, arbitrary: pick(numbers) },
    { weight: 2, arbitrary: fc.integer({ min: -4, max: 70000 }).map(String) },
    { weight: 2, arbitrary: pick(bigints) },
    { weight: 2, arbitrary: pick(strings) },
    { weight: 2, arbitrary: pick(others) },
    { weight: 3, arbitrary: pick(buffers) },
    { weight: 2, arbitrary: pick(objects) },
    { weight: 6, arbitrary: refs.length > 0 ? pick(refs) : pick(others) },
    { weight: 2, arbitrary: callback(call) },
  )
  if (depth <= 0) return leaf
  const inner = value(refs, call, depth - 1)
  return fc.oneof(
    { weight: 8, arbitrary: leaf },
    { weight: 2, arbitrary: fc.array(fc.tuple(fc.constantFrom(...optionKeys), inner), { maxLength: 4 }).map((kv) => `{ ${kv.map(([k, v]) => `${k}: ${v}`).join(', ')} }`) },
    { weight: 1, arbitrary: fc.array(inner, { maxLength: 4 }).map((xs) => `[${xs.join(', ')}]`) },
  )
}

/** A function value: harmless, throwing, re-entering the library (sync or after a tick), or a class. */
export function callback(call: fc.Arbitrary<Code>): fc.Arbitrary<Code> {
  return fc.oneof(
    fc.constant('() => {}'),
    fc.constant('() => { throw mark() }'),
    fc.constant('() => 1'),
    fc.constant('() => hostile()'),
    fc.constant('async () => { await tick() }'),
    fc.constant('class {}'),
    call.map((c) => `() => t(() => ${c})`),
    call.map((c) => `async () => { await tick(); t(() => ${c}) }`),
  )
}
