import { native } from '../native'
import { describe, integer } from '../validate'

/** How a channel's bits read: signed or unsigned integers, or floats (16 bits: half). */
export type ChannelKind = 'signed' | 'unsigned' | 'float'

/**
 * An element's channel format (CuPy's `ChannelFormatDescriptor(x, y, z, w, f)`): the bits of
 * channels x, y, z and w (0 where absent) and how they read. CUDA arrays and textures take 1, 2
 * or 4 channels of the same width: 8, 16 or 32 bits (a float's 16 or 32).
 * @throws {TypeError} for arguments of the wrong kind; {RangeError} for bits not in {0, 8, 16, 32},
 *   3 channels, channels of different widths, an 8-bit float, or another kind.
 */
export class ChannelFormatDescriptor {
  /** Bits of channel x. */
  readonly x: number
  /** Bits of channel y (0: absent). */
  readonly y: number
  /** Bits of channel z (0: absent). */
  readonly z: number
  /** Bits of channel w (0: absent). */
  readonly w: number
  /** How the bits read (CuPy's `f`). */
  readonly kind: ChannelKind
  /** Bytes of one element. */
  readonly elementSize: number

  constructor(x: number, y = 0, z = 0, w = 0, kind: ChannelKind = 'float') {
    const bits = [integer('x', x), integer('y', y), integer('z', z), integer('w', w)]
    if (typeof kind !== 'string') throw new TypeError(`kind must be 'signed', 'unsigned' or 'float', got ${describe(kind)}`)
    this.elementSize = native.textureFormat(Float64Array.from(bits), kind)
    ;[this.x, this.y, this.z, this.w] = bits
    this.kind = kind
  }

  /** The four widths as the addon takes them. @internal */
  get bits(): Float64Array {
    return Float64Array.of(this.x, this.y, this.z, this.w)
  }

  /** CuPy's `get_channel_format()`: `{ x, y, z, w, f }`. */
  getChannelFormat(): {
    /** Bits of channel x. */
    x: number
    /** Bits of channel y. */
    y: number
    /** Bits of channel z. */
    z: number
    /** Bits of channel w. */
    w: number
    /** How the bits read. */
    f: ChannelKind
  } {
    return { x: this.x, y: this.y, z: this.z, w: this.w, f: this.kind }
  }
}

/** `desc` as a ChannelFormatDescriptor, or a TypeError naming `what`. @internal */
export function formatOf(desc: unknown, what: string): ChannelFormatDescriptor {
  if (!(desc instanceof ChannelFormatDescriptor)) throw new TypeError(`${what} must be a ChannelFormatDescriptor, got ${describe(desc)}`)
  return desc
}
