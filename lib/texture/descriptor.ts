// The descriptors a TextureObject takes (CuPy's `ResourceDescriptor` and `TextureDescriptor`), as
// plain objects: what the texture reads, and how it samples.
import type { MemoryPointer } from '../memory/pointer'
import type { CUDAArray } from './array'
import type { ChannelFormatDescriptor } from './format'

/** A texture over a CUDA array (`cudaResourceTypeArray`). */
export interface ArrayResource {
  /** The resource's type. */
  type: 'array'
  /** The array it reads. */
  array: CUDAArray
}

/** A texture over `sizeInBytes` of device memory, read with `tex1Dfetch` (`cudaResourceTypeLinear`). */
export interface LinearResource {
  /** The resource's type. */
  type: 'linear'
  /** Its address is a multiple of 512 bytes (`textureAlignment`). */
  memory: MemoryPointer
  /** Its elements' format. */
  format: ChannelFormatDescriptor
  /** Bytes it reads, a multiple of an element's. */
  sizeInBytes: number
}

/** A texture over `height` rows of `width` elements of device memory, `pitchInBytes` apart (`cudaResourceTypePitch2D`). */
export interface Pitch2DResource {
  /** The resource's type. */
  type: 'pitch2D'
  /** Its address and the pitch are multiples of 32 bytes (`texturePitchAlignment`). */
  memory: MemoryPointer
  /** Its elements' format. */
  format: ChannelFormatDescriptor
  /** Elements in a row. */
  width: number
  /** Rows. */
  height: number
  /** Bytes from one row's start to the next's. */
  pitchInBytes: number
}

/** What a texture reads (CuPy's `ResourceDescriptor`). */
export type ResourceDescriptor = ArrayResource | LinearResource | Pitch2DResource

/** What happens to coordinates outside the texture (`cudaAddressMode*`); wrap and mirror need normalized coordinates. */
export type AddressMode = 'wrap' | 'clamp' | 'mirror' | 'border'

/** How a texture samples (CuPy's `TextureDescriptor`). */
export interface TextureDescriptor {
  /** Per dimension, up to 3 (`'clamp'` for the rest). */
  addressModes?: AddressMode[]
  /** `'point'` (default) or `'linear'` (float channels, or `'normalizedFloat'` reads). */
  filterMode?: 'point' | 'linear'
  /** `'element'` (default) or `'normalizedFloat'`: 8- and 16-bit integers read as floats in [0, 1] ([-1, 1] signed). */
  readMode?: 'element' | 'normalizedFloat'
  /** Coordinates in [0, 1) rather than elements. */
  normalizedCoords?: boolean
  /** What `'border'` reads outside, per channel (zeros by default). */
  borderColor?: [number, number, number, number]
}
