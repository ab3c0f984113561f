// What `cuda-node run` tells each rank, through its environment (torchrun's names), and the
// store client a rank makes from it.
import { TcpStore, TOKEN_ENV } from './store'

/** The environment variable naming the key prefix of this attempt (the launcher's restarts do not see each other's keys). */
export const PREFIX_ENV = 'CUDA_NODE_STORE_PREFIX'
/** The environment variable that says which simulated node a rank is on (each launcher is one). */
export const SIM_NODE_ENV = 'CUDA_NODE_SIM_NODE'

/** A rank's place in the job, as the launcher gives it (torchrun's variables). */
export interface LaunchEnv {
  /** `RANK`: this process's rank in the job. */
  rank: number
  /** `LOCAL_RANK`: its rank on this node, and the device it uses. */
  localRank: number
  /** `WORLD_SIZE`: how many ranks the job has. */
  worldSize: number
  /** `LOCAL_WORLD_SIZE`: how many ranks this node has. */
  localWorldSize: number
  /** `GROUP_RANK`: this node's rank. */
  groupRank: number
  /** `MASTER_ADDR`: where the store listens. */
  masterAddr: string
  /** `MASTER_PORT`: the store's port. */
  masterPort: number
  /** `RESTART_COUNT`: how many times the launcher has restarted the group. */
  restartCount: number
}

function int(env: NodeJS.ProcessEnv, name: string, fallback?: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') {
    if (fallback !== undefined) return fallback
    throw new RangeError(`${name} is not set: run under \`cuda-node run\`, or pass the value in the options`)
  }
  const v = Number(raw)
  if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got '${raw}'`)
  return v
}

/** Reads the launcher's variables; undefined when `RANK` is not set (no launcher). */
export function launchEnv(env: NodeJS.ProcessEnv = process.env): LaunchEnv | undefined {
  if (env.RANK === undefined) return undefined
  const rank = int(env, 'RANK')
  const worldSize = int(env, 'WORLD_SIZE')
  return {
    rank,
    worldSize,
    localRank: int(env, 'LOCAL_RANK', rank),
    localWorldSize: int(env, 'LOCAL_WORLD_SIZE', worldSize),
    groupRank: int(env, 'GROUP_RANK', 0),
    masterAddr: env.MASTER_ADDR ?? '127.0.0.1',
    masterPort: int(env, 'MASTER_PORT', 29500),
    restartCount: int(env, 'RESTART_COUNT', 0),
  }
}

/**
 * The store of the launcher that started this rank, from its environment (`MASTER_ADDR`,
 * `MASTER_PORT`, the token and this attempt's key prefix).
 * @throws {RangeError} outside `cuda-node run` (no `RANK` or no token in the environment).
 */
export async function storeFromEnv(options: { timeout?: number } = {}, env: NodeJS.ProcessEnv = process.env): Promise<TcpStore> {
  const le = launchEnv(env)
  const token = env[TOKEN_ENV]
  if (le === undefined || token === undefined) {
    throw new RangeError(`no launcher here (RANK and ${TOKEN_ENV} are not both set): run under \`cuda-node run\`, or pass a store`)
  }
  return TcpStore.connect({ host: le.masterAddr, port: le.masterPort, token, timeout: options.timeout, prefix: env[PREFIX_ENV] ?? '', worldSize: le.worldSize })
}
