//! CUDA's stream-ordered pool (CuPy's `MemoryAsyncPool`), one per device.

use crate::raw::{Count, Owner};
use crate::{memory, stream};
use cuda_node_core::{runtime, AsyncMemoryPool};
use std::sync::Arc;

crate::js_object! {
    /// The device pool's used and reserved (`totalBytes`) bytes, current and high-water.
    pub struct AsyncPoolStatsOut {
        used_bytes: f64 = c"usedBytes",
        total_bytes: f64 = c"totalBytes",
        peak_used_bytes: f64 = c"peakUsedBytes",
        peak_total_bytes: f64 = c"peakTotalBytes",
        oom_retries: f64 = c"oomRetries",
    }
}

crate::table!(ASYNC_POOLS: Arc<AsyncMemoryPool>, CUDA_ERROR_INVALID_HANDLE, "this memory pool is gone");

crate::exports! {
    /// CUDA's stream-ordered pool of `device`.
    c"asyncPoolCreate" => fn async_pool_create(cx, owner: Owner, device: f64) -> f64 {
        insert(cx, &owner, Arc::new(AsyncMemoryPool::create(runtime()?.ordinal(device)?)?))
    }

    /// `size` bytes allocated in order on `stream` (`cuMemAllocAsync`); its memory handle.
    c"asyncPoolMalloc" => fn async_pool_malloc(_cx, pool: f64, size: Count, stream: f64) -> f64 {
        let block = with(pool, |p| stream::with(stream, |s| p.malloc(size.0, s)))?;
        memory::adopt(block)
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

    /// Sets the limit (the pool's release threshold) in bytes; 0 removes it.
    c"asyncPoolSetLimit" => fn async_pool_set_limit(_cx, pool: f64, bytes: Count) -> () {
        with(pool, |p| p.set_limit(bytes.0))
    }

    /// The limit in bytes; 0 when there is none.
    c"asyncPoolGetLimit" => fn async_pool_get_limit(_cx, pool: f64) -> f64 {
        with(pool, |p| Ok(p.limit()? as f64))
    }

    /// Used and reserved bytes, current and high-water, and the retries after running out.
    c"asyncPoolStats" => fn async_pool_stats(_cx, pool: f64) -> AsyncPoolStatsOut {
        with(pool, |p| {
            let s = p.stats()?;
            Ok(AsyncPoolStatsOut {
                used_bytes: s.used as f64,
                total_bytes: s.reserved as f64,
                peak_used_bytes: s.peak_used as f64,
                peak_total_bytes: s.peak_reserved as f64,
                oom_retries: s.retries as f64,
            })
        })
    }

    /// Starts the high-water marks again from the current counts.
    c"asyncPoolResetPeakStats" => fn async_pool_reset_peak_stats(_cx, pool: f64) -> () {
        with(pool, |p| p.reset_peak_stats())
    }
}
