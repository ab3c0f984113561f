import { backend, Device } from '../index'
import { native } from '../lib/native'

/** What `npx cuda-node info` prints: backend, versions, and each device as deviceQuery shows it. */
export function info(): string {
  const b = backend()
  const lines = [`backend: ${b.name} (${b.reason})`]
  if (b.driverVersion) lines.push(`CUDA driver: ${Math.floor(b.driverVersion / 1000)}.${(b.driverVersion % 1000) / 10}`)
  try {
    const [major, minor] = native.nvrtcVersion()
    lines.push(`NVRTC: ${major}.${minor}`)
  } catch (e) {
    lines.push(`NVRTC: not available (${(e as Error).message.split(':')[0]})`)
  }
  const n = Device.count()
  lines.push(`devices: ${n}`)
  for (let i = 0; i < n; i++) {
    const d = new Device(i)
    const a = d.attributes
    const { free, total } = d.memInfo()
    lines.push(
      ``,
      `Device ${i}: "${d.name}"`,
      `  compute capability:                 ${a.computeCapabilityMajor}.${a.computeCapabilityMinor}`,
      `  total global memory:                ${(total / 2 ** 20).toFixed(0)} MiB (${(free / 2 ** 20).toFixed(0)} MiB free)`,
      `  multiprocessors:                    ${a.multiProcessorCount}`,
      `  clock rate:                         ${(a.clockRate / 1e3).toFixed(0)} MHz`,
      `  memory clock rate, bus width:       ${(a.memoryClockRate / 1e3).toFixed(0)} MHz, ${a.globalMemoryBusWidth} bits`,
      `  L2 cache:                           ${(a.l2CacheSize / 2 ** 20).toFixed(1)} MiB`,
      `  shared memory per block (opt-in):   ${a.maxSharedMemoryPerBlock} (${a.maxSharedMemoryPerBlockOptin}) bytes`,
      `  registers per block:                ${a.maxRegistersPerBlock}`,
      `  warp size:                          ${a.warpSize}`,
      `  max threads per block, per SM:      ${a.maxThreadsPerBlock}, ${a.maxThreadsPerMultiProcessor}`,
      `  max block dimensions:               (${a.maxBlockDimX}, ${a.maxBlockDimY}, ${a.maxBlockDimZ})`,
      `  max grid dimensions:                (${a.maxGridDimX}, ${a.maxGridDimY}, ${a.maxGridDimZ})`,
      `  concurrent kernels, copy engines:   ${a.concurrentKernels ? 'yes' : 'no'}, ${a.asyncEngineCount}`,
      `  unified addressing, managed memory: ${a.unifiedAddressing ? 'yes' : 'no'}, ${a.managedMemory ? 'yes' : 'no'}`,
      `  stream priorities, memory pools:    ${a.streamPrioritiesSupported ? 'yes' : 'no'}, ${a.memoryPoolsSupported ? 'yes' : 'no'}`,
      `  PCI domain:bus:device:              ${a.pciDomainId}:${a.pciBusId}:${a.pciDeviceId}`,
    )
  }
  return lines.join('\n')
}
