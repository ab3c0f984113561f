//! CUDA's stream-ordered pool (CuPy's `MemoryAsyncPool`), one per device.

use crate::raw::{Count, Owner};
use crate::{memory, stream};
use cuda_node_core::{runtime, AsyncMemoryPool};
use std::sync::Arc;

crate::table!(ASYNC_POOLS: Arc<AsyncMemoryPool>, CUDA_ERROR_INVALID_HANDLE, "this memory pool is gone");

crate::exports! {
    /// CUDA's stream-ordered pool of `device`.
    c"asyncPoolCreate" => fn async_pool_create(cx, owner: Owner, device: f64) -> f64 {
        insert(cx, &owner, Arc::new(AsyncMemoryPool::new(runtime()?.ordinal(device)?)))
    }

    /// `size` bytes allocated in order on `stream` (`cuMemAllocAsync`); its memory handle.
    c"asyncPoolMalloc" => fn async_pool_malloc(_cx, pool: f64, size: Count, stream: f64) -> f64 {
        let block = with(pool, |p| stream::with(stream, |s| p.malloc(size.0, s)))?;
        Ok(memory::adopt(block))
    }

    c"asyncPoolUsedBytes" => fn async_pool_used_bytes(_cx, pool: f64) -> f64 {
        with(pool, |p| Ok(p.used_bytes()? as f64))
    }

    c"asyncPoolTotalBytes" => fn async_pool_total_bytes(_cx, pool: f64) -> f64 {
        with(pool, |p| Ok(p.total_bytes()? as f64))
    }

    /// Reserved bytes no allocation uses (total − used).
    c"asyncPoolFreeBytes" => fn async_pool_free_bytes(_cx, pool: f64) -> f64 {
        with(pool, |p| Ok(p.free_bytes()? as f64))
    }

    /// Waits for the device, then releases reserved memory no block uses.
    c"asyncPoolFreeAllBlocks" => fn async_pool_free_all_blocks(_cx, pool: f64) -> () {
        with(pool, |p| p.free_all_blocks())
    }
}
