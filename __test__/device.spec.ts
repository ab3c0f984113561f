import test from 'ava'
import { execFileSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { alloc, allocPinned, backend, CudaError, Device, isAvailable, mallocManaged } from '..'
import { gpuTest, runJson } from './helpers'

test('there is at least one device, and device 0 is current by default', (t) => {
  t.true(Device.count() >= 1)
  t.is(new Device().id, 0)
  t.is(Device.current().id, 0)
})

test('Device.fromPointer names the device an address lives on; isAvailable says whether that is a GPU', (t) => {
  t.is(isAvailable(), backend().name === 'cuda')
  const p = alloc(1024)
  t.is(Device.fromPointer(p.ptr).id, 0)
  t.is(Device.fromPointer(p.ptr + 100n).id, 0, 'inside the allocation too')
  const m = mallocManaged(256)
  t.is(Device.fromPointer(m.ptr).id, 0)
  const h = allocPinned(256)
  t.is(Device.fromPointer(h.ptr).id, 0)
  t.throws(() => Device.fromPointer(12 as any), { instanceOf: TypeError })
  t.throws(() => Device.fromPointer(0x10n), { instanceOf: CudaError })
  p.free()
  m.free()
  h.free()
})

test('a device reports its name, compute capability, memory and attributes', (t) => {
  const d = new Device(0)
  t.true(d.name.length > 0)
  t.regex(d.computeCapability, /^\d{2,3}$/)
  t.true(d.totalMemory > 0)
  t.is(d.attributes.warpSize, 32)
  t.true(d.attributes.multiProcessorCount > 0)
  t.is(`${d.attributes.computeCapabilityMajor}${d.attributes.computeCapabilityMinor}`, d.computeCapability)
  t.true(Object.isFrozen(d.attributes))
})

test('memInfo reports free and total memory', (t) => {
  const m = new Device(0).memInfo()
  t.is(m.total, new Device(0).totalMemory)
  t.true(m.free > 0 && m.free <= m.total)
})

test('synchronize and synchronizeAsync return once the device is idle', async (t) => {
  const d = new Device(0)
  t.is(d.synchronize(), undefined)
  t.is(await d.synchronizeAsync(), undefined)
})

test('the simulator presents its documented device, and more through CUDA_NODE_SIM_DEVICES', (t) => {
  const r = runJson(
    `const ds = [0, 1, 2].map((i) => new cuda.Device(i));
     console.log(JSON.stringify({ count: cuda.Device.count(), names: ds.map((d) => d.name), cc: ds[2].computeCapability, mem: ds[1].totalMemory }))`,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '3', CUDA_NODE_SIM_MEMORY: String(2 ** 30) },
  )
  t.deepEqual(r, {
    count: 3,
    names: ['cuda-node simulator 0', 'cuda-node simulator 1', 'cuda-node simulator 2'],
    cc: '90',
    mem: 2 ** 30,
  })
})

test('run() scopes the current device to the async context, across awaits', (t) => {
  const r = runJson(
    `const { Device } = cuda;
     const seen = [];
     const task = (id, ms) => new Device(id).run(async () => {
       await new Promise((r) => setTimeout(r, ms));
       seen.push([id, Device.current().id]);
       await new Promise((r) => setTimeout(r, ms));
       seen.push([id, Device.current().id]);
     });
     Promise.all([task(1, 5), task(0, 2), task(1, 1)]).then(() => {
       console.log(JSON.stringify({ seen, after: Device.current().id }))
     })`,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.is(r.seen.length, 6)
  for (const [want, got] of r.seen) t.is(got, want)
  t.is(r.after, 0)
})

test('use() changes the current device for the rest of the async context only', async (t) => {
  const r = runJson(
    `const { Device } = cuda;
     const other = (async () => { await null; return Device.current().id })();
     new Device(1).use();
     other.then((o) => console.log(JSON.stringify({ mine: Device.current().id, other: o })))`,
    { CUDA_NODE_BACKEND: 'sim', CUDA_NODE_SIM_DEVICES: '2' },
  )
  t.deepEqual(r, { mine: 1, other: 0 })
  await sleep(0)
})

gpuTest('the device matches what nvidia-smi and PyTorch report', (t) => {
  const line = execFileSync('nvidia-smi', ['--query-gpu=name,compute_cap,memory.total', '--format=csv,noheader,nounits', '-i', '0'], {
    encoding: 'utf8',
  }).trim()
  const [name, cc, mib] = line.split(',').map((s) => s.trim())
  const d = new Device(0)
  t.is(d.name, name)
  t.is(d.computeCapability, cc.replace('.', ''))
  // nvidia-smi's total includes memory the driver reserves for itself (about 480 MiB on an H100);
  // cuDeviceTotalMem, cudaGetDeviceProperties and PyTorch exclude it. PyTorch is the exact oracle.
  const smiBytes = Number(mib) * 2 ** 20
  t.true(d.totalMemory <= smiBytes && d.totalMemory > smiBytes * 0.98, `${d.totalMemory} vs nvidia-smi ${smiBytes}`)
  const torch = execFileSync('python3', ['-c', 'import torch; print(torch.cuda.get_device_properties(0).total_memory)'], {
    encoding: 'utf8',
  }).trim()
  t.is(d.totalMemory, Number(torch))
  t.log(`${d.name}, cc ${d.computeCapability}, ${d.totalMemory} bytes (nvidia-smi: ${mib} MiB)`)
})
