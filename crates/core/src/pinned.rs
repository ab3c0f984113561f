//! Pinned (page-locked) host memory (CuPy's `PinnedMemory` and `PinnedMemoryPool`). Copies
//! from and to it are truly asynchronous, so the bytes are shared with queued work, which keeps
//! them alive until it has run.

use crate::error::{Error, Result};
use crate::memory::round_size;
use crate::ops::HostBytes;
use crate::runtime;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

// The seam's trait (`ops.rs`), re-exported here where it was first defined.
pub use crate::ops::PinnedOps;

/// One pinned allocation, from the pool it returns to when dropped.
pub struct PinnedBlock {
    ops: Option<Box<dyn PinnedOps>>,
    size: u64,
    capacity: u64,
    home: Weak<PinnedPool>,
    /// Registered memory's owner (the JS buffer), let go after the memory is unregistered.
    keep: Option<crate::memory::Keep>,
    /// References held by views of the bytes that the embedder handed out (an ArrayBuffer over
    /// them): owned by JS, not by queued work (`wait_unused`).
    views: std::sync::atomic::AtomicUsize,
}

thread_local! {
    /// Memory registered on this thread: its bytes are this thread's JS heap, freed with the
    /// thread, so its teardown waits for the queued work that still uses them — whoever holds
    /// the blocks, or after they were let go while a copy held them (`registered_here`).
    static REGISTERED: std::cell::RefCell<Vec<Weak<PinnedBlock>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Every block registered on this thread that something (queued work, its owner) still holds.
pub fn registered_here() -> Vec<Arc<PinnedBlock>> {
    REGISTERED.try_with(|r| r.borrow_mut().drain(..).filter_map(|w| w.upgrade()).collect()).unwrap_or_default()
}

fn note_registered(block: &Arc<PinnedBlock>) {
    let _ = REGISTERED.try_with(|r| {
        let mut r = r.borrow_mut();
        // Let go of the dead ones now and then, so the list stays as long as the live ones.
        if r.len() >= 64 && r.len().is_power_of_two() {
            r.retain(|w| w.strong_count() > 0);
        }
        r.push(Arc::downgrade(block));
    });
}

impl PinnedBlock {
    /// Page-locks `len` bytes of host memory at `ptr` that `keep` owns (`cuMemHostRegister`,
    /// CuPy's `hostRegister`); unregistered when the block is dropped, before `keep` is.
    /// Asking twice for the same bytes is `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`.
    pub fn register(ptr: *mut u8, len: u64, keep: crate::memory::Keep) -> Result<Arc<PinnedBlock>> {
        if len == 0 {
            return Err(Error::range("registerHost needs at least one byte"));
        }
        let ops = runtime()?.backend.host_memory().register(ptr, len)?;
        let block = Arc::new(PinnedBlock {
            ops: Some(ops),
            size: len,
            capacity: len,
            home: Weak::new(),
            keep: Some(keep),
            views: Default::default(),
        });
        note_registered(&block);
        Ok(block)
    }

    /// Waits until no queued work holds `block` — a copy from or into it, a graph launch that
    /// uses it — only the caller's reference left. For registered memory whose owner is about to
    /// go with its JS thread (a worker terminated): the bytes belong to that thread's JS heap and
    /// are freed with it, whatever we hold, so work still queued on them must run first (#20: a
    /// queued copy into a terminated worker's registered buffer corrupted the heap). Graphs that
    /// captured it keep it for good: the caller lets them go first.
    pub fn wait_unused(block: &Arc<PinnedBlock>) {
        let held_by_work = || Arc::strong_count(block) > 1 + block.views.load(std::sync::atomic::Ordering::Acquire);
        while held_by_work() {
            // Finished copies' holds go at the next use of their stream; the reaper drops the holds
            // of destroyed streams and of graph launches, each once its work has run.
            if let Ok(rt) = runtime() {
                rt.backend.host_memory().release_finished_holds();
            }
            crate::reaper::flush();
            if held_by_work() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    }

    /// Checks that `block` (its owner's one reference) is registered memory that no queued work
    /// uses any more, so it may be unregistered now. A finished copy's hold goes when its stream
    /// is next used or synchronized, or on the reaper thread: once the copies have run (an event
    /// or stream synchronized), those holds are let go here rather than refuse.
    pub fn check_unregister(block: &Arc<PinnedBlock>) -> Result<()> {
        if !block.is_registered() {
            return Err(Error::type_error("unregister is for memory made by registerHost; free() pinned memory from a pool"));
        }
        let held = || Arc::strong_count(block) > 1;
        if held() {
            if let Ok(rt) = runtime() {
                rt.backend.host_memory().release_finished_holds();
            }
            crate::reaper::flush();
        }
        if held() {
            return Err(Error::cuda(
                crate::Code::CUDA_ERROR_ILLEGAL_STATE,
                "registered memory is still used by queued copies: synchronize their stream first, or free() it to unregister once they are done",
            ));
        }
        Ok(())
    }

    /// A reference `block` gives a view of its bytes (call with that reference; `unview` when the
    /// view lets it go): not counted as queued work by `wait_unused`.
    pub fn view(block: Arc<PinnedBlock>) -> *const PinnedBlock {
        block.views.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Arc::into_raw(block)
    }

    /// Lets go of a view's reference.
    ///
    /// # Safety
    /// `raw` comes from `view`, and is let go once.
    pub unsafe fn unview(raw: *const PinnedBlock) {
        // SAFETY: `view` made it from an Arc; this is its one release.
        let block = unsafe { Arc::from_raw(raw) };
        block.views.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// True for memory registered with `register` rather than allocated pinned.
    pub fn is_registered(&self) -> bool {
        self.keep.is_some()
    }

    pub fn ptr(&self) -> *mut u8 {
        self.ops.as_ref().map_or(std::ptr::null_mut(), |o| o.ptr())
    }
    pub fn size(&self) -> u64 {
        self.size
    }
    pub fn check_range(&self, offset: u64, len: u64, what: &str) -> Result<()> {
        crate::memory::check_range(self.size, offset, len, what)
    }

    /// Copies `src` into the block at `offset`.
    pub fn write(&self, offset: u64, src: &[u8]) -> Result<()> {
        self.check_range(offset, src.len() as u64, "write")?;
        // SAFETY: the range lies inside the block (checked); ordering other access to the bytes
        // is the caller's, as with CUDA itself.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr().add(offset as usize), src.len()) };
        Ok(())
    }

    /// Copies from the block at `offset` into `dst`.
    pub fn read(&self, offset: u64, dst: &mut [u8]) -> Result<()> {
        self.check_range(offset, dst.len() as u64, "read")?;
        // SAFETY: as for `write`.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr().add(offset as usize), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }
}

// SAFETY: the block is plain memory handed out once; concurrent access is the user's to order,
// as with CUDA itself.
unsafe impl Send for PinnedBlock {}
// SAFETY: as above.
unsafe impl Sync for PinnedBlock {}

impl HostBytes for PinnedBlock {
    fn ptr(&self) -> *mut u8 {
        PinnedBlock::ptr(self)
    }
    fn len(&self) -> u64 {
        self.size
    }
}

impl Drop for PinnedBlock {
    fn drop(&mut self) {
        if let (Some(ops), Some(pool)) = (self.ops.take(), self.home.upgrade()) {
            pool.cache(self.capacity, ops);
        }
        // Unregistered (ops dropped above) before the owner of the bytes is let go.
        drop(self.ops.take());
        drop(self.keep.take());
    }
}

/// Caches freed pinned allocations by size (512-byte bins), since pinning is slow.
pub struct PinnedPool {
    free: Mutex<HashMap<u64, Vec<Box<dyn PinnedOps>>>>,
    me: Weak<PinnedPool>,
}

impl PinnedPool {
    pub fn new() -> Arc<PinnedPool> {
        Arc::new_cyclic(|me| PinnedPool { free: Mutex::new(HashMap::new()), me: me.clone() })
    }

    fn cache(&self, capacity: u64, ops: Box<dyn PinnedOps>) {
        self.free.lock().unwrap_or_else(|p| p.into_inner()).entry(capacity).or_default().push(ops);
    }

    pub fn malloc(&self, size: u64) -> Result<Arc<PinnedBlock>> {
        if size > isize::MAX as u64 {
            return Err(Error::range(format!("{size} bytes is more than a host allocation can hold")));
        }
        if size == 0 {
            // As CuPy's PinnedMemoryPool: nothing is pinned for 0 bytes, so freeing it gives the
            // pool no block.
            return Ok(Arc::new(PinnedBlock { ops: None, size: 0, capacity: 0, home: Weak::new(), keep: None, views: Default::default() }));
        }
        let capacity = round_size(size);
        let cached = self.free.lock().unwrap_or_else(|p| p.into_inner()).get_mut(&capacity).and_then(Vec::pop);
        let ops = match cached {
            Some(ops) => ops,
            None => match runtime()?.backend.host_memory().alloc(capacity) {
                Ok(ops) => ops,
                Err(e) if e.is_code(crate::Code::CUDA_ERROR_OUT_OF_MEMORY) => {
                    self.free_all_blocks();
                    runtime()?.backend.host_memory().alloc(capacity)?
                }
                Err(e) => return Err(e),
            },
        };
        Ok(Arc::new(PinnedBlock { ops: Some(ops), size, capacity, home: self.me.clone(), keep: None, views: Default::default() }))
    }

    pub fn n_free_blocks(&self) -> usize {
        self.free.lock().unwrap_or_else(|p| p.into_inner()).values().map(Vec::len).sum()
    }

    /// Releases the cached allocations (`cuMemFreeHost`).
    pub fn free_all_blocks(&self) {
        let all: Vec<_> = self.free.lock().unwrap_or_else(|p| p.into_inner()).drain().collect();
        drop(all);
    }
}
