// Packing a launch: the arguments' bytes and the launch's shape go to the addon in two reused
// typed arrays, so a launch allocates nothing.
import { MemoryPointer } from '../memory/pointer'
import { constants } from '../native'
import { describe } from '../validate'
import { Scalar, writeScalar } from './scalar'
import type { Param } from './signature'

/** A kernel argument: a device pointer, a typed scalar, or a bigint (passed as 8 bytes). */
export type KernelArg = MemoryPointer | Scalar | bigint

/** A grid or block size: `n`, or `[x, y?, z?]`. */
export type Dim3 = number | readonly [number, number?, number?]

// The launch's scratch, reused by every launch on this thread: the arguments' bytes (the driver
// copies them at the launch) and the shape: grid x y z, block x y z, shared memory, the argument
// count, flags (cooperative, programmatic dependent launch), cluster x y z (0s: none), then each
// argument's size. The layout is the addon's (crates/node/src/constants.rs), which reads it.
// Packing here costs no allocation per launch.
const { head: HEAD, grid: GRID, block: BLOCK, sharedMem: SHARED_MEM, args: ARGS, flags: FLAGS, cluster: CLUSTER, cooperative: COOPERATIVE, programmatic: PROGRAMMATIC } = constants.launch
let argBytes = new Uint8Array(1024)
let argView = new DataView(argBytes.buffer)
let shape = new Uint32Array(HEAD + 32)

/** A launch's attributes, as `pack` writes them into the shape. */
export interface LaunchAttributes {
  cooperative: boolean
  programmatic: boolean
  cluster: readonly [number, number, number] | undefined
}

const PLAIN: LaunchAttributes = { cooperative: false, programmatic: false, cluster: undefined }

/** Writes argument `i` at `at` of the scratch (growing it as needed); returns its size. */
function packArg(a: KernelArg, i: number, name: string, p: Param | undefined, at: number): number {
  if (at + 8 > argBytes.length) {
    const bigger = new Uint8Array(argBytes.length * 2)
    bigger.set(argBytes)
    argBytes = bigger
    argView = new DataView(bigger.buffer)
  }
  if (a instanceof MemoryPointer) {
    if (p && !p.pointer) throw new TypeError(`argument ${i} of ${name} is \`${p.text}\`, not a pointer, but a MemoryPointer was given`)
    argView.setBigUint64(at, a.ptr, true)
    return 8
  }
  if (a instanceof Scalar) {
    if (p?.pointer) throw new TypeError(`argument ${i} of ${name} is the pointer \`${p.text}\`, but a ${a.type} scalar was given`)
    if (p?.size !== undefined && p.size !== a.size) {
      throw new TypeError(`argument ${i} of ${name} is \`${p.text}\` (${p.size} bytes), but a ${a.type} (${a.size} bytes) was given`)
    }
    // Of the right width but the wrong kind (an f32 for \`int n\`): the kernel would read its bits as the other.
    if (p?.float !== undefined && p.float !== (a.type === 'float32' || a.type === 'float64')) {
      throw new TypeError(`argument ${i} of ${name} is \`${p.text}\`, ${p.float ? 'a floating-point type' : 'an integer type'}, but a ${a.type} was given`)
    }
    writeScalar(a, argView, at)
    return a.size
  }
  if (typeof a === 'bigint') {
    argView.setBigUint64(at, BigInt.asUintN(64, a), true)
    return 8
  }
  if (typeof a === 'number') {
    throw new TypeError(`argument ${i} of ${name} is a plain number: say its C type, as f32(x), f64(x), i32(x), u32(x), i64(x) or u64(x)`)
  }
  throw new TypeError(`argument ${i} of ${name} must be a MemoryPointer, a typed scalar (f32(x), i32(x), ...) or a bigint, got ${describe(a)}`)
}

/** Packs every argument (checking each) and the launch's shape into the scratch. */
export function pack(
  args: readonly KernelArg[],
  name: string,
  params: Param[] | undefined,
  grid: number[],
  block: number[],
  sharedMem: number,
  attrs: LaunchAttributes = PLAIN,
): void {
  // A kernel's parameters take at most 32 KB (4 KB before CUDA 12.1): 4096 is past any real kernel.
  if (args.length > 4096) throw new RangeError(`${name} is given ${args.length} arguments: a kernel takes at most 4096`)
  if (shape.length < HEAD + args.length) shape = new Uint32Array(HEAD + args.length)
  let at = 0
  for (let i = 0; i < args.length; i++) {
    const n = packArg(args[i], i, name, params?.[i], at)
    shape[HEAD + i] = n
    at += n
  }
  packHead(shape, grid, block, sharedMem, args.length, attrs)
}

/** Writes a shape's head. */
function packHead(into: Uint32Array, grid: readonly number[], block: readonly number[], sharedMem: number, args: number, attrs: LaunchAttributes): void {
  into[GRID] = grid[0]
  into[GRID + 1] = grid[1]
  into[GRID + 2] = grid[2]
  into[BLOCK] = block[0]
  into[BLOCK + 1] = block[1]
  into[BLOCK + 2] = block[2]
  into[SHARED_MEM] = sharedMem
  into[ARGS] = args
  into[FLAGS] = (attrs.cooperative ? COOPERATIVE : 0) | (attrs.programmatic ? PROGRAMMATIC : 0)
  const c = attrs.cluster
  into[CLUSTER] = c ? c[0] : 0
  into[CLUSTER + 1] = c ? c[1] : 0
  into[CLUSTER + 2] = c ? c[2] : 0
}

/** A shape with no arguments, for the occupancy calls that take a launch's shape. */
export function shapeOf(grid: readonly number[], block: readonly number[], sharedMem: number, attrs: LaunchAttributes): Uint32Array {
  const s = new Uint32Array(HEAD)
  packHead(s, grid, block, sharedMem, 0, attrs)
  return s
}

export function dim3(name: string, d: unknown): [number, number, number] {
  // The common case, a whole number, with one array made instead of two.
  if (typeof d === 'number' && Number.isInteger(d) && d >= 1 && d <= 2 ** 31 - 1) return [d, 1, 1]
  const v = typeof d === 'number' ? [d] : Array.isArray(d) ? d : undefined
  if (!v || v.length < 1 || v.length > 3) throw new TypeError(`${name} must be a number or [x, y?, z?], got ${describe(d)}`)
  const out = [v[0], v[1] ?? 1, v[2] ?? 1] as [number, number, number]
  for (const x of out) {
    if (typeof x !== 'number') throw new TypeError(`${name} dimensions must be numbers, got ${describe(x)}`)
    if (!Number.isInteger(x) || x < 1 || x > 2 ** 31 - 1) throw new RangeError(`${name} dimensions must be positive integers, got ${x}`)
  }
  return out
}

/** The shape and the arguments' bytes of the last `pack`. */
export function packed(): [Uint32Array, Uint8Array] {
  return [shape, argBytes]
}
