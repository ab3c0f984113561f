// Running `cuda-node run` from the specs (launcher.spec.ts, distributed.spec.ts).
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { root, scratchDir } from './helpers'

export interface Launched {
  status: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
}

/** Starts `cuda-node run ARGS` (killed after `timeout` ms); `during` may act on the running launcher. */
export function launch(args: string[], options: { env?: Record<string, string>; timeout?: number; during?: (pid: number) => void } = {}): Promise<Launched> {
  const started = Date.now()
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'cli', 'cli.ts'), 'run', ...args], {
    cwd: root,
    env: { ...process.env, CUDA_NODE_BACKEND: 'sim', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeout ?? 90_000)
  if (options.during !== undefined) options.during(child.pid!)
  return new Promise((resolve) => {
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      resolve({ status, signal, stdout, stderr, ms: Date.now() - started })
    })
  })
}

/** Writes a rank's script (JavaScript, so ranks start fast) and gives its path. */
export function script(name: string, body: string): string {
  const dir = scratchDir('launcher-')
  const file = path.join(dir, name)
  writeFileSync(file, body)
  return file
}

/** A loopback port free a moment ago. */
export async function freePort(): Promise<number> {
  const probe = net.createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()))
  const port = (probe.address() as net.AddressInfo).port
  await new Promise<void>((r) => probe.close(() => r()))
  return port
}
