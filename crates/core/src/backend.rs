//! The seam between the CUDA model and what runs it. A backend implements these traits (and
//! the per-concept ones in `ops.rs`, and each library's own, such as `blas::BlasOps`); which
//! backend runs is `runtime.rs`'s business, not this file's.

use crate::device::{DeviceProps, MemInfo};
use crate::error::Result;
use crate::event::EventFlags;
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
    /// `(used, reserved)` bytes of the device's stream-ordered pool.
    fn async_pool_stats(&self, ordinal: usize) -> Result<(u64, u64)>;
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
    /// The device's 16-byte UUID (`cuDeviceGetUuid_v2`).
    fn uuid(&self, ordinal: usize) -> Result<[u8; 16]>;
    /// The device's PCI address as `domain:bus:device.function` in hex (`cuDeviceGetPCIBusId`).
    fn pci_bus_id(&self, ordinal: usize) -> Result<String>;
    /// Whether `ordinal` can map `peer`'s memory (`cuDeviceCanAccessPeer`); `ordinal != peer`.
    fn can_access_peer(&self, ordinal: usize, peer: usize) -> Result<bool>;
    /// Lets (or stops) `ordinal`'s context reach `peer`'s memory (`cuCtxEnablePeerAccess` /
    /// `cuCtxDisablePeerAccess`). Already so is not an error; the pair is checked by the caller.
    fn set_peer_access(&self, ordinal: usize, peer: usize, on: bool) -> Result<()>;
    /// NCCL (`nccl.rs` owns the trait).
    fn nccl(&self) -> &dyn crate::nccl::NcclOps;
}
