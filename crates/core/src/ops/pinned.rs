//! Pinned host memory at the seam: allocating and registering it, and the bytes queued work may
//! still use after a call returns.

use crate::error::Result;

/// What a backend does for page-locked host memory.
pub trait HostMemory: Send + Sync + 'static {
    /// Pinned host memory of `size` > 0 bytes (`cuMemHostAlloc`, portable), freed when dropped.
    fn alloc(&self, size: u64) -> Result<Box<dyn PinnedOps>>;
    /// Page-locks `len` > 0 bytes of host memory at `ptr` (`cuMemHostRegister`, portable);
    /// unregistered when dropped. The caller keeps the bytes alive longer than the result.
    fn register(&self, ptr: *mut u8, len: u64) -> Result<Box<dyn PinnedOps>>;
    /// Lets go of host memory that queued copies held, wherever those copies have run (the
    /// simulator's holds go as its copies run: nothing to do).
    fn release_finished_holds(&self) {}
}

/// Host memory that queued work may read or write after the call returns (pinned memory).
pub trait HostBytes: Send + Sync + 'static {
    fn ptr(&self) -> *mut u8;
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a backend returns for a pinned allocation; freed when dropped.
pub trait PinnedOps: Send + Sync + 'static {
    fn ptr(&self) -> *mut u8;
}
