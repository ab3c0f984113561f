//! The simulator itself: making its devices (from the environment or as asked). Its parts are
//! implemented in the files of their concepts' names, and `backend.rs` (the seam) hands them out.

use super::device::{sim_props, SimBackend, SimDevice};
use super::engine::{Class, Queue, Scheduler};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

/// How many simulated devices (default 1).
pub const DEVICES_ENV: &str = "CUDA_NODE_SIM_DEVICES";
/// Bytes of memory each simulated device offers (default 8 GiB; host memory is used on demand).
pub const MEMORY_ENV: &str = "CUDA_NODE_SIM_MEMORY";
pub const DEFAULT_MEMORY: u64 = 8 << 30;
pub const MAX_DEVICES: usize = 64;

/// Where each simulated device's addresses start: device `n` at `BASE + n << 40`.
const ADDRESS_BASE: u64 = 0x7f00_0000_0000;

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
                    limits: Default::default(),
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

#[cfg(test)]
mod tests {
    use super::SimBackend;
    use crate::backend::Backend;
    use crate::ops::MemInfo;

    #[test]
    fn presents_the_documented_device() {
        let sim = SimBackend::new(2, 1 << 30);
        assert_eq!(sim.devices().count(), 2);
        let p = sim.devices().props(1).unwrap();
        assert_eq!(p.name, "cuda-node simulator 1");
        assert_eq!((p.cc_major, p.cc_minor), (9, 0));
        assert_eq!(p.total_memory, 1 << 30);
        assert!(p.attributes.contains(&("warpSize", 32)));
        assert_eq!(sim.devices().mem_info(0).unwrap(), MemInfo { free: 1 << 30, total: 1 << 30 });
    }
}

#[cfg(test)]
mod engine_tests {
    use super::SimBackend;
    use crate::backend::Backend;
    use crate::ops::Pattern;
    use crate::sim::memory;
    use std::time::{Duration, Instant};

    fn sim() -> SimBackend {
        SimBackend::new(1, 1 << 20)
    }

    #[test]
    fn a_stream_runs_in_order_and_copies_see_earlier_fills() {
        let b = sim();
        let s = b.streams().create(0, false, 0).unwrap();
        let m = b.memory().alloc(0, 16).unwrap();
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
        let legacy = b.streams().legacy(0).unwrap();
        for (nonblocking, waits) in [(false, true), (true, false)] {
            let s = b.streams().create(0, nonblocking, 0).unwrap();
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
        let m = b.memory().alloc(0, 1000).unwrap();
        assert_eq!(b.devices().mem_info(0).unwrap().free, (1 << 20) - 1000);
        let s = b.streams().create(0, true, 0).unwrap();
        let mut out = [0u8; 4];
        s.copy_dtoh(&mut out, &*m, 996).unwrap();
        assert_eq!(out, [memory::POISON; 4]);
        drop(m);
        assert_eq!(b.devices().mem_info(0).unwrap().free, 1 << 20);
        assert!(b.memory().alloc(0, (1 << 20) + 1).is_err());
    }
}
