//! A device's current stream-ordered pool: `cuDeviceSetMemPool`.

use super::check::{ok, Raw};
use cudarc::driver::sys;

/// `cuDeviceSetMemPool`: `pool` becomes the pool `cuMemAllocAsync` takes from on `dev`.
///
/// # Safety
/// 1. `pool` is live, of `dev` (its location `dev`), and stays live while it is current (or the
///    device's default pool, which lives as long as the device).
pub(crate) unsafe fn device_set_mem_pool(dev: sys::CUdevice, pool: sys::CUmemoryPool) -> Raw<()> {
    // SAFETY: (1); the driver checks `dev`.
    ok(unsafe { sys::cuDeviceSetMemPool(dev, pool) })
}
