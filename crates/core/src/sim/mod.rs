//! The `sim` backend: a host simulator with CUDA's ordering rules, so that everything runs and
//! tests anywhere. What it presents is documented in the README ("The simulator").

mod blas;
#[cfg(target_family = "wasm")]
pub mod coop;
mod engine;
mod event;
mod graph;
mod memory;
mod nccl;
mod pinned;
mod stream;

use crate::backend::{Backend, DeviceProps, EventFlags, MemInfo, ATTRIBUTES};
use crate::error::{Code, Error, Result};
use crate::ops::{AllocOps, EventOps, StreamOps};
#[cfg(not(target_family = "wasm"))]
pub use engine::set_wait_pump;
use engine::{Class, Queue, Scheduler};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::thread::ThreadId;

/// How many simulated devices (default 1).
pub const DEVICES_ENV: &str = "CUDA_NODE_SIM_DEVICES";
/// Bytes of memory each simulated device offers (default 8 GiB; host memory is used on demand).
pub const MEMORY_ENV: &str = "CUDA_NODE_SIM_MEMORY";
pub const DEFAULT_MEMORY: u64 = 8 << 30;
pub const MAX_DEVICES: usize = 64;

/// The stream priorities the simulator accepts, as an H100 reports them (S9).
pub const PRIORITY_RANGE: (i32, i32) = (0, -5);
/// Where each simulated device's addresses start: device `n` at `BASE + n << 40`.
const ADDRESS_BASE: u64 = 0x7f00_0000_0000;

/// A lock that a panicked holder leaves usable: the simulator's state stays consistent across
/// a panicking host function.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) struct SimDevice {
    ordinal: usize,
    props: DeviceProps,
    pub(crate) used: AtomicU64,
    next_addr: AtomicU64,
    next_handle: AtomicU64,
    scheduler: Scheduler,
    legacy: Arc<Queue>,
    per_thread: Mutex<HashMap<ThreadId, Arc<Queue>>>,
    /// Created streams by handle, so `ExternalStream` can find them.
    by_handle: Mutex<HashMap<u64, Weak<Queue>>>,
    /// The stream-ordered pool's counts.
    pub(crate) async_pool: Mutex<memory::PoolModel>,
    /// Live allocations by address, for pointer attributes and foreign pointers.
    allocs: Mutex<std::collections::BTreeMap<u64, memory::Known>>,
}

/// Host ranges pinned or registered: address → length.
type HostRanges = Arc<Mutex<std::collections::BTreeMap<u64, u64>>>;

pub struct SimBackend {
    pub(crate) devices: Vec<Arc<SimDevice>>,
    /// `(device, peer)` pairs with peer access enabled.
    peers: Mutex<std::collections::HashSet<(usize, usize)>>,
    host: HostRanges,
}

/// The simulated topology: devices come in pairs joined by a link (0–1, 2–3, …), as on a board
/// of NVLink pairs; a device reaches its pair's memory directly, others only through copies.
pub fn sim_peers(a: usize, b: usize) -> bool {
    a != b && a / 2 == b / 2
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
        let devices = (0..count)
            .map(|i| {
                let scheduler = Scheduler::default();
                let legacy = Queue::spawn(Class::Legacy, format!("sim{i}-legacy"));
                scheduler.register(&legacy);
                Arc::new(SimDevice {
                    ordinal: i,
                    props: sim_props(i, memory),
                    used: AtomicU64::new(0),
                    next_addr: AtomicU64::new(ADDRESS_BASE + ((i as u64) << 40)),
                    next_handle: AtomicU64::new(0x5100_0000 + ((i as u64) << 32)),
                    scheduler,
                    legacy,
                    per_thread: Mutex::new(HashMap::new()),
                    by_handle: Mutex::new(HashMap::new()),
                    async_pool: Mutex::new(Default::default()),
                    allocs: Mutex::new(Default::default()),
                })
            })
            .collect();
        SimBackend { devices, peers: Mutex::new(Default::default()), host: Default::default() }
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
            // mallocManaged works here (host memory the simulator shares with its streams).
            "managedMemory" => 1,
            "asyncEngineCount" => 2,
            "streamPrioritiesSupported" | "memoryPoolsSupported" => 1,
            "cooperativeLaunch" | "clusterLaunch" => 1,
            "maxBlocksPerMultiprocessor" => 32,
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

    fn synchronize_device(&self, ordinal: usize) -> Result<()> {
        let dev = &self.devices[ordinal];
        dev.scheduler.synchronize_all();
        lock(&dev.async_pool).settle();
        Ok(())
    }

    fn priority_range(&self, _ordinal: usize) -> Result<(i32, i32)> {
        Ok(PRIORITY_RANGE)
    }

    fn stream_create(&self, ordinal: usize, nonblocking: bool, priority: i32) -> Result<Box<dyn StreamOps>> {
        let dev = &self.devices[ordinal];
        let handle = dev.next_handle.fetch_add(0x10, Ordering::Relaxed);
        let queue = Queue::spawn(stream::class(nonblocking), format!("sim{ordinal}-{handle:x}"));
        dev.scheduler.register(&queue);
        let mut by_handle = dev.by_handle.lock().unwrap_or_else(|p| p.into_inner());
        by_handle.retain(|_, q| q.strong_count() > 0);
        by_handle.insert(handle, Arc::downgrade(&queue));
        Ok(Box::new(stream::SimStream { dev: dev.clone(), queue, handle, priority }))
    }

    fn stream_legacy(&self, ordinal: usize) -> Result<Box<dyn StreamOps>> {
        let dev = &self.devices[ordinal];
        Ok(Box::new(stream::SimStream { dev: dev.clone(), queue: dev.legacy.clone(), handle: 0, priority: 0 }))
    }

    fn stream_per_thread(&self, ordinal: usize) -> Result<Box<dyn StreamOps>> {
        let dev = &self.devices[ordinal];
        let queue = dev
            .per_thread
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(std::thread::current().id())
            .or_insert_with(|| {
                let q = Queue::spawn(Class::Blocking, format!("sim{ordinal}-ptds"));
                dev.scheduler.register(&q);
                q
            })
            .clone();
        Ok(Box::new(stream::SimStream { dev: dev.clone(), queue, handle: 2, priority: 0 }))
    }

    fn stream_external(&self, ordinal: usize, handle: u64) -> Result<(Box<dyn StreamOps>, bool)> {
        let dev = &self.devices[ordinal];
        let queue = dev.by_handle.lock().unwrap_or_else(|p| p.into_inner()).get(&handle).and_then(Weak::upgrade);
        let Some(queue) = queue else {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_HANDLE,
                format!("0x{handle:x} is not a live stream of simulated device {}", dev.ordinal),
            ));
        };
        let nonblocking = queue.class == Class::NonBlocking;
        Ok((Box::new(stream::SimStream { dev: dev.clone(), queue, handle, priority: 0 }), nonblocking))
    }

    fn event_create(&self, ordinal: usize, _flags: EventFlags, _reuse: bool) -> Result<Box<dyn EventOps>> {
        let handle = self.devices[ordinal].next_handle.fetch_add(0x10, Ordering::Relaxed);
        Ok(Box::new(event::SimEvent { handle, state: Mutex::new(event::Recorded::Empty) }))
    }

    fn event_from_ipc(&self, _ordinal: usize, _handle: &[u8; 64]) -> Result<Box<dyn EventOps>> {
        Err(event::ipc_unsupported())
    }

    fn host_alloc(&self, size: u64) -> Result<Box<dyn crate::ops::PinnedOps>> {
        let bytes = pinned::SimPinned::new(size)?;
        let ptr = crate::ops::PinnedOps::ptr(&bytes);
        Ok(Box::new(pinned::SimHost::new(self.host.clone(), ptr, size, Some(bytes))?))
    }

    fn async_pool_get(&self, ordinal: usize, attr: crate::backend::PoolAttr) -> Result<u64> {
        Ok(lock(&self.devices[ordinal].async_pool).get(attr))
    }

    fn async_pool_set(&self, ordinal: usize, attr: crate::backend::PoolAttr, value: u64) -> Result<()> {
        lock(&self.devices[ordinal].async_pool).set(attr, value)
    }

    fn async_pool_trim(&self, ordinal: usize) -> Result<()> {
        lock(&self.devices[ordinal].async_pool).trim(0);
        Ok(())
    }

    fn blas(&self) -> &dyn crate::ops::blas::BlasOps {
        self
    }

    fn profiler(&self, _on: bool) -> Result<()> {
        Ok(())
    }

    fn module_load(&self, _ordinal: usize, _image: &[u8]) -> Result<Box<dyn crate::ops::ModuleOps>> {
        Err(stream::no_kernels())
    }

    fn alloc(&self, ordinal: usize, size: u64) -> Result<Box<dyn AllocOps>> {
        Ok(Box::new(alloc_on(&self.devices[ordinal], size, false)?))
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

    fn nccl(&self) -> &dyn crate::ops::nccl::NcclOps {
        self
    }

    fn alloc_managed(&self, ordinal: usize, size: u64, _global: bool) -> Result<Box<dyn AllocOps>> {
        Ok(Box::new(alloc_kind(&self.devices[ordinal], size, false, true)?))
    }

    fn pointer_attributes(&self, ptr: u64) -> Result<crate::backend::PointerAttributes> {
        use crate::backend::{MemoryKind, PointerAttributes};
        for dev in &self.devices {
            let allocs = lock(&dev.allocs);
            if let Some((&base, k)) = allocs.range(..=ptr).next_back() {
                if ptr < base + k.size.max(1) {
                    let kind = if k.managed { MemoryKind::Managed } else { MemoryKind::Device };
                    return Ok(PointerAttributes { device: dev.ordinal, kind, base, size: k.size });
                }
            }
        }
        if let Some((&base, &size)) = lock(&self.host).range(..=ptr).next_back() {
            if ptr < base + size {
                return Ok(PointerAttributes { device: 0, kind: MemoryKind::Host, base, size });
            }
        }
        Err(Error::cuda(
            Code::CUDA_ERROR_INVALID_VALUE,
            format!("0x{ptr:x} is not memory the simulator knows (not allocated, or already freed)"),
        ))
    }

    fn alloc_foreign(&self, ordinal: usize, ptr: u64) -> Result<(Box<dyn AllocOps>, u64)> {
        let dev = &self.devices[ordinal];
        let found = lock(&dev.allocs).range(..=ptr).next_back().and_then(|(&base, k)| Some((base, k.size, k.buffer.upgrade()?)));
        match found {
            Some((base, size, buffer)) if ptr < base + size => {
                Ok((Box::new(memory::SimAlloc::view(dev.clone(), base, size, buffer)), ptr - base))
            }
            _ => Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, format!("0x{ptr:x} is not memory of simulated device {ordinal}"))),
        }
    }

    fn mem_advise(&self, _ptr: u64, _len: u64, _advice: crate::backend::Advice, _location: crate::ops::Location) -> Result<()> {
        // Advice changes where pages live, never what they hold: nothing to simulate.
        Ok(())
    }

    fn ipc_mem_handle(&self, _ordinal: usize, _ptr: u64) -> Result<[u8; 64]> {
        Err(ipc_mem_unsupported())
    }

    fn ipc_open_mem(&self, _ordinal: usize, _handle: &[u8; 64]) -> Result<(Box<dyn AllocOps>, u64)> {
        Err(ipc_mem_unsupported())
    }

    fn host_register(&self, ptr: *mut u8, len: u64) -> Result<Box<dyn crate::ops::PinnedOps>> {
        Ok(Box::new(pinned::SimHost::new(self.host.clone(), ptr, len, None)?))
    }
}

fn ipc_mem_unsupported() -> Error {
    Error::cuda(
        Code::CUDA_ERROR_NOT_SUPPORTED,
        "interprocess memory needs the GPU: the simulator's memory cannot be shared between processes",
    )
}

/// A simulated device allocation, counted against the device's memory.
/// `stream_ordered` allocations are capturable; a plain one under a capture that is not relaxed
/// fails and invalidates it, as `cuMemAlloc` does (C5).
pub(crate) fn alloc_on(dev: &Arc<SimDevice>, size: u64, stream_ordered: bool) -> Result<memory::SimAlloc> {
    alloc_kind(dev, size, stream_ordered, false)
}

fn alloc_kind(dev: &Arc<SimDevice>, size: u64, stream_ordered: bool, managed: bool) -> Result<memory::SimAlloc> {
    let ordinal = dev.ordinal;
    if !stream_ordered {
        let strict = dev.scheduler.strict_captures();
        if !strict.is_empty() {
            strict.iter().for_each(|c| c.invalidate());
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                "cudaMalloc is not permitted during a capture in 'global' or 'threadLocal' mode (it invalidated the capture); use mode 'relaxed' or an AsyncMemoryPool",
            ));
        }
    }
    let total = dev.props.total_memory;
    let used = dev.used.fetch_add(size, Ordering::Relaxed);
    if used.checked_add(size).is_none_or(|u| u > total) {
        dev.used.fetch_sub(size, Ordering::Relaxed);
        return Err(Error::cuda(
            Code::CUDA_ERROR_OUT_OF_MEMORY,
            format!("out of memory allocating {size} bytes on simulated device {ordinal} ({used} of {total} bytes in use)"),
        ));
    }
    let ptr = dev.next_addr.fetch_add(size.div_ceil(512) * 512, Ordering::Relaxed);
    memory::SimAlloc::new(dev.clone(), ptr, size, managed)
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

#[cfg(test)]
mod engine_tests {
    use super::*;
    use crate::ops::Pattern;
    use std::time::{Duration, Instant};

    fn sim() -> SimBackend {
        SimBackend::new(1, 1 << 20)
    }

    #[test]
    fn a_stream_runs_in_order_and_copies_see_earlier_fills() {
        let b = sim();
        let s = b.stream_create(0, false, 0).unwrap();
        let m = b.alloc(0, 16).unwrap();
        s.sleep(20_000_000).unwrap();
        s.fill(&*m, 0, Pattern { width: 4, bits: 7 }, 4).unwrap();
        s.fill(&*m, 8, Pattern { width: 4, bits: 9 }, 2).unwrap();
        let mut out = [0u8; 16];
        s.copy_dtoh(&mut out, &*m, 0).unwrap();
        assert_eq!(out, [7, 0, 0, 0, 7, 0, 0, 0, 9, 0, 0, 0, 9, 0, 0, 0]);
    }

    #[test]
    fn the_legacy_stream_waits_for_blocking_streams_only() {
        let b = sim();
        let legacy = b.stream_legacy(0).unwrap();
        for (nonblocking, waits) in [(false, true), (true, false)] {
            let s = b.stream_create(0, nonblocking, 0).unwrap();
            let start = Instant::now();
            s.sleep(80_000_000).unwrap();
            legacy.launch_host_fn(Box::new(|| {})).unwrap();
            legacy.synchronize().unwrap();
            assert_eq!(start.elapsed() >= Duration::from_millis(75), waits, "nonblocking={nonblocking}");
            s.synchronize().unwrap();
        }
    }

    #[test]
    fn new_memory_is_poisoned_and_counted() {
        let b = sim();
        let m = b.alloc(0, 1000).unwrap();
        assert_eq!(b.mem_info(0).unwrap().free, (1 << 20) - 1000);
        let s = b.stream_create(0, true, 0).unwrap();
        let mut out = [0u8; 4];
        s.copy_dtoh(&mut out, &*m, 996).unwrap();
        assert_eq!(out, [memory::POISON; 4]);
        drop(m);
        assert_eq!(b.mem_info(0).unwrap().free, 1 << 20);
        assert!(b.alloc(0, (1 << 20) + 1).is_err());
    }
}
