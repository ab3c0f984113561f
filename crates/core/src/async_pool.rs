//! CUDA's stream-ordered allocator (CuPy's `MemoryAsyncPool`): `cuMemAllocAsync` on the stream
//! current at allocation, `cuMemFreeAsync` on the same stream when the block is dropped.

use crate::block::Block;
use crate::error::Result;
use crate::memory::DeviceMemory;
use crate::runtime;
use crate::stream::Stream;
use std::sync::Arc;

pub struct AsyncMemoryPool {
    device: usize,
}

impl AsyncMemoryPool {
    pub fn new(device: usize) -> AsyncMemoryPool {
        AsyncMemoryPool { device }
    }

    pub fn malloc(&self, size: u64, stream: &Arc<Stream>) -> Result<Block> {
        if size == 0 {
            return Ok(Block::whole(DeviceMemory::alloc(self.device, 0)?));
        }
        // Rounded to 512 bytes first, as CuPy's MemoryAsyncPool.malloc does: the block's size and
        // the pool's byte counts are the rounded size.
        let mem = stream.alloc_async(self.device, crate::memory::round_size(size))?;
        Ok(Block::whole(mem).keeping(stream.clone()))
    }

    /// Bytes in use.
    pub fn used_bytes(&self) -> Result<u64> {
        Ok(runtime()?.backend.async_pool_stats(self.device)?.0)
    }

    /// Bytes the pool has reserved from the device.
    pub fn total_bytes(&self) -> Result<u64> {
        Ok(runtime()?.backend.async_pool_stats(self.device)?.1)
    }

    /// Reserved bytes no allocation uses (CuPy's `free_bytes`: total − used).
    pub fn free_bytes(&self) -> Result<u64> {
        let (used, total) = runtime()?.backend.async_pool_stats(self.device)?;
        Ok(total.saturating_sub(used))
    }

    /// Releases reserved memory that no allocation uses (after the device is idle).
    pub fn free_all_blocks(&self) -> Result<()> {
        let backend = &runtime()?.backend;
        backend.synchronize_device(self.device)?;
        backend.async_pool_trim(self.device)
    }
}
