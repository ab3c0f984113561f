// `npx cuda-node top [--once] [--interval ms]`: a device a row (utilization, memory, power,
// temperature, clocks, PCIe and NVLink traffic, processes), redrawn until `q` or Ctrl-C.
import { system, type DeviceTelemetry } from '../index'

function bytes(n: number | null): string {
  if (n === null) return '-'
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let i = 0
  while (n >= 1024 && i < u.length - 1) {
    n /= 1024
    i++
  }
  return `${i === 0 ? n : n.toFixed(1)} ${u[i]}`
}

const or = (v: number | null, f: (v: number) => string): string => (v === null ? '-' : f(v))

/** Link rates between two readings, per second. */
interface Previous {
  at: number
  rows: DeviceTelemetry[]
}

/** One frame of the view, as text. */
export function frame(rows: DeviceTelemetry[], driver: string, prev?: Previous, now = Date.now()): string {
  const head = ['DEV', 'NAME'.padEnd(28), 'UTIL', 'MEM%', 'MEMORY USED / TOTAL'.padEnd(22), 'POWER / LIMIT'.padEnd(15), 'TEMP', 'SM MHz', 'MEM MHz', 'PCIe TX / RX'.padEnd(20), 'NVLink TX / RX']
  const lines = [`cuda-node top · driver ${driver} · ${new Date(now).toISOString().replace('T', ' ').slice(0, 19)} UTC · q or Ctrl-C quits`, head.join(' ')]
  for (const r of rows) {
    const p = prev?.rows.find((x) => x.device === r.device)
    const dt = prev === undefined ? 0 : (now - prev.at) / 1000
    const rate = (a: number | null, b: number | null | undefined) => (a === null || b === null || b === undefined || dt <= 0 ? '-' : `${bytes((a - b) / dt)}/s`)
    const memPct = r.memoryUsed !== null && r.memoryTotal ? `${Math.round((r.memoryUsed / r.memoryTotal) * 100)}%` : '-'
    lines.push([
      String(r.device).padStart(3),
      r.name.slice(0, 28).padEnd(28),
      or(r.utilizationGpu, (v) => `${v}%`).padStart(4),
      memPct.padStart(4),
      `${bytes(r.memoryUsed)} / ${bytes(r.memoryTotal)}`.padEnd(22),
      `${or(r.powerMilliwatts, (v) => `${Math.round(v / 1000)} W`)} / ${or(r.powerLimitMilliwatts, (v) => `${Math.round(v / 1000)} W`)}`.padEnd(15),
      or(r.temperatureC, (v) => `${v}°C`).padStart(4),
      or(r.clockSmMhz, String).padStart(6),
      or(r.clockMemoryMhz, String).padStart(7),
      `${or(r.pcieTxKBps, (v) => bytes(v * 1000))}/s / ${or(r.pcieRxKBps, (v) => bytes(v * 1000))}/s`.padEnd(20),
      `${rate(r.nvlinkTxBytes, p?.nvlinkTxBytes)} / ${rate(r.nvlinkRxBytes, p?.nvlinkRxBytes)}`,
    ].join(' '))
    const procs = r.processes.map((x) => `${x.pid} (${bytes(x.usedBytes)})`).join(', ')
    lines.push(`    processes: ${procs === '' ? 'none' : procs}`)
  }
  if (rows.some((r) => r.simulated)) lines.push('(simulated: the simulator\'s model, not a GPU; it has no power, temperature, utilization or link counters)')
  return lines.join('\n')
}

/** The command; resolves with the exit status once it quits. */
export async function main(args: string[]): Promise<number> {
  let once = false
  let interval = 1000
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--once') once = true
    else if (args[i] === '--interval' && /^\d+$/.test(args[i + 1] ?? '') && Number(args[i + 1]) >= 100) interval = Number(args[++i])
    else {
      console.error('usage: cuda-node top [--once] [--interval ms (at least 100)]')
      return 2
    }
  }
  const driver = system.driverVersion()
  if (once) {
    console.log(frame(system.telemetry(), driver))
    return 0
  }
  const tty = process.stdout.isTTY === true
  let prev: Previous | undefined
  const draw = () => {
    const rows = system.telemetry()
    const now = Date.now()
    process.stdout.write(`${tty ? '\x1b[H\x1b[2J' : ''}${frame(rows, driver, prev, now)}\n`)
    prev = { at: now, rows }
  }
  return new Promise<number>((resolve) => {
    const timer = setInterval(draw, interval)
    const stop = () => {
      clearInterval(timer)
      process.off('SIGINT', stop)
      if (process.stdin.isTTY) process.stdin.setRawMode(false)
      process.stdin.destroy() // a paused pipe still holds the event loop
      resolve(0)
    }
    process.on('SIGINT', stop)
    if (process.stdin.isTTY) process.stdin.setRawMode(true)
    process.stdin.on('data', (b: Buffer) => {
      const k = b.toString()
      if (k === 'q' || k === 'Q' || k === '\x03') stop()
    })
    process.stdin.resume()
    draw()
  })
}
