// Device telemetry (issue 37, part 4): the `system` module and `cuda-node top`. On the simulator
// the readings are its model's, marked simulated; on the GPU, NVML's (those tests skip without one).
import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import path from 'node:path'
import { CudaError, Device, mallocPlain, system } from '..'
import { gpuTest, onGpu, onWasm, root, simTest } from './helpers'

const cli = path.join(root, 'cli', 'cli.js')

simTest('the simulator reports its own model, marked simulated', (t) => {
  const before = system.deviceTelemetry()
  t.true(before.simulated)
  t.is(before.device, 0)
  t.is(before.name, new Device(0).name)
  t.is(before.memoryTotal, new Device(0).totalMemory)
  const p = mallocPlain(1 << 20)
  const after = system.deviceTelemetry(0)
  t.true(after.memoryUsed! - before.memoryUsed! >= 1 << 20, 'an allocation shows in memoryUsed')
  // WASI has no process id: the WebAssembly build reports 0.
  t.deepEqual(after.processes, [{ pid: onWasm ? 0 : process.pid, usedBytes: after.memoryUsed }])
  t.is(after.clockSmMhz, Math.floor(new Device(0).attributes.clockRate! / 1000))
  t.is(after.temperatureC, null, 'what the model does not have is null, not made up')
  t.is(after.powerMilliwatts, null)
  t.regex(system.driverVersion(), /^simulated/)
  t.is(system.telemetry().length, Device.count())
  p.mem.free()
})

test('a bad device is a typed error', (t) => {
  t.throws(() => system.deviceTelemetry(99), { instanceOf: CudaError, message: /99/ })
  t.throws(() => system.deviceTelemetry('0' as never), { instanceOf: TypeError })
  t.throws(() => system.deviceTelemetry(-1), { instanceOf: CudaError, message: /no device -1/ })
  t.throws(() => system.deviceTelemetry(0.5), { instanceOf: RangeError })
})

gpuTest('on the GPU, telemetry reads NVML: utilization, memory, temperature, power, clocks, processes', (t) => {
  const p = mallocPlain(64 << 20)
  const r = system.deviceTelemetry(0)
  t.log(JSON.stringify(r))
  t.log(`driver ${system.driverVersion()}`)
  t.false(r.simulated)
  t.is(r.name, new Device(0).name)
  t.true(r.utilizationGpu !== null && r.utilizationGpu >= 0 && r.utilizationGpu <= 100)
  t.true(r.memoryTotal !== null && Math.abs(r.memoryTotal - new Device(0).totalMemory) / r.memoryTotal < 0.05, `${r.memoryTotal} vs ${new Device(0).totalMemory}`)
  t.true(r.memoryUsed !== null && r.memoryUsed >= 64 << 20)
  t.true(r.temperatureC !== null && r.temperatureC > 0 && r.temperatureC < 120)
  t.true(r.powerMilliwatts !== null && r.powerMilliwatts > 0)
  t.true(r.clockSmMhz !== null && r.clockSmMhz > 0)
  t.true(Array.isArray(r.processes))
  t.regex(system.driverVersion(), /^\d+\.\d+/)
  p.mem.free()
})

test('cuda-node top --once prints one frame, a device a row', (t) => {
  const r = spawnSync(process.execPath, [cli, 'top', '--once'], { encoding: 'utf8', timeout: 120_000 })
  t.is(r.status, 0, r.stderr)
  t.log(r.stdout)
  t.regex(r.stdout, /^cuda-node top · driver /)
  t.regex(r.stdout, /\n +0 \S/)
  t.regex(r.stdout, /processes: \d+ \(/)
  if (!onGpu) t.regex(r.stdout, /simulated/)
})

test('cuda-node top redraws until q, and refuses bad arguments', async (t) => {
  const child = spawn(process.execPath, [cli, 'top', '--interval', '100'], { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (b) => (out += b))
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    const poll = setInterval(() => {
      if ((out.match(/cuda-node top · /g) ?? []).length >= 2) {
        clearInterval(poll)
        child.stdin.write('q')
      }
    }, 50)
    child.on('exit', (c) => {
      clearTimeout(timer)
      clearInterval(poll)
      resolve(c)
    })
  })
  t.is(code, 0, out)
  t.true((out.match(/cuda-node top · /g) ?? []).length >= 2, 'it redrew')
  const bad = spawnSync(process.execPath, [cli, 'top', '--interval', '5'], { encoding: 'utf8', timeout: 60_000 })
  t.is(bad.status, 2)
  t.regex(bad.stderr, /usage: cuda-node top/)
})
