//! The pinned memory pool (CuPy's `PinnedMemoryPool`): caches pinned allocations by size, since
//! pinning is slow.

use crate::pinned;
use crate::raw::{Count, Owner};
use cuda_node_core::pinned::PinnedPool;
use std::sync::Arc;

crate::table!(PINNED_POOLS: Arc<PinnedPool>, CUDA_ERROR_INVALID_HANDLE, "this pinned memory pool is gone");

crate::exports! {
    /// A pool of pinned allocations, cached by size.
    c"pinnedPoolCreate" => fn pinned_pool_create(cx, owner: Owner) -> f64 {
        insert(cx, &owner, PinnedPool::new())
    }

    /// `size` bytes of pinned host memory from `pool`, owned by `owner`.
    c"pinnedPoolMalloc" => fn pinned_pool_malloc(cx, owner: Owner, pool: f64, size: Count) -> f64 {
        let block = with(pool, |p| p.malloc(size.0))?;
        let seen = crate::history::recording().then(|| (block.ptr() as u64, block.size()));
        let handle = pinned::insert(cx, &owner, block)?;
        if let Some((ptr, given)) = seen {
            crate::history::pinned_alloc(handle, ptr, given, size.0, pool);
        }
        Ok(handle)
    }

    c"pinnedPoolNFreeBlocks" => fn pinned_pool_n_free_blocks(_cx, pool: f64) -> f64 {
        with(pool, |p| Ok(p.n_free_blocks() as f64))
    }

    /// Releases the pool's cached blocks (`cuMemFreeHost`).
    c"pinnedPoolFreeAllBlocks" => fn pinned_pool_free_all_blocks(_cx, pool: f64) -> () {
        with(pool, |p| {
            p.free_all_blocks();
            Ok(())
        })
    }
}
