//! The `sim` backend: a host simulator with CUDA's ordering rules, so that everything runs and
//! tests anywhere. What it presents is documented in the README ("The simulator").

use crate::backend::Backend;
use crate::device::{DeviceProps, MemInfo, ATTRIBUTES};
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};

/// How many simulated devices (default 1).
pub const DEVICES_ENV: &str = "CUDA_NODE_SIM_DEVICES";
/// Bytes of memory each simulated device offers (default 8 GiB; host memory is used on demand).
pub const MEMORY_ENV: &str = "CUDA_NODE_SIM_MEMORY";
pub const DEFAULT_MEMORY: u64 = 8 << 30;
pub const MAX_DEVICES: usize = 64;

pub(crate) struct SimDevice {
    props: DeviceProps,
    pub(crate) used: AtomicU64,
}

pub struct SimBackend {
    pub(crate) devices: Vec<SimDevice>,
}

impl SimBackend {
    pub fn from_env() -> Result<Self> {
        let count = parse_env(DEVICES_ENV, 1)?;
        if count == 0 || count > MAX_DEVICES as u64 {
            return Err(Error::range(format!("{DEVICES_ENV} must be 1 to {MAX_DEVICES}, got {count}")));
        }
        let memory = parse_env(MEMORY_ENV, DEFAULT_MEMORY)?;
        if memory == 0 {
            return Err(Error::range(format!("{MEMORY_ENV} must be a positive number of bytes")));
        }
        Ok(Self::new(count as usize, memory))
    }

    pub fn new(count: usize, memory: u64) -> Self {
        let devices = (0..count).map(|i| SimDevice { props: sim_props(i, memory), used: AtomicU64::new(0) }).collect();
        SimBackend { devices }
    }
}

fn parse_env(name: &str, default: u64) -> Result<u64> {
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(v) => v.trim().parse::<u64>().map_err(|_| Error::range(format!("{name} must be a whole number, got '{v}'"))),
    }
}

/// The simulated device: Hopper-like limits (compute capability 9.0), a few multiprocessors.
fn sim_props(ordinal: usize, memory: u64) -> DeviceProps {
    let value = |key: &str| -> i64 {
        match key {
            "multiProcessorCount" => 4,
            "maxThreadsPerBlock" => 1024,
            "maxBlockDimX" | "maxBlockDimY" => 1024,
            "maxBlockDimZ" => 64,
            "maxGridDimX" => i32::MAX as i64,
            "maxGridDimY" | "maxGridDimZ" => 65535,
            "warpSize" => 32,
            "maxSharedMemoryPerBlock" => 49152,
            "maxSharedMemoryPerBlockOptin" => 232448,
            "maxSharedMemoryPerMultiprocessor" => 233472,
            "maxRegistersPerBlock" => 65536,
            "maxThreadsPerMultiProcessor" => 2048,
            "totalConstantMemory" => 65536,
            "clockRate" => 1_000_000,
            "memoryClockRate" => 1_000_000,
            "globalMemoryBusWidth" => 64,
            "l2CacheSize" => 4 << 20,
            "computeCapabilityMajor" => 9,
            "computeCapabilityMinor" => 0,
            "concurrentKernels" | "unifiedAddressing" | "canMapHostMemory" => 1,
            "asyncEngineCount" => 2,
            "streamPrioritiesSupported" | "memoryPoolsSupported" => 1,
            "pciBusId" => ordinal as i64,
            _ => 0,
        }
    };
    DeviceProps {
        name: format!("cuda-node simulator {ordinal}"),
        cc_major: 9,
        cc_minor: 0,
        total_memory: memory,
        attributes: ATTRIBUTES.iter().map(|&(k, _)| (k, value(k))).collect(),
    }
}

impl Backend for SimBackend {
    fn device_count(&self) -> usize {
        self.devices.len()
    }

    fn device_props(&self, ordinal: usize) -> Result<DeviceProps> {
        Ok(self.devices[ordinal].props.clone())
    }

    fn mem_info(&self, ordinal: usize) -> Result<MemInfo> {
        let d = &self.devices[ordinal];
        let total = d.props.total_memory;
        Ok(MemInfo { free: total.saturating_sub(d.used.load(Ordering::Relaxed)), total })
    }

    fn synchronize_device(&self, _ordinal: usize) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presents_the_documented_device() {
        let sim = SimBackend::new(2, 1 << 30);
        assert_eq!(sim.device_count(), 2);
        let p = sim.device_props(1).unwrap();
        assert_eq!(p.name, "cuda-node simulator 1");
        assert_eq!((p.cc_major, p.cc_minor), (9, 0));
        assert_eq!(p.total_memory, 1 << 30);
        assert!(p.attributes.contains(&("warpSize", 32)));
        assert_eq!(sim.mem_info(0).unwrap(), MemInfo { free: 1 << 30, total: 1 << 30 });
    }
}
