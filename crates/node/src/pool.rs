//! The caching device memory pool (CuPy's `MemoryPool`), one native pool per device (the TS
//! pool holds one per device it is used on).

use crate::raw::{self, BytesMut, Count, Func, Owner};
use crate::{history, memory, stream};
use cuda_node_core::pool::{PoolStats, SegmentLayout};
use cuda_node_core::{runtime, Code, Error, MemoryPool};
use std::sync::Arc;

crate::js_object! {
    /// A pool's counts (CuPy's used/total bytes) and high-water marks.
    pub struct PoolStatsOut {
        used_bytes: f64 = c"usedBytes",
        total_bytes: f64 = c"totalBytes",
        peak_used_bytes: f64 = c"peakUsedBytes",
        peak_total_bytes: f64 = c"peakTotalBytes",
        n_free_blocks: f64 = c"nFreeBlocks",
        oom_retries: f64 = c"oomRetries",
        released_bytes: f64 = c"releasedBytes",
        segments: f64 = c"segments",
        mapped_bytes: f64 = c"mappedBytes",
    }
}

impl From<PoolStats> for PoolStatsOut {
    fn from(s: PoolStats) -> Self {
        PoolStatsOut {
            used_bytes: s.used as f64,
            total_bytes: s.total as f64,
            peak_used_bytes: s.peak_used as f64,
            peak_total_bytes: s.peak_total as f64,
            n_free_blocks: s.free_blocks as f64,
            oom_retries: s.retries as f64,
            released_bytes: s.released as f64,
            segments: s.segments as f64,
            mapped_bytes: s.mapped as f64,
        }
    }
}

crate::js_object! {
    /// A block of a segment: where it is, its bytes, whether it is handed out, its arena's stream.
    pub struct BlockLayoutOut {
        address: f64 = c"address",
        size: f64 = c"size",
        in_use: bool = c"inUse",
        stream: f64 = c"stream",
    }
}

crate::js_object! {
    /// A segment as the pool lays it out, its blocks in address order.
    pub struct SegmentOut {
        address: f64 = c"address",
        size: f64 = c"size",
        stream: f64 = c"stream",
        expandable: bool = c"expandable",
        blocks: Vec<BlockLayoutOut> = c"blocks",
    }
}

impl From<SegmentLayout> for SegmentOut {
    fn from(s: SegmentLayout) -> Self {
        // Addresses and stream handles are below 2^53 (48-bit virtual addresses): exact as numbers.
        let blocks = s
            .blocks
            .into_iter()
            .map(|b| BlockLayoutOut { address: b.address as f64, size: b.size as f64, in_use: b.in_use, stream: b.stream as f64 })
            .collect();
        SegmentOut { address: s.address as f64, size: s.size as f64, stream: s.stream as f64, expandable: s.expandable, blocks }
    }
}

crate::table!(POOLS: Arc<MemoryPool>, CUDA_ERROR_INVALID_HANDLE, "this memory pool is gone");

crate::exports! {
    /// Checks that `setAllocator` may change the allocator: not inside `usingAllocator`
    /// (`scoped`), where it throws `CUDA_ERROR_ILLEGAL_STATE`.
    c"allocatorCheckSet" => fn allocator_check_set(_cx, scoped: bool) -> () {
        cuda_node_core::pool::check_set_allocator(scoped)
    }

    /// A caching pool for `device`: expandable as asked, or as `CUDA_NODE_ALLOC_CONF` says.
    c"poolCreate" => fn pool_create(cx, owner: Owner, device: f64, expandable: Option<bool>) -> f64 {
        insert(cx, &owner, MemoryPool::create(runtime()?.ordinal(device)?, expandable)?)
    }

    /// Whether the pool grows its segments in place.
    c"poolExpandable" => fn pool_expandable(_cx, pool: f64) -> bool {
        with(pool, |p| Ok(p.expandable()))
    }

    /// As `poolMalloc`, growing from `alloc` (CuPy's `MemoryPool(allocator)`): called with the
    /// rounded size, it returns the handle of a block, or `constants().allocator.outOfMemory`
    /// (the pool then releases its cache and calls it once more); anything else fails it.
    c"poolMallocFrom" => fn pool_malloc_from(cx, pool: f64, size: Count, stream: f64, alloc: Func) -> f64 {
        let mut source = |n: u64| -> cuda_node_core::Result<Arc<cuda_node_core::Block>> {
            let h = raw::call_number(cx, alloc.0, n as f64)?;
            if h == crate::constants::allocator::OUT_OF_MEMORY {
                return Err(Error::cuda(Code::CUDA_ERROR_OUT_OF_MEMORY, format!("the allocator is out of memory for {n} bytes")));
            }
            if h < 0.0 {
                return Err(Error::cuda(Code::CUDA_ERROR_UNKNOWN, "the allocator failed"));
            }
            // The pool owns the block from here: the JS pointer the allocator returned lets go of it.
            memory::take(h)
        };
        let p = get(pool)?;
        let block = stream::with(stream, |s| p.malloc_from(size.0, s, Some(&mut source)))?;
        memory::adopt_pooled(block, size.0, pool, p.total_bytes(), stream)
    }

    /// The byte counts, high-water marks, retries and bytes released.
    c"poolStats" => fn pool_stats(_cx, pool: f64) -> PoolStatsOut {
        with(pool, |p| Ok(p.stats().into()))
    }

    /// What the memory history (lib/memory/history.ts) records of a block, into `out` as four f64s: its address (exact
    /// as a number: addresses are below 2^53), its size, the monotonic clock in ms (the one
    /// `performance.now()` reads, from another origin), and the bytes the caching pool of handle
    /// `pool` holds (-1 without one): one call, no object made.
    c"memHistoryInfo" => fn mem_history_info(_cx, mem: f64, pool: f64, out: BytesMut) -> () {
        let held = if pool >= 0.0 { with(pool, |p| Ok(p.total_bytes() as f64))? } else { -1.0 };
        memory::with(mem, |b| {
            let now = history::monotonic_ms();
            let words = [b.ptr() as f64, b.size() as f64, now, held];
            let out = out.0.get_mut(..32).ok_or_else(|| Error::range("memHistoryInfo writes 32 bytes"))?;
            for (dst, w) in out.chunks_exact_mut(8).zip(words) {
                dst.copy_from_slice(&w.to_ne_bytes());
            }
            Ok(())
        })
    }

    /// The monotonic clock of `memHistoryInfo`, in ms.
    c"monotonicMs" => fn monotonic_ms_export(_cx) -> f64 {
        Ok(history::monotonic_ms())
    }

    /// The segments and their blocks, free and in use, in address order.
    c"poolSegments" => fn pool_segments(_cx, pool: f64) -> Vec<SegmentOut> {
        with(pool, |p| Ok(p.segments().into_iter().map(SegmentOut::from).collect()))
    }

    /// Starts the high-water marks again from the current counts.
    c"poolResetPeakStats" => fn pool_reset_peak_stats(_cx, pool: f64) -> () {
        with(pool, |p| {
            p.reset_peak_stats();
            Ok(())
        })
    }

    /// A block of at least `size` bytes for work on `stream`; its memory handle.
    c"poolMalloc" => fn pool_malloc(_cx, pool: f64, size: Count, stream: f64) -> f64 {
        // The bytes the pool holds after it (one atomic load) go into the history's record.
        let (block, held) = with(pool, |p| stream::with(stream, |s| p.malloc(size.0, s)).map(|b| (b, p.total_bytes())))?;
        memory::adopt_pooled(block, size.0, pool, held, stream)
    }

    /// Releases free blocks to the driver: all, or those of `stream`; the bytes released.
    c"poolFreeAllBlocks" => fn pool_free_all_blocks(_cx, pool: f64, stream: Option<f64>) -> f64 {
        let s = stream.map(stream::get).transpose()?;
        let p = get(pool)?;
        Ok(p.free_all_blocks(s.as_ref().map(|s| -> &cuda_node_core::Stream { s })) as f64)
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

    /// The bytes of a limit given as a `fraction` of `device`'s memory (0 to 1).
    c"poolFractionLimit" => fn pool_fraction_limit(_cx, device: f64, fraction: f64) -> f64 {
        Ok(cuda_node_core::pool::fraction_limit(runtime()?.ordinal(device)?, fraction)? as f64)
    }

    /// Bounds the bytes the pool holds; 0 removes the limit.
    c"poolSetLimit" => fn pool_set_limit(_cx, pool: f64, bytes: Count) -> () {
        with(pool, |p| {
            p.set_limit(bytes.0);
            Ok(())
        })
    }
}
