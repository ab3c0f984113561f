import { native } from '../native'
import { scope } from '../context'
import { Device } from '../device'
import { own } from '../object'
import type { Stream } from '../stream/stream'
import { streamOption } from '../stream/handle'
import { count, describe, integer, options as checkOptions } from '../validate'
import { bytes } from '../memory/host'
import { PinnedMemory } from '../memory/pinned'
import { MemoryPointer, type HostBuffer } from '../memory/pointer'
import { formatOf, type ChannelFormatDescriptor } from './format'

/** What {@link CUDAArray} takes besides its format and extents. */
export interface CUDAArrayOptions {
  /** A layered array (`CUDA_ARRAY3D_LAYERED`): `depth` counts its layers (`height` 0 for 1D layers). */
  layered?: boolean
  /** Surface objects may be made over it (`CUDA_ARRAY3D_SURFACE_LDST`). */
  surfaceLoadStore?: boolean
  /** The device (the current one by default). */
  device?: number | Device
}

/** Device memory whose rows lie `pitch` bytes apart, as a copy to or from a CUDA array takes it. */
export interface PitchedPointer {
  /** Where the first row starts. */
  ptr: MemoryPointer
  /** Bytes from one row's start to the next's, at least a row's bytes. */
  pitch: number
}

/** One side of a copy with a CUDA array: host memory (packed), or device memory (packed or pitched). */
export type ArrayCopySide = HostBuffer | MemoryPointer | PitchedPointer

let handleOfArray: (a: CUDAArray) => number

/**
 * A CUDA array (CuPy's `cupy.cuda.texture.CUDAarray`): `width` × `height` × `depth` elements
 * in the GPU's texture layout (`cuArray3DCreate`), read by texture objects and read and written
 * by surface objects. `height` 0 makes a 1D array, `depth` 0 a 1D or 2D one; a layered array's
 * `depth` is its layer count. Freed by `free()`, `using`, or the GC; texture and surface
 * objects over it keep it until they go.
 * @throws {TypeError} for arguments of the wrong kind; {RangeError} for a zero width, a 3D
 *   array without a height, a layered one without layers, or extents past the device's limits;
 *   {CudaError} `CUDA_ERROR_OUT_OF_MEMORY`.
 */
export class CUDAArray {
  readonly #handle: number
  /** The channel format. */
  readonly desc: ChannelFormatDescriptor
  /** Elements in a row. */
  readonly width: number
  /** Rows (0 for a 1D array). */
  readonly height: number
  /** Slices, or a layered array's layers (0 for 1D and 2D arrays). */
  readonly depth: number
  /** Made with `CUDA_ARRAY3D_LAYERED`. */
  readonly layered: boolean
  /** Made with `CUDA_ARRAY3D_SURFACE_LDST`: surface objects may be made over it. */
  readonly surfaceLoadStore: boolean
  /** The device the array is on. */
  readonly deviceId: number
  /** The bytes of the whole array, packed (rows of `width` elements). */
  readonly nbytes: number

  constructor(desc: ChannelFormatDescriptor, width: number, height = 0, depth = 0, options: CUDAArrayOptions = {}) {
    const format = formatOf(desc, 'desc')
    const [w, h, d] = [count('width', width), count('height', height), count('depth', depth)]
    const { layered = false, surfaceLoadStore = false, device } = checkOptions<CUDAArrayOptions>('CUDAArray', options, ['layered', 'surfaceLoadStore', 'device'])
    if (typeof layered !== 'boolean') throw new TypeError(`layered must be a boolean, got ${describe(layered)}`)
    if (typeof surfaceLoadStore !== 'boolean') throw new TypeError(`surfaceLoadStore must be a boolean, got ${describe(surfaceLoadStore)}`)
    const dev = device === undefined ? scope().device : device instanceof Device ? device.id : integer('device', device)
    this.#handle = native.cudaArrayCreate(this, dev, format.bits, format.kind, w, h, d, layered, surfaceLoadStore)
    this.desc = format
    ;[this.width, this.height, this.depth] = [w, h, d]
    this.layered = layered
    this.surfaceLoadStore = surfaceLoadStore
    this.deviceId = dev
    this.nbytes = native.cudaArrayNbytes(this.#handle)
  }

  static {
    handleOfArray = (a) => a.#handle
  }

  /** 1, 2 or 3 (CuPy's `ndim`): a layered array counts its layers as a dimension. */
  get ndim(): number {
    return this.depth > 0 ? 3 : this.height > 0 ? 2 : 1
  }

  /** The `CUarray` as a bigint (CuPy's `ptr`). @throws {CudaError} `CUDA_ERROR_INVALID_HANDLE` once freed. */
  get handle(): bigint {
    return native.cudaArrayHandle(this.#handle)
  }

  /**
   * Copies `src` into the whole array after the work queued on `stream` (the current stream of
   * the array's device by default), and returns once the copy is done (CuPy's `copy_from`).
   * Host memory holds exactly `nbytes`; device memory holds the rows packed, or `pitch` bytes
   * apart (`{ ptr, pitch }`), as `cuMemcpy3D` takes them.
   * @throws {TypeError} for another kind of source; {RangeError} for a host buffer of another
   *   size, a pitch under a row's bytes or rows past the memory's end; {CudaError}
   *   `CUDA_ERROR_INVALID_HANDLE` once freed, `CUDA_ERROR_INVALID_VALUE` for memory or a stream of another device.
   */
  copyFrom(src: ArrayCopySide, stream?: Stream): void {
    const s = streamOption(stream, this.deviceId)
    const device = pitched(src, 'copyFrom')
    if (device !== undefined) native.cudaArrayCopyFromDevice(this.#handle, s, own(device.ptr.mem), device.ptr.byteOffset, device.pitch)
    else native.cudaArrayCopyFromHost(this.#handle, s, host(src as HostBuffer, 'copyFrom'))
  }

  /**
   * Copies the whole array into `dst` after the work queued on `stream`, and returns once the
   * copy is done (CuPy's `copy_to`); `dst` as {@link copyFrom} takes it.
   * @throws as {@link copyFrom}.
   */
  copyTo(dst: ArrayCopySide, stream?: Stream): void {
    const s = streamOption(stream, this.deviceId)
    const device = pitched(dst, 'copyTo')
    if (device !== undefined) native.cudaArrayCopyToDevice(this.#handle, s, own(device.ptr.mem), device.ptr.byteOffset, device.pitch)
    else native.cudaArrayCopyToHost(this.#handle, s, host(dst as HostBuffer, 'copyTo'))
  }

  /** Lets the array go (again: nothing); texture and surface objects over it keep it until they go. */
  free(): void {
    native.cudaArrayFree(this.#handle)
  }

  /** Frees the array, for `using`, as `free()` does. */
  [Symbol.dispose](): void {
    this.free()
  }
}

/** The addon's handle of an array. @internal */
export function arrayHandle(a: unknown, what: string): number {
  if (!(a instanceof CUDAArray)) throw new TypeError(`${what} must be a CUDAArray, got ${describe(a)}`)
  return handleOfArray(a)
}

function pitched(side: unknown, what: string): { ptr: MemoryPointer; pitch: number | undefined } | undefined {
  if (side instanceof MemoryPointer) return { ptr: side, pitch: undefined }
  if (typeof side === 'object' && side !== null && 'ptr' in side && 'pitch' in side) {
    const { ptr, pitch } = checkOptions<PitchedPointer>(what, side, ['ptr', 'pitch'])
    if (!(ptr instanceof MemoryPointer)) throw new TypeError(`${what}: ptr must be a MemoryPointer, got ${describe(ptr)}`)
    return { ptr, pitch: count('pitch', pitch) }
  }
  return undefined
}

function host(side: HostBuffer, what: string): Uint8Array {
  return bytes(side instanceof PinnedMemory ? side.buffer : side, undefined, what)
}
