//! Pools other processes import, at the seam: a stream-ordered pool of our own
//! (`cuMemPoolCreate` with a POSIX file descriptor as its handle type), exported as a file
//! descriptor and imported from one, and its allocations exported and imported by 64 bytes of
//! export data. The model (`shared_pool.rs`) checks the data's header, which pool a pointer
//! came from, and carries the descriptor between processes (`pool_socket.rs`).

use crate::error::Result;
use crate::ops::{AllocOps, PoolAttr, StreamOps};
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::Arc;

/// Where a pool's memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolPlace {
    /// On the device (`CU_MEM_LOCATION_TYPE_DEVICE`).
    Device,
    /// Pinned host memory, on the device's host NUMA node (`CU_MEM_LOCATION_TYPE_HOST_NUMA`: a
    /// pool of `CU_MEM_LOCATION_TYPE_HOST` cannot be shared between processes).
    Host,
}

/// What a backend does for pools shared between processes.
pub trait SharedPools: Send + Sync + 'static {
    /// A new shareable pool whose memory lives at `place`, reached by device `ordinal`; destroyed
    /// when the last holder lets go. `CUDA_ERROR_NOT_SUPPORTED` where the backend cannot share.
    fn create_pool(&self, ordinal: usize, place: PoolPlace) -> Result<Arc<dyn SharedPoolOps>>;
    /// The pool another process exported as `fd` (which stays the caller's), reached by device
    /// `ordinal`; it makes no allocations, only imports them.
    fn import_pool(&self, ordinal: usize, fd: BorrowedFd<'_>) -> Result<Arc<dyn SharedPoolOps>>;
}

/// One shareable pool, made here or imported.
pub trait SharedPoolOps: Send + Sync + 'static {
    /// A new file descriptor naming the pool, for another process (`cuMemPoolExportToShareableHandle`).
    fn export(&self) -> Result<OwnedFd>;
    /// `size` > 0 bytes from the pool in `stream`'s order (`cuMemAllocFromPoolAsync`), freed on
    /// that stream when dropped; it holds the pool. Only a pool made here allocates.
    fn alloc(self: Arc<Self>, size: u64, stream: &dyn StreamOps) -> Result<Box<dyn AllocOps>>;
    /// The export data of the allocation at `ptr`, one of this pool's (`cuMemPoolExportPointer`).
    fn export_pointer(&self, ptr: u64) -> Result<[u8; 64]>;
    /// Another process's allocation of this imported pool (`cuMemPoolImportPointer`), freed
    /// here (`cuMemFree`, after the device is idle) when dropped; it holds the pool.
    fn import_pointer(self: Arc<Self>, data: &[u8; 64]) -> Result<Box<dyn AllocOps>>;
    /// An attribute (`cuMemPoolGetAttribute`).
    fn get(&self, attr: PoolAttr) -> Result<u64>;
    /// Sets one (`cuMemPoolSetAttribute`): the release threshold, or a high-water mark to 0.
    fn set(&self, attr: PoolAttr, value: u64) -> Result<()>;
    /// Releases the pool's unused memory (`cuMemPoolTrimTo(pool, 0)`).
    fn trim(&self) -> Result<()>;
    /// The driver's pool (`CUmemoryPool`) as a number, for `cuDeviceSetMemPool`.
    fn handle(&self) -> u64;
}
