//! Simulated pinned memory: ordinary host memory.

/// Host bytes at a fixed address, never reallocated.
pub struct SimPinned(pub std::cell::UnsafeCell<Box<[u8]>>);

// SAFETY: the bytes are only reached through raw pointers whose use the caller orders.
unsafe impl Send for SimPinned {}
// SAFETY: as above.
unsafe impl Sync for SimPinned {}

impl crate::ops::PinnedOps for SimPinned {
    fn ptr(&self) -> *mut u8 {
        // SAFETY: we only take the address; the box is never reallocated.
        unsafe { (*self.0.get()).as_mut_ptr() }
    }
}
