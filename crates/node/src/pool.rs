//! The caching device memory pool (CuPy's `MemoryPool`), one native pool per device (the TS
//! pool holds one per device it is used on).

use crate::raw::{Count, Owner};
use crate::{memory, stream};
use cuda_node_core::{runtime, MemoryPool};
use std::sync::Arc;

crate::table!(POOLS: Arc<MemoryPool>, CUDA_ERROR_INVALID_HANDLE, "this memory pool is gone");

crate::exports! {
    /// A caching pool for `device`.
    c"poolCreate" => fn pool_create(cx, owner: Owner, device: f64) -> f64 {
        insert(cx, &owner, MemoryPool::new(runtime()?.ordinal(device)?))
    }

    /// A block of at least `size` bytes for work on `stream`; its memory handle.
    c"poolMalloc" => fn pool_malloc(_cx, pool: f64, size: Count, stream: f64) -> f64 {
        let block = with(pool, |p| stream::with(stream, |s| p.malloc(size.0, s)))?;
        Ok(memory::adopt(block))
    }

    /// Releases free blocks to the driver: all, or those of `stream`.
    c"poolFreeAllBlocks" => fn pool_free_all_blocks(_cx, pool: f64, stream: Option<f64>) -> () {
        let s = stream.map(stream::get).transpose()?;
        with(pool, |p| {
            p.free_all_blocks(s.as_deref());
            Ok(())
        })
    }

    c"poolNFreeBlocks" => fn pool_n_free_blocks(_cx, pool: f64) -> f64 {
        with(pool, |p| Ok(p.n_free_blocks() as f64))
    }

    c"poolUsedBytes" => fn pool_used_bytes(_cx, pool: f64) -> f64 {
        with(pool, |p| Ok(p.used_bytes() as f64))
    }

    c"poolFreeBytes" => fn pool_free_bytes(_cx, pool: f64) -> f64 {
        with(pool, |p| Ok(p.free_bytes() as f64))
    }

    c"poolTotalBytes" => fn pool_total_bytes(_cx, pool: f64) -> f64 {
        with(pool, |p| Ok(p.total_bytes() as f64))
    }

    c"poolGetLimit" => fn pool_get_limit(_cx, pool: f64) -> f64 {
        with(pool, |p| Ok(p.limit() as f64))
    }

    /// Bounds the bytes the pool holds; 0 removes the limit.
    c"poolSetLimit" => fn pool_set_limit(_cx, pool: f64, bytes: Count) -> () {
        with(pool, |p| {
            p.set_limit(bytes.0);
            Ok(())
        })
    }
}
