//! Virtual memory management at the seam: address ranges reserved once, physical memory mapped
//! into them and unmapped again (`cuMemAddressReserve`, `cuMemCreate`, `cuMemMap`,
//! `cuMemSetAccess`, `cuMemUnmap`, `cuMemRelease`). The rules — sizes on the granularity,
//! mappings inside the reservation, each unmapped once — are the model's (`vmm.rs`): a backend
//! is called only with checked offsets and sizes.

use crate::error::Result;
use crate::ops::AllocOps;
use std::sync::Arc;

/// What a backend does for virtual memory.
pub trait VirtualMemory: Send + Sync + 'static {
    /// The granularity physical memory of `ordinal` is mapped in
    /// (`cuMemGetAllocationGranularity`, `_MINIMUM` or `_RECOMMENDED`), in bytes.
    fn granularity(&self, ordinal: usize, recommended: bool) -> Result<u64>;
    /// Reserves `size` bytes of address space (a multiple of the granularity) on `ordinal`,
    /// freed (`cuMemAddressFree`) when the last holder lets go, nothing mapped by then.
    fn reserve(&self, ordinal: usize, size: u64) -> Result<Arc<dyn ReservationOps>>;
}

/// Who may reach a mapping, and how (`CUmemAccess_flags`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    None,
    Read,
    ReadWrite,
}

/// One reserved address range.
pub trait ReservationOps: Send + Sync + 'static {
    /// The range's first address.
    fn base(&self) -> u64;
    /// Maps `size` new bytes of physical memory at `base + offset` (`cuMemCreate` pinned on
    /// the device, `cuMemMap`), reachable by the device itself and `peers` as given
    /// (`cuMemSetAccess`). The range lies inside the reservation and over nothing mapped.
    fn map(&self, offset: u64, size: u64, peers: &[(usize, Access)]) -> Result<()>;
    /// Unmaps the mapping `map` made at `offset` of `size` bytes and releases its physical
    /// memory (`cuMemUnmap`, `cuMemRelease`). The device has finished with it.
    fn unmap(&self, offset: u64, size: u64) -> Result<()>;
    /// Sets who reaches `[offset, offset + size)`, all of it mapped (`cuMemSetAccess`).
    fn set_access(&self, offset: u64, size: u64, device: usize, access: Access) -> Result<()>;
    /// The whole range as an allocation, for copies and kernels (its address the base),
    /// holding the reservation.
    fn whole(self: Arc<Self>) -> Box<dyn AllocOps>;
}
