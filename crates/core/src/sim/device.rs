//! Simulated devices: the backend and its devices (what every other file of the simulator
//! shares), each device's queues, scheduler and counts, the properties it presents, and the
//! simulated topology.

use super::bytes::Known;
use super::engine::{Queue, Scheduler};
use super::lock::lock;
use super::pool::PoolModel;
use crate::error::{Code, Error, Result};
use crate::ops::device::Limit;
use crate::ops::{DeviceOps, DeviceProps, MemInfo, ATTRIBUTES};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::thread::ThreadId;

/// The stream priorities the simulator accepts, as an H100 reports them (S9).
pub const PRIORITY_RANGE: (i32, i32) = (0, -5);
/// Host ranges pinned or registered: address → length.
pub(super) type HostRanges = Arc<Mutex<std::collections::BTreeMap<u64, u64>>>;

/// The simulator: its devices, by ordinal, and what spans them.
pub struct SimBackend {
    pub(crate) devices: Vec<Arc<SimDevice>>,
    /// `(device, peer)` pairs with peer access enabled.
    pub(super) peers: Mutex<std::collections::HashSet<(usize, usize)>>,
    pub(super) host: HostRanges,
}

pub(crate) struct SimDevice {
    pub(super) ordinal: usize,
    pub(super) props: DeviceProps,
    pub(crate) used: AtomicU64,
    pub(super) next_addr: AtomicU64,
    pub(super) next_handle: AtomicU64,
    pub(super) scheduler: Scheduler,
    pub(super) legacy: Arc<Queue>,
    pub(super) per_thread: Mutex<HashMap<ThreadId, Arc<Queue>>>,
    /// Created streams by handle, so `ExternalStream` can find them.
    pub(super) by_handle: Mutex<HashMap<u64, Weak<Queue>>>,
    /// The stream-ordered pool's counts.
    pub(crate) async_pool: Mutex<PoolModel>,
    /// Live allocations by address, for pointer attributes and foreign pointers.
    pub(super) allocs: Mutex<std::collections::BTreeMap<u64, Known>>,
    /// The context's limits, by `Limit` (`cuCtxSetLimit`).
    pub(super) limits: Mutex<Limits>,
}

/// A simulated context's limits. The defaults are what CUDA 12 reports on a Hopper GPU (1 KiB
/// stacks, 1 MiB printf FIFO, 8 MiB malloc heap, sync depth 2, 2048 pending launches, no
/// persisting L2); the L2 fetch granularity, a hint, starts at 64 bytes.
pub(super) struct Limits([u64; 7]);

impl Default for Limits {
    fn default() -> Limits {
        Limits([1024, 1 << 20, 8 << 20, 2, 2048, 64, 0])
    }
}

/// What a simulated device makes of a limit asked for, as the driver would: stacks rounded up to
/// 16 bytes, the L2 fetch granularity to a power of two from 32 to 128 (0 stays 0); a stack
/// reserve (the size times every thread the device can hold) or malloc heap larger than the
/// device's memory refused with `CUDA_ERROR_INVALID_VALUE`; the device runtime's sync depth,
/// which compute capability 9.0 no longer has, `CUDA_ERROR_UNSUPPORTED_LIMIT`.
fn sim_limit(props: &DeviceProps, limit: Limit, value: u64) -> Result<u64> {
    let attr = |k: &str| props.attributes.iter().find(|(n, _)| *n == k).map_or(0, |&(_, v)| v.max(0) as u64);
    let too_large = |what: &str| {
        Error::cuda(
            Code::CUDA_ERROR_INVALID_VALUE,
            format!("{what} is larger than the simulated device's {} bytes of memory", props.total_memory),
        )
    };
    match limit {
        Limit::StackSize => {
            let v = value.checked_next_multiple_of(16).ok_or_else(|| too_large("the stack"))?;
            let threads = attr("maxThreadsPerMultiProcessor") * attr("multiProcessorCount");
            if v.checked_mul(threads).is_none_or(|all| all > props.total_memory) {
                return Err(too_large(&format!("a {v}-byte stack for each of {threads} resident threads")));
            }
            Ok(v)
        }
        Limit::MallocHeapSize if value > props.total_memory => Err(too_large("the malloc heap")),
        Limit::DevRuntimeSyncDepth if props.cc_major >= 9 => Err(Error::cuda(
            Code::CUDA_ERROR_UNSUPPORTED_LIMIT,
            format!(
                "compute capability {}.{} has no device-side cudaDeviceSynchronize, so no sync depth to set",
                props.cc_major, props.cc_minor
            ),
        )),
        Limit::MaxL2FetchGranularity if value > 0 => Ok(value.next_power_of_two().clamp(32, 128)),
        _ => Ok(value),
    }
}

impl SimDevice {
    /// What its stream-ordered pool needs of it (the pool's reserve counts as its memory in use).
    pub(crate) fn for_pool(&self) -> super::pool::Device<'_> {
        super::pool::Device { used: &self.used, total: self.props.total_memory, ordinal: self.ordinal }
    }
}

/// The simulated topology: devices come in pairs joined by a link (0–1, 2–3, …), as on a board
/// of NVLink pairs; a device reaches its pair's memory directly, others only through copies.
pub fn sim_peers(a: usize, b: usize) -> bool {
    a != b && a / 2 == b / 2
}

/// The simulated device: Hopper-like limits (compute capability 9.0), a few multiprocessors.
pub(super) fn sim_props(ordinal: usize, memory: u64) -> DeviceProps {
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
            // mallocManaged works here (host memory the simulator shares with its streams).
            "managedMemory" => 1,
            "asyncEngineCount" => 2,
            "streamPrioritiesSupported" | "memoryPoolsSupported" => 1,
            "cooperativeLaunch" | "clusterLaunch" => 1,
            "maxBlocksPerMultiprocessor" => 32,
            "pciBusId" => ordinal as i64,
            // Three quarters of L2, as an A100 or H100 allows.
            "maxPersistingL2CacheSize" => 3 << 20,
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

impl DeviceOps for SimBackend {
    fn count(&self) -> usize {
        self.devices.len()
    }

    fn props(&self, ordinal: usize) -> Result<DeviceProps> {
        Ok(self.devices[ordinal].props.clone())
    }

    fn mem_info(&self, ordinal: usize) -> Result<MemInfo> {
        let d = &self.devices[ordinal];
        let total = d.props.total_memory;
        Ok(MemInfo { free: total.saturating_sub(d.used.load(Ordering::Relaxed)), total })
    }

    fn synchronize(&self, ordinal: usize) -> Result<()> {
        let dev = &self.devices[ordinal];
        dev.scheduler.synchronize_all();
        lock(&dev.async_pool).settle(dev.for_pool());
        Ok(())
    }

    fn priority_range(&self, _ordinal: usize) -> Result<(i32, i32)> {
        Ok(PRIORITY_RANGE)
    }

    fn profiler(&self, _on: bool) -> Result<()> {
        Ok(())
    }

    fn get_limit(&self, ordinal: usize, limit: Limit) -> Result<u64> {
        Ok(lock(&self.devices[ordinal].limits).0[limit as usize])
    }

    fn set_limit(&self, ordinal: usize, limit: Limit, value: u64) -> Result<()> {
        let dev = &self.devices[ordinal];
        let v = sim_limit(&dev.props, limit, value)?;
        // As the driver does for the stack, wait for the device's earlier work first.
        if limit == Limit::StackSize {
            dev.scheduler.synchronize_all();
        }
        lock(&dev.limits).0[limit as usize] = v;
        Ok(())
    }

    fn uuid(&self, ordinal: usize) -> Result<[u8; 16]> {
        // Stable and distinct per device; version 8 ("custom") in the UUID's own bits.
        let mut u = *b"cuda-node-sim\0\0\0";
        u[6] = 0x80 | (u[6] & 0x0f);
        u[8] = 0x80 | (u[8] & 0x3f);
        u[14..16].copy_from_slice(&(ordinal as u16).to_be_bytes());
        Ok(u)
    }

    fn pci_bus_id(&self, ordinal: usize) -> Result<String> {
        Ok(format!("0000:{ordinal:02x}:00.0"))
    }

    fn can_access_peer(&self, ordinal: usize, peer: usize) -> Result<bool> {
        Ok(sim_peers(ordinal, peer))
    }

    fn set_peer_access(&self, ordinal: usize, peer: usize, on: bool) -> Result<()> {
        let mut peers = lock(&self.peers);
        if on {
            peers.insert((ordinal, peer));
        } else {
            peers.remove(&(ordinal, peer));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_round_and_refuse_as_the_driver_does() {
        let p = sim_props(0, 1 << 30);
        assert_eq!(sim_limit(&p, Limit::StackSize, 1000), Ok(1008));
        assert!(sim_limit(&p, Limit::StackSize, 1 << 30).unwrap_err().is_code(Code::CUDA_ERROR_INVALID_VALUE));
        assert!(sim_limit(&p, Limit::MallocHeapSize, 2 << 30).unwrap_err().is_code(Code::CUDA_ERROR_INVALID_VALUE));
        assert!(sim_limit(&p, Limit::DevRuntimeSyncDepth, 4).unwrap_err().is_code(Code::CUDA_ERROR_UNSUPPORTED_LIMIT));
        assert_eq!(sim_limit(&p, Limit::MaxL2FetchGranularity, 0), Ok(0));
        assert_eq!(sim_limit(&p, Limit::MaxL2FetchGranularity, 1), Ok(32));
        assert_eq!(sim_limit(&p, Limit::MaxL2FetchGranularity, 65), Ok(128));
        assert_eq!(sim_limit(&p, Limit::PrintfFifoSize, 12345), Ok(12345));
    }
}
