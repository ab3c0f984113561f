//! A device's current stream-ordered pool, at the seam: the pool `cuMemAllocAsync` takes from,
//! the device's default one or a pool of ours (`cuDeviceSetMemPool`). The model
//! (`device_pool.rs`) checks the pool, keeps it alive while it is current, and routes the
//! default pool's allocations past it.

use crate::error::Result;
use crate::ops::{AllocOps, SharedPoolOps, StreamOps};

/// What a backend does for a device's current pool.
pub trait DevicePools: Send + Sync + 'static {
    /// Makes `pool` (one of ours, made for device `ordinal`, its memory there) the device's
    /// current pool, or the device's default pool again for `None` (`cuDeviceSetMemPool`).
    fn set_current_pool(&self, ordinal: usize, pool: Option<&dyn SharedPoolOps>) -> Result<()>;
    /// `size` > 0 bytes from device `ordinal`'s default pool in `stream`'s order
    /// (`cuMemAllocFromPoolAsync`), freed on that stream when dropped: the default pool's
    /// allocations while another pool is current.
    fn alloc_from_default(&self, ordinal: usize, size: u64, stream: &dyn StreamOps) -> Result<Box<dyn AllocOps>>;
    /// Gives the device back what device `ordinal`'s default pool (or `pool`, one of ours made
    /// here) holds past `keep` bytes and past what is in use (`cuMemPoolTrimTo`).
    fn trim_to(&self, ordinal: usize, pool: Option<&dyn SharedPoolOps>, keep: u64) -> Result<()>;
}
