//! Simulated virtual memory (`ops::VirtualMemory`): a reserved range takes addresses and no
//! memory; mapping counts its bytes against the device and grows the range's host bytes to
//! cover the highest mapping (holes below it cost host memory, never device memory). The
//! granularity is 2 MiB, an H100's. Who may reach a mapping is recorded, not enforced.

use super::memory::{host_oom, SimAlloc, POISON};
use super::{lock, SimBackend, SimDevice};
use crate::error::{Code, Error, Result};
use crate::ops::{Access, AllocKind, AllocOps, ReservationOps, VirtualMemory};
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// The simulator's granularity, minimum and recommended alike: an H100's.
pub const SIM_GRANULARITY: u64 = 2 << 20;

pub struct SimReservation {
    dev: Arc<SimDevice>,
    /// The range's bytes (host memory up to the highest mapping), registered at the base
    /// address for pointer attributes and kernels.
    inner: SimAlloc,
    /// Mappings by offset: their sizes.
    mapped: Mutex<BTreeMap<u64, u64>>,
}

impl SimReservation {
    /// Resizes the host bytes to end at the highest mapping, and tells the address table.
    fn settle(&self, mapped: &BTreeMap<u64, u64>) -> Result<()> {
        let end = mapped.iter().next_back().map_or(0, |(&o, &s)| o + s) as usize;
        let mut bytes = self.inner.buffer.lock();
        let len = bytes.len();
        if end > len {
            bytes.try_reserve_exact(end - len).map_err(|_| host_oom(end as u64, "simulated mapped memory"))?;
            bytes.resize(end, POISON);
        } else {
            bytes.truncate(end);
            bytes.shrink_to_fit();
        }
        if let Some(k) = lock(&self.dev.allocs).get_mut(&self.inner.ptr) {
            k.size = end as u64;
        }
        Ok(())
    }
}

impl Drop for SimReservation {
    fn drop(&mut self) {
        // The model unmaps everything first; count back whatever it could not.
        let left: u64 = lock(&self.mapped).values().sum();
        self.dev.used.fetch_sub(left, Ordering::Relaxed);
    }
}

impl ReservationOps for SimReservation {
    fn base(&self) -> u64 {
        self.inner.ptr
    }

    fn map(&self, offset: u64, size: u64, _peers: &[(usize, Access)]) -> Result<()> {
        let (total, ordinal) = (self.dev.props.total_memory, self.dev.ordinal);
        let used = self.dev.used.fetch_add(size, Ordering::Relaxed);
        if used.checked_add(size).is_none_or(|u| u > total) {
            self.dev.used.fetch_sub(size, Ordering::Relaxed);
            return Err(Error::cuda(
                Code::CUDA_ERROR_OUT_OF_MEMORY,
                format!("out of memory mapping {size} bytes on simulated device {ordinal} ({used} of {total} bytes in use)"),
            ));
        }
        let mut mapped = lock(&self.mapped);
        mapped.insert(offset, size);
        if let Err(e) = self.settle(&mapped) {
            mapped.remove(&offset);
            self.dev.used.fetch_sub(size, Ordering::Relaxed);
            return Err(e);
        }
        Ok(())
    }

    fn unmap(&self, offset: u64, size: u64) -> Result<()> {
        let mut mapped = lock(&self.mapped);
        if mapped.get(&offset) != Some(&size) {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, format!("nothing of {size} bytes is mapped at offset {offset}")));
        }
        mapped.remove(&offset);
        self.dev.used.fetch_sub(size, Ordering::Relaxed);
        self.settle(&mapped)
    }

    fn set_access(&self, _offset: u64, _size: u64, _device: usize, _access: Access) -> Result<()> {
        Ok(())
    }

    fn whole(self: Arc<Self>) -> Box<dyn AllocOps> {
        Box::new(SimReserved(self))
    }
}

/// The reserved range as an allocation: its bytes, never freed through it.
struct SimReserved(Arc<SimReservation>);

impl AllocOps for SimReserved {
    fn ptr(&self) -> u64 {
        self.0.inner.ptr
    }
    fn kind(&self) -> AllocKind {
        AllocKind::Virtual
    }
    fn device(&self) -> Option<usize> {
        Some(self.0.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        &self.0.inner
    }
}

impl VirtualMemory for SimBackend {
    fn granularity(&self, _ordinal: usize, _recommended: bool) -> Result<u64> {
        Ok(SIM_GRANULARITY)
    }

    fn reserve(&self, ordinal: usize, size: u64) -> Result<Arc<dyn ReservationOps>> {
        let dev = &self.devices[ordinal];
        let base = dev.next_addr.fetch_add(size, Ordering::Relaxed);
        // No bytes yet: the range takes addresses only, until something is mapped.
        let inner = SimAlloc::new(dev.clone(), base, 0, AllocKind::Virtual)?;
        Ok(Arc::new(SimReservation { dev: dev.clone(), inner, mapped: Mutex::new(BTreeMap::new()) }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping_counts_device_memory_and_unmapping_gives_it_back() {
        use crate::backend::Backend;
        let sim = SimBackend::new(1, 16 << 20);
        let r = sim.vmm().reserve(0, 64 << 20).unwrap();
        r.map(0, 4 << 20, &[]).unwrap();
        assert_eq!(sim.devices[0].used.load(Ordering::Relaxed), 4 << 20);
        let err = r.map(4 << 20, 14 << 20, &[]).unwrap_err();
        assert!(err.is_code(Code::CUDA_ERROR_OUT_OF_MEMORY), "{err}");
        r.unmap(0, 4 << 20).unwrap();
        assert_eq!(sim.devices[0].used.load(Ordering::Relaxed), 0);
        assert!(r.unmap(0, 4 << 20).is_err());
    }
}
