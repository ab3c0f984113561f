//! A device's current stream-ordered pool on the real driver (`ops::DevicePools`).

use super::device::CudaBackend;
use super::memory::CudaAsyncAlloc;
use super::own::own;
use super::raw;
use super::stream::CudaStream;
use crate::error::{Check, Result};
use crate::ops::device_pool::DevicePools;
use crate::ops::{AllocOps, SharedPoolOps, StreamOps};
use cudarc::driver::sys;

impl DevicePools for CudaBackend {
    fn set_current_pool(&self, ordinal: usize, pool: Option<&dyn SharedPoolOps>) -> Result<()> {
        self.bind(ordinal)?;
        let dev = self.devices[ordinal].dev;
        let raw_pool = match pool {
            Some(p) => p.handle() as sys::CUmemoryPool,
            None => raw::device_default_mem_pool(dev).check("cuDeviceGetDefaultMemPool")?,
        };
        // SAFETY: a pool of ours made for this device (checked by the model), which the model
        // keeps alive while it is current; or the device's default pool.
        unsafe { raw::device_pool::device_set_mem_pool(dev, raw_pool) }.check("cuDeviceSetMemPool")?;
        Ok(())
    }

    fn alloc_from_default(&self, ordinal: usize, size: u64, stream: &dyn StreamOps) -> Result<Box<dyn AllocOps>> {
        let s = own::<CudaStream>(stream.as_any());
        self.bind(ordinal)?;
        let pool = raw::device_default_mem_pool(self.devices[ordinal].dev).check("cuDeviceGetDefaultMemPool")?;
        // SAFETY: the device's default pool, made by the driver in this process; the stream is
        // live and of this device (checked by the model); size > 0.
        let ptr = unsafe { raw::shared_pool::mem_alloc_from_pool_async(size as usize, pool, s.queue()) }.check("cuMemAllocFromPoolAsync")?;
        // Freed as `cuMemAllocAsync`'s allocations are: `cuMemFreeAsync` on the same stream.
        Ok(Box::new(CudaAsyncAlloc { dev: self.devices[ordinal].clone(), ptr, stream: s.queue() }))
    }

    fn trim_to(&self, ordinal: usize, pool: Option<&dyn SharedPoolOps>, keep: u64) -> Result<()> {
        self.bind(ordinal)?;
        let raw_pool = match pool {
            Some(p) => p.handle() as sys::CUmemoryPool,
            None => raw::device_default_mem_pool(self.devices[ordinal].dev).check("cuDeviceGetDefaultMemPool")?,
        };
        // SAFETY: a live pool: the device's default one, or one of ours its caller holds.
        unsafe { raw::mem_pool_trim_to(raw_pool, keep as usize) }.check("cuMemPoolTrimTo")
    }
}
