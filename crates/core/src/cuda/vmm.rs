//! Virtual memory on the real driver (`ops::VirtualMemory`): a reserved range and the physical
//! memory mapped into it. Each mapping's physical handle is released right after it is mapped
//! (the mapping holds the memory; `cuMemUnmap` then frees it), so nothing here keeps handles.

use super::device::{CudaBackend, CudaDevice};
use super::raw::vmm as raw;
use crate::error::{Check, Error, Result};
use crate::ops::{Access, AllocKind, AllocOps, ReservationOps, VirtualMemory};
use cudarc::driver::sys;
use std::any::Any;
use std::sync::Arc;

fn flags(access: Access) -> sys::CUmemAccess_flags {
    match access {
        Access::None => raw::access_flags(false, false),
        Access::Read => raw::access_flags(true, false),
        Access::ReadWrite => raw::access_flags(true, true),
    }
}

pub struct CudaReservation {
    dev: Arc<CudaDevice>,
    base: sys::CUdeviceptr,
    size: u64,
}

impl Drop for CudaReservation {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: reserved by cuMemAddressReserve with this size and freed once; the model
            // unmapped every mapping before letting go (vmm.rs).
            super::dropped::record("cuMemAddressFree", unsafe { raw::mem_address_free(self.base, self.size as usize) });
        }
    }
}

impl CudaReservation {
    fn device_of(&self, ordinal: usize) -> Result<sys::CUdevice> {
        self.dev.sibling(ordinal).map(|d| d.dev).ok_or_else(|| Error::range(format!("there is no device {ordinal}")))
    }
}

impl ReservationOps for CudaReservation {
    fn base(&self) -> u64 {
        self.base
    }

    fn map(&self, offset: u64, size: u64, peers: &[(usize, Access)]) -> Result<()> {
        self.dev.bind()?;
        let ptr = self.base + offset;
        let handle = raw::mem_create(self.dev.dev, size as usize).check("cuMemCreate")?;
        // SAFETY: the model checked the range lies inside the reservation over nothing mapped;
        // `handle` was just created with `size` bytes.
        let mapped = unsafe { raw::mem_map(ptr, size as usize, handle) }.check("cuMemMap");
        // SAFETY: created above and released once: the mapping (if made) holds the memory.
        let released = unsafe { raw::mem_release(handle) }.check("cuMemRelease");
        mapped?;
        let mut access = vec![(self.dev.dev, flags(Access::ReadWrite))];
        for &(d, a) in peers {
            access.push((self.device_of(d)?, flags(a)));
        }
        // SAFETY: the range was mapped just above, all of it.
        let set = unsafe { raw::mem_set_access(ptr, size as usize, &access) }.check("cuMemSetAccess");
        if set.is_err() || released.is_err() {
            // SAFETY: mapped above, unmapped once; nothing has used it.
            super::dropped::record("cuMemUnmap", unsafe { raw::mem_unmap(ptr, size as usize) });
        }
        set.and(released)
    }

    fn unmap(&self, offset: u64, size: u64) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: the model names a mapping `map` made, once, after the device has finished.
        unsafe { raw::mem_unmap(self.base + offset, size as usize) }.check("cuMemUnmap")
    }

    fn set_access(&self, offset: u64, size: u64, device: usize, access: Access) -> Result<()> {
        self.dev.bind()?;
        let dev = self.device_of(device)?;
        // SAFETY: the model checked the range is mapped, all of it.
        unsafe { raw::mem_set_access(self.base + offset, size as usize, &[(dev, flags(access))]) }.check("cuMemSetAccess")
    }

    fn whole(self: Arc<Self>) -> Box<dyn AllocOps> {
        Box::new(CudaReserved(self))
    }
}

/// The reserved range as an allocation: its address, never freed through it.
struct CudaReserved(Arc<CudaReservation>);

impl AllocOps for CudaReserved {
    fn ptr(&self) -> u64 {
        self.0.base
    }
    fn kind(&self) -> AllocKind {
        AllocKind::Virtual
    }
    fn device(&self) -> Option<usize> {
        Some(self.0.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl VirtualMemory for CudaBackend {
    fn granularity(&self, ordinal: usize, recommended: bool) -> Result<u64> {
        self.bind(ordinal)?;
        Ok(raw::mem_granularity(self.devices[ordinal].dev, recommended).check("cuMemGetAllocationGranularity")? as u64)
    }

    fn reserve(&self, ordinal: usize, size: u64) -> Result<Arc<dyn ReservationOps>> {
        self.bind(ordinal)?;
        let base = raw::mem_address_reserve(size as usize).check("cuMemAddressReserve")?;
        Ok(Arc::new(CudaReservation { dev: self.devices[ordinal].clone(), base, size }))
    }
}
