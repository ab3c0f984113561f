import { scope } from '../context'
import { Device, deviceOrdinal } from '../device'
import { describe } from '../validate'
import { perThreadIsDefault } from './handle'
import { Stream } from './stream'

/** The current stream of a device (the current device by default) in this async context. */
export function getCurrentStream(device?: number | Device): Stream {
  const d = device === undefined ? scope().device : deviceOrdinal(device)
  return (scope().streams?.get(d) as Stream | undefined) ?? (perThreadIsDefault() ? Stream.ptds : Stream.null)
}

/** @internal A `stream` option as a Stream: the given one, or the current stream of `device`. */
export function streamOr(stream: unknown, device: number): Stream {
  if (stream === undefined) return getCurrentStream(device)
  if (!(stream instanceof Stream)) throw new TypeError(`stream must be a Stream, got ${describe(stream)}`)
  return stream
}
