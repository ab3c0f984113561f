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
//!   `CUPY_GPU_MEMORY_LIMIT`); statistics keep high-water marks until reset;
//! - expandable (PyTorch's expandable segments, `CUDA_NODE_ALLOC_CONF=expandable_segments:true`
//!   or `expandable: true`): each arena has one segment, an address range reserved once
//!   (`vmm.rs`), and a request no free block fits maps more physical memory at the segment's
//!   end, extending its free tail in place, instead of allocating a new segment; releasing
//!   (`free_all_blocks`, the limit, out of memory) unmaps the mappings a free tail covers. A
//!   request takes the lowest-addressed free block that fits (address-ordered first fit), not
//!   the best-fitting one: the segment grows only at its end, so the policy that keeps the top of
//!   it free strands the least (on `bench/fragmentation.ts`'s workload, reserved ÷ used 1.04
//!   against best fit's 1.22 and PyTorch's expandable segments' 1.05).

use crate::block::{Block, Release};
use crate::error::{Code, Error, Result};
use crate::memory::DeviceMemory;
use crate::stream::{Stream, StreamKind};
use crate::vmm::Reservation;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// A piece of an expandable segment: never released whole, only its mapped tail.
    segment: bool,
}

/// An arena's expandable segment: a reserved range mapped from its start up to `mapped`.
struct Segment {
    res: Arc<Reservation>,
    mapped: u64,
    /// The chunk at the end of what is mapped.
    last: Option<usize>,
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
    /// Expandable segments by the arena that made them.
    segments: FxHashMap<ArenaKey, Segment>,
    /// Take the lowest-addressed free chunk that fits (an expandable pool), not the best fit.
    first_fit: bool,
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

    /// Takes the best-fitting free chunk of `key`'s arena (the lowest-addressed one that fits,
    /// in an expandable pool), splitting off the tail.
    fn take_fit(&mut self, key: ArenaKey, size: u64) -> Option<usize> {
        let arena = self.arenas.get_mut(&key)?;
        let mut fits = arena.free.range((size, 0)..);
        let &(have, id) = if self.first_fit {
            // One segment an arena: offsets order its chunks by address.
            let chunks = &self.chunks;
            fits.min_by_key(|&&(_, id)| chunks[id].as_ref().map_or(u64::MAX, |c| c.offset))?
        } else {
            fits.next()?
        };
        arena.free.remove(&(have, id));
        if have > size {
            let (mem, keep, offset, next, segment) = {
                let c = self.chunk(id);
                (c.mem.clone(), c.keep.clone(), c.offset, c.next, c.segment)
            };
            let rest =
                Chunk { mem, keep, offset: offset + size, size: have - size, prev: Some(id), next, arena: key, in_use: false, segment };
            let tail = self.insert(rest);
            match next {
                Some(n) => self.chunk(n).prev = Some(tail),
                None if segment => self.moved_last(id, tail),
                None => {}
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
            match next.next {
                Some(nn) => self.chunk(nn).prev = Some(id),
                None if next.segment => self.moved_last(n, id),
                None => {}
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
            match me.next {
                Some(n) => self.chunk(n).prev = Some(p),
                None if me.segment => self.moved_last(id, p),
                None => {}
            }
            id = p;
        }
        let size = self.chunks[id].as_ref().map_or(0, |c| c.size);
        if let Some(a) = self.arenas.get_mut(&arena) {
            a.free.insert((size, id));
        }
    }

    /// The segment whose last chunk was `old` ends in `new` now.
    fn moved_last(&mut self, old: usize, new: usize) {
        if let Some(seg) = self.segments.values_mut().find(|s| s.last == Some(old)) {
            seg.last = Some(new);
        }
    }

    /// Cuts the free tails of the expandable segments (of `only`'s arena, or all) down past the
    /// mappings they cover; the reservations and the mappings to unmap, the counts already
    /// uncounted. The caller unmaps them with no lock held.
    fn cut_tails(&mut self, only: Option<ArenaKey>) -> Vec<(Arc<Reservation>, Vec<u64>)> {
        let mut out = Vec::new();
        let keys: Vec<ArenaKey> = self.segments.keys().copied().collect();
        for key in keys {
            let Some(last) = self.segments[&key].last else { continue };
            let (offset, size, arena, prev) = match self.chunks[last].as_ref() {
                Some(c) if !c.in_use && only.is_none_or(|o| o == c.arena) => (c.offset, c.size, c.arena, c.prev),
                _ => continue,
            };
            let res = self.segments[&key].res.clone();
            let maps = res.mappings_from(offset);
            let cut: u64 = maps.iter().map(|&(_, s)| s).sum();
            if cut == 0 {
                continue;
            }
            let free = &mut self.arenas.get_mut(&arena).expect("arena exists").free;
            free.remove(&(size, last));
            if cut == size {
                self.remove(last);
                if let Some(p) = prev {
                    self.chunk(p).next = None;
                }
                self.segments.get_mut(&key).expect("segment exists").last = prev;
            } else {
                self.chunk(last).size = size - cut;
                self.arenas.get_mut(&arena).expect("arena exists").free.insert((size - cut, last));
            }
            self.segments.get_mut(&key).expect("segment exists").mapped -= cut;
            self.total -= cut;
            self.released += cut;
            out.push((res, maps.into_iter().map(|(o, _)| o).collect()));
        }
        out
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
                .filter(|&(_, id)| self.chunks[id].as_ref().is_some_and(|c| c.prev.is_none() && c.next.is_none() && !c.segment))
                .collect();
            for (size, id) in whole {
                self.arenas.get_mut(&key).expect("arena exists").free.remove(&(size, id));
                let c = self.remove(id);
                self.total -= c.size;
                self.released += c.size;
                released.push(c);
            }
            let segment = self.segments.contains_key(&key);
            if !segment && self.arenas[&key].free.is_empty() && !self.chunks.iter().flatten().any(|c| c.arena == key) {
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
    /// `State::total`, published when the lock is let go (`Locked`): read without the lock (the
    /// memory history reads it at each allocation).
    held: AtomicU64,
    me: Weak<MemoryPool>,
    expandable: bool,
    /// Held while a segment is mapped or unmapped, so that the two never cross.
    growing: Mutex<()>,
}

/// The pool's state, locked; letting it go publishes the bytes held (`MemoryPool::held`).
struct Locked<'a> {
    st: MutexGuard<'a, State>,
    held: &'a AtomicU64,
}

impl std::ops::Deref for Locked<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.st
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.st
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        self.held.store(self.st.total, Ordering::Relaxed);
    }
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
    /// Allocations the pool holds from the driver or its allocator (classic), or expandable
    /// segments with memory mapped.
    pub segments: u64,
    /// Bytes of physical memory the pool holds mapped (equal to `total`: every byte held is).
    pub mapped: u64,
}

/// A block of a segment as the pool lays it out (PyTorch's snapshot `blocks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLayout {
    pub address: u64,
    pub size: u64,
    /// Handed out (true) or cached free.
    pub in_use: bool,
    /// The handle of the stream whose arena it is in (0: the legacy default stream).
    pub stream: u64,
}

/// A segment as the pool lays it out: one allocation from the driver or the base allocator, or
/// an expandable segment's mapped range; its blocks in address order, covering it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentLayout {
    pub address: u64,
    pub size: u64,
    /// The stream whose arena its first block is in.
    pub stream: u64,
    pub expandable: bool,
    pub blocks: Vec<BlockLayout>,
}

/// The environment variable that limits every pool (CuPy's `CUPY_GPU_MEMORY_LIMIT`).
pub const MEMORY_LIMIT_ENV: &str = "CUDA_NODE_GPU_MEMORY_LIMIT";

/// The limit `CUDA_NODE_GPU_MEMORY_LIMIT` sets on `device`, in bytes (0: none): a number of
/// bytes, or a percentage of the device's memory such as `50%`, as CuPy reads
/// `CUPY_GPU_MEMORY_LIMIT`. A malformed value is a `RangeError` naming the variable.
/// `setAllocator` inside `usingAllocator` (`scoped`): `CUDA_ERROR_ILLEGAL_STATE`, as CuPy
/// refuses it — the allocator set would outlive the scope.
pub fn check_set_allocator(scoped: bool) -> Result<()> {
    if !scoped {
        return Ok(());
    }
    Err(Error::cuda(
        Code::CUDA_ERROR_ILLEGAL_STATE,
        "setAllocator cannot change the allocator inside usingAllocator: it would outlive the scope. Nest another usingAllocator instead",
    ))
}

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

/// The environment variable of the allocator's settings (PyTorch's `PYTORCH_CUDA_ALLOC_CONF`):
/// comma-separated `key:value` pairs; the one key is `expandable_segments` (`true`/`false`).
pub const ALLOC_CONF_ENV: &str = "CUDA_NODE_ALLOC_CONF";

/// What `CUDA_NODE_ALLOC_CONF` says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocConf {
    pub expandable_segments: bool,
}

/// `CUDA_NODE_ALLOC_CONF`, read once per process; a malformed value or an unknown key is a
/// `RangeError` naming it, at every pool made.
pub fn alloc_conf() -> Result<AllocConf> {
    static CONF: std::sync::OnceLock<Result<AllocConf>> = std::sync::OnceLock::new();
    CONF.get_or_init(|| parse_alloc_conf(&std::env::var(ALLOC_CONF_ENV).unwrap_or_default())).clone()
}

fn parse_alloc_conf(v: &str) -> Result<AllocConf> {
    let mut conf = AllocConf::default();
    for pair in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once(':') else {
            return Err(Error::range(format!("{ALLOC_CONF_ENV} takes key:value pairs separated by commas, got '{pair}'")));
        };
        match key.trim() {
            "expandable_segments" => {
                conf.expandable_segments = match value.trim() {
                    "true" | "True" | "1" => true,
                    "false" | "False" | "0" => false,
                    other => {
                        return Err(Error::range(format!("{ALLOC_CONF_ENV}: expandable_segments must be true or false, got '{other}'")))
                    }
                }
            }
            other => return Err(Error::range(format!("{ALLOC_CONF_ENV}: unknown key '{other}' (the known key is expandable_segments)"))),
        }
    }
    Ok(conf)
}

impl MemoryPool {
    /// The error of a request the pool could not serve even after releasing its free blocks and
    /// asking again (both the classic and the expandable paths end here).
    fn out_of_memory(&self, size: u64, used: u64, total: u64, limit: u64) -> Error {
        let limit_note = if limit != 0 { format!(", limit set to {limit} bytes") } else { String::new() };
        Error::cuda(
            Code::CUDA_ERROR_OUT_OF_MEMORY,
            format!(
                "out of memory allocating {size} bytes on device {} (the pool has {used} bytes in use and holds {total} bytes{limit_note}); \
                 free blocks were released and the allocation retried",
                self.device
            ),
        )
    }

    pub fn new(device: usize) -> Arc<MemoryPool> {
        MemoryPool::with_segments(device, false)
    }

    /// A pool whose arenas grow one expandable segment each (`expandable`), or classic.
    pub fn with_segments(device: usize, expandable: bool) -> Arc<MemoryPool> {
        Arc::new_cyclic(|me| MemoryPool {
            device,
            state: Mutex::new(State { first_fit: expandable, ..State::default() }),
            held: AtomicU64::new(0),
            me: me.clone(),
            expandable,
            growing: Mutex::new(()),
        })
    }

    /// A pool with the limit `CUDA_NODE_GPU_MEMORY_LIMIT` sets (as every CuPy pool reads
    /// `CUPY_GPU_MEMORY_LIMIT` when made), expandable as asked or, when not said,
    /// as `CUDA_NODE_ALLOC_CONF` says.
    pub fn create(device: usize, expandable: Option<bool>) -> Result<Arc<MemoryPool>> {
        let conf = alloc_conf()?;
        let pool = MemoryPool::with_segments(device, expandable.unwrap_or(conf.expandable_segments));
        pool.set_limit(env_limit(device)?);
        Ok(pool)
    }

    /// Whether the pool grows its segments in place.
    pub fn expandable(&self) -> bool {
        self.expandable
    }

    pub fn device(&self) -> usize {
        self.device
    }

    fn lock(&self) -> Locked<'_> {
        Locked { st: self.state.lock().unwrap_or_else(|p| p.into_inner()), held: &self.held }
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
        if self.expandable && source.is_some() {
            return Err(Error::type_error("an expandable pool grows from the driver: it takes no allocator"));
        }
        let size = round_size(size);
        let key = arena_key(stream)?;
        let (id, mem, offset) = match self.reuse(key, size, stream) {
            Some(taken) => taken,
            None if self.expandable => self.grow_in_place(key, size, stream)?,
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
                    let chunk =
                        Chunk { mem: mem.clone(), keep, offset, size, prev: None, next: None, arena: key, in_use: true, segment: false };
                    let id = st.insert(chunk);
                    return Ok((id, mem, offset));
                }
                Some(Err(e)) if !e.is_code(Code::CUDA_ERROR_OUT_OF_MEMORY) => return Err(e),
                _ if !retried => {
                    retried = true;
                    self.lock().retries += 1;
                    self.free_all_blocks(None);
                }
                _ => return Err(self.out_of_memory(size, used, total, limit)),
            }
        }
    }

    /// Grows `key`'s expandable segment in place by what `size` needs past its free tail
    /// (rounded up to the granularity), then takes the block from it.
    fn grow_in_place(&self, key: ArenaKey, size: u64, stream: &Arc<Stream>) -> Result<(usize, Arc<DeviceMemory>, u64)> {
        let _growing = self.growing.lock().unwrap_or_else(|p| p.into_inner());
        if !self.lock().segments.contains_key(&key) {
            // One range the size of the device's memory: the segment never needs another.
            let total = crate::runtime()?.backend.devices().mem_info(self.device)?.total;
            let g = crate::vmm::granularity(self.device, false)?;
            let res = Arc::new(Reservation::new(self.device, total.next_multiple_of(g))?);
            self.lock().segments.insert(key, Segment { res, mapped: 0, last: None });
        }
        let mut retried = false;
        loop {
            let (res, at, need, limit, total, used) = {
                let st = self.lock();
                let seg = &st.segments[&key];
                let tail = seg.last.and_then(|l| st.is_free_in(Some(l), key)).map_or(0, |l| st.chunks[l].as_ref().map_or(0, |c| c.size));
                let need = (size - tail.min(size)).next_multiple_of(seg.res.granularity());
                (seg.res.clone(), seg.mapped, need, st.limit, st.total, st.used)
            };
            let over_limit = limit != 0 && total + need > limit;
            let result = if over_limit {
                None
            } else if at + need > res.size() {
                Some(Err(Error::cuda(Code::CUDA_ERROR_OUT_OF_MEMORY, "the expandable segment's reservation is full")))
            } else {
                Some(res.map(at, need))
            };
            match result {
                Some(Ok(())) => {
                    let mut st = self.lock();
                    st.arenas.entry(key).or_insert_with(|| Arena { stream: stream.clone(), free: BTreeSet::new() });
                    let last = st.segments[&key].last;
                    match last.and_then(|l| st.is_free_in(Some(l), key)) {
                        Some(l) => {
                            let have = st.chunks[l].as_ref().map_or(0, |c| c.size);
                            let free = &mut st.arenas.get_mut(&key).expect("arena exists").free;
                            free.remove(&(have, l));
                            free.insert((have + need, l));
                            st.chunk(l).size = have + need;
                        }
                        None => {
                            let mem = res.memory().clone();
                            let c = Chunk {
                                mem,
                                keep: None,
                                offset: at,
                                size: need,
                                prev: last,
                                next: None,
                                arena: key,
                                in_use: false,
                                segment: true,
                            };
                            let id = st.insert(c);
                            if let Some(l) = last {
                                st.chunk(l).next = Some(id);
                            }
                            st.segments.get_mut(&key).expect("segment exists").last = Some(id);
                            st.arenas.get_mut(&key).expect("arena exists").free.insert((need, id));
                        }
                    }
                    st.segments.get_mut(&key).expect("segment exists").mapped += need;
                    st.total += need;
                    st.peak_total = st.peak_total.max(st.total);
                    let id = st.take_fit(key, size).expect("the grown tail fits");
                    let c = st.chunk(id);
                    return Ok((id, c.mem.clone(), c.offset));
                }
                Some(Err(e)) if !e.is_code(Code::CUDA_ERROR_OUT_OF_MEMORY) => return Err(e),
                _ if !retried => {
                    retried = true;
                    self.lock().retries += 1;
                    self.release_held(None);
                }
                _ => return Err(self.out_of_memory(size, used, total, limit)),
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
        let _growing = self.growing.lock().unwrap_or_else(|p| p.into_inner());
        self.release_held(key)
    }

    /// As `free_all_blocks`, with `growing` held.
    fn release_held(&self, key: Option<ArenaKey>) -> u64 {
        let (released, tails, cut) = {
            let mut st = self.lock();
            let before = st.released;
            let tails = st.cut_tails(key);
            let cut = st.released - before;
            (st.release_free(key), tails, cut)
        };
        let bytes = released.iter().map(|c| c.size).sum::<u64>() + cut;
        // Dropped and unmapped outside the lock: freeing waits for the device (M2), unmapping
        // too (vmm.rs), and a base allocator's block may return to a pool of its own.
        drop(released);
        for (res, offsets) in tails {
            for offset in offsets {
                // The tail was free and is uncounted: a failure leaves the mapping to the drop.
                let _ = res.unmap(offset);
            }
        }
        bytes
    }

    pub fn n_free_blocks(&self) -> usize {
        self.lock().arenas.values().map(|a| a.free.len()).sum()
    }
    pub fn used_bytes(&self) -> u64 {
        self.lock().used
    }
    pub fn total_bytes(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
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
            segments: st.chunks.iter().flatten().filter(|c| c.prev.is_none() && !c.segment).count() as u64
                + st.segments.values().filter(|s| s.mapped > 0).count() as u64,
            mapped: st.total,
        }
    }

    /// The segments and their blocks, free and in use, in address order (read under one lock).
    pub fn segments(&self) -> Vec<SegmentLayout> {
        let st = self.lock();
        let layout = |c: &Chunk| BlockLayout { address: c.mem.ptr() + c.offset, size: c.size, in_use: c.in_use, stream: c.arena.0 };
        let mut out: Vec<SegmentLayout> = st
            .chunks
            .iter()
            .flatten()
            .filter(|c| c.prev.is_none())
            .map(|head| {
                let mut blocks = vec![layout(head)];
                let mut at = head.next;
                while let Some(c) = at.and_then(|id| st.chunks[id].as_ref()) {
                    blocks.push(layout(c));
                    at = c.next;
                }
                let size = blocks.iter().map(|b| b.size).sum();
                SegmentLayout { address: blocks[0].address, size, stream: head.arena.0, expandable: head.segment, blocks }
            })
            .collect();
        out.sort_by_key(|s| s.address);
        out
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
    fn segments_lay_out_each_allocation_and_its_blocks_in_address_order() {
        let (pool, s) = setup();
        let big = pool.malloc(4096, &s).unwrap();
        let base = big.ptr();
        drop(big);
        let a = pool.malloc(1024, &s).unwrap();
        let other = pool.malloc(8192, &s).unwrap();
        let segs = pool.segments();
        assert_eq!(segs.len(), 2, "{segs:?}");
        let first = segs.iter().find(|g| g.address == base).expect("the split segment");
        assert_eq!((first.size, first.expandable, first.stream), (4096, false, s.handle().unwrap()));
        let blocks: Vec<(u64, u64, bool)> = first.blocks.iter().map(|b| (b.address - base, b.size, b.in_use)).collect();
        assert_eq!(blocks, [(0, 1024, true), (1024, 3072, false)]);
        let second = segs.iter().find(|g| g.address == other.ptr()).expect("the second segment");
        assert_eq!(second.blocks.len(), 1);
        assert!(second.blocks[0].in_use);
        drop((a, other));
        assert!(pool.segments().iter().all(|g| g.blocks.iter().all(|b| !b.in_use)));
        pool.free_all_blocks(None);
        assert!(pool.segments().is_empty());
    }

    #[test]
    fn an_expandable_segment_is_one_range_of_its_blocks() {
        let (_, s) = setup();
        let pool = MemoryPool::with_segments(0, true);
        let a = pool.malloc(1000, &s).unwrap();
        let b = pool.malloc(G, &s).unwrap();
        let segs = pool.segments();
        assert_eq!(segs.len(), 1, "{segs:?}");
        assert!(segs[0].expandable);
        assert_eq!((segs[0].address, segs[0].size), (a.ptr(), pool.total_bytes()));
        let addrs: Vec<u64> = segs[0].blocks.iter().map(|b| b.address).collect();
        assert_eq!(&addrs[..2], [a.ptr(), b.ptr()]);
        drop((a, b));
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

    const G: u64 = crate::sim::vmm::SIM_GRANULARITY;

    #[test]
    fn an_expandable_pool_grows_its_segment_in_place_and_unmaps_the_free_tail() {
        let (_, s) = setup();
        let pool = MemoryPool::with_segments(0, true);
        let a = pool.malloc(1000, &s).unwrap();
        let st = pool.stats();
        assert_eq!((st.total, st.segments, st.mapped), (G, 1, G), "one granule mapped");
        let b = pool.malloc(G, &s).unwrap();
        assert_eq!(b.ptr(), a.ptr() + 1024, "the next block follows in the same range");
        assert_eq!(pool.total_bytes(), 2 * G, "grown by what the free tail lacked, rounded up");
        drop(b);
        assert_eq!(pool.free_all_blocks(None), G, "the mapping the free tail covers is unmapped");
        assert_eq!(pool.total_bytes(), G);
        drop(a);
        assert_eq!(pool.free_all_blocks(None), G);
        let st = pool.stats();
        assert_eq!((st.total, st.segments, st.used, st.released), (0, 0, 0, 2 * G));
        let c = pool.malloc(G, &s).unwrap();
        assert_eq!(pool.total_bytes(), G, "mapped again at the start");
        drop(c);
    }

    #[test]
    fn blocks_freed_out_of_order_leave_no_hole_an_expandable_pool_cannot_fill() {
        let (_, s) = setup();
        let classic = MemoryPool::new(0);
        let expandable = MemoryPool::with_segments(0, true);
        for pool in [&classic, &expandable] {
            let a = pool.malloc(3 * G, &s).unwrap();
            let b = pool.malloc(3 * G, &s).unwrap();
            drop(a);
            // 4 G fits neither hole of a classic pool; an expandable one grows the tail after b
            // only by what it lacks.
            let c = pool.malloc(4 * G, &s).unwrap();
            drop((b, c));
        }
        assert_eq!(classic.stats().peak_total, 10 * G);
        assert_eq!(expandable.stats().peak_total, 10 * G);
        let e = MemoryPool::with_segments(0, true);
        let a = e.malloc(3 * G, &s).unwrap();
        let b = e.malloc(3 * G, &s).unwrap();
        drop(b);
        let c = e.malloc(4 * G, &s).unwrap();
        assert_eq!(e.stats().peak_total, 7 * G, "the freed tail was extended by one granule, not a new 4 G segment");
        drop((a, c));
    }

    #[test]
    fn an_expandable_pool_takes_the_lowest_addressed_block_that_fits_a_classic_one_the_best() {
        let (_, s) = setup();
        let classic = MemoryPool::new(0);
        let expandable = MemoryPool::with_segments(0, true);
        for pool in [&classic, &expandable] {
            let low = pool.malloc(3 * G, &s).unwrap();
            let keep = pool.malloc(G, &s).unwrap();
            let high = pool.malloc(2 * G, &s).unwrap();
            let last = pool.malloc(G, &s).unwrap();
            let (low_at, high_at) = (low.ptr(), high.ptr());
            drop((low, high));
            let got = pool.malloc(G, &s).unwrap();
            let want = if pool.expandable() { low_at } else { high_at };
            assert_eq!(got.ptr(), want, "expandable: {}", pool.expandable());
            drop((keep, last, got));
        }
    }

    #[test]
    fn an_expandable_pool_past_its_limit_unmaps_free_tails_and_retries() {
        let (_, s) = setup();
        let pool = MemoryPool::with_segments(0, true);
        pool.set_limit(4 * G);
        let a = pool.malloc(2 * G, &s).unwrap();
        drop(pool.malloc(2 * G, &s).unwrap());
        // Busy past the free: another stream cannot take the block, and needs a segment of its own.
        s.sleep(50_000_000).unwrap();
        drop(a);
        let s2 = Arc::new(Stream::create(0, true, None).unwrap());
        // Only unmapping the first segment's free tail makes room.
        let b = pool.malloc(3 * G, &s2).unwrap();
        let st = pool.stats();
        assert_eq!((st.retries, st.total, st.released), (1, 3 * G, 4 * G));
        let err = pool.malloc(2 * G, &s2).err().expect("over the limit");
        assert!(err.is_code(Code::CUDA_ERROR_OUT_OF_MEMORY), "{err}");
        drop(b);
    }

    #[test]
    fn an_expandable_pool_takes_no_allocator() {
        let (_, s) = setup();
        let pool = MemoryPool::with_segments(0, true);
        let mut source = |_n: u64| -> Result<Arc<Block>> { unreachable!() };
        let err = pool.malloc_from(1, &s, Some(&mut source)).err().expect("refused");
        assert!(err.message().contains("takes no allocator"), "{err}");
    }

    #[test]
    fn the_alloc_conf_reads_expandable_segments_and_names_an_unknown_key() {
        assert_eq!(parse_alloc_conf("").unwrap(), AllocConf { expandable_segments: false });
        assert_eq!(parse_alloc_conf("expandable_segments:True").unwrap(), AllocConf { expandable_segments: true });
        assert_eq!(parse_alloc_conf(" expandable_segments : false ,").unwrap(), AllocConf { expandable_segments: false });
        let e = parse_alloc_conf("max_split_size_mb:128").unwrap_err();
        assert_eq!(e.message(), "CUDA_NODE_ALLOC_CONF: unknown key 'max_split_size_mb' (the known key is expandable_segments)");
        assert!(parse_alloc_conf("expandable_segments:yes").unwrap_err().message().contains("must be true or false, got 'yes'"));
        assert!(parse_alloc_conf("expandable_segments").unwrap_err().message().contains("key:value pairs"));
    }
}
