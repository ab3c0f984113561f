//! The seam between the CUDA model and what runs it. A backend implements these traits (and
//! the per-concept ones in `ops.rs`, and each library's own, such as `blas::BlasOps`); which
//! backend runs is `runtime.rs`'s business, not this file's.

use crate::device::{DeviceProps, MemInfo};
use crate::error::Result;
use crate::event::EventFlags;
use crate::memory::{Advice, Location, PointerAttributes};
use crate::ops::{AllocOps, EventOps, StreamOps};

/// What a backend must do. Each method takes device ordinals already checked against
/// `device_count()`.
pub trait Backend: Send + Sync + 'static {
    fn device_count(&self) -> usize;
    fn device_props(&self, ordinal: usize) -> Result<DeviceProps>;
    fn mem_info(&self, ordinal: usize) -> Result<MemInfo>;
    /// Waits for all work on the device (`cuCtxSynchronize`).
    fn synchronize_device(&self, ordinal: usize) -> Result<()>;
    /// `(least, greatest)`: lower numbers are higher priorities (`cuCtxGetStreamPriorityRange`).
    fn priority_range(&self, ordinal: usize) -> Result<(i32, i32)>;
    fn stream_create(&self, ordinal: usize, nonblocking: bool, priority: i32) -> Result<Box<dyn StreamOps>>;
    fn stream_legacy(&self, ordinal: usize) -> Result<Box<dyn StreamOps>>;
    fn stream_per_thread(&self, ordinal: usize) -> Result<Box<dyn StreamOps>>;
    /// Wraps a foreign stream handle; also says whether it is non-blocking.
    fn stream_external(&self, ordinal: usize, handle: u64) -> Result<(Box<dyn StreamOps>, bool)>;
    fn event_create(&self, ordinal: usize, flags: EventFlags) -> Result<Box<dyn EventOps>>;
    /// Opens an interprocess event of another process (`cuIpcOpenEventHandle`).
    fn event_from_ipc(&self, ordinal: usize, handle: &[u8; 64]) -> Result<Box<dyn EventOps>>;
    /// Pinned host memory of `size` > 0 bytes (`cuMemHostAlloc`, portable), freed when dropped.
    fn host_alloc(&self, size: u64) -> Result<Box<dyn crate::pinned::PinnedOps>>;
    /// An attribute of the device's stream-ordered pool (`cuMemPoolGetAttribute`).
    fn async_pool_get(&self, ordinal: usize, attr: crate::async_pool::PoolAttr) -> Result<u64>;
    /// Sets one (`cuMemPoolSetAttribute`): the release threshold, or a high-water mark to 0.
    fn async_pool_set(&self, ordinal: usize, attr: crate::async_pool::PoolAttr, value: u64) -> Result<()>;
    /// Releases the stream-ordered pool's unused memory (`cuMemPoolTrimTo(pool, 0)`).
    fn async_pool_trim(&self, ordinal: usize) -> Result<()>;
    /// cuBLAS and cuSOLVER (`blas.rs` owns the trait; a new library brings its own).
    fn blas(&self) -> &dyn crate::blas::BlasOps;
    /// `cuProfilerStart` / `cuProfilerStop` (the simulator only records it).
    fn profiler(&self, on: bool) -> Result<()>;
    /// Loads a cubin or PTX image into the device's context (`cuModuleLoadData`).
    fn module_load(&self, ordinal: usize, image: &[u8]) -> Result<Box<dyn crate::ops::ModuleOps>>;
    /// A device allocation of `size` > 0 bytes (`cuMemAlloc`), freed when dropped.
    fn alloc(&self, ordinal: usize, size: u64) -> Result<Box<dyn AllocOps>>;
    /// Managed memory of `size` > 0 bytes (`cuMemAllocManaged`; `global` attaches it to every
    /// stream, else to the host), freed when dropped.
    fn alloc_managed(&self, ordinal: usize, size: u64, global: bool) -> Result<Box<dyn AllocOps>>;
    /// What the driver knows of `ptr` (`cuPointerGetAttribute`): `CUDA_ERROR_INVALID_VALUE`
    /// for an address it does not know.
    fn pointer_attributes(&self, ptr: u64) -> Result<PointerAttributes>;
    /// Memory someone else allocated: the allocation holding `ptr` (known to the driver, on
    /// `ordinal`), never freed by us. Returns it and the offset of `ptr` in it.
    fn alloc_foreign(&self, ordinal: usize, ptr: u64) -> Result<(Box<dyn AllocOps>, u64)>;
    /// Advice on how managed memory `[ptr, ptr + len)` is used (`cuMemAdvise` v2).
    fn mem_advise(&self, ptr: u64, len: u64, advice: Advice, location: Location) -> Result<()>;
    /// The handle another process opens the allocation starting at `ptr` with (`cuIpcGetMemHandle`).
    fn ipc_mem_handle(&self, ordinal: usize, ptr: u64) -> Result<[u8; 64]>;
    /// Opens another process's allocation (`cuIpcOpenMemHandle`), closed when dropped; its size.
    fn ipc_open_mem(&self, ordinal: usize, handle: &[u8; 64]) -> Result<(Box<dyn AllocOps>, u64)>;
    /// Page-locks `len` > 0 bytes of host memory at `ptr` (`cuMemHostRegister`, portable);
    /// unregistered when dropped. The caller keeps the bytes alive longer than the result.
    fn host_register(&self, ptr: *mut u8, len: u64) -> Result<Box<dyn crate::pinned::PinnedOps>>;
}
