//! Virtual memory (cuda.core's `VirtualMemoryResource`, PyTorch's expandable segments): an
//! address range reserved once, physical memory mapped into it as allocations need it and
//! unmapped when they go. The rules live here, once for both backends: sizes and offsets on the
//! granularity, mappings inside the reservation and over nothing mapped, each unmapped once, the
//! device finished with a mapping before it is unmapped (`cuMemUnmap`, unlike `cuMemFree`, does
//! not wait), everything unmapped before the range is freed.

use crate::block::{Block, Release};
use crate::error::{Code, Error, Result};
use crate::memory::DeviceMemory;
use crate::ops::ReservationOps;
use crate::runtime;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

pub use crate::ops::Access;

impl Access {
    /// `'rw'`, `'r'` or `'none'`.
    pub fn parse(name: &str) -> Result<Access> {
        match name {
            "rw" => Ok(Access::ReadWrite),
            "r" => Ok(Access::Read),
            "none" => Ok(Access::None),
            _ => Err(Error::range(format!("access must be 'rw', 'r' or 'none', got '{name}'"))),
        }
    }
}

/// The granularity physical memory of `device` is mapped in (`cuMemGetAllocationGranularity`).
pub fn granularity(device: usize, recommended: bool) -> Result<u64> {
    runtime()?.backend.vmm().granularity(device, recommended)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn off_granularity(what: &str, n: u64, granularity: u64) -> Error {
    Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, format!("{what} {n} is not a multiple of the granularity ({granularity} bytes)"))
}

#[derive(Default)]
struct Mappings {
    /// Offset → size.
    by_offset: BTreeMap<u64, u64>,
    /// Who else reaches every mapping, as `set_access` last said.
    peers: Vec<(usize, Access)>,
}

/// One reserved address range of a device and what is mapped in it.
pub struct Reservation {
    ops: Arc<dyn ReservationOps>,
    /// The whole range as an allocation: blocks in it copy and launch as any memory does.
    mem: Arc<DeviceMemory>,
    device: usize,
    size: u64,
    granularity: u64,
    mappings: Mutex<Mappings>,
}

impl Reservation {
    /// Reserves `size` bytes (a multiple of `device`'s minimum granularity) of address space.
    pub fn new(device: usize, size: u64) -> Result<Reservation> {
        let rt = runtime()?;
        let granularity = rt.backend.vmm().granularity(device, false)?;
        if size == 0 {
            return Err(Error::range("a reservation needs a size above 0"));
        }
        if !size.is_multiple_of(granularity) {
            return Err(off_granularity("the reservation's size", size, granularity));
        }
        let ops = rt.backend.vmm().reserve(device, size)?;
        let mem = Arc::new(DeviceMemory::from_ops(ops.clone().whole(), device, size));
        Ok(Reservation { ops, mem, device, size, granularity, mappings: Mutex::new(Mappings::default()) })
    }

    pub fn device(&self) -> usize {
        self.device
    }
    pub fn base(&self) -> u64 {
        self.ops.base()
    }
    pub fn size(&self) -> u64 {
        self.size
    }
    pub fn granularity(&self) -> u64 {
        self.granularity
    }
    /// The whole range as an allocation (blocks in it are views of this).
    pub fn memory(&self) -> &Arc<DeviceMemory> {
        &self.mem
    }
    pub fn mapped_bytes(&self) -> u64 {
        lock(&self.mappings).by_offset.values().sum()
    }

    /// Maps `size` bytes of new physical memory at `offset`: both on the granularity, inside
    /// the reservation, over nothing mapped.
    pub fn map(&self, offset: u64, size: u64) -> Result<()> {
        for (what, n) in [("offset", offset), ("size", size)] {
            if !n.is_multiple_of(self.granularity) {
                return Err(off_granularity(&format!("the mapping's {what}"), n, self.granularity));
            }
        }
        if size == 0 {
            return Err(Error::range("a mapping needs a size above 0"));
        }
        if offset.checked_add(size).is_none_or(|end| end > self.size) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("mapping {size} bytes at offset {offset} runs past the end of the {}-byte reservation", self.size),
            ));
        }
        let mut m = lock(&self.mappings);
        let below = m.by_offset.range(..offset + size).next_back();
        if let Some((&o, &s)) = below.filter(|(&o, &s)| o + s > offset) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("mapping {size} bytes at offset {offset} overlaps the {s} bytes already mapped at offset {o}"),
            ));
        }
        self.ops.map(offset, size, &m.peers)?;
        m.by_offset.insert(offset, size);
        Ok(())
    }

    /// Unmaps the mapping at `offset` once the device has finished the work queued before,
    /// its physical memory released; its size. A second unmap is an error.
    pub fn unmap(&self, offset: u64) -> Result<u64> {
        let not_mapped = || {
            Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("nothing is mapped at offset {offset} of the reservation (unmapped already, or never mapped)"),
            )
        };
        if !lock(&self.mappings).by_offset.contains_key(&offset) {
            return Err(not_mapped());
        }
        // cuMemUnmap does not wait for the device as cuMemFree does (M2): wait first, with no
        // lock held (a host function queued before may free memory of this range).
        runtime()?.backend.devices().synchronize(self.device)?;
        let mut m = lock(&self.mappings);
        let size = m.by_offset.remove(&offset).ok_or_else(not_mapped)?;
        if let Err(e) = self.ops.unmap(offset, size) {
            m.by_offset.insert(offset, size);
            return Err(e);
        }
        Ok(size)
    }

    /// The mappings at or above `offset`, highest first: what a shrinking tail unmaps.
    pub fn mappings_from(&self, offset: u64) -> Vec<(u64, u64)> {
        lock(&self.mappings).by_offset.range(offset..).rev().map(|(&o, &s)| (o, s)).collect()
    }

    /// Lets `device` reach every mapping, present and future, as `access` says (`cuMemSetAccess`).
    pub fn set_access(&self, device: usize, access: Access) -> Result<()> {
        let rt = runtime()?;
        let device = rt.ordinal(device as f64)?;
        if device == self.device && access != Access::ReadWrite {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("device {device} owns the memory: it keeps read and write access ('rw')"),
            ));
        }
        let mut m = lock(&self.mappings);
        for (&o, &s) in &m.by_offset {
            self.ops.set_access(o, s, device, access)?;
        }
        m.peers.retain(|&(d, _)| d != device);
        if device != self.device {
            m.peers.push((device, access));
        }
        Ok(())
    }

    /// Who reaches the memory besides its device.
    pub fn access(&self) -> Vec<(usize, Access)> {
        lock(&self.mappings).peers.clone()
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let left: Vec<u64> = lock(&self.mappings).by_offset.keys().copied().collect();
        for offset in left {
            let _ = self.unmap(offset);
        }
    }
}

#[derive(Default)]
struct ResourceState {
    /// Live allocations: offset → mapped size.
    live: BTreeMap<u64, u64>,
    destroyed: bool,
}

/// cuda.core's `VirtualMemoryResource`: one reserved range of a device, each allocation its
/// own mapping (rounded up to the granularity) at the lowest offset it fits, unmapped when the
/// allocation goes. The range is freed once destroyed and every allocation has gone.
pub struct VirtualMemoryResource {
    res: Reservation,
    state: Mutex<ResourceState>,
    me: Weak<VirtualMemoryResource>,
}

impl Release for VirtualMemoryResource {
    fn release(&self, offset: u64) {
        if lock(&self.state).live.remove(&offset).is_some() {
            let _ = self.res.unmap(offset);
        }
    }
}

impl VirtualMemoryResource {
    /// Reserves `size` bytes of `device` (rounded up to the granularity; the device's memory
    /// by default), granularity `_RECOMMENDED` or `_MINIMUM`.
    pub fn create(device: usize, size: Option<u64>, recommended: bool) -> Result<Arc<VirtualMemoryResource>> {
        let rt = runtime()?;
        let g = rt.backend.vmm().granularity(device, recommended)?;
        let size = match size {
            Some(0) => return Err(Error::range("a VirtualMemoryResource needs a reservation above 0 bytes")),
            Some(s) => s,
            None => rt.backend.devices().mem_info(device)?.total,
        };
        let size = size.checked_next_multiple_of(g).ok_or_else(|| Error::range(format!("a reservation of {size} bytes is too large")))?;
        let mut res = Reservation::new(device, size)?;
        res.granularity = res.granularity.max(g);
        Ok(Arc::new_cyclic(|me| VirtualMemoryResource { res, state: Mutex::new(ResourceState::default()), me: me.clone() }))
    }

    pub fn reservation(&self) -> &Reservation {
        &self.res
    }

    /// `size` bytes mapped at the lowest offset of the range where the rounded size fits.
    pub fn malloc(&self, size: u64) -> Result<Block> {
        let mut st = lock(&self.state);
        if st.destroyed {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_HANDLE, "this VirtualMemoryResource was destroyed"));
        }
        if size == 0 {
            return Ok(Block::whole(DeviceMemory::alloc(self.res.device, 0)?));
        }
        let g = self.res.granularity;
        let rounded = size.checked_next_multiple_of(g).ok_or_else(|| Error::range(format!("{size} bytes is too large")))?;
        let mut at = 0u64;
        for (&o, &s) in &st.live {
            if o - at >= rounded {
                break;
            }
            at = o + s;
        }
        if at.checked_add(rounded).is_none_or(|end| end > self.res.size) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_OUT_OF_MEMORY,
                format!("the {}-byte reservation has no room for {rounded} more bytes ({} mapped)", self.res.size, self.res.mapped_bytes()),
            ));
        }
        self.res.map(at, rounded)?;
        st.live.insert(at, rounded);
        let home: Arc<dyn Release> = self.me.upgrade().expect("a resource allocating is alive");
        Ok(Block::pooled(self.res.mem.clone(), at, size, home, at))
    }

    /// No more allocations; the range goes once the last one has.
    pub fn destroy(&self) {
        lock(&self.state).destroyed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::vmm::SIM_GRANULARITY as G;

    fn setup() {
        std::env::set_var("CUDA_NODE_BACKEND", "sim");
        runtime().unwrap();
    }

    #[test]
    fn the_rules_of_a_reservation() {
        setup();
        let r = Reservation::new(0, 8 * G).unwrap();
        assert!(Reservation::new(0, G + 1).err().unwrap().message().contains("not a multiple of the granularity"));
        assert!(r.map(1, G).unwrap_err().message().contains("offset 1 is not a multiple"));
        assert!(r.map(0, G / 2).unwrap_err().message().contains("size 1048576 is not a multiple"));
        assert!(r.map(6 * G, 4 * G).unwrap_err().message().contains("runs past the end"));
        r.map(0, 2 * G).unwrap();
        assert!(r.map(G, 2 * G).unwrap_err().message().contains("overlaps"));
        assert_eq!(r.mapped_bytes(), 2 * G);
        assert_eq!(r.unmap(0).unwrap(), 2 * G);
        assert!(r.unmap(0).unwrap_err().message().contains("unmapped already"));
    }

    #[test]
    fn a_resource_maps_each_allocation_and_unmaps_it_when_it_goes() {
        setup();
        let vmr = VirtualMemoryResource::create(0, Some(16 * G), false).unwrap();
        let a = vmr.malloc(100).unwrap();
        let b = vmr.malloc(G + 1).unwrap();
        assert_eq!(b.ptr() - a.ptr(), G);
        assert_eq!(vmr.reservation().mapped_bytes(), 3 * G);
        drop(a);
        assert_eq!(vmr.reservation().mapped_bytes(), 2 * G);
        let c = vmr.malloc(G).unwrap();
        assert_eq!(c.ptr(), vmr.reservation().base(), "the hole is reused");
        let e = vmr.malloc(14 * G).err().expect("no room");
        assert!(e.is_code(Code::CUDA_ERROR_OUT_OF_MEMORY), "{e}");
    }
}
