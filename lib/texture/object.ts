import { native } from '../native'
import { own } from '../object'
import { MemoryPointer } from '../memory/pointer'
import { count, describe, options as checkOptions } from '../validate'
import { arrayHandle, CUDAArray } from './array'
import type { ResourceDescriptor, TextureDescriptor } from './descriptor'
import { formatOf } from './format'

const NO_TEXTURE: TextureDescriptor = Object.freeze({})

function memoryOf(m: unknown): MemoryPointer {
  if (!(m instanceof MemoryPointer)) throw new TypeError(`memory must be a MemoryPointer, got ${describe(m)}`)
  return m
}

/** What the addon takes for a texture (`textureCreate`, `texrefCreate`): kind, target, geometry, bits, channel, modes, normalizedCoords, border. */
type TextureArgs = [string, number, Float64Array, Float64Array, string, string[], boolean, Float64Array]

/**
 * @internal The addon's arguments for a texture over `resDesc` sampled as `texDesc`, and the
 * checked descriptor: what a TextureObject and a TextureReference share.
 */
export function textureArgs(resDesc: ResourceDescriptor, texDesc: TextureDescriptor = NO_TEXTURE): { args: TextureArgs; checked: TextureDescriptor } {
  if (typeof resDesc !== 'object' || resDesc === null) throw new TypeError(`resDesc must be a ResourceDescriptor, got ${describe(resDesc)}`)
  const t = checkOptions<TextureDescriptor>('TextureDescriptor', texDesc, ['addressModes', 'filterMode', 'readMode', 'normalizedCoords', 'borderColor'])
  const { addressModes = [], filterMode = 'point', readMode = 'element', normalizedCoords = false, borderColor = [0, 0, 0, 0] } = t
  if (!Array.isArray(addressModes) || !addressModes.every((m) => typeof m === 'string')) throw new TypeError('addressModes must be an array of mode names')
  if (typeof filterMode !== 'string' || typeof readMode !== 'string') throw new TypeError('filterMode and readMode are strings')
  if (typeof normalizedCoords !== 'boolean') throw new TypeError(`normalizedCoords must be a boolean, got ${describe(normalizedCoords)}`)
  if (!Array.isArray(borderColor) || !borderColor.every((c) => typeof c === 'number')) throw new TypeError('borderColor must be 4 numbers')
  const modes = [filterMode, readMode, ...addressModes]
  const border = Float64Array.from(borderColor)
  const r = resDesc
  switch (r.type) {
    case 'array':
      checkOptions('ResourceDescriptor', r, ['type', 'array'])
      return { args: ['array', arrayHandle(r.array, 'array'), new Float64Array(0), new Float64Array(4), 'float', modes, normalizedCoords, border], checked: t }
    case 'linear': {
      checkOptions('ResourceDescriptor', r, ['type', 'memory', 'format', 'sizeInBytes'])
      const m = memoryOf(r.memory)
      const f = formatOf(r.format, 'format')
      const geometry = Float64Array.of(m.byteOffset, count('sizeInBytes', r.sizeInBytes))
      return { args: ['linear', own(m.mem), geometry, f.bits, f.kind, modes, normalizedCoords, border], checked: t }
    }
    case 'pitch2D': {
      checkOptions('ResourceDescriptor', r, ['type', 'memory', 'format', 'width', 'height', 'pitchInBytes'])
      const m = memoryOf(r.memory)
      const f = formatOf(r.format, 'format')
      const geometry = Float64Array.of(m.byteOffset, count('width', r.width), count('height', r.height), count('pitchInBytes', r.pitchInBytes))
      return { args: ['pitch2D', own(m.mem), geometry, f.bits, f.kind, modes, normalizedCoords, border], checked: t }
    }
    default:
      throw new RangeError(`a ResourceDescriptor's type is 'array', 'linear' or 'pitch2D', got ${describe((r as { type: unknown }).type)}`)
  }
}

/**
 * A texture object (CuPy's `cupy.cuda.texture.TextureObject`, `cuTexObjectCreate`): pass its
 * `handle` to a kernel taking a `cudaTextureObject_t` (an `unsigned long long`). It keeps the
 * array or memory it reads alive until it is destroyed (`destroy()`, `using`, or the GC).
 * @throws {TypeError} for descriptors of the wrong kind or with unknown keys; {RangeError} for a
 *   mode that does not exist, wrap or mirror without normalized coordinates, a read mode or
 *   filter the format does not allow, a range past the memory's end or misaligned; {CudaError}
 *   `CUDA_ERROR_INVALID_HANDLE` for a freed array or memory.
 */
export class TextureObject {
  readonly #handle: number
  /** What it reads. */
  readonly resDesc: ResourceDescriptor
  /** How it samples. */
  readonly texDesc: TextureDescriptor

  constructor(resDesc: ResourceDescriptor, texDesc: TextureDescriptor = NO_TEXTURE) {
    const { args, checked } = textureArgs(resDesc, texDesc)
    this.#handle = native.textureCreate(this, ...args)
    this.resDesc = resDesc
    this.texDesc = checked
  }

  /** The `CUtexObject` as a bigint, what a kernel takes. @throws {CudaError} `CUDA_ERROR_INVALID_HANDLE` once destroyed. */
  get handle(): bigint {
    return native.textureHandle(this.#handle)
  }

  /** Destroys the texture object (again: nothing); what it reads goes once nothing else holds it. */
  destroy(): void {
    native.textureDestroy(this.#handle)
  }

  /** Destroys the object, for `using`, as `destroy()` does. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}

/**
 * A surface object (CuPy's `cupy.cuda.texture.SurfaceObject`, `cuSurfObjectCreate`) over a CUDA
 * array made with `surfaceLoadStore: true`: pass its `handle` to a kernel taking a
 * `cudaSurfaceObject_t` (`surf2Dwrite`, `surf2Dread`, …). It keeps the array alive until it is
 * destroyed (`destroy()`, `using`, or the GC).
 * @throws {TypeError} unless given an array resource or a CUDAArray; {CudaError}
 *   `CUDA_ERROR_INVALID_VALUE` for an array made without `surfaceLoadStore`,
 *   `CUDA_ERROR_INVALID_HANDLE` for a freed one.
 */
export class SurfaceObject {
  readonly #handle: number
  /** The array it reads and writes. */
  readonly array: CUDAArray

  constructor(resDesc: { type: 'array'; array: CUDAArray } | CUDAArray) {
    let array: unknown = resDesc
    if (!(resDesc instanceof CUDAArray)) {
      if (typeof resDesc !== 'object' || resDesc === null || resDesc.type !== 'array') {
        throw new TypeError(`a SurfaceObject takes an array ResourceDescriptor or a CUDAArray, got ${describe(resDesc)}`)
      }
      array = checkOptions('ResourceDescriptor', resDesc, ['type', 'array']).array
    }
    this.#handle = native.surfaceCreate(this, arrayHandle(array, 'array'))
    this.array = array as CUDAArray
  }

  /** The `CUsurfObject` as a bigint, what a kernel takes. @throws {CudaError} `CUDA_ERROR_INVALID_HANDLE` once destroyed. */
  get handle(): bigint {
    return native.surfaceHandle(this.#handle)
  }

  /** Destroys the surface object (again: nothing). */
  destroy(): void {
    native.surfaceDestroy(this.#handle)
  }

  /** Destroys the object, for `using`, as `destroy()` does. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}
