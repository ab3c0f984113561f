// The store's frames: a 4-byte little-endian length, then the body. A request's body is its
// operation (1 byte), its id (4 bytes) and its arguments; a reply's body is its status (1 byte:
// 0 ok, 1 error), the request's id and its values. Arguments and values are a 2-byte count of
// byte strings, each a 4-byte length and its bytes. Nothing here trusts a length it has read:
// every one is checked against what the frame holds and against the reader's limit.

/** The operations, by number on the wire. */
export const enum Op {
  Hello = 1,
  Set = 2,
  Get = 3,
  Wait = 4,
  Add = 5,
  CompareSet = 6,
  Delete = 7,
  NumKeys = 8,
  Check = 9,
}

/** The largest frame either side reads unless told otherwise (a value up to 64 MiB). */
export const DEFAULT_MAX_FRAME = 64 * 1024 * 1024 + 64 * 1024

/** A frame that breaks the protocol: the peer is not one of ours, or its bytes were damaged. */
export class FrameError extends Error {}

export function encode(head: number, id: number, parts: ReadonlyArray<Uint8Array>): Buffer {
  let size = 4 + 1 + 4 + 2
  for (const p of parts) size += 4 + p.byteLength
  const out = Buffer.allocUnsafe(size)
  out.writeUInt32LE(size - 4, 0)
  out.writeUInt8(head, 4)
  out.writeUInt32LE(id >>> 0, 5)
  out.writeUInt16LE(parts.length, 9)
  let at = 11
  for (const p of parts) {
    out.writeUInt32LE(p.byteLength, at)
    at += 4
    out.set(p, at)
    at += p.byteLength
  }
  return out
}

export interface Frame {
  head: number
  id: number
  parts: Buffer[]
}

function decode(body: Buffer): Frame {
  if (body.length < 7) throw new FrameError(`a frame of ${body.length} bytes is shorter than its header (7)`)
  const head = body.readUInt8(0)
  const id = body.readUInt32LE(1)
  const n = body.readUInt16LE(5)
  const parts: Buffer[] = []
  let at = 7
  for (let i = 0; i < n; i++) {
    if (at + 4 > body.length) throw new FrameError(`part ${i} of ${n} runs past the frame`)
    const len = body.readUInt32LE(at)
    at += 4
    if (at + len > body.length) throw new FrameError(`part ${i} says ${len} bytes, past the frame's end`)
    parts.push(body.subarray(at, at + len))
    at += len
  }
  if (at !== body.length) throw new FrameError(`${body.length - at} bytes follow the frame's last part`)
  return { head, id, parts }
}

/** Splits a byte stream into frames; throws FrameError at the first bad one (the connection is then dropped). */
export class FrameReader {
  #chunks: Buffer[] = []
  #have = 0

  /** The largest frame read; a longer one is a FrameError. It may grow once the peer is trusted. */
  constructor(public maxFrame: number) {}

  push(chunk: Buffer): Frame[] {
    this.#chunks.push(chunk)
    this.#have += chunk.length
    const out: Frame[] = []
    for (;;) {
      if (this.#have < 4) return out
      const all = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks)
      this.#chunks = [all]
      const len = all.readUInt32LE(0)
      if (len > this.maxFrame) throw new FrameError(`a frame of ${len} bytes is over the limit of ${this.maxFrame}`)
      if (all.length < 4 + len) return out
      out.push(decode(all.subarray(4, 4 + len)))
      const rest = all.subarray(4 + len)
      this.#chunks = rest.length > 0 ? [rest] : []
      this.#have = rest.length
    }
  }
}
