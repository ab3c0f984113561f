// `npm run bench:nccl`: all-reduce bus bandwidth as nccl-tests defines it: algbw = bytes / time,
// busbw = algbw × 2(n − 1) / n, float32 sum.
//
// The launcher mode (the default): one process a GPU under `cuda-node run` (bench/nccl-rank.ts,
// joining through the launcher's store), 8 B (latency) to 1 GiB, beside `torchrun` running
// PyTorch's all_reduce (bench/peers/nccl_torchrun.py) in the same run; prints the table and
// writes it with an SVG of the bus-bandwidth curve to --out (bench/results by default).
//
// `--mode initAll`: one process driving every device (initAll, in a group), 1 MiB to 1 GiB,
// beside PyTorch's one-process-a-device all_reduce (bench/peers/nccl.py).
//
// Needs two or more devices; NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { alloc, backend, Device, kernels, nccl, NcclCommunicator, Stream, type MemoryPointer } from './package'

process.env.NCCL_NVLS_ENABLE = '0'
// The simulator's ranks reduce on the host: small sizes only there (its figures prove the bench runs, no more).
const SIZES = backend().name === 'sim' ? [1 << 20, 4 << 20] : [1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30]

function ours(n: number): Map<number, number> {
  const comms = NcclCommunicator.initAll(n)
  const streams = comms.map((c) => c.device.run(() => new Stream({ nonBlocking: true })))
  const out = new Map<number, number>()
  for (const bytes of SIZES) {
    const count = bytes / 4
    const bufs: MemoryPointer[] = comms.map((c) => c.device.run(() => alloc(bytes)))
    comms.forEach((c, i) => c.device.run(() => kernels.fill(bufs[i], 1, count, 'float32', streams[i])))
    const once = (): void => {
      nccl.groupStart()
      comms.forEach((c, i) => c.allReduce(bufs[i], bufs[i], count, 'float32', 'sum', streams[i]))
      nccl.groupEnd()
    }
    for (let i = 0; i < 5; i++) once()
    streams.forEach((s) => s.synchronize())
    const iters = backend().name === 'sim' ? 3 : bytes >= 256 << 20 ? 10 : 40
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < iters; i++) once()
    streams.forEach((s) => s.synchronize())
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9 / iters
    out.set(bytes, ((bytes / seconds) * (2 * (n - 1))) / n / 1e9)
    bufs.forEach((b) => b.free())
  }
  comms.forEach((c) => c.destroy())
  return out
}

function torch(n: number): Map<number, number> {
  const r = spawnSync('python3', [path.join(__dirname, 'peers', 'nccl.py'), String(n), ...SIZES.map(String)], {
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, NCCL_NVLS_ENABLE: '0' },
  })
  const out = new Map<number, number>()
  for (const line of r.stdout.split('\n').filter((l) => l.startsWith('{'))) {
    const { bytes, busbw } = JSON.parse(line)
    out.set(bytes, busbw)
  }
  if (out.size === 0) console.log(`PyTorch: not measured (${r.stderr.trim().split('\n').slice(-1)[0] ?? r.status})`)
  return out
}

interface Point {
  bytes: number
  us: number
  busbw: number
}

const argv = process.argv.slice(2)
const opt = (name: string, fallback: string): string => {
  const i = argv.indexOf(name)
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback
}
const mode = opt('--mode', 'launcher')
const outDir = path.resolve(opt('--out', path.join(__dirname, 'results')))
const sim = backend().name === 'sim'
/** 8 B to 1 GiB: 8, 16, then every power of 4 (1 MiB, 4 MiB, 16 MiB … included). */
const LAUNCH_SIZES = sim ? [8, 1024, 64 << 10] : [8, 16, ...Array.from({ length: 13 }, (_, i) => 2 ** (6 + 2 * i))]

function human(b: number): string {
  return b >= 1 << 30 ? `${b / (1 << 30)} GiB` : b >= 1 << 20 ? `${b / (1 << 20)} MiB` : b >= 1024 ? `${b / 1024} KiB` : `${b} B`
}

function points(stdout: string): Map<number, Point> {
  const out = new Map<number, Point>()
  for (const line of stdout.split('\n')) {
    const m = /(\{"bytes".*\})\s*$/.exec(line)
    if (m === null) continue
    const p = JSON.parse(m[1]) as Point
    out.set(p.bytes, p)
  }
  return out
}

async function freePort(): Promise<number> {
  const probe = net.createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()))
  const port = (probe.address() as net.AddressInfo).port
  await new Promise<void>((r) => probe.close(() => r()))
  return port
}

function runTo(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', (e) => (stderr += String(e)))
    const t = setTimeout(() => child.kill('SIGINT'), timeoutMs)
    child.on('close', (status) => {
      clearTimeout(t)
      resolve({ status, stdout, stderr })
    })
  })
}

async function launcherMode(n: number): Promise<void> {
  const env = { ...process.env, NCCL_NVLS_ENABLE: '0' }
  const cli = path.join(__dirname, '..', 'cli', 'cli.js')
  const ours = await runTo(process.execPath, [cli, 'run', '--nproc-per-node', String(n), path.join(__dirname, 'nccl-rank.ts'), ...LAUNCH_SIZES.map(String)], env, 590_000)
  const a = points(ours.stdout)
  if (a.size === 0) console.log(`cuda-node run: not measured (exit ${ours.status}): ${ours.stderr.trim().split('\n').slice(-5).join(' | ')}`)
  const port = await freePort()
  const theirs = sim
    ? { status: null, stdout: '', stderr: 'not on the simulator' }
    : await runTo('python3', ['-m', 'torch.distributed.run', '--nnodes', '1', '--nproc-per-node', String(n), '--rdzv-backend', 'c10d', '--rdzv-endpoint', `127.0.0.1:${port}`, path.join(__dirname, 'peers', 'nccl_torchrun.py'), ...LAUNCH_SIZES.map(String)], env, 590_000)
  const b = points(theirs.stdout)
  if (b.size === 0) console.log(`torchrun: not measured (${theirs.stderr.trim().split('\n').slice(-1)[0] ?? theirs.status})`)
  const fmt = (v: number | undefined, d = 1): string => (v === undefined ? '—' : v.toFixed(d))
  const title = `all-reduce, one process a GPU (cuda-node run beside torchrun), float32 sum, ${n} × ${new Device(0).name}, ${sim ? 'the simulator' : `NCCL ${nccl.getVersion()}`}, NCCL_NVLS_ENABLE=0`
  const rows = LAUNCH_SIZES.map((s) => {
    const x = a.get(s)
    const y = b.get(s)
    const ratio = x !== undefined && y !== undefined && y.busbw > 0 ? `${((x.busbw / y.busbw) * 100).toFixed(0)} %` : '—'
    return `| ${human(s)} | ${fmt(x?.us)} | ${fmt(y?.us)} | ${fmt(x?.busbw, 2)} | ${fmt(y?.busbw, 2)} | ${ratio} |`
  })
  const table = [`**${title}**`, '', '| size | cuda-node µs | PyTorch µs | cuda-node busbw GB/s | PyTorch busbw GB/s | cuda-node / PyTorch |', '| --- | --- | --- | --- | --- | --- |', ...rows].join('\n')
  console.log(table)
  mkdirSync(outDir, { recursive: true })
  const stem = path.join(outDir, `nccl-launcher-${sim ? 'sim' : 'cuda'}`)
  writeFileSync(`${stem}.md`, `${table}\n`)
  writeFileSync(`${stem}.svg`, svg(title, [{ name: 'cuda-node run', color: '#76b900', data: a }, { name: 'torchrun + PyTorch', color: '#ee4c2c', data: b }]))
  console.log(`\nwrote ${stem}.md and ${stem}.svg`)
}

/** The bus-bandwidth curve: size (log scale) against GB/s, one line a launcher. */
function svg(title: string, series: { name: string; color: string; data: Map<number, Point> }[]): string {
  const W = 760
  const H = 420
  const m = { l: 64, r: 20, t: 40, b: 56 }
  const xs = LAUNCH_SIZES.map((s) => Math.log2(s))
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)]
  const top = Math.max(1e-9, ...series.flatMap((s) => [...s.data.values()].map((p) => p.busbw))) * 1.1
  const X = (b: number): number => m.l + ((Math.log2(b) - x0) / Math.max(1, x1 - x0)) * (W - m.l - m.r)
  const Y = (v: number): number => H - m.b - (v / top) * (H - m.t - m.b)
  const esc = (t: string): string => t.replace(/&/g, '&amp;').replace(/</g, '&lt;')
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="12">${esc(title)}</text>`,
    `<line x1="${m.l}" y1="${H - m.b}" x2="${W - m.r}" y2="${H - m.b}" stroke="#333"/>`,
    `<line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${H - m.b}" stroke="#333"/>`,
    `<text x="${W / 2}" y="${H - 12}" text-anchor="middle">message size</text>`,
    `<text x="16" y="${H / 2}" text-anchor="middle" transform="rotate(-90 16 ${H / 2})">bus bandwidth (GB/s)</text>`,
  ]
  for (const s of LAUNCH_SIZES.filter((_, i) => i % 2 === 0 || i === LAUNCH_SIZES.length - 1)) {
    parts.push(`<line x1="${X(s)}" y1="${H - m.b}" x2="${X(s)}" y2="${H - m.b + 4}" stroke="#333"/><text x="${X(s)}" y="${H - m.b + 16}" text-anchor="middle">${esc(human(s))}</text>`)
  }
  for (let k = 0; k <= 5; k++) {
    const v = (top / 5) * k
    parts.push(`<line x1="${m.l}" y1="${Y(v)}" x2="${W - m.r}" y2="${Y(v)}" stroke="#eee"/><text x="${m.l - 6}" y="${Y(v) + 4}" text-anchor="end">${v.toFixed(v < 10 ? 1 : 0)}</text>`)
  }
  series.forEach((s, i) => {
    const pts = LAUNCH_SIZES.filter((b) => s.data.has(b)).map((b) => `${X(b).toFixed(1)},${Y(s.data.get(b)!.busbw).toFixed(1)}`)
    if (pts.length > 0) parts.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${pts.join(' ')}"/>`)
    for (const p of pts) parts.push(`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="2.5" fill="${s.color}"/>`)
    parts.push(`<rect x="${m.l + 12}" y="${m.t + 8 + i * 16}" width="12" height="3" fill="${s.color}"/><text x="${m.l + 30}" y="${m.t + 13 + i * 16}">${esc(s.name)}${s.data.size === 0 ? ' (not measured)' : ''}</text>`)
  })
  parts.push('</svg>')
  return `${parts.join('\n')}\n`
}

const n = Device.count()
if (n < 2 && !sim) {
  console.log(`all-reduce bus bandwidth needs two or more devices; this machine has ${n}`)
} else if (mode === 'launcher') {
  void launcherMode(sim ? 2 : n)
} else if (mode !== 'initAll') {
  console.log(`--mode takes launcher or initAll, got ${mode}`)
  process.exitCode = 2
} else if (n < 2) {
  console.log(`all-reduce bus bandwidth needs two or more devices; this machine has ${n}`)
} else {
  const a = ours(n)
  const b = torch(n)
  const fmt = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(1))
  const rows = SIZES.map((s) => `| ${s >= 1 << 30 ? `${s / (1 << 30)} GiB` : `${s / (1 << 20)} MiB`} | ${fmt(a.get(s))} | ${fmt(b.get(s))} |`)
  console.log([`**all-reduce bus bandwidth (GB/s), float32 sum, ${n} × ${new Device(0).name}, NCCL ${nccl.getVersion()}**`, '', '| size | cuda-node | PyTorch |', '| --- | --- | --- |', ...rows].join('\n'))
}
