// Memory counters for the timeline: while `profiler.trace` runs, each allocation and free (the
// memory channels) samples, per device, the bytes in use (the pools that allocated during the
// trace, as they count, plus plain and managed allocations made in it) and the bytes the device
// holds (`cuMemGetInfo`'s total − free: every pool's segments, plain memory, contexts). Off the
// trace nothing subscribes.
import { runWith } from './context'
import { memoryChannels } from './memory/channels'
import { native } from './native'

/** One sample of a device's memory counters, in the timeline's time. */
export interface MemoryCounter {
  /** The device's ordinal. */
  device: number
  /** Milliseconds from the start of the trace. */
  time: number
  /** Bytes handed out by the pools that allocated during the trace, plus plain and managed memory allocated in it. */
  inUse: number
  /** Bytes the device holds now (total − free, as `cuMemGetInfo` says: every process's). */
  reserved: number
}

interface Pool {
  usedBytes(): number
}

/** Starts sampling; returns the function that stops and gives the samples, oldest first. */
export function startMemoryCounters(devices: number[], base: number): () => MemoryCounter[] {
  const samples: MemoryCounter[] = []
  const pools = new Map<number, Set<Pool>>()
  const plain = new Map<number, number>()
  const plainSizes = new WeakMap<object, number>()
  let stopped = false
  const sample = (device: number) => {
    if (stopped) return
    let inUse = plain.get(device) ?? 0
    for (const p of pools.get(device) ?? []) {
      try {
        inUse += runWith({ device }, () => p.usedBytes())
      } catch {
        // A pool that cannot say (its device gone): left out.
      }
    }
    const m = native.deviceMemInfo(device)
    samples.push({ device, time: performance.now() - base, inUse, reserved: m.total - m.free })
  }
  const onAlloc = (msg: unknown) => {
    const m = msg as { device: number; size: number; pool?: object; pointer: { mem: object } }
    const pool = m.pool as Pool | undefined
    if (pool !== undefined && typeof pool.usedBytes === 'function') {
      let set = pools.get(m.device)
      if (set === undefined) pools.set(m.device, (set = new Set()))
      set.add(pool)
    } else {
      plain.set(m.device, (plain.get(m.device) ?? 0) + m.size)
      plainSizes.set(m.pointer.mem, m.size)
    }
    sample(m.device)
  }
  const onFree = (msg: unknown) => {
    const m = msg as { device: number; memory: object }
    const size = plainSizes.get(m.memory)
    if (size !== undefined) {
      plainSizes.delete(m.memory)
      plain.set(m.device, (plain.get(m.device) ?? 0) - size)
    }
    // The free is published before the memory goes back: sample once it has.
    queueMicrotask(() => sample(m.device))
  }
  for (const d of devices) sample(d)
  memoryChannels.alloc.subscribe(onAlloc)
  memoryChannels.free.subscribe(onFree)
  return () => {
    memoryChannels.alloc.unsubscribe(onAlloc)
    memoryChannels.free.unsubscribe(onFree)
    for (const d of new Set([...devices, ...pools.keys(), ...plain.keys()])) sample(d)
    stopped = true
    return samples.sort((a, b) => a.time - b.time)
  }
}

/** The samples as Chrome trace counter events (`ph: 'C'`): a track a device, in use and reserved in MiB. */
export function counterEvents(samples: MemoryCounter[]): object[] {
  return samples.map((s) => ({
    name: `memory, device ${s.device} (MiB)`,
    ph: 'C',
    ts: +(s.time * 1000).toFixed(3),
    pid: 1,
    args: { inUse: +(s.inUse / 2 ** 20).toFixed(3), reserved: +(s.reserved / 2 ** 20).toFixed(3) },
  }))
}
