//! CUDA's stream-ordered pool (CuPy's `MemoryAsyncPool`), one per device.

use crate::raw::{Bytes, Count, NodeBuffer, Owner};
use crate::task::Blocking;
use crate::{memory, stream};
use cuda_node_core::shared_pool::export_pointer;
use cuda_node_core::{runtime, AsyncMemoryPool, PoolPlace};
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
        memory::adopt_in(block, || with(pool, |p| p.total_bytes()).map_or(-1.0, |b| b as f64))
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

    /// A stream-ordered pool of its own on `device` that other processes can import
    /// (`cuMemPoolCreate` with a POSIX file descriptor handle type); `host` puts its memory in
    /// pinned host memory. `CUDA_ERROR_NOT_SUPPORTED` on the simulator.
    c"asyncPoolCreateShareable" => fn async_pool_create_shareable(cx, owner: Owner, device: f64, host: bool) -> f64 {
        let place = if host { PoolPlace::Host } else { PoolPlace::Device };
        insert(cx, &owner, Arc::new(AsyncMemoryPool::shareable(runtime()?.ordinal(device)?, place)?))
    }

    /// Serves the pool on a private Unix socket (the same one if already shared); its path.
    c"asyncPoolShare" => fn async_pool_share(_cx, pool: f64) -> String {
        with(pool, |p| p.shared()?.share())
    }

    /// Stops serving the pool; imports already made stay valid.
    c"asyncPoolUnshare" => fn async_pool_unshare(_cx, pool: f64) -> () {
        with(pool, |p| {
            p.shared()?.unshare();
            Ok(())
        })
    }

    /// Lets the pool go: unshared now, destroyed once its allocations are freed.
    c"asyncPoolDestroy" => fn async_pool_destroy(_cx, pool: f64) -> () {
        let p = take(pool)?;
        if let Ok(shared) = p.shared() {
            shared.unshare();
        }
        Ok(())
    }

    /// The pool another process of this user shares at `path`, for `device`: imported by
    /// `asyncPoolJoin`.
    c"asyncPoolConnect" => fn async_pool_connect(cx, owner: Owner, device: f64, path: String) -> f64 {
        insert(cx, &owner, Arc::new(AsyncMemoryPool::connect(runtime()?.ordinal(device)?, &path)))
    }

    /// Receives the pool from its socket and imports it, off the JS thread (the socket may be
    /// served by this very thread's event loop, or answer slowly).
    c"asyncPoolJoin" => fn async_pool_join(_cx, pool: f64) -> Blocking {
        let p = get(pool)?;
        Ok(Blocking::new(move || p.shared()?.join()))
    }

    /// Another process's allocation, from what its exportPointer() gave: a memory handle.
    c"asyncPoolImportPointer" => fn async_pool_import_pointer(_cx, pool: f64, data: Bytes) -> f64 {
        let block = with(pool, |p| p.shared()?.import_pointer(data.0))?;
        memory::adopt(block)
    }

    /// The data another process imports the allocation `mem` with (`cuMemPoolExportPointer`,
    /// behind a header naming its pool).
    c"memExportPointer" => fn mem_export_pointer(_cx, mem: f64) -> NodeBuffer {
        let block = memory::get(mem)?;
        Ok(NodeBuffer(export_pointer(&block)?))
    }
}
