//! Simulated pinned memory: ordinary host memory.

use super::memory::host_oom;
use super::SimBackend;
use crate::error::Result;
use crate::ops::{HostMemory, PinnedOps};
use std::cell::UnsafeCell;

/// Host bytes at a fixed address, never reallocated.
pub struct SimPinned(UnsafeCell<Box<[u8]>>);

impl SimPinned {
    /// `size` zeroed bytes, or `CUDA_ERROR_OUT_OF_MEMORY` where the host cannot provide them.
    /// Zeroed pages come from the allocator untouched, so a large block costs no writes.
    pub fn new(size: u64) -> Result<SimPinned> {
        let n = usize::try_from(size).map_err(|_| host_oom(size, "pinned memory"))?;
        if n == 0 {
            return Ok(SimPinned(UnsafeCell::new(Box::default())));
        }
        let layout = std::alloc::Layout::array::<u8>(n).map_err(|_| host_oom(size, "pinned memory"))?;
        // SAFETY: `layout` has a non-zero size (n > 0).
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return Err(host_oom(size, "pinned memory"));
        }
        // SAFETY: `p` is a fresh allocation of `n` initialised (zero) bytes from the global
        // allocator, with the layout a `Box<[u8]>` of length `n` is freed with.
        Ok(SimPinned(UnsafeCell::new(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n)) })))
    }
}

// SAFETY: the bytes are only reached through raw pointers whose use the caller orders.
unsafe impl Send for SimPinned {}
// SAFETY: as above.
unsafe impl Sync for SimPinned {}

impl PinnedOps for SimPinned {
    fn ptr(&self) -> *mut u8 {
        // SAFETY: we only take the address; the box is never reallocated.
        unsafe { (*self.0.get()).as_mut_ptr() }
    }
}

/// Pinned or registered host memory, known by address while it lives (`cuMemHostRegister`'s
/// rules: a range registered twice is refused; unregistered when dropped).
pub struct SimHost {
    ranges: super::HostRanges,
    ptr: *mut u8,
    /// The bytes, when the simulator allocated them (`host_alloc`); none when registered.
    _bytes: Option<SimPinned>,
}

// SAFETY: as for SimPinned: only the address is kept; its use is ordered by the caller.
unsafe impl Send for SimHost {}
// SAFETY: as above.
unsafe impl Sync for SimHost {}

impl SimHost {
    pub(super) fn new(ranges: super::HostRanges, ptr: *mut u8, len: u64, bytes: Option<SimPinned>) -> crate::Result<SimHost> {
        let at = ptr as u64;
        {
            let mut r = super::lock(&ranges);
            let before = r.range(..at.saturating_add(len)).next_back().map(|(&b, &n)| (b, n));
            if let Some((b, n)) = before {
                if b + n > at {
                    return Err(crate::Error::cuda(
                        crate::Code::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                        format!("host memory at 0x{at:x} overlaps the range already registered at 0x{b:x} ({n} bytes)"),
                    ));
                }
            }
            r.insert(at, len);
        }
        Ok(SimHost { ranges, ptr, _bytes: bytes })
    }
}

impl Drop for SimHost {
    fn drop(&mut self) {
        super::lock(&self.ranges).remove(&(self.ptr as u64));
    }
}

impl PinnedOps for SimHost {
    fn ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl HostMemory for SimBackend {
    fn alloc(&self, size: u64) -> Result<Box<dyn PinnedOps>> {
        let bytes = SimPinned::new(size)?;
        let ptr = PinnedOps::ptr(&bytes);
        Ok(Box::new(SimHost::new(self.host.clone(), ptr, size, Some(bytes))?))
    }

    fn register(&self, ptr: *mut u8, len: u64) -> Result<Box<dyn PinnedOps>> {
        Ok(Box::new(SimHost::new(self.host.clone(), ptr, len, None)?))
    }
}
