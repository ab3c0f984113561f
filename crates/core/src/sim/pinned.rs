//! Simulated pinned memory: ordinary host memory.

/// Host bytes at a fixed address, never reallocated.
pub struct SimPinned(pub std::cell::UnsafeCell<Box<[u8]>>);

// SAFETY: the bytes are only reached through raw pointers whose use the caller orders.
unsafe impl Send for SimPinned {}
// SAFETY: as above.
unsafe impl Sync for SimPinned {}

impl crate::pinned::PinnedOps for SimPinned {
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

impl crate::pinned::PinnedOps for SimHost {
    fn ptr(&self) -> *mut u8 {
        self.ptr
    }
}
