//! Device telemetry at the seam (cuda.core's `system`): what a backend reads of a device's state
//! now. The cuda backend reads NVML, loaded at run time; the simulator reports its own model.

use crate::error::Result;

/// What a backend says of each device's state. Ordinals reaching it are checked.
pub trait SystemOps: Send + Sync + 'static {
    /// The device's utilization, memory, temperature, power, clocks, link traffic and processes now.
    fn telemetry(&self, ordinal: usize) -> Result<Telemetry>;
    /// The display driver's version, as `nvidia-smi` shows it (`nvmlSystemGetDriverVersion`).
    fn driver_version(&self) -> Result<String>;
}

/// One device's state. A reading the device does not support (NVML's `NVML_ERROR_NOT_SUPPORTED`,
/// or one the simulator does not model) is `None`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Telemetry {
    /// True for the simulator's model, false for what NVML read.
    pub simulated: bool,
    pub name: String,
    /// Percent of the last sample period a kernel ran (`nvmlDeviceGetUtilizationRates`).
    pub utilization_gpu: Option<u32>,
    /// Percent of the period device memory was read or written.
    pub utilization_memory: Option<u32>,
    pub memory_used: Option<u64>,
    pub memory_total: Option<u64>,
    pub temperature_c: Option<u32>,
    pub power_mw: Option<u32>,
    pub power_limit_mw: Option<u32>,
    pub clock_sm_mhz: Option<u32>,
    pub clock_memory_mhz: Option<u32>,
    /// PCIe traffic over the last 20 ms, KB/s (`nvmlDeviceGetPcieThroughput`).
    pub pcie_tx_kbps: Option<u32>,
    pub pcie_rx_kbps: Option<u32>,
    /// NVLink data sent and received since the driver loaded, bytes (a rate is two readings apart).
    pub nvlink_tx_bytes: Option<u64>,
    pub nvlink_rx_bytes: Option<u64>,
    /// The processes with a compute context on the device.
    pub processes: Vec<ProcessMemory>,
}

/// A process on a device and the device memory it holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProcessMemory {
    pub pid: u32,
    /// `None` where the driver cannot say (NVML's `NVML_VALUE_NOT_AVAILABLE`).
    pub used_bytes: Option<u64>,
}
