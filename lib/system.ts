// Device telemetry (cuda.core's `system`): NVML's readings on the GPU, loaded at run time as the
// driver is; the simulator's own model, marked `simulated`, elsewhere.
import { native } from './native'
import { Device, deviceOrdinal } from './device'

/** A process with a compute context on a device. */
export interface DeviceProcess {
  /** Its process id. */
  pid: number
  /** Device memory it holds, bytes; null where the driver cannot say. */
  usedBytes: number | null
}

/**
 * One device's state now (`nvidia-smi`'s numbers). A reading the device does not support, or the
 * simulator does not model, is null.
 */
export interface DeviceTelemetry {
  /** The device's ordinal. */
  device: number
  /** True for the simulator's model, false for what NVML read. */
  simulated: boolean
  /** The device's name. */
  name: string
  /** Percent of the last sample period a kernel ran. */
  utilizationGpu: number | null
  /** Percent of the period device memory was read or written. */
  utilizationMemory: number | null
  /** Device memory in use by every process, bytes. */
  memoryUsed: number | null
  /** Device memory, bytes. */
  memoryTotal: number | null
  /** GPU temperature, °C. */
  temperatureC: number | null
  /** Power drawn, milliwatts. */
  powerMilliwatts: number | null
  /** The enforced power limit, milliwatts. */
  powerLimitMilliwatts: number | null
  /** SM clock, MHz. */
  clockSmMhz: number | null
  /** Memory clock, MHz. */
  clockMemoryMhz: number | null
  /** PCIe sent over the last 20 ms, KB/s. */
  pcieTxKBps: number | null
  /** PCIe received over the last 20 ms, KB/s. */
  pcieRxKBps: number | null
  /** NVLink data sent since the driver loaded, bytes (a rate is two readings apart). */
  nvlinkTxBytes: number | null
  /** NVLink data received since the driver loaded, bytes. */
  nvlinkRxBytes: number | null
  /** The processes on the device. */
  processes: DeviceProcess[]
}

/**
 * The system's devices as the management library sees them (cuda.core's `cuda.core.system`).
 * On the GPU it reads NVML (libnvidia-ml, loaded on first use; `CUDA_NODE_NVML_PATH` names it);
 * on the simulator, its model.
 */
export const system = {
  /** The display driver's version, as nvidia-smi shows it. @throws {CudaError} `NVML_ERROR_LIBRARY_NOT_FOUND` naming where NVML was looked for. */
  driverVersion(): string {
    return native.systemDriverVersion()
  },
  /** How many devices there are (cuda.core's `system.num_devices`). */
  get numDevices(): number {
    return Device.count()
  },
  /**
   * `device`'s state now (the current device by default).
   * @throws {TypeError}/{RangeError} for a bad ordinal, {CudaError} `CUDA_ERROR_INVALID_DEVICE`,
   *   `NVML_ERROR_LIBRARY_NOT_FOUND` naming where NVML was looked for, NVML's own codes.
   */
  deviceTelemetry(device?: number | Device): DeviceTelemetry {
    const d = deviceOrdinal(device)
    return { device: d, ...native.systemTelemetry(d) }
  },
  /** Every device's state now. @throws as {@link system.deviceTelemetry}. */
  telemetry(): DeviceTelemetry[] {
    const out: DeviceTelemetry[] = []
    for (let d = 0; d < Device.count(); d++) out.push({ device: d, ...native.systemTelemetry(d) })
    return out
  },
}
