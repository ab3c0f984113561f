//! The registration cache (#32.7): a pageable buffer copied a second time is page-locked once
//! (`cuMemHostRegister`, through [`PinnedBlock::register`]) and stays so while it lives, within
//! a byte limit, so that copies from and to it run at pinned speed. The embedder names each
//! buffer by an id it keeps valid while the buffer lives, and says when it is gone ([`release`]:
//! its JS object collected); a range of another id overlapping a cached one means the cached
//! buffer's memory was freed and reused before that was said, and its entry goes first, so a
//! registration is only ever used for the live buffer it was made for.
//!
//! Per JS thread: the buffers are that thread's, and so are their ids.

use crate::error::Result;
use crate::pinned::PinnedBlock;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Buffers smaller than this are copied as they were (the driver's own pageable path is as
/// fast as registering would be for them): the copies the cache is for are the large ones.
pub const MIN_BYTES: u64 = 8 << 20;

/// The default limit of bytes kept registered on a thread; `CUDA_NODE_REGISTER_CACHE_LIMIT`
/// (bytes; 0 turns the cache off) sets another.
pub const DEFAULT_LIMIT: u64 = 4 << 30;

/// The environment variable that sets the limit.
pub const LIMIT_ENV: &str = "CUDA_NODE_REGISTER_CACHE_LIMIT";

struct Entry {
    len: u64,
    id: u64,
    /// Set from the second copy on, while the limit allows.
    block: Option<Arc<PinnedBlock>>,
    /// The driver refused to register it (managed memory's host view, say): copied as before.
    refused: bool,
}

/// What the cache holds and has done, on this thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Copies served by a registration made before.
    pub hits: u64,
    /// Buffers registered (their second copy).
    pub registrations: u64,
    /// Buffers seen once, or not registered for the limit.
    pub misses: u64,
    /// Bytes registered now.
    pub registered_bytes: u64,
    /// Buffers known now (registered or seen once).
    pub entries: u64,
    /// The limit of registered bytes.
    pub limit: u64,
}

struct Cache {
    entries: BTreeMap<u64, Entry>,
    limit: Option<u64>,
    stats: CacheStats,
}

thread_local! {
    static CACHE: RefCell<Cache> = const { RefCell::new(Cache { entries: BTreeMap::new(), limit: None, stats: CacheStats { hits: 0, registrations: 0, misses: 0, registered_bytes: 0, entries: 0, limit: 0 } }) };
}

impl Cache {
    fn limit(&mut self) -> u64 {
        *self.limit.get_or_insert_with(|| std::env::var(LIMIT_ENV).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(DEFAULT_LIMIT))
    }

    /// Takes out the entries overlapping `[start, start + len)` that are not `id`'s.
    fn take_stale(&mut self, start: u64, len: u64, id: Option<u64>) -> Vec<Entry> {
        // Entries are disjoint (each a live buffer, or a stale one let go before another was put
        // over it): from the last that starts before `end` back to the first that starts
        // before `start`, which may reach into the range too.
        let end = start.saturating_add(len.max(1));
        let mut stale = Vec::new();
        for (&at, e) in self.entries.range(..end).rev() {
            if at.saturating_add(e.len) > start && Some(e.id) != id {
                stale.push(at);
            }
            if at < start {
                break;
            }
        }
        stale.into_iter().filter_map(|at| self.remove(at)).collect()
    }

    fn remove(&mut self, at: u64) -> Option<Entry> {
        let e = self.entries.remove(&at)?;
        if e.block.is_some() {
            self.stats.registered_bytes -= e.len;
        }
        Some(e)
    }
}

/// The id of the buffer cached at `start`, if any: the embedder checks it still names the
/// buffer it copies now, else it gives a new id (and the old entry goes as stale).
pub fn id_at(start: u64) -> Option<u64> {
    CACHE.with(|c| c.borrow().entries.get(&start).map(|e| e.id))
}

/// Whether anything is cached on this thread (a copy of any size then checks for stale entries).
pub fn is_empty() -> bool {
    CACHE.with(|c| c.borrow().entries.is_empty())
}

/// A copy from or to `[start, start + len)` (a whole buffer), which the embedder names `id`:
/// the registration to copy through, if the buffer has one now. The first copy of a buffer
/// notes it; the second registers it, where the limit allows. Entries of other ids that overlap
/// the range are let go first (their registration released once no queued copy holds it).
pub fn copy(start: u64, len: u64, id: u64) -> Result<Option<Arc<PinnedBlock>>> {
    let stale = CACHE.with(|c| c.borrow_mut().take_stale(start, len, Some(id)));
    drop(stale);
    if len < MIN_BYTES {
        return Ok(None);
    }
    let seen = CACHE.with(|c| {
        let mut c = c.borrow_mut();
        match c.entries.get(&start) {
            Some(e) if e.len == len && e.refused => {
                c.stats.misses += 1;
                None
            }
            Some(e) if e.len == len => match &e.block {
                Some(b) => {
                    let b = b.clone();
                    c.stats.hits += 1;
                    Some(Some(b))
                }
                None => Some(None),
            },
            _ => {
                // A buffer seen for the first time (or with another length: a new one).
                drop(c.remove(start));
                c.entries.insert(start, Entry { len, id, block: None, refused: false });
                c.stats.misses += 1;
                None
            }
        }
    });
    let Some(seen) = seen else { return Ok(None) };
    if seen.is_some() {
        return Ok(seen);
    }
    // The second copy: register it, within the limit.
    let room = CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let limit = c.limit();
        c.stats.registered_bytes.saturating_add(len) <= limit
    });
    if !room {
        CACHE.with(|c| c.borrow_mut().stats.misses += 1);
        return Ok(None);
    }
    let block = match PinnedBlock::register(start as *mut u8, len, Box::new(())) {
        Ok(b) => b,
        Err(_) => {
            CACHE.with(|c| {
                let mut c = c.borrow_mut();
                c.stats.misses += 1;
                if let Some(e) = c.entries.get_mut(&start) {
                    e.refused = true;
                }
            });
            return Ok(None);
        }
    };
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(e) = c.entries.get_mut(&start) {
            e.block = Some(block.clone());
            c.stats.registered_bytes += len;
            c.stats.registrations += 1;
        }
    });
    Ok(Some(block))
}

/// A copy of `[start, start + len)` that is not cached (a small or a pitched one): lets go of
/// the entries it overlaps but `keep`'s (the copied buffer's own, where it is cached), whose
/// buffers must be gone: the driver must never find their registration under these bytes.
pub fn forget_overlapping(start: u64, len: u64, keep: Option<u64>) {
    let stale = CACHE.with(|c| c.borrow_mut().take_stale(start, len, keep));
    drop(stale);
}

/// Lets go of every entry overlapping `[start, start + len)`, live or not, and of the finished
/// copies' holds on their registrations: before `registerHost` registers those bytes itself
/// (the driver refuses bytes registered twice).
pub fn let_go(start: u64, len: u64) {
    let gone = CACHE.try_with(|c| {
        let mut c = c.borrow_mut();
        let mut all = c.take_stale(start, len, None);
        // take_stale keeps entries of a given id; with none, it takes every overlapping one.
        all.retain(|e| e.block.is_some());
        all
    });
    if let Ok(gone) = gone {
        if !gone.is_empty() {
            drop(gone);
            if let Ok(rt) = crate::runtime() {
                rt.backend.host_memory().release_finished_holds();
            }
            crate::reaper::flush();
        }
    }
}

/// The buffer named `id` is gone (collected): its registration is released once no queued copy
/// holds it.
pub fn release(id: u64) {
    let gone: Vec<Entry> = CACHE
        .try_with(|c| {
            let mut c = c.borrow_mut();
            let ats: Vec<u64> = c.entries.iter().filter(|(_, e)| e.id == id).map(|(&at, _)| at).collect();
            ats.into_iter().filter_map(|at| c.remove(at)).collect()
        })
        .unwrap_or_default();
    drop(gone);
}

/// Lets go of every entry of this thread (its JS environment is going away: `teardown`).
pub fn clear() {
    let gone: Vec<Entry> = CACHE
        .try_with(|c| {
            let mut c = c.borrow_mut();
            c.stats.registered_bytes = 0;
            std::mem::take(&mut c.entries).into_values().collect()
        })
        .unwrap_or_default();
    drop(gone);
}

/// Sets the limit of registered bytes on this thread (0: no new registrations). Those already
/// made stay until their buffers go.
pub fn set_limit(bytes: u64) {
    CACHE.with(|c| c.borrow_mut().limit = Some(bytes));
}

pub fn stats() -> CacheStats {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let limit = c.limit();
        CacheStats { entries: c.entries.len() as u64, limit, ..c.stats }
    })
}
