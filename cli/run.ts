// `cuda-node run`: torchrun for Node. One launcher a node starts `--nproc-per-node` ranks, each
// a Node process with torchrun's environment; node 0's launcher hosts the job's store, and the
// launchers meet there (the rendezvous), agree on the world, and tell each other when a rank
// fails, so the whole group stops (and restarts, up to `--max-restarts`).
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs'
import { isIP } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { PREFIX_ENV, SIM_NODE_ENV } from '../lib/distributed/launch-env'
import { StoreError, TcpStore, TcpStoreServer, TOKEN_ENV } from '../lib/distributed/store'

export const RUN_USAGE = `usage: cuda-node run [options] script.js [script args...]
  --nproc-per-node N|gpu   ranks on this node (gpu: one per device); 1 by default
  --nnodes M | MIN:MAX     nodes in the job; 1 by default
  --node-rank R            this node's rank (by order of arrival if left out)
  --master-addr HOST       where node 0's launcher hosts the store (127.0.0.1)
  --master-port PORT       its port (a free one for one node; 29500 for several)
  --rdzv-endpoint H:PORT   the same, as one option
  --rdzv-timeout S         how long the nodes wait for each other (900)
  --max-restarts K         restart the whole group up to K times after a failure (0)
  --log-dir DIR            also write each rank's output to DIR/rank<N>.log
  --token T                the job's store token (several nodes: the same on each; or ${TOKEN_ENV})
  --stop-timeout S         seconds between SIGTERM and SIGKILL when stopping ranks (3)
  --node-arg ARG           pass ARG to node before the script (repeatable)`

/** A mistake on the command line: printed with the usage, exit status 2. */
export class UsageError extends Error {}

export interface RunOptions {
  nprocPerNode: number | 'gpu'
  nnodesMin: number
  nnodesMax: number
  nodeRank: number | undefined
  masterAddr: string
  masterPort: number | undefined
  rdzvTimeoutS: number
  maxRestarts: number
  logDir: string | undefined
  token: string | undefined
  stopTimeoutS: number
  nodeArgs: string[]
  script: string
  args: string[]
}

function whole(name: string, raw: string, min: number): number {
  const v = Number(raw)
  if (raw === '' || !Number.isInteger(v) || v < min) throw new UsageError(`${name} takes an integer ≥ ${min}, got '${raw}'`)
  return v
}

/** Parses torchrun's options (`--a-b v`, `--a-b=v`, `--a_b v`) up to the script. */
export function parseRunArgs(argv: string[]): RunOptions {
  const o: RunOptions = {
    nprocPerNode: 1,
    nnodesMin: 1,
    nnodesMax: 1,
    nodeRank: undefined,
    masterAddr: '127.0.0.1',
    masterPort: undefined,
    rdzvTimeoutS: 900,
    maxRestarts: 0,
    logDir: undefined,
    token: undefined,
    stopTimeoutS: 3,
    nodeArgs: [],
    script: '',
    args: [],
  }
  let i = 0
  for (; i < argv.length; i++) {
    const a = argv[i]
    if (!a.startsWith('--')) break
    if (a === '--') {
      i++
      break
    }
    const eq = a.indexOf('=')
    const name = (eq >= 0 ? a.slice(2, eq) : a.slice(2)).replace(/_/g, '-')
    const take = (): string => {
      if (eq >= 0) return a.slice(eq + 1)
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`)
      return argv[++i]
    }
    switch (name) {
      case 'nproc-per-node': {
        const v = take()
        o.nprocPerNode = v === 'gpu' ? 'gpu' : whole('--nproc-per-node', v, 1)
        break
      }
      case 'nnodes': {
        const v = take()
        const [lo, hi] = v.includes(':') ? v.split(':') : [v, v]
        o.nnodesMin = whole('--nnodes', lo, 1)
        o.nnodesMax = whole('--nnodes', hi, 1)
        if (o.nnodesMax < o.nnodesMin) throw new UsageError(`--nnodes MIN:MAX needs MIN ≤ MAX, got '${v}'`)
        break
      }
      case 'node-rank':
        o.nodeRank = whole('--node-rank', take(), 0)
        break
      case 'master-addr':
        o.masterAddr = take()
        break
      case 'master-port':
        o.masterPort = whole('--master-port', take(), 1)
        if (o.masterPort > 65535) throw new UsageError(`--master-port takes a port up to 65535, got ${o.masterPort}`)
        break
      case 'rdzv-endpoint': {
        const v = take()
        const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(v)
        if (m === null) throw new UsageError(`--rdzv-endpoint takes HOST:PORT, got '${v}'`)
        o.masterAddr = m[1].replace(/^\[|\]$/g, '')
        o.masterPort = whole('--rdzv-endpoint port', m[2], 1)
        if (o.masterPort > 65535) throw new UsageError(`--rdzv-endpoint takes a port up to 65535, got ${o.masterPort}`)
        break
      }
      case 'rdzv-timeout':
        o.rdzvTimeoutS = whole('--rdzv-timeout', take(), 1)
        break
      case 'max-restarts':
        o.maxRestarts = whole('--max-restarts', take(), 0)
        break
      case 'log-dir':
        o.logDir = take()
        break
      case 'token':
        o.token = take()
        break
      case 'stop-timeout':
        o.stopTimeoutS = Number(take())
        if (!(o.stopTimeoutS >= 0) || !Number.isFinite(o.stopTimeoutS)) throw new UsageError(`--stop-timeout takes seconds ≥ 0`)
        break
      case 'node-arg':
        o.nodeArgs.push(take())
        break
      case 'standalone':
        break
      default:
        throw new UsageError(`unknown option --${name}`)
    }
  }
  if (i >= argv.length) throw new UsageError('no script to run')
  o.script = argv[i]
  o.args = argv.slice(i + 1)
  if (o.nodeRank !== undefined && o.nodeRank >= o.nnodesMax) throw new UsageError(`--node-rank ${o.nodeRank} is not below --nnodes ${o.nnodesMax}`)
  return o
}

const isLoopback = (h: string): boolean => h === 'localhost' || h === '::1' || h.startsWith('127.')

interface Rank {
  rank: number
  local: number
  child: ChildProcess
  tail: string[]
  log: WriteStream | undefined
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** What the launcher prints, a line each (tests and the CLI give their own sinks). */
export interface RunIo {
  out: (line: string) => void
  err: (line: string) => void
}

const TAIL_LINES = 20

class Launcher {
  readonly #o: RunOptions
  readonly #io: RunIo
  readonly #id = randomBytes(6).toString('hex')
  #store: TcpStore | undefined
  #server: TcpStoreServer | undefined
  #ranks: Rank[] = []
  #interrupted: NodeJS.Signals | undefined
  #onInterrupt: (() => void) | undefined

  constructor(o: RunOptions, io: RunIo) {
    this.#o = o
    this.#io = io
  }

  #say(line: string): void {
    this.#io.err(`cuda-node run: ${line}`)
  }

  async #nproc(): Promise<number> {
    if (this.#o.nprocPerNode !== 'gpu') return this.#o.nprocPerNode
    const { Device } = await import('../lib/device')
    const n = Device.count()
    if (n < 1) throw new UsageError('--nproc-per-node gpu: this node has no devices')
    return n
  }

  async #openStore(token: string, multi: boolean): Promise<void> {
    const o = this.#o
    const host = multi ? o.masterAddr : '127.0.0.1'
    const log = (l: string): void => this.#say(l)
    const hostHere = o.nodeRank === 0 || (!multi && o.nodeRank === undefined)
    if (hostHere || (multi && o.nodeRank === undefined)) {
      // Several nodes: listen where the others look for us (all interfaces unless it is loopback
      // or one of this host's own addresses); one node: loopback only.
      const bind = !multi ? '127.0.0.1' : isLoopback(o.masterAddr) || isIP(o.masterAddr) !== 0 ? o.masterAddr : '0.0.0.0'
      try {
        this.#server = await TcpStoreServer.listen({ host: bind === 'localhost' ? '127.0.0.1' : bind, port: o.masterPort ?? (multi ? 29500 : 0), token, log })
      } catch (e) {
        // Arrival order: someone else got there first and hosts it.
        if (hostHere) throw e
      }
    }
    const port = this.#server?.port ?? o.masterPort ?? 29500
    this.#store = await TcpStore.connect({ host: host === 'localhost' ? '127.0.0.1' : host, port, token, timeout: o.rdzvTimeoutS * 1000, prefix: '__launch/' })
    this.#port = port
  }

  #port = 0

  async run(): Promise<number> {
    const o = this.#o
    const multi = o.nnodesMax > 1
    const token = o.token ?? (process.env[TOKEN_ENV] || undefined) ?? (multi ? undefined : randomBytes(24).toString('hex'))
    if (token === undefined) throw new UsageError(`several nodes need the same store token on each: pass --token T or set ${TOKEN_ENV}`)
    const nproc = await this.#nproc()
    const stop = (sig: NodeJS.Signals) => () => {
      if (this.#interrupted !== undefined) return
      this.#interrupted = sig
      this.#say(`${sig}: stopping every rank`)
      if (this.#onInterrupt !== undefined) this.#onInterrupt()
      else this.#store?.close() // still meeting the other nodes: give up the rendezvous
    }
    const onInt = stop('SIGINT')
    const onTerm = stop('SIGTERM')
    process.on('SIGINT', onInt)
    process.on('SIGTERM', onTerm)
    try {
      await this.#openStore(token, multi)
      for (let attempt = 0; ; attempt++) {
        const result = await this.#attempt(attempt, nproc, token).catch((e) => {
          if (this.#interrupted !== undefined) return 'failed' as const
          throw e
        })
        if (result === 'ok') return 0
        if (this.#interrupted !== undefined) return this.#interrupted === 'SIGINT' ? 130 : 143
        if (attempt >= o.maxRestarts) {
          if (o.maxRestarts > 0) this.#say(`the group failed ${attempt + 1} times (--max-restarts ${o.maxRestarts}): giving up`)
          return 1
        }
        this.#say(`restarting the group (restart ${attempt + 1} of ${o.maxRestarts})`)
      }
    } finally {
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
      this.#store?.close()
      await this.#server?.close()
    }
  }

  /** One attempt: rendezvous, spawn, watch. 'ok', or 'failed' once every local rank is gone. */
  async #attempt(attempt: number, nproc: number, token: string): Promise<'ok' | 'failed'> {
    const o = this.#o
    const store = this.#store!
    const k = `${attempt}/`
    // The rendezvous: a node rank, then everyone's nproc.
    let nodeRank = o.nodeRank
    if (nodeRank === undefined) nodeRank = (await store.add(`${k}arrived`, 1)) - 1
    const claim = (await store.compareSet(`${k}node/${nodeRank}/claim`, '', this.#id)).toString()
    if (claim !== this.#id) throw new UsageError(`node rank ${nodeRank} is already taken by another launcher: give each node its own --node-rank`)
    await store.set(`${k}node/${nodeRank}/nproc`, String(nproc))
    let nnodes = o.nnodesMax
    const want = Array.from({ length: o.nnodesMax }, (_, r) => `${k}node/${r}/nproc`)
    try {
      await store.wait(want, o.rdzvTimeoutS * 1000)
    } catch (e) {
      if (!(e instanceof StoreError) || e.code !== 'STORE_TIMEOUT') throw e
      // Elastic: close the rendezvous with whoever came, if enough did.
      let n = 0
      while (n < o.nnodesMax && (await store.check([`${k}node/${n}/nproc`]))) n++
      const agreed = Number((await store.compareSet(`${k}closed`, '', String(n))).toString())
      if (agreed < o.nnodesMin) throw new UsageError(`only ${agreed} of the ${o.nnodesMin} nodes needed arrived within --rdzv-timeout ${o.rdzvTimeoutS} s`)
      nnodes = agreed
    }
    if (nodeRank >= nnodes) throw new UsageError(`node ${nodeRank} arrived after the rendezvous closed with ${nnodes} nodes`)
    const counts: number[] = []
    for (let r = 0; r < nnodes; r++) counts.push(Number((await store.get(`${k}node/${r}/nproc`)).toString()))
    const world = counts.reduce((a, b) => a + b, 0)
    const first = counts.slice(0, nodeRank).reduce((a, b) => a + b, 0)

    // Spawn.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      WORLD_SIZE: String(world),
      LOCAL_WORLD_SIZE: String(nproc),
      GROUP_RANK: String(nodeRank),
      GROUP_WORLD_SIZE: String(nnodes),
      MASTER_ADDR: o.nnodesMax > 1 ? o.masterAddr : '127.0.0.1',
      MASTER_PORT: String(this.#port),
      RESTART_COUNT: String(attempt),
      [TOKEN_ENV]: token,
      [PREFIX_ENV]: `__job/${attempt}/`,
      [SIM_NODE_ENV]: `${os.hostname()}/${this.#id}/${nodeRank}`,
      // NVLink multicast stays off unless the user says otherwise (the shared hosts need it).
      NCCL_NVLS_ENABLE: process.env.NCCL_NVLS_ENABLE ?? '0',
      CUDA_NODE_SIM_DEVICES: process.env.CUDA_NODE_SIM_DEVICES || String(nproc),
    }
    const nodeArgs = [...o.nodeArgs]
    if (/\.[cm]?ts$/.test(o.script) && !nodeArgs.some((a) => /tsx/.test(a))) {
      try {
        nodeArgs.push('--import', require.resolve('tsx', { paths: [path.dirname(path.resolve(o.script)), process.cwd(), __dirname] }))
      } catch {
        // No tsx: node runs the script as it can.
      }
    }
    if (o.logDir !== undefined) mkdirSync(o.logDir, { recursive: true })
    this.#ranks = []
    for (let local = 0; local < nproc; local++) {
      const rank = first + local
      const child = spawn(process.execPath, [...nodeArgs, o.script, ...o.args], {
        env: { ...env, RANK: String(rank), LOCAL_RANK: String(local) },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group: stopping a rank stops what it started
      })
      const log = o.logDir === undefined ? undefined : createWriteStream(path.join(o.logDir, `rank${rank}.log`), { flags: 'a' })
      log?.write(`--- attempt ${attempt} (RESTART_COUNT=${attempt}) ---\n`)
      const r: Rank = {
        rank,
        local,
        child,
        tail: [],
        log,
        exited: new Promise((resolve) => {
          child.once('error', () => resolve({ code: 127, signal: null }))
          child.once('close', (code, signal) => resolve({ code, signal }))
        }),
      }
      this.#pipe(r, child.stdout!, (l) => this.#io.out(l))
      this.#pipe(r, child.stderr!, (l) => this.#io.err(l))
      this.#ranks.push(r)
    }

    // Watch: the first failure anywhere stops the group.
    let failure: string | undefined
    let stopping = false
    let finished = false
    let stoppedAt = 0
    const stopAll = (): void => {
      if (stopping) return
      stopping = true
      stoppedAt = Date.now()
      this.#stopRanks()
    }
    this.#onInterrupt = () => {
      failure ??= `interrupted (${this.#interrupted}) on node ${nodeRank}`
      void store.set(`${k}failed`, failure).catch(() => {})
      stopAll()
    }
    if (this.#interrupted !== undefined) this.#onInterrupt()
    const remote = store.get(`${k}failed`, { timeout: 2 ** 31 - 1 }).then(
      (v) => {
        if (failure === undefined) {
          failure = v.toString()
          this.#say(`another node failed: ${failure}; stopping this node's ranks`)
        }
        stopAll()
      },
      (e: StoreError) => {
        if (e.code === 'STORE_CLOSED' && this.#server === undefined && !stopping && !finished) {
          failure ??= `lost the store at ${o.masterAddr}:${this.#port} (node 0's launcher is gone)`
          this.#say(failure)
          stopAll()
        }
      },
    )
    void remote
    await Promise.all(
      this.#ranks.map(async (r) => {
        const { code, signal } = await r.exited
        r.log?.end()
        if ((code === 0 && signal === null) || stopping) return
        const how = signal !== null ? `killed by ${signal}` : `exit code ${code}`
        const what = `rank ${r.rank} (node ${nodeRank}, local rank ${r.local}) failed: ${how}`
        if (failure === undefined) {
          failure = what
          const tail = r.tail.length === 0 ? ['  (no output)'] : r.tail.map((l) => `  ${l}`)
          this.#say([what, `last ${r.tail.length} lines of its output:`, ...tail].join('\n'))
          this.#say('stopping the other ranks')
          void store.set(`${k}failed`, what).catch(() => {})
        }
        stopAll()
      }),
    )
    finished = true
    this.#onInterrupt = undefined
    if (stopping) this.#say(`every rank of node ${nodeRank} stopped ${Date.now() - stoppedAt} ms after the failure`)
    if (failure !== undefined) return 'failed'
    // This node is done; the job is done when every node is (or one fails).
    await store.add(`${k}done`, 1)
    try {
      await Promise.race([
        this.#waitDone(store, `${k}done`, nnodes),
        store.wait([`${k}failed`], 2 ** 31 - 1).then(() => Promise.reject(new Error('failed'))),
      ])
    } catch (e) {
      if (e instanceof StoreError && e.code === 'STORE_CLOSED') return 'ok' // node 0 finished and left
      this.#say(`another node failed after this node's ranks finished: ${(await store.get(`${k}failed`).catch(() => '?')).toString()}`)
      return 'failed'
    }
    return 'ok'
  }

  async #waitDone(store: TcpStore, key: string, nnodes: number): Promise<void> {
    for (let delay = 10; ; delay = Math.min(delay * 2, 500)) {
      if ((await store.add(key, 0)) >= nnodes) return
      await new Promise((r) => setTimeout(r, delay))
    }
  }

  #pipe(r: Rank, from: NodeJS.ReadableStream, to: (line: string) => void): void {
    let part = ''
    const emit = (line: string): void => {
      const out = `[rank ${r.rank}] ${line}`
      to(out)
      r.log?.write(`${line}\n`)
      r.tail.push(out)
      if (r.tail.length > TAIL_LINES) r.tail.shift()
    }
    from.setEncoding('utf8')
    from.on('data', (chunk: string) => {
      const lines = (part + chunk).split('\n')
      part = lines.pop()!
      for (const l of lines) emit(l)
    })
    from.on('end', () => {
      if (part !== '') emit(part)
      part = ''
    })
  }

  /** SIGTERM to every live rank's process group, SIGKILL after --stop-timeout. */
  #stopRanks(): void {
    const kill = (r: Rank, sig: NodeJS.Signals): void => {
      if (r.child.exitCode !== null || r.child.signalCode !== null || r.child.pid === undefined) return
      try {
        process.kill(-r.child.pid, sig)
      } catch {
        try {
          r.child.kill(sig)
        } catch {
          // Gone already.
        }
      }
    }
    for (const r of this.#ranks) kill(r, 'SIGTERM')
    const ranks = this.#ranks
    const timer = setTimeout(() => {
      for (const r of ranks) kill(r, 'SIGKILL')
    }, this.#o.stopTimeoutS * 1000)
    void Promise.all(ranks.map((r) => r.exited)).then(() => clearTimeout(timer))
  }
}

/** Runs the job; resolves to the launcher's exit status. */
export async function run(argv: string[], io: RunIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) }): Promise<number> {
  let o: RunOptions
  try {
    o = parseRunArgs(argv)
  } catch (e) {
    if (!(e instanceof UsageError)) throw e
    io.err(`cuda-node run: ${e.message}\n${RUN_USAGE}`)
    return 2
  }
  try {
    return await new Launcher(o, io).run()
  } catch (e) {
    io.err(`cuda-node run: ${(e as Error).message}`)
    return e instanceof UsageError ? 2 : 1
  }
}
