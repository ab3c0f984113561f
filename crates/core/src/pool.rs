//! The caching device memory pool (CuPy's `MemoryPool`, v14 semantics):
//! - sizes are rounded up to 512-byte bins (P1);
//! - free blocks stay in the arena of the stream that allocated them and are reused there at
//!   once, with no driver call (P2, P8): stream order makes that safe;
//! - best fit, splitting a larger block and keeping the tail (P3); merging with free
//!   neighbours on free (P4); `free_all_blocks` releases whole blocks only (P4, P5);
//! - a block free in another stream's arena is taken only once that stream has passed the
//!   free: it is idle now, and the free happened before now;
//! - past the limit or out of device memory, free blocks are released and the allocation is
//!   tried once more, then an out-of-memory error says what was asked, used and held (P7);
//! - it grows from the driver (`cuMemAlloc`), or from another allocator (CuPy's
//!   `MemoryPool(allocator)`): a block that allocator handed it, kept until released;
//! - a limit from `CUDA_NODE_GPU_MEMORY_LIMIT` applies to every pool made (CuPy's
//!   `CUPY_GPU_MEMORY_LIMIT`); statistics keep high-water marks until reset.

use crate::block::{Block, Release};
use crate::error::{Code, Error, Result};
use crate::memory::DeviceMemory;
use crate::stream::{Stream, StreamKind};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

// Rounding is every allocation's rule (`memory.rs`), re-exported here where it was first defined.
pub use crate::memory::{round_size, ALLOCATION_UNIT};

/// Which arena a stream's blocks live in: its handle, and for the per-thread default stream
/// the thread too (each thread has its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct ArenaKey(u64, u64);

fn arena_key(s: &Stream) -> Result<ArenaKey> {
    let thread = if s.kind() == StreamKind::PerThread { thread_tag() } else { 0 };
    Ok(ArenaKey(s.handle()?, thread))
}

fn thread_tag() -> u64 {
    thread_local! {
        static TAG: u64 = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            std::thread::current().id().hash(&mut h);
            h.finish() | 1
        };
    }
    TAG.with(|t| *t)
}

struct Chunk {
    mem: Arc<DeviceMemory>,
    /// From the start of `mem` (a block another allocator gave may start inside it).
    offset: u64,
    /// The block another allocator gave, shared by every piece of it, released with the last.
    keep: Option<Arc<Block>>,
    size: u64,
    prev: Option<usize>,
    next: Option<usize>,
    arena: ArenaKey,
    in_use: bool,
}

struct Arena {
    /// Keeps the stream alive while blocks wait in its arena, so it can be asked whether it is idle.
    stream: Arc<Stream>,
    free: BTreeSet<(u64, usize)>,
}

#[derive(Default)]
struct State {
    chunks: Vec<Option<Chunk>>,
    vacant: Vec<usize>,
    arenas: FxHashMap<ArenaKey, Arena>,
    used: u64,
    total: u64,
    /// 0: no limit.
    limit: u64,
    peak_used: u64,
    peak_total: u64,
    /// Allocations that failed, released the cached blocks and tried again.
    retries: u64,
    /// Bytes given back to the driver (or the base allocator) since the pool was made.
    released: u64,
}

impl State {
    fn insert(&mut self, c: Chunk) -> usize {
        match self.vacant.pop() {
            Some(i) => {
                self.chunks[i] = Some(c);
                i
            }
            None => {
                self.chunks.push(Some(c));
                self.chunks.len() - 1
            }
        }
    }

    fn chunk(&mut self, id: usize) -> &mut Chunk {
        self.chunks[id].as_mut().expect("a live chunk id")
    }

    fn remove(&mut self, id: usize) -> Chunk {
        self.vacant.push(id);
        self.chunks[id].take().expect("a live chunk id")
    }

    fn is_free_in(&self, id: Option<usize>, arena: ArenaKey) -> Option<usize> {
        let id = id?;
        let c = self.chunks[id].as_ref()?;
        (!c.in_use && c.arena == arena).then_some(id)
    }

    /// Takes the best-fitting free chunk of `key`'s arena, splitting off the tail.
    fn take_fit(&mut self, key: ArenaKey, size: u64) -> Option<usize> {
        let arena = self.arenas.get_mut(&key)?;
        let &(have, id) = arena.free.range((size, 0)..).next()?;
        arena.free.remove(&(have, id));
        if have > size {
            let (mem, keep, offset, next) = {
                let c = self.chunk(id);
                (c.mem.clone(), c.keep.clone(), c.offset, c.next)
            };
            let tail =
                self.insert(Chunk { mem, keep, offset: offset + size, size: have - size, prev: Some(id), next, arena: key, in_use: false });
            if let Some(n) = next {
                self.chunk(n).prev = Some(tail);
            }
            let c = self.chunk(id);
            c.size = size;
            c.next = Some(tail);
            self.arenas.get_mut(&key).expect("arena exists").free.insert((have - size, tail));
        }
        let c = self.chunk(id);
        c.in_use = true;
        self.used += size;
        self.peak_used = self.peak_used.max(self.used);
        Some(id)
    }

    /// Returns a chunk to its arena, merging it with free neighbours of the same arena.
    fn give_back(&mut self, id: usize) {
        let (size, arena) = {
            let c = self.chunk(id);
            c.in_use = false;
            (c.size, c.arena)
        };
        self.used -= size;
        let mut id = id;
        if let Some(n) = self.is_free_in(self.chunks[id].as_ref().and_then(|c| c.next), arena) {
            let nsize = self.chunks[n].as_ref().map_or(0, |c| c.size);
            if let Some(a) = self.arenas.get_mut(&arena) {
                a.free.remove(&(nsize, n));
            }
            let next = self.remove(n);
            let c = self.chunk(id);
            c.size += next.size;
            c.next = next.next;
            if let Some(nn) = next.next {
                self.chunk(nn).prev = Some(id);
            }
        }
        if let Some(p) = self.is_free_in(self.chunks[id].as_ref().and_then(|c| c.prev), arena) {
            let psize = self.chunks[p].as_ref().map_or(0, |c| c.size);
            if let Some(a) = self.arenas.get_mut(&arena) {
                a.free.remove(&(psize, p));
            }
            let me = self.remove(id);
            let c = self.chunk(p);
            c.size += me.size;
            c.next = me.next;
            if let Some(n) = me.next {
                self.chunk(n).prev = Some(p);
            }
            id = p;
        }
        let size = self.chunks[id].as_ref().map_or(0, |c| c.size);
        if let Some(a) = self.arenas.get_mut(&arena) {
            a.free.insert((size, id));
        }
    }

    /// Releases every free chunk that is a whole allocation (split pieces wait to re-merge).
    fn release_free(&mut self, only: Option<ArenaKey>) -> Vec<Chunk> {
        let mut released = Vec::new();
        let keys: Vec<ArenaKey> = self.arenas.keys().copied().filter(|k| only.is_none_or(|o| o == *k)).collect();
        for key in keys {
            let whole: Vec<(u64, usize)> = self.arenas[&key]
                .free
                .iter()
                .copied()
                .filter(|&(_, id)| self.chunks[id].as_ref().is_some_and(|c| c.prev.is_none() && c.next.is_none()))
                .collect();
            for (size, id) in whole {
                self.arenas.get_mut(&key).expect("arena exists").free.remove(&(size, id));
                let c = self.remove(id);
                self.total -= c.size;
                self.released += c.size;
                released.push(c);
            }
            if self.arenas[&key].free.is_empty() && !self.chunks.iter().flatten().any(|c| c.arena == key) {
                self.arenas.remove(&key);
            }
        }
        released
    }
}

/// One device's caching pool.
pub struct MemoryPool {
    device: usize,
    state: Mutex<State>,
    me: Weak<MemoryPool>,
}

impl Release for MemoryPool {
    fn release(&self, chunk: u64) {
        self.lock().give_back(chunk as usize);
    }
}

/// Where a pool grows from when no cached block fits: called with the rounded size, it returns
/// a block of at least that many bytes on the pool's device (CuPy's `MemoryPool(allocator)`).
/// An out-of-memory error makes the pool release its cached blocks and call it once more.
pub type Source<'a> = &'a mut dyn FnMut(u64) -> Result<Arc<Block>>;

/// What a pool holds and has held (the high-water marks since it was made or last reset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    pub used: u64,
    pub total: u64,
    pub peak_used: u64,
    pub peak_total: u64,
    pub free_blocks: u64,
    /// Allocations that failed, released the cached blocks and were tried again.
    pub retries: u64,
    /// Bytes given back to the driver (or the base allocator) so far.
    pub released: u64,
}

/// The environment variable that limits every pool (CuPy's `CUPY_GPU_MEMORY_LIMIT`).
pub const MEMORY_LIMIT_ENV: &str = "CUDA_NODE_GPU_MEMORY_LIMIT";

/// The limit `CUDA_NODE_GPU_MEMORY_LIMIT` sets on `device`, in bytes (0: none): a number of
/// bytes, or a percentage of the device's memory such as `50%`, as CuPy reads
/// `CUPY_GPU_MEMORY_LIMIT`. A malformed value is a `RangeError` naming the variable.
pub fn env_limit(device: usize) -> Result<u64> {
    let Ok(v) = std::env::var(MEMORY_LIMIT_ENV) else { return Ok(0) };
    parse_limit(v.trim(), || device_memory(device))
}

/// The bytes of a limit given as a `fraction` (0 to 1) of `device`'s memory (CuPy's
/// `set_limit(fraction=)`); a RangeError outside [0, 1].
pub fn fraction_limit(device: usize, fraction: f64) -> Result<u64> {
    if !(0.0..=1.0).contains(&fraction) {
        return Err(Error::range(format!("fraction must lie in [0, 1], got {fraction}")));
    }
    Ok(share(device_memory(device)?, fraction))
}

/// The memory a limit given as a share is a share of: the device's total (`cuDeviceTotalMem`).
fn device_memory(device: usize) -> Result<u64> {
    Ok(crate::runtime()?.backend.devices().props(device)?.total_memory)
}

/// The one rule for a limit given as a share (a fraction, or an environment percentage):
/// `fraction` of `total`, rounded down.
fn share(total: u64, fraction: f64) -> u64 {
    (total as f64 * fraction).floor() as u64
}

fn parse_limit(v: &str, total: impl FnOnce() -> Result<u64>) -> Result<u64> {
    let bad = || Error::range(format!("{MEMORY_LIMIT_ENV} must be a number of bytes or a percentage such as '50%', got '{v}'"));
    if v.is_empty() {
        return Ok(0);
    }
    if let Some(pct) = v.strip_suffix('%') {
        let pct: f64 = pct.trim().parse().map_err(|_| bad())?;
        if !(0.0..=100.0).contains(&pct) {
            return Err(bad());
        }
        return Ok(share(total()?, pct / 100.0));
    }
    v.parse::<u64>().map_err(|_| bad())
}

impl MemoryPool {
    pub fn new(device: usize) -> Arc<MemoryPool> {
        Arc::new_cyclic(|me| MemoryPool { device, state: Mutex::new(State::default()), me: me.clone() })
    }

    /// A pool with the limit `CUDA_NODE_GPU_MEMORY_LIMIT` sets (as every CuPy pool reads
    /// `CUPY_GPU_MEMORY_LIMIT` when made).
    pub fn create(device: usize) -> Result<Arc<MemoryPool>> {
        let pool = MemoryPool::new(device);
        pool.set_limit(env_limit(device)?);
        Ok(pool)
    }

    pub fn device(&self) -> usize {
        self.device
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A block of at least `size` bytes for work on `stream`, grown from the driver.
    pub fn malloc(&self, size: u64, stream: &Arc<Stream>) -> Result<Block> {
        self.malloc_from(size, stream, None)
    }

    /// A block of at least `size` bytes for work on `stream`; grown from `source` where given.
    pub fn malloc_from(&self, size: u64, stream: &Arc<Stream>, source: Option<Source<'_>>) -> Result<Block> {
        if stream.device() != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("the pool of device {} cannot allocate for a stream of device {}", self.device, stream.device()),
            ));
        }
        if size == 0 {
            return Ok(Block::whole(DeviceMemory::alloc(self.device, 0)?));
        }
        let size = round_size(size);
        let key = arena_key(stream)?;
        let (id, mem, offset) = match self.reuse(key, size, stream) {
            Some(taken) => taken,
            None => self.grow(key, size, stream, source)?,
        };
        // The block holds its pool (a reference count, no allocation) and returns to it on drop.
        let home: Arc<dyn Release> = self.me.upgrade().expect("a pool allocating is alive");
        Ok(Block::pooled(mem, offset, size, home, id as u64))
    }

    /// A free chunk that fits, with its allocation and offset (taken under one lock).
    fn reuse(&self, key: ArenaKey, size: u64, stream: &Arc<Stream>) -> Option<(usize, Arc<DeviceMemory>, u64)> {
        let mut st = self.lock();
        if let Some(id) = st.take_fit(key, size) {
            let c = st.chunk(id);
            return Some((id, c.mem.clone(), c.offset));
        }
        // Another stream's free block, once that stream has passed the free.
        let others: Vec<(ArenaKey, Arc<Stream>)> = st
            .arenas
            .iter()
            .filter(|(k, a)| **k != key && a.free.range((size, 0)..).next().is_some())
            .map(|(k, a)| (*k, a.stream.clone()))
            .collect();
        drop(st);
        for (other, s) in others {
            if s.query().unwrap_or(false) {
                let mut st = self.lock();
                if let Some(id) = st.take_fit(other, size) {
                    // Its neighbours stay in the other arena: chunks merge within one arena only.
                    let c = st.chunk(id);
                    c.arena = key;
                    let taken = (id, c.mem.clone(), c.offset);
                    st.arenas.entry(key).or_insert_with(|| Arena { stream: stream.clone(), free: BTreeSet::new() });
                    return Some(taken);
                }
            }
        }
        None
    }

    /// New memory of `size` bytes: the driver's, or a block `source` gave (checked here).
    fn fetch(&self, size: u64, source: &mut Option<Source<'_>>) -> Result<(Arc<DeviceMemory>, u64, Option<Arc<Block>>)> {
        let Some(source) = source.as_mut() else {
            return Ok((Arc::new(DeviceMemory::alloc(self.device, size)?), 0, None));
        };
        let block = source(size)?;
        if block.device() != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_DEVICE,
                format!("the allocator gave memory of device {} to the pool of device {}", block.device(), self.device),
            ));
        }
        if block.size() < size {
            return Err(Error::range(format!("the allocator gave {} bytes when the pool asked for {size}", block.size())));
        }
        let (mem, offset) = block.shared();
        Ok((mem, offset, Some(block)))
    }

    fn grow(
        &self,
        key: ArenaKey,
        size: u64,
        stream: &Arc<Stream>,
        mut source: Option<Source<'_>>,
    ) -> Result<(usize, Arc<DeviceMemory>, u64)> {
        let mut retried = false;
        loop {
            let (limit, total, used) = {
                let st = self.lock();
                (st.limit, st.total, st.used)
            };
            let over_limit = limit != 0 && total + size > limit;
            // No lock is held while the memory is fetched: a base allocator may be this pool's user.
            let result = if over_limit { None } else { Some(self.fetch(size, &mut source)) };
            match result {
                Some(Ok((mem, offset, keep))) => {
                    let mut st = self.lock();
                    st.total += size;
                    st.used += size;
                    st.peak_total = st.peak_total.max(st.total);
                    st.peak_used = st.peak_used.max(st.used);
                    st.arenas.entry(key).or_insert_with(|| Arena { stream: stream.clone(), free: BTreeSet::new() });
                    let chunk = Chunk { mem: mem.clone(), keep, offset, size, prev: None, next: None, arena: key, in_use: true };
                    let id = st.insert(chunk);
                    return Ok((id, mem, offset));
                }
                Some(Err(e)) if !e.is_code(Code::CUDA_ERROR_OUT_OF_MEMORY) => return Err(e),
                _ if !retried => {
                    retried = true;
                    self.lock().retries += 1;
                    self.free_all_blocks(None);
                }
                _ => {
                    let limit_note = if limit != 0 { format!(", limit set to {limit} bytes") } else { String::new() };
                    return Err(Error::cuda(
                        Code::CUDA_ERROR_OUT_OF_MEMORY,
                        format!(
                            "out of memory allocating {size} bytes on device {} (the pool has {used} bytes in use and holds {total} bytes{limit_note}); \
                             free blocks were released and the allocation retried",
                            self.device
                        ),
                    ));
                }
            }
        }
    }

    /// Releases free blocks to the driver (all arenas, or only `stream`'s); the bytes released.
    pub fn free_all_blocks(&self, stream: Option<&Stream>) -> u64 {
        // A stream never made (any allocation on it makes it) has no arena: nothing to release.
        if stream.is_some_and(|s| !s.is_made()) {
            return 0;
        }
        let Ok(key) = stream.map(arena_key).transpose() else { return 0 };
        let released = self.lock().release_free(key);
        let bytes = released.iter().map(|c| c.size).sum();
        // Dropped outside the lock: freeing may wait for the device (M2), and a base
        // allocator's block may return to a pool of its own.
        drop(released);
        bytes
    }

    pub fn n_free_blocks(&self) -> usize {
        self.lock().arenas.values().map(|a| a.free.len()).sum()
    }
    pub fn used_bytes(&self) -> u64 {
        self.lock().used
    }
    pub fn total_bytes(&self) -> u64 {
        self.lock().total
    }
    pub fn free_bytes(&self) -> u64 {
        let st = self.lock();
        st.total - st.used
    }
    pub fn limit(&self) -> u64 {
        self.lock().limit
    }
    /// Bounds the bytes the pool holds (in use and cached); 0 removes the limit.
    pub fn set_limit(&self, bytes: u64) {
        self.lock().limit = bytes;
    }

    /// The byte counts, the high-water marks and what the pool has retried and released.
    pub fn stats(&self) -> PoolStats {
        let st = self.lock();
        PoolStats {
            used: st.used,
            total: st.total,
            peak_used: st.peak_used,
            peak_total: st.peak_total,
            free_blocks: st.arenas.values().map(|a| a.free.len() as u64).sum(),
            retries: st.retries,
            released: st.released,
        }
    }

    /// Starts the high-water marks again from the current counts.
    pub fn reset_peak_stats(&self) {
        let mut st = self.lock();
        st.peak_used = st.used;
        st.peak_total = st.total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime;

    fn setup() -> (Arc<MemoryPool>, Arc<Stream>) {
        std::env::set_var("CUDA_NODE_BACKEND", "sim");
        runtime().unwrap();
        (MemoryPool::new(0), Arc::new(Stream::create(0, false, None).unwrap()))
    }

    #[test]
    fn sizes_round_to_512_and_freed_blocks_are_reused_without_growing() {
        let (pool, s) = setup();
        let a = pool.malloc(400, &s).unwrap();
        assert_eq!((a.size(), pool.used_bytes(), pool.total_bytes()), (512, 512, 512));
        let ptr = a.ptr();
        drop(a);
        assert_eq!((pool.used_bytes(), pool.free_bytes(), pool.n_free_blocks()), (0, 512, 1));
        let b = pool.malloc(512, &s).unwrap();
        assert_eq!(b.ptr(), ptr);
        assert_eq!(pool.total_bytes(), 512);
    }

    #[test]
    fn a_larger_block_is_split_and_merges_back() {
        let (pool, s) = setup();
        let big = pool.malloc(4096, &s).unwrap();
        let base = big.ptr();
        drop(big);
        let a = pool.malloc(1024, &s).unwrap();
        let b = pool.malloc(1024, &s).unwrap();
        assert_eq!((a.ptr(), b.ptr()), (base, base + 1024));
        assert_eq!(pool.total_bytes(), 4096);
        drop(a);
        drop(b);
        assert_eq!(pool.n_free_blocks(), 1, "the pieces merged back into one block");
        pool.free_all_blocks(None);
        assert_eq!((pool.total_bytes(), pool.n_free_blocks()), (0, 0));
    }

    #[test]
    fn a_split_block_is_not_released_until_merged() {
        let (pool, s) = setup();
        drop(pool.malloc(2048, &s).unwrap());
        let a = pool.malloc(512, &s).unwrap();
        pool.free_all_blocks(None);
        assert_eq!(pool.total_bytes(), 2048);
        drop(a);
        pool.free_all_blocks(None);
        assert_eq!(pool.total_bytes(), 0);
    }

    #[test]
    fn another_stream_gets_a_freed_block_only_once_the_first_has_passed_the_free() {
        let (pool, s1) = setup();
        let s2 = Arc::new(Stream::create(0, true, None).unwrap());
        let a = pool.malloc(1024, &s1).unwrap();
        let ptr = a.ptr();
        s1.sleep(100_000_000).unwrap();
        drop(a);
        let b = pool.malloc(1024, &s2).unwrap();
        assert_ne!(b.ptr(), ptr, "s1 is still busy before its free");
        s1.synchronize().unwrap();
        let c = pool.malloc(1024, &s2).unwrap();
        assert_eq!(c.ptr(), ptr);
    }

    #[test]
    fn past_the_limit_the_pool_frees_and_retries_then_says_what_it_holds() {
        let (pool, s) = setup();
        pool.set_limit(4096);
        let a = pool.malloc(2048, &s).unwrap();
        drop(pool.malloc(2048, &s).unwrap());
        // 2048 cached: freeing it makes room.
        let b = pool.malloc(2048, &s).unwrap();
        let err = pool.malloc(1, &s).err().expect("over the limit");
        assert!(err.is_code(Code::CUDA_ERROR_OUT_OF_MEMORY));
        assert!(err.message().contains("allocating 512 bytes"), "{err}");
        assert!(err.message().contains("4096 bytes in use"), "{err}");
        assert!(err.message().contains("limit set to 4096"), "{err}");
        drop((a, b));
    }

    #[test]
    fn peaks_stay_until_reset_and_then_start_from_the_current_counts() {
        let (pool, s) = setup();
        let a = pool.malloc(4096, &s).unwrap();
        let b = pool.malloc(1024, &s).unwrap();
        drop(a);
        let st = pool.stats();
        assert_eq!((st.used, st.total, st.peak_used, st.peak_total), (1024, 5120, 5120, 5120));
        pool.free_all_blocks(None);
        pool.reset_peak_stats();
        let st = pool.stats();
        assert_eq!((st.peak_used, st.peak_total, st.released), (1024, 1024, 4096));
        drop(b);
    }

    #[test]
    fn a_pool_grows_from_its_source_and_gives_the_blocks_back_when_released() {
        let (pool, s) = setup();
        let base = MemoryPool::new(0);
        let mut asked = Vec::new();
        let mut source = |n: u64| {
            asked.push(n);
            Ok(Arc::new(base.malloc(n, &s)?))
        };
        let a = pool.malloc_from(1000, &s, Some(&mut source)).unwrap();
        assert_eq!((a.size(), base.used_bytes()), (1024, 1024));
        drop(a);
        let b = pool.malloc_from(512, &s, Some(&mut source)).unwrap();
        assert_eq!(asked, vec![1024], "the second came from the cache");
        drop(b);
        assert_eq!(pool.free_all_blocks(None), 1024);
        assert_eq!(base.used_bytes(), 0, "released to the base pool");
    }

    #[test]
    fn a_source_out_of_memory_releases_the_cache_and_retries_once() {
        let (pool, s) = setup();
        drop(pool.malloc(2048, &s).unwrap());
        let mut calls = 0;
        let mut source = |_n: u64| -> Result<Arc<Block>> {
            calls += 1;
            Err(Error::cuda(Code::CUDA_ERROR_OUT_OF_MEMORY, "none left"))
        };
        let err = pool.malloc_from(4096, &s, Some(&mut source)).err().expect("out of memory");
        assert!(err.is_code(Code::CUDA_ERROR_OUT_OF_MEMORY));
        assert_eq!(calls, 2);
        let st = pool.stats();
        assert_eq!((st.retries, st.released, st.total), (1, 2048, 0));
    }

    #[test]
    fn the_environment_limit_reads_bytes_or_a_percentage() {
        let total = || Ok(1000);
        assert_eq!(parse_limit("", total).unwrap(), 0);
        assert_eq!(parse_limit("4096", total).unwrap(), 4096);
        assert_eq!(parse_limit("50%", total).unwrap(), 500);
        assert_eq!(parse_limit("12.5%", total).unwrap(), 125);
        for bad in ["lots", "-1", "150%", "1.5"] {
            let e = parse_limit(bad, total).expect_err(bad);
            assert!(e.message().contains(MEMORY_LIMIT_ENV), "{e}");
        }
    }
}
