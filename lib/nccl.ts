// NCCL, after CuPy's `cupy.cuda.nccl`: unique ids, communicators and collectives. The library
// is loaded on first use (the simulator has one of its own); the core checks every call. The
// WebAssembly build has none: each call there is CUDA_ERROR_NOT_SUPPORTED (docs/wasm.md).
import { scope } from './context'
import { Device, deviceOrdinal } from './device'
import { adoptPointer, MemoryPointer } from './memory/pointer'
import { constants, native } from './native'
import { INTERNAL, NativeObject, own, ownDevice as ownDeviceOf } from './object'
import type { Stream } from './stream/stream'
import { streamOption } from './stream/handle'
import { count, describe, integer } from './validate'
import { launchEnv, PREFIX_ENV, storeFromEnv } from './distributed/launch-env'
import { TcpStore, TcpStoreServer, TOKEN_ENV } from './distributed/store'

/**
 * NCCL's element types, by CuPy's dtype names (`'int8'`, `'float32'`, `'bfloat16'`, …: the names
 * are Rust's, typed in native.d.ts), or NCCL's numbers (`nccl.NCCL_FLOAT32`, …).
 */
export type NcclDType = (typeof constants.nccl.dtypes)[number] | number
/** NCCL's reductions, by name (`'sum'`, `'max'`, …: Rust's, typed in native.d.ts) or number (`nccl.NCCL_SUM`, …). */
export type NcclOp = (typeof constants.nccl.ops)[number] | number

/** Each name's number, from the addon's list of names by number (crates/node/src/constants.rs). */
function numbers(names: readonly string[]): Record<string, number> {
  return Object.freeze(Object.fromEntries(names.map((n, i) => [n, i])))
}
const DTYPES = numbers(constants.nccl.dtypes)
const OPS = numbers(constants.nccl.ops)
/** The calls, as the binding numbers them. */
const KIND = numbers(constants.nccl.kinds)

function code(table: Record<string, number>, v: unknown, what: string): number {
  if (typeof v === 'number') return v
  if (typeof v === 'string' && Object.prototype.hasOwnProperty.call(table, v)) return table[v]
  throw new TypeError(`${what} must be one of ${Object.keys(table).join(', ')} or NCCL's number for it, got ${describe(v)}`)
}

/**
 * `ncclConfig_t` (nccl4py's `NcclConfig`): how a communicator is made. Unset fields keep
 * NCCL's defaults. `blocking: false` makes the init non-blocking (`ncclCommInitRankConfig`
 * with `blocking = 0`): it is polled to the end off the JS thread, and an `AbortSignal` (or
 * `abort()`) stops one that is stuck.
 */
export interface NcclConfig {
  /** `blocking`: false makes the init (and later calls) non-blocking, polled to the end. */
  blocking?: boolean
  /** `cgaClusterSize`: the CUDA thread-block cluster size of NCCL's kernels (Hopper and later). */
  cgaClusterSize?: number
  /** `minCTAs`: the fewest thread blocks (channels) NCCL's kernels use. */
  minCTAs?: number
  /** `maxCTAs`: the most thread blocks NCCL's kernels use. */
  maxCTAs?: number
  /** `netName`: the network module to use (`'IB'`, `'Socket'`, …). */
  netName?: string
  /** `splitShare`: children made by `split` share this communicator's resources. */
  splitShare?: boolean
}

/** Options of {@link NcclCommunicator.init} and {@link NcclCommunicator.split}. */
export interface NcclInitOptions {
  /** The communicator's `ncclConfig_t`. */
  config?: NcclConfig
  /**
   * Aborts the join: the promise rejects with `NCCL_ERROR_INVALID_USAGE` ("aborted"). With a
   * signal and no config, the join is non-blocking (`{ blocking: false }`), as an abortable
   * init must be on NCCL.
   */
  signal?: AbortSignal
}

function configArgs(options: NcclInitOptions | undefined): [Float64Array | undefined, string | undefined] {
  if (options === undefined) return [undefined, undefined]
  if (options === null || typeof options !== 'object') throw new TypeError(`options must be an object, got ${describe(options)}`)
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw new TypeError(`signal must be an AbortSignal, got ${describe(options.signal)}`)
  // An abortable join must be non-blocking: a blocking ncclCommInitRank cannot be stopped.
  const c = options.config ?? (options.signal !== undefined ? { blocking: false } : undefined)
  if (c === undefined) return [undefined, undefined]
  if (c === null || typeof c !== 'object') throw new TypeError(`config must be an object, got ${describe(c)}`)
  const n = (name: string, v: unknown): number => (v === undefined ? NaN : integer(name, v))
  const b = (name: string, v: unknown): number => {
    if (v === undefined) return NaN
    if (typeof v !== 'boolean') throw new TypeError(`${name} must be a boolean, got ${describe(v)}`)
    return v ? 1 : 0
  }
  if (c.netName !== undefined && typeof c.netName !== 'string') throw new TypeError(`netName must be a string, got ${describe(c.netName)}`)
  return [Float64Array.of(b('blocking', c.blocking), n('cgaClusterSize', c.cgaClusterSize), n('minCTAs', c.minCTAs), n('maxCTAs', c.maxCTAs), b('splitShare', c.splitShare)), c.netName]
}

/** Joins `comm` off the JS thread; an aborted `signal` aborts it. Destroys it if the join fails. */
async function joinOrDestroy(comm: NcclCommunicator, signal: AbortSignal | undefined): Promise<void> {
  const onAbort = (): void => native.ncclCommAbort(own(comm))
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    if (signal?.aborted) onAbort()
    await native.ncclCommJoin(own(comm))
  } catch (e) {
    native.ncclCommDestroy(own(comm))
    throw e
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}


function buffer(p: MemoryPointer | null | undefined, what: string): [number | undefined, number] {
  if (p === null || p === undefined) return [undefined, 0]
  if (!(p instanceof MemoryPointer)) throw new TypeError(`${what} must be a MemoryPointer or null, got ${describe(p)}`)
  return [own(p.mem), p.byteOffset]
}

/**
 * One rank of an NCCL communicator (CuPy's `cupy.cuda.nccl.NcclCommunicator`). Make one with
 * {@link NcclCommunicator.init} (one rank, joining the others off the JS thread) or
 * {@link NcclCommunicator.initAll} (one process driving several devices). Every call is enqueued
 * on a stream of the communicator's device — the current stream of that device by default — and
 * is captured like any other work when that stream captures.
 */
export class NcclCommunicator extends NativeObject {
  #rank: number
  #size: number

  private constructor(token: typeof INTERNAL, make: (owner: object) => number, device: number, size: number, rank: number) {
    super(token, 'NcclCommunicator', make, device)
    this.#size = size
    this.#rank = rank
  }

  /** This communicator's rank (CuPy's `rank_id()`). */
  get rankId(): number {
    return this.#rank
  }

  /** How many ranks the communicator has (CuPy's `size()`). */
  get size(): number {
    return this.#size
  }

  /** The communicator's device (CuPy's `device_id()`). */
  get device(): Device {
    return new Device(this.deviceId)
  }

  /** The ordinal of the communicator's device. */
  get deviceId(): number {
    return ownDeviceOf(this)
  }

  /**
   * Joins as `rank` of `nranks` on the current device (`ncclCommInitRank`), resolving once every
   * rank has joined. The join runs off the JS thread, so ranks in worker threads, in this thread
   * (`Promise.all`) or in other processes do not deadlock. Each pending join holds a thread of
   * libuv's pool (4 unless `UV_THREADPOOL_SIZE` says more).
   * @param id the 128 bytes of {@link nccl.getUniqueId}, passed to every rank.
   * @throws {TypeError} for a bad id, {CudaError} `NCCL_ERROR_INVALID_ARGUMENT` for a rank
   *   outside `nranks` or an id of no rendezvous, and NCCL's other errors by name.
   */
  static async init(nranks: number, id: Uint8Array, rank: number, options?: NcclInitOptions): Promise<NcclCommunicator> {
    integer('nranks', nranks)
    integer('rank', rank)
    if (!(id instanceof Uint8Array)) throw new TypeError(`id must be the Buffer of nccl.getUniqueId(), got ${describe(id)}`)
    const [fields, netName] = configArgs(options)
    const device = scope().device
    const comm = new NcclCommunicator(INTERNAL, (owner) => native.ncclCommCreate(owner, device, nranks, id, rank, fields, netName), device, nranks, rank)
    await joinOrDestroy(comm, options?.signal)
    return comm
  }

  /**
   * Splits this communicator (`ncclCommSplit`, NCCL 2.18+; nccl4py's `comm.split`): every
   * rank calls it; the ranks of one `color` form a new communicator, ranked by `key` (then by
   * their rank here). Resolves to null for `color` null (`NCCL_SPLIT_NOCOLOR`).
   * @throws {TypeError}/{RangeError} for bad arguments; {CudaError} `NCCL_ERROR_INVALID_USAGE`
   *   naming the version needed where the loaded NCCL has no `ncclCommSplit`.
   */
  async split(color: number | null, key: number, options?: NcclInitOptions): Promise<NcclCommunicator | null> {
    if (color !== null) {
      integer('color', color)
      if (color < 0) throw new RangeError(`color must be a non-negative integer, or null for no color (NCCL_SPLIT_NOCOLOR), got ${color}`)
    }
    integer('key', key)
    if (key < -(2 ** 31) || key >= 2 ** 31) throw new RangeError(`key must be a 32-bit integer, got ${key}`)
    const [fields, netName] = configArgs(options)
    const parent = own(this)
    const child = new NcclCommunicator(INTERNAL, (owner) => native.ncclCommSplitCreate(owner, parent, color ?? undefined, key, fields, netName), this.deviceId, 0, 0)
    await joinOrDestroy(child, options?.signal)
    const info = native.ncclCommInfo(own(child))
    if (info === null || info === undefined) {
      native.ncclCommDestroy(own(child))
      return null
    }
    child.#rank = info[0]
    child.#size = info[1]
    return child
  }

  /**
   * Joins as `rank` of `size` through a store (PyTorch's `ProcessGroupNCCL` over a `TCPStore`):
   * rank 0 makes the unique id and publishes it, the others wait for it; then every rank joins
   * on the current device. All ranks must make their communicators in the same order: the
   * n-th call on a store meets the others' n-th.
   * @throws {TypeError}/{RangeError} for bad arguments; StoreError `STORE_TIMEOUT` if rank 0's
   *   id does not come within the store's timeout; NCCL's errors as {@link NcclCommunicator.init}.
   */
  static async fromStore(store: TcpStore, options: { rank: number; size: number; timeout?: number } & NcclInitOptions): Promise<NcclCommunicator> {
    if (!(store instanceof TcpStore)) throw new TypeError(`store must be a TcpStore, got ${describe(store)}`)
    if (options === null || typeof options !== 'object') throw new TypeError(`fromStore takes { rank, size }, got ${describe(options)}`)
    const size = integer('size', options.size)
    const rank = integer('rank', options.rank)
    if (size < 1) throw new RangeError(`size must be at least 1, got ${size}`)
    if (rank < 0 || rank >= size) throw new RangeError(`rank must be from 0 to size - 1 (${size - 1}), got ${rank}`)
    const n = storeComms.get(store) ?? 0
    storeComms.set(store, n + 1)
    const key = `nccl/uniqueId/${n}`
    const call = options.timeout === undefined ? undefined : { timeout: options.timeout }
    let id: Buffer
    if (rank === 0) {
      id = nccl.getUniqueId()
      await store.set(key, id, call)
    } else {
      id = await store.get(key, call)
      if (id.length !== 128) throw new RangeError(`the store's ${key} holds ${id.length} bytes, not a unique id (128): another job shares this store?`)
    }
    return NcclCommunicator.init(size, id, rank, { config: options.config, signal: options.signal })
  }

  /**
   * One communicator per device, rank `i` on `devices[i]`, for one process driving them all
   * (`ncclCommInitAll`, CuPy's `NcclCommunicator.initAll`). Drive them inside
   * `nccl.groupStart()` / `nccl.groupEnd()`.
   * @param devices devices or ordinals, distinct; or a count `n` for devices 0 to n − 1.
   */
  static initAll(devices: ReadonlyArray<Device | number> | number): NcclCommunicator[] {
    if (typeof devices === 'number') {
      const n = integer('devices', devices)
      const have = Device.count()
      if (n < 1 || n > have) throw new RangeError(`initAll takes a count from 1 to the ${have} devices here, got ${n}`)
    }
    const list = typeof devices === 'number' ? Array.from({ length: devices }, (_, i) => i) : devices
    if (!Array.isArray(list)) throw new TypeError(`devices must be an array of devices or a count, got ${describe(devices)}`)
    if (list.length < 1 || list.length > Device.count()) throw new RangeError(`initAll takes 1 to the ${Device.count()} devices here, got ${list.length}`)
    const ords = list.map((d) => deviceOrdinal(d))
    const comms = ords.map((d, i) => new NcclCommunicator(INTERNAL, (owner) => native.ncclCommCreate(owner, d, ords.length, null, i), d, ords.length, i))
    try {
      native.ncclCommJoinAll(Float64Array.from(comms, (c) => own(c)))
    } catch (e) {
      for (const c of comms) native.ncclCommDestroy(own(c))
      throw e
    }
    return comms
  }

  #call(kind: number, send: MemoryPointer | null | undefined, recv: MemoryPointer | null | undefined, n: number, dtype: NcclDType, op: NcclOp, root: number, stream: Stream | undefined): void {
    const [s, so] = buffer(send, 'send buffer')
    const [r, ro] = buffer(recv, 'receive buffer')
    const h = streamOption(stream, this.deviceId)
    native.ncclCall(own(this), kind, s, so, r, ro, count('count', n), code(DTYPES, dtype, 'dtype'), code(OPS, op, 'op'), root, h)
  }

  /** Reduces `count` elements of every rank's `send` into every rank's `recv` (`ncclAllReduce`). */
  allReduce(send: MemoryPointer, recv: MemoryPointer, count: number, dtype: NcclDType, op: NcclOp, stream?: Stream): void {
    this.#call(KIND.allReduce, send, recv, count, dtype, op, 0, stream)
  }

  /** Reduces into `recv` of rank `root` only; `recv` may be null elsewhere (`ncclReduce`). */
  reduce(send: MemoryPointer, recv: MemoryPointer | null, count: number, dtype: NcclDType, op: NcclOp, root: number, stream?: Stream): void {
    this.#call(KIND.reduce, send, recv, count, dtype, op, integer('root', root) as number, stream)
  }

  /** Copies `send` of rank `root` into every rank's `recv`; `send` may be null elsewhere (`ncclBroadcast`). */
  broadcast(send: MemoryPointer | null, recv: MemoryPointer, count: number, dtype: NcclDType, root: number, stream?: Stream): void {
    this.#call(KIND.broadcast, send, recv, count, dtype, 0, integer('root', root) as number, stream)
  }

  /** Gathers `count` elements from each rank, in rank order, into every `recv` (`size · count` elements) (`ncclAllGather`). */
  allGather(send: MemoryPointer, recv: MemoryPointer, count: number, dtype: NcclDType, stream?: Stream): void {
    this.#call(KIND.allGather, send, recv, count, dtype, 0, 0, stream)
  }

  /** Reduces `size · count` elements and gives rank i the i-th `count` (`ncclReduceScatter`; `count` is what each receives). */
  reduceScatter(send: MemoryPointer, recv: MemoryPointer, count: number, dtype: NcclDType, op: NcclOp, stream?: Stream): void {
    this.#call(KIND.reduceScatter, send, recv, count, dtype, op, 0, stream)
  }

  /** Sends `count` elements to rank `peer`, which must `recv` them (`ncclSend`); pair them inside a group. */
  send(buf: MemoryPointer, count: number, dtype: NcclDType, peer: number, stream?: Stream): void {
    this.#call(KIND.send, buf, null, count, dtype, 0, integer('peer', peer) as number, stream)
  }

  /** Receives `count` elements from rank `peer` (`ncclRecv`). */
  recv(buf: MemoryPointer, count: number, dtype: NcclDType, peer: number, stream?: Stream): void {
    this.#call(KIND.recv, null, buf, count, dtype, 0, integer('peer', peer) as number, stream)
  }

  /**
   * Sends the i-th `count` elements of `send` to rank i and puts rank i's part at the i-th
   * place of `recv` (both `size · count` elements): NCCL's `ncclAlltoAll` where the loaded
   * library has it (2.28+), else a send and a receive per peer in one group.
   */
  allToAll(send: MemoryPointer, recv: MemoryPointer, count: number, dtype: NcclDType, stream?: Stream): void {
    this.#call(KIND.allToAll, send, recv, count, dtype, 0, 0, stream)
  }

  /**
   * Registers `nbytes` of `buf` with the communicator (`ncclCommRegister`, NCCL 2.19+): its
   * collectives on that range may skip NCCL's staging copies. Keep the memory until
   * {@link NcclCommunicator.deregister} (or `destroy`). Returns the registration's handle.
   * @throws {TypeError}/{RangeError} for a bad buffer or a range past it; {CudaError}
   *   `NCCL_ERROR_INVALID_USAGE` naming the version needed on an older NCCL.
   */
  register(buf: MemoryPointer, nbytes: number): bigint {
    if (!(buf instanceof MemoryPointer)) throw new TypeError(`buf must be a MemoryPointer, got ${describe(buf)}`)
    return native.ncclCommRegister(own(this), own(buf.mem), buf.byteOffset, count('nbytes', nbytes))
  }

  /** Deregisters a handle of {@link NcclCommunicator.register} (`ncclCommDeregister`). */
  deregister(handle: bigint): void {
    if (typeof handle !== 'bigint') throw new TypeError(`handle must be the bigint register() returned, got ${describe(handle)}`)
    native.ncclCommDeregister(own(this), handle)
  }

  /** Throws the error that asynchronous work met, if any (CuPy's `check_async_error`). */
  checkAsyncError(): void {
    native.ncclCommCheckAsyncError(own(this))
  }

  /**
   * Stops pending work and frees the communicator (`ncclCommAbort`); later calls throw, and
   * work it left queued fails with a typed error (`checkAsyncError` on the other ranks:
   * `NCCL_ERROR_REMOTE_ERROR` on the simulator).
   */
  abort(): void {
    native.ncclCommAbort(own(this))
  }

  /** Frees the communicator once its queued work is done (`ncclCommDestroy`). Twice is nothing. */
  destroy(): void {
    native.ncclCommDestroy(own(this))
  }

  /** Destroys the communicator, for `using`. */
  [Symbol.dispose](): void {
    this.destroy()
  }
}

const storeComms = new WeakMap<TcpStore, number>()

/** Options of {@link nccl.initProcessGroup}: each defaults to what `cuda-node run` says. */
export interface ProcessGroupOptions {
  /** The store the ranks meet through; by default the launcher's (or, with no launcher, one rank 0 hosts). */
  store?: TcpStore
  /** This process's rank (`RANK`). */
  rank?: number
  /** How many ranks (`WORLD_SIZE`). */
  size?: number
  /** The device to use (`LOCAL_RANK`'s); it becomes the current device. */
  device?: Device | number
  /** How long to wait for the store and the other ranks, in ms. */
  timeout?: number
}

async function initProcessGroup(options: ProcessGroupOptions = {}): Promise<NcclCommunicator> {
  if (options === null || typeof options !== 'object') throw new TypeError(`initProcessGroup takes an options object, got ${describe(options)}`)
  const env = launchEnv()
  const rank = options.rank ?? env?.rank
  const size = options.size ?? env?.worldSize
  if (rank === undefined || size === undefined) {
    throw new RangeError('initProcessGroup needs a rank and a size: run under `cuda-node run` (RANK, WORLD_SIZE), or pass { rank, size }')
  }
  const device = options.device ?? env?.localRank
  if (device !== undefined) new Device(deviceOrdinal(device)).use()
  let store = options.store
  if (store === undefined) {
    if (env !== undefined && process.env[PREFIX_ENV] !== undefined) {
      // `cuda-node run` (it alone sets the prefix): its launcher hosts the store.
      store = await storeFromEnv({ timeout: options.timeout })
    } else {
      // No launcher: rank 0 hosts the store at MASTER_ADDR:MASTER_PORT, as PyTorch's env:// does.
      const token = process.env[TOKEN_ENV]
      if (token === undefined) throw new RangeError(`no launcher and no store: set ${TOKEN_ENV} (the same on every rank) with MASTER_ADDR and MASTER_PORT, or pass { store }`)
      const host = process.env.MASTER_ADDR ?? '127.0.0.1'
      const port = Number(process.env.MASTER_PORT ?? 29500)
      if (integer('rank', rank) === 0) await TcpStoreServer.listen({ host, port, token, keepAlive: false })
      store = await TcpStore.connect({ host, port, token, timeout: options.timeout, worldSize: size })
    }
  }
  return NcclCommunicator.fromStore(store, { rank, size, timeout: options.timeout })
}

/** NCCL, as `cupy.cuda.nccl` offers it. */
export const nccl = {
  /** One rank of a communicator: {@link NcclCommunicator}. */
  NcclCommunicator,
  /**
   * Joins this process's rank of the job (PyTorch's `init_process_group('nccl')`): with no
   * options, from `cuda-node run`'s environment — rank `RANK` of `WORLD_SIZE` on device
   * `LOCAL_RANK`, meeting the others through the launcher's store.
   * @throws {RangeError} outside a launcher without `{ rank, size }`; StoreError and NCCL's errors as {@link NcclCommunicator.fromStore}.
   */
  initProcessGroup,
  /** A new 128-byte unique id (`ncclGetUniqueId`): pass it to every rank. This process hosts the ranks' rendezvous, so it must run until they have joined. */
  getUniqueId(): Buffer {
    return native.ncclGetUniqueId()
  },
  /**
   * `nbytes` of device memory on the current device from `ncclMemAlloc` (NCCL 2.19+; nccl4py's
   * `mem_alloc`): memory NCCL's transports can use directly, freed with `ncclMemFree`. It is an
   * allocator: `setAllocator(nccl.memAlloc)` makes `alloc` draw from it. Plain memory on the
   * simulator.
   * @throws {TypeError}/{RangeError} for a bad size; {CudaError} `NCCL_ERROR_INVALID_USAGE`
   *   naming the version needed on an older NCCL.
   */
  memAlloc(nbytes: number): MemoryPointer {
    const device = deviceOrdinal(undefined)
    return adoptPointer(native.ncclMemAlloc(device, count('nbytes', nbytes)), device)
  },
  /** NCCL's version as `ncclGetVersion` gives it: 22304 for 2.23.4 (CuPy's `get_version()`). */
  getVersion(): number {
    return native.ncclVersion()
  },
  /** Defers this thread's NCCL calls until {@link nccl.groupEnd} (`ncclGroupStart`); groups nest. */
  groupStart(): void {
    native.ncclGroupStart()
  },
  /** Launches the calls deferred since the matching `groupStart` (`ncclGroupEnd`). */
  groupEnd(): void {
    native.ncclGroupEnd()
  },
  /** `ncclInt8`. */
  NCCL_INT8: 0,
  /** `ncclChar`, the same as ncclInt8. */
  NCCL_CHAR: 0,
  /** `ncclUint8`. */
  NCCL_UINT8: 1,
  /** `ncclInt32`. */
  NCCL_INT32: 2,
  /** `ncclInt`, the same as ncclInt32. */
  NCCL_INT: 2,
  /** `ncclUint32`. */
  NCCL_UINT32: 3,
  /** `ncclInt64`. */
  NCCL_INT64: 4,
  /** `ncclUint64`. */
  NCCL_UINT64: 5,
  /** `ncclFloat16`. */
  NCCL_FLOAT16: 6,
  /** `ncclHalf`, the same as ncclFloat16. */
  NCCL_HALF: 6,
  /** `ncclFloat32`. */
  NCCL_FLOAT32: 7,
  /** `ncclFloat`, the same as ncclFloat32. */
  NCCL_FLOAT: 7,
  /** `ncclFloat64`. */
  NCCL_FLOAT64: 8,
  /** `ncclDouble`, the same as ncclFloat64. */
  NCCL_DOUBLE: 8,
  /** `ncclBfloat16`. */
  NCCL_BFLOAT16: 9,
  /** `ncclSum`. */
  NCCL_SUM: 0,
  /** `ncclProd`. */
  NCCL_PROD: 1,
  /** `ncclMax`. */
  NCCL_MAX: 2,
  /** `ncclMin`. */
  NCCL_MIN: 3,
  /** `ncclAvg`. */
  NCCL_AVG: 4,
} as const
