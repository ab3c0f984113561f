import { scope } from '../context'
import { Device, deviceOrdinal } from '../device'
import { asStream, perThreadIsDefault } from './handle'
import { Stream } from './stream'

/** The current stream of a device (the current device by default) in this async context. */
export function getCurrentStream(device?: number | Device): Stream {
  const d = device === undefined ? scope().device : deviceOrdinal(device)
  return (scope().streams?.get(d) as Stream | undefined) ?? (perThreadIsDefault() ? Stream.ptds : Stream.null)
}

/**
 * @internal A `stream` option as a Stream: the given one (or the one an object offering the stream
 * protocol stands for), or the current stream of `device`.
 */
export function streamOr(stream: unknown, device: number): Stream {
  if (stream === undefined) return getCurrentStream(device)
  if (stream instanceof Stream) return stream
  const s = asStream(stream)
  if (!(s instanceof Stream)) throw new TypeError(`stream must be a Stream or an object offering Symbol.for('cuda.stream'), got ${s}`)
  return s
}
