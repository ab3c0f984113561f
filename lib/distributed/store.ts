// A key-value store over TCP, after PyTorch's `TCPStore`: one server (the launcher, or rank 0
// when there is no launcher) and a client in each rank. Ranks meet through it: rank 0 publishes
// NCCL's unique id, the others wait for it. Every call is async with a timeout; a peer that
// vanishes, a port that refuses or a malformed frame is a StoreError, never a hang, and no
// client's bytes can crash the server. Only holders of the job's token get in.
import { createHash, timingSafeEqual } from 'node:crypto'
import net from 'node:net'
import { describe } from '../describe'
import { DEFAULT_MAX_FRAME, encode, type Frame, FrameError, FrameReader, Op } from './wire'

/** What went wrong, as {@link StoreError.code} names it. */
export type StoreErrorCode =
  | 'STORE_TIMEOUT' // the call, or the connection, took longer than its timeout
  | 'STORE_UNAUTHORIZED' // the token is missing or wrong
  | 'STORE_CONNECT' // the server could not be reached before the timeout
  | 'STORE_CLOSED' // the connection closed (the peer vanished, or close() was called)
  | 'STORE_PROTOCOL' // a malformed frame
  | 'STORE_QUOTA' // this client would store more than the server allows one client

/** A store failure; `code` says which (PyTorch raises `DistStoreError` / `TimeoutError`). */
export class StoreError extends Error {
  /** What went wrong: `'STORE_TIMEOUT'`, `'STORE_UNAUTHORIZED'`, `'STORE_CONNECT'`, `'STORE_CLOSED'`, `'STORE_PROTOCOL'` or `'STORE_QUOTA'`. */
  readonly code: StoreErrorCode
  /** @throws {TypeError} unless `message` is a string (converting anything else runs its code). */
  constructor(code: StoreErrorCode, message: string) {
    if (typeof message !== 'string') throw new TypeError(`a StoreError's message must be a string, got ${describe(message)}`)
    super(message)
    this.code = code
  }

  /** Always `'StoreError'`, so stack traces and `util.inspect` name the class. */
  override get name(): string {
    return 'StoreError'
  }
}

/** A value: a string (stored as UTF-8) or bytes. */
export type StoreValue = string | Uint8Array

/** The environment variable that carries the job's token to its ranks. */
export const TOKEN_ENV = 'CUDA_NODE_STORE_TOKEN'

const DEFAULT_TIMEOUT_MS = 300_000
const DEFAULT_MAX_CLIENT_BYTES = 64 * 1024 * 1024
const MAX_WAITERS_PER_CLIENT = 4096

function checkPort(port: unknown, allowZero: boolean): number {
  if (typeof port !== 'number') throw new TypeError(`port must be a number, got ${describe(port)}`)
  if (!Number.isInteger(port) || port < (allowZero ? 0 : 1) || port > 65535) throw new RangeError(`port must be an integer from ${allowZero ? 0 : 1} to 65535, got ${port}`)
  return port
}

function checkTimeout(name: string, ms: unknown): number {
  if (typeof ms !== 'number') throw new TypeError(`${name} must be a number of milliseconds, got ${describe(ms)}`)
  if (!(ms > 0) || !Number.isFinite(ms)) throw new RangeError(`${name} must be a positive, finite number of milliseconds, got ${ms}`)
  return ms
}

function checkToken(token: unknown): string {
  if (typeof token !== 'string') throw new TypeError(`token must be a string (the launcher passes it in ${TOKEN_ENV}), got ${describe(token)}`)
  if (token.length === 0) throw new RangeError(`token must not be empty: the store lets in only the holders of the job's token`)
  return token
}

function key(k: unknown, name = 'key'): Buffer {
  if (typeof k !== 'string') throw new TypeError(`${name} must be a string, got ${describe(k)}`)
  if (k.length === 0) throw new RangeError(`${name} must not be empty`)
  return Buffer.from(k)
}

function value(v: unknown, name = 'value'): Uint8Array {
  if (typeof v === 'string') return Buffer.from(v)
  if (v instanceof Uint8Array) return v
  throw new TypeError(`${name} must be a string or a Uint8Array, got ${describe(v)}`)
}

const digest = (s: Uint8Array | string): Buffer => createHash('sha256').update(s).digest()

// ---------------------------------------------------------------------------------------------
// The server

/** Options of {@link TcpStoreServer.listen}. */
export interface StoreServerOptions {
  /** The address to listen on: `'127.0.0.1'` (the default) or `'::1'` for one host. */
  host?: string
  /** The port; 0 (the default) picks a free one ({@link TcpStoreServer.port} says which). */
  port?: number
  /** The job's token: connections that do not present it are refused. */
  token: string
  /** The most bytes (keys and values) one client may hold in the store; 64 MiB by default. */
  maxClientBytes?: number
  /** Where refusals and dropped clients are reported, a line each; `console.error` by default. */
  log?: (line: string) => void
  /** Whether the server alone keeps the process alive (true by default; rank 0 hosting it for its job passes false). */
  keepAlive?: boolean
}

interface Entry {
  value: Buffer
  owner: Client
}

interface Waiter {
  keys: Buffer[]
  client: Client
  id: number
  timer: NodeJS.Timeout
  reply: () => void
}

interface Client {
  socket: net.Socket
  name: string
  authorized: boolean
  bytes: number
  waiters: Set<Waiter>
}

/** The store's server (PyTorch's `TCPStore(is_master=True)` side): keys live here. */
export class TcpStoreServer {
  readonly #server: net.Server
  readonly #tokenDigest: Buffer
  readonly #maxClientBytes: number
  readonly #log: (line: string) => void
  #keepAlive = true
  readonly #data = new Map<string, Entry>()
  readonly #waiters = new Map<string, Set<Waiter>>()
  readonly #clients = new Set<Client>()
  /** The address it listens on. */
  readonly host: string
  /** The port it listens on. */
  readonly port: number

  private constructor(server: net.Server, host: string, port: number, token: string, maxClientBytes: number, log: (line: string) => void) {
    this.#server = server
    this.host = host
    this.port = port
    this.#tokenDigest = digest(token)
    this.#maxClientBytes = maxClientBytes
    this.#log = log
    server.on('connection', (s) => this.#accept(s))
  }

  /**
   * Starts a server.
   * @throws {TypeError}/{RangeError} for bad options; StoreError `STORE_CONNECT` if the port cannot be bound.
   */
  static async listen(options: StoreServerOptions): Promise<TcpStoreServer> {
    if (options === null || typeof options !== 'object') throw new TypeError(`listen takes an options object, got ${describe(options)}`)
    const token = checkToken(options.token)
    const host = options.host ?? '127.0.0.1'
    if (typeof host !== 'string') throw new TypeError(`host must be a string, got ${describe(host)}`)
    const port = checkPort(options.port ?? 0, true)
    const maxClientBytes = options.maxClientBytes ?? DEFAULT_MAX_CLIENT_BYTES
    if (typeof maxClientBytes !== 'number' || !Number.isInteger(maxClientBytes) || maxClientBytes < 1) {
      throw new RangeError(`maxClientBytes must be a positive integer, got ${describe(maxClientBytes)}`)
    }
    const log = options.log ?? ((line: string) => console.error(line))
    const server = net.createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => reject(new StoreError('STORE_CONNECT', `the store could not listen on ${host}:${port}: ${e.code ?? e.message}`)))
      server.listen({ host, port, exclusive: true }, () => resolve())
    })
    server.removeAllListeners('error')
    server.on('error', (e) => log(`[store] server error: ${e.message}`))
    if (options.keepAlive === false) server.unref()
    const addr = server.address() as net.AddressInfo
    const s = new TcpStoreServer(server, host, addr.port, token, maxClientBytes, log)
    s.#keepAlive = options.keepAlive !== false
    return s
  }

  /** How many keys the store holds. */
  get size(): number {
    return this.#data.size
  }

  /** Stops listening and drops every client (their pending calls fail with `STORE_CLOSED`). */
  async close(): Promise<void> {
    for (const c of this.#clients) c.socket.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }

  #accept(socket: net.Socket): void {
    socket.setNoDelay(true)
    if (!this.#keepAlive) socket.unref()
    const client: Client = { socket, name: `${socket.remoteAddress}:${socket.remotePort}`, authorized: false, bytes: 0, waiters: new Set() }
    this.#clients.add(client)
    // Before the hello, only a small frame is read: an unauthorized peer cannot make us buffer much.
    const reader = new FrameReader(4096)
    socket.on('data', (chunk: Buffer) => {
      let frames: Frame[]
      try {
        frames = reader.push(chunk)
      } catch (e) {
        this.#drop(client, 'STORE_PROTOCOL', `malformed frame: ${(e as Error).message}`)
        return
      }
      for (const f of frames) {
        if (socket.destroyed) return
        try {
          this.#handle(client, f)
          if (client.authorized) reader.maxFrame = Math.max(DEFAULT_MAX_FRAME, this.#maxClientBytes + 64 * 1024)
        } catch (e) {
          this.#drop(client, 'STORE_PROTOCOL', (e as Error).message)
          return
        }
      }
    })
    socket.on('error', () => {})
    socket.on('close', () => this.#forget(client))
    // A peer that connects and says nothing is not kept forever.
    socket.setTimeout(30_000, () => {
      if (!client.authorized) this.#drop(client, 'STORE_TIMEOUT', 'no hello within 30 s')
    })
  }

  #forget(client: Client): void {
    this.#clients.delete(client)
    for (const w of client.waiters) this.#unwait(w)
    client.waiters.clear()
  }

  #drop(client: Client, code: StoreErrorCode, why: string): void {
    this.#log(`[store] dropped ${client.name}: ${why}`)
    if (!client.socket.destroyed) {
      client.socket.end(encode(1, 0, [Buffer.from(code), Buffer.from(why)]))
      client.socket.destroySoon()
    }
    this.#forget(client)
  }

  #ok(client: Client, id: number, parts: Uint8Array[] = []): void {
    if (!client.socket.destroyed) client.socket.write(encode(0, id, parts))
  }

  #err(client: Client, id: number, code: StoreErrorCode, message: string): void {
    if (!client.socket.destroyed) client.socket.write(encode(1, id, [Buffer.from(code), Buffer.from(message)]))
  }

  #handle(client: Client, f: Frame): void {
    const { head, id, parts } = f
    const need = (n: number): void => {
      if (parts.length !== n) throw new FrameError(`operation ${head} takes ${n} parts, got ${parts.length}`)
    }
    if (!client.authorized) {
      if (head !== Op.Hello || parts.length !== 1 || !timingSafeEqual(digest(parts[0]), this.#tokenDigest)) {
        const why = head !== Op.Hello ? 'its first frame is not a hello' : 'its token is wrong'
        this.#log(`[store] refused a connection from ${client.name}: ${why}`)
        client.socket.end(encode(1, id, [Buffer.from('STORE_UNAUTHORIZED'), Buffer.from(`the store refused this connection: ${why} (pass the job's token, ${TOKEN_ENV})`)]))
        client.socket.destroySoon()
        this.#forget(client)
        return
      }
      client.authorized = true
      client.socket.setTimeout(0)
      this.#ok(client, id)
      return
    }
    switch (head) {
      case Op.Set:
        need(2)
        if (this.#put(client, id, parts[0], parts[1])) this.#ok(client, id)
        return
      case Op.Get: {
        need(2)
        const ms = this.#ms(parts[1])
        this.#whenSet(client, id, [parts[0]], ms, () => this.#ok(client, id, [this.#data.get(parts[0].toString('latin1'))!.value]))
        return
      }
      case Op.Wait: {
        if (parts.length < 2) throw new FrameError(`wait takes a timeout and at least one key, got ${parts.length} parts`)
        const ms = this.#ms(parts[0])
        this.#whenSet(client, id, parts.slice(1), ms, () => this.#ok(client, id))
        return
      }
      case Op.Add: {
        need(2)
        const delta = Number(parts[1].toString())
        if (!Number.isSafeInteger(delta)) throw new FrameError(`add's amount is not an integer`)
        const old = this.#data.get(parts[0].toString('latin1'))
        const now = old === undefined ? 0 : Number(old.value.toString())
        if (!Number.isSafeInteger(now)) return this.#err(client, id, 'STORE_PROTOCOL', `the key holds '${old!.value.toString().slice(0, 40)}', not an integer: add needs one`)
        const next = Buffer.from(String(now + delta))
        if (this.#put(client, id, parts[0], next)) this.#ok(client, id, [next])
        return
      }
      case Op.CompareSet: {
        need(3)
        const [k, expected, desired] = parts
        const old = this.#data.get(k.toString('latin1'))
        if ((old === undefined && expected.length === 0) || (old !== undefined && old.value.equals(expected))) {
          if (this.#put(client, id, k, desired)) this.#ok(client, id, [desired])
        } else {
          this.#ok(client, id, [old === undefined ? expected : old.value])
        }
        return
      }
      case Op.Delete: {
        need(1)
        const k = parts[0].toString('latin1')
        const old = this.#data.get(k)
        if (old !== undefined) {
          old.owner.bytes -= k.length + old.value.length
          this.#data.delete(k)
        }
        this.#ok(client, id, [Buffer.from(old === undefined ? '0' : '1')])
        return
      }
      case Op.NumKeys:
        need(0)
        this.#ok(client, id, [Buffer.from(String(this.#data.size))])
        return
      case Op.Check:
        this.#ok(client, id, [Buffer.from(parts.every((k) => this.#data.has(k.toString('latin1'))) ? '1' : '0')])
        return
      default:
        throw new FrameError(`unknown operation ${head}`)
    }
  }

  #ms(b: Buffer): number {
    const ms = Number(b.toString())
    if (!(ms > 0) || !Number.isFinite(ms)) throw new FrameError(`a timeout of '${b.toString().slice(0, 20)}' ms`)
    return Math.min(ms, 2 ** 31 - 1)
  }

  /** Stores `k` for `client` within its bound; false (and an error reply) past it. */
  #put(client: Client, id: number, kb: Buffer, v: Buffer): boolean {
    const k = kb.toString('latin1')
    const old = this.#data.get(k)
    const add = k.length + v.length
    const back = old !== undefined && old.owner === client ? k.length + old.value.length : 0
    if (client.bytes - back + add > this.#maxClientBytes) {
      this.#err(client, id, 'STORE_QUOTA', `storing ${add} bytes would put this client at ${client.bytes - back + add}, over the store's bound of ${this.#maxClientBytes} bytes a client`)
      return false
    }
    if (old !== undefined) old.owner.bytes -= k.length + old.value.length
    client.bytes += add
    // A copy: the frame's buffer is shared with the rest of the chunk it came in.
    this.#data.set(k, { value: Buffer.from(v), owner: client })
    const ws = this.#waiters.get(k)
    if (ws !== undefined) {
      for (const w of ws) {
        if (w.keys.every((x) => this.#data.has(x.toString('latin1')))) {
          this.#unwait(w)
          w.reply()
        }
      }
    }
    return true
  }

  #whenSet(client: Client, id: number, keys: Buffer[], ms: number, reply: () => void): void {
    if (keys.every((k) => this.#data.has(k.toString('latin1')))) return reply()
    if (client.waiters.size >= MAX_WAITERS_PER_CLIENT) {
      return this.#err(client, id, 'STORE_QUOTA', `this client already waits on ${MAX_WAITERS_PER_CLIENT} calls`)
    }
    const w: Waiter = {
      keys,
      client,
      id,
      reply,
      timer: setTimeout(() => {
        this.#unwait(w)
        this.#err(client, id, 'STORE_TIMEOUT', `the keys were not set within ${ms} ms`)
      }, ms),
    }
    client.waiters.add(w)
    for (const k of keys) {
      const s = k.toString('latin1')
      let set = this.#waiters.get(s)
      if (set === undefined) this.#waiters.set(s, (set = new Set()))
      set.add(w)
    }
  }

  #unwait(w: Waiter): void {
    clearTimeout(w.timer)
    w.client.waiters.delete(w)
    for (const k of w.keys) {
      const s = k.toString('latin1')
      const set = this.#waiters.get(s)
      set?.delete(w)
      if (set?.size === 0) this.#waiters.delete(s)
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The client

/** Options of {@link TcpStore.connect}. */
export interface StoreOptions {
  /** The server's address; `'127.0.0.1'` by default. */
  host?: string
  /** The server's port. */
  port: number
  /** The job's token (the launcher passes it in `CUDA_NODE_STORE_TOKEN`). */
  token: string
  /** How long each call (and the connection itself) may take, in ms; 300 000 (PyTorch's 5 min) by default. */
  timeout?: number
  /** A prefix for every key this client names (PyTorch's `PrefixStore`). */
  prefix?: string
  /** The number of ranks {@link TcpStore.barrier} waits for. */
  worldSize?: number
}

/** A per-call option: how long this call may take, in ms. */
export interface CallOptions {
  /** Milliseconds; the client's `timeout` by default. */
  timeout?: number
}

interface Pending {
  resolve: (parts: Buffer[]) => void
  reject: (e: StoreError) => void
  timer: NodeJS.Timeout
}

/**
 * A client of the store (PyTorch's `TCPStore`). Every call returns a promise and fails with a
 * {@link StoreError} — `STORE_TIMEOUT` past its timeout, `STORE_CLOSED` if the server goes —
 * rather than waiting forever.
 */
export class TcpStore {
  readonly #socket: net.Socket
  readonly #pending = new Map<number, Pending>()
  #nextId = 1
  #closed: StoreError | undefined
  #barriers = 0
  /** The default timeout of each call, in ms. */
  readonly timeout: number
  /** The prefix of every key this client names. */
  readonly prefix: string
  /** How many ranks {@link TcpStore.barrier} waits for, if it is not told. */
  readonly worldSize: number | undefined

  private constructor(socket: net.Socket, timeout: number, prefix: string, worldSize: number | undefined) {
    this.#socket = socket
    this.timeout = timeout
    this.prefix = prefix
    this.worldSize = worldSize
    const reader = new FrameReader(DEFAULT_MAX_FRAME)
    socket.on('data', (chunk: Buffer) => {
      let frames: Frame[]
      try {
        frames = reader.push(chunk)
      } catch (e) {
        this.#fail(new StoreError('STORE_PROTOCOL', `the store sent a malformed frame: ${(e as Error).message}`))
        socket.destroy()
        return
      }
      for (const f of frames) this.#reply(f)
    })
    socket.on('error', () => {})
    socket.on('close', () => this.#fail(new StoreError('STORE_CLOSED', 'the connection to the store closed (the server went away)')))
  }

  /**
   * Connects to a store, retrying while the server is not yet up (it may start after the
   * ranks), until the timeout.
   * @throws {TypeError}/{RangeError} for bad options; StoreError `STORE_CONNECT` if no server
   *   answered in time, `STORE_UNAUTHORIZED` for a wrong token, `STORE_TIMEOUT` if the server
   *   accepted but never answered.
   */
  static async connect(options: StoreOptions): Promise<TcpStore> {
    if (options === null || typeof options !== 'object') throw new TypeError(`connect takes an options object, got ${describe(options)}`)
    const host = options.host ?? '127.0.0.1'
    if (typeof host !== 'string') throw new TypeError(`host must be a string, got ${describe(host)}`)
    const port = checkPort(options.port, false)
    const token = checkToken(options.token)
    const timeout = checkTimeout('timeout', options.timeout ?? DEFAULT_TIMEOUT_MS)
    const prefix = options.prefix ?? ''
    if (typeof prefix !== 'string') throw new TypeError(`prefix must be a string, got ${describe(prefix)}`)
    const worldSize = options.worldSize
    if (worldSize !== undefined && (typeof worldSize !== 'number' || !Number.isInteger(worldSize) || worldSize < 1)) {
      throw new RangeError(`worldSize must be a positive integer, got ${describe(worldSize)}`)
    }
    const deadline = Date.now() + timeout
    let last = ''
    for (let delay = 10; ; delay = Math.min(delay * 2, 500)) {
      const socket = await new Promise<net.Socket | string>((resolve) => {
        const s = net.connect({ host, port })
        const t = setTimeout(() => {
          s.destroy()
          resolve('ETIMEDOUT')
        }, Math.max(1, deadline - Date.now()))
        s.once('connect', () => {
          clearTimeout(t)
          resolve(s)
        })
        s.once('error', (e: NodeJS.ErrnoException) => {
          clearTimeout(t)
          s.destroy()
          resolve(e.code ?? e.message)
        })
      })
      if (typeof socket !== 'string') {
        socket.setNoDelay(true)
        const store = new TcpStore(socket, timeout, prefix, worldSize)
        await store.#call(Op.Hello, [Buffer.from(token)], deadline - Date.now()).catch((e: StoreError) => {
          store.close()
          throw e.code === 'STORE_CLOSED' ? new StoreError('STORE_UNAUTHORIZED', `the store at ${host}:${port} closed the connection at the hello (a wrong token?)`) : e
        })
        return store
      }
      last = socket
      if (Date.now() + delay >= deadline) break
      await new Promise((r) => setTimeout(r, delay))
    }
    throw new StoreError('STORE_CONNECT', `could not reach the store at ${host}:${port} within ${timeout} ms (last error: ${last})`)
  }

  /** Sets `key` to `value` (a string, stored as UTF-8, or bytes), waking the calls that wait for it. */
  async set(k: string, v: StoreValue, options?: CallOptions): Promise<void> {
    await this.#call(Op.Set, [this.#key(k), value(v)], this.#timeout(options))
  }

  /** The value of `key`, waiting until some rank sets it (PyTorch's `get`). */
  async get(k: string, options?: CallOptions): Promise<Buffer> {
    const ms = this.#timeout(options)
    const [v] = await this.#call(Op.Get, [this.#key(k), Buffer.from(String(ms))], ms)
    return v
  }

  /** Resolves once every one of `keys` is set; StoreError `STORE_TIMEOUT` past `timeout` ms. */
  async wait(keys: string[], timeout?: number): Promise<void> {
    if (!Array.isArray(keys) || keys.length === 0) throw new TypeError(`keys must be a non-empty array of strings, got ${describe(keys)}`)
    const ms = timeout === undefined ? this.timeout : checkTimeout('timeout', timeout)
    const ks = keys.map((k, i) => this.#key(k, `keys[${i}]`))
    await this.#call(Op.Wait, [Buffer.from(String(ms)), ...ks], ms)
  }

  /** Whether every one of `keys` is set now, without waiting (PyTorch's `check`). */
  async check(keys: string[], options?: CallOptions): Promise<boolean> {
    if (!Array.isArray(keys)) throw new TypeError(`keys must be an array of strings, got ${describe(keys)}`)
    const [v] = await this.#call(Op.Check, keys.map((k, i) => this.#key(k, `keys[${i}]`)), this.#timeout(options))
    return v.toString() === '1'
  }

  /** Adds `amount` to the integer at `key` (0 if unset) and gives the sum (PyTorch's `add`). */
  async add(k: string, amount: number, options?: CallOptions): Promise<number> {
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) throw new TypeError(`amount must be a safe integer, got ${describe(amount)}`)
    const [v] = await this.#call(Op.Add, [this.#key(k), Buffer.from(String(amount))], this.#timeout(options))
    return Number(v.toString())
  }

  /**
   * Sets `key` to `desired` if it holds `expected` (or is unset and `expected` is empty), and
   * gives the value it holds afterwards, as PyTorch's `compare_set`.
   */
  async compareSet(k: string, expected: StoreValue, desired: StoreValue, options?: CallOptions): Promise<Buffer> {
    const [v] = await this.#call(Op.CompareSet, [this.#key(k), value(expected, 'expected'), value(desired, 'desired')], this.#timeout(options))
    return v
  }

  /** Removes `key`; whether it was there (PyTorch's `delete_key`). */
  async delete(k: string, options?: CallOptions): Promise<boolean> {
    const [v] = await this.#call(Op.Delete, [this.#key(k)], this.#timeout(options))
    return v.toString() === '1'
  }

  /** How many keys the store holds, every client's (PyTorch's `num_keys`). */
  async numKeys(options?: CallOptions): Promise<number> {
    const [v] = await this.#call(Op.NumKeys, [], this.#timeout(options))
    return Number(v.toString())
  }

  /**
   * Resolves once `size` clients (the store's `worldSize` by default) have called their n-th
   * barrier: each call of every client must be matched by the others'.
   */
  async barrier(options?: { size?: number; timeout?: number }): Promise<void> {
    const size = options?.size ?? this.worldSize
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) {
      throw new RangeError(`barrier needs the number of ranks: pass { size } or connect with { worldSize }, got ${describe(size)}`)
    }
    const ms = options?.timeout === undefined ? this.timeout : checkTimeout('timeout', options.timeout)
    const n = this.#barriers++
    const arrived = await this.add(`__barrier/${n}`, 1, { timeout: ms })
    if (arrived === size) await this.set(`__barrier/${n}/done`, '1', { timeout: ms })
    await this.wait([`__barrier/${n}/done`], ms)
  }

  /** Closes the connection; pending calls fail with `STORE_CLOSED`. Twice is nothing. */
  close(): void {
    this.#fail(new StoreError('STORE_CLOSED', 'the store client was closed'))
    this.#socket.destroy()
  }

  /** Closes the connection, for `using`. */
  [Symbol.dispose](): void {
    this.close()
  }

  #key(k: unknown, name?: string): Buffer {
    key(k, name)
    return Buffer.from(this.prefix + (k as string))
  }

  #timeout(options: CallOptions | undefined): number {
    if (options === undefined) return this.timeout
    if (options === null || typeof options !== 'object') throw new TypeError(`options must be an object, got ${describe(options)}`)
    return options.timeout === undefined ? this.timeout : checkTimeout('timeout', options.timeout)
  }

  #call(op: Op, parts: Uint8Array[], ms: number): Promise<Buffer[]> {
    if (this.#closed !== undefined) return Promise.reject(new StoreError(this.#closed.code, this.#closed.message))
    const id = this.#nextId
    this.#nextId = this.#nextId >= 0xfffffffe ? 1 : this.#nextId + 1
    return new Promise<Buffer[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id)
        if (this.#pending.size === 0) this.#socket.unref()
        reject(new StoreError('STORE_TIMEOUT', `the store did not answer within ${Math.round(ms)} ms`))
      }, Math.max(1, ms))
      this.#pending.set(id, { resolve, reject, timer })
      // An idle client does not keep the process alive; a pending call does.
      if (this.#pending.size === 1) this.#socket.ref()
      this.#socket.write(encode(op, id, parts))
    })
  }

  #reply(f: Frame): void {
    if (f.head === 1 && f.id === 0) {
      // The server drops this connection, saying why.
      const code = (f.parts[0]?.toString() ?? 'STORE_PROTOCOL') as StoreErrorCode
      this.#fail(new StoreError(code, f.parts[1]?.toString() ?? 'the store dropped this connection'))
      return
    }
    const p = this.#pending.get(f.id)
    if (p === undefined) return // a reply after its call timed out
    this.#pending.delete(f.id)
    if (this.#pending.size === 0) this.#socket.unref()
    clearTimeout(p.timer)
    if (f.head === 0) p.resolve(f.parts)
    else p.reject(new StoreError((f.parts[0]?.toString() ?? 'STORE_PROTOCOL') as StoreErrorCode, f.parts[1]?.toString() ?? 'the store refused the call'))
  }

  #fail(e: StoreError): void {
    if (this.#closed === undefined) this.#closed = e
    for (const [id, p] of this.#pending) {
      clearTimeout(p.timer)
      this.#pending.delete(id)
      p.reject(new StoreError(e.code, e.message))
    }
  }
}
