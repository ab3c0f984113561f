//! An operation of a stream and its completion: what the engine enqueues, the workers (or,
//! without threads, `coop`) run, and events and graphs wait on. A leaf both of them import;
//! how a thread waits for a completion is the engine's (`Completion::wait`), since without
//! threads waiting means pumping `coop`'s queues.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
#[cfg(target_family = "wasm")]
use std::time::Duration;
use std::time::Instant;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Work that may run more than once (a graph replays it).
pub type Work = Arc<dyn Fn() + Send + Sync>;

/// The completion of one operation: unset until it has run, then the time it finished.
pub struct Completion {
    pub(super) at: Mutex<Option<Instant>>,
    pub(super) cv: Condvar,
}

impl Completion {
    pub fn pending() -> Arc<Self> {
        Arc::new(Completion { at: Mutex::new(None), cv: Condvar::new() })
    }

    pub fn done_now() -> Arc<Self> {
        Arc::new(Completion { at: Mutex::new(Some(Instant::now())), cv: Condvar::new() })
    }

    #[cfg_attr(target_family = "wasm", allow(dead_code))]
    pub(super) fn complete(&self) {
        self.complete_at(Instant::now());
    }

    /// Completes it as of `at` (a timed operation's end, WebAssembly).
    pub(super) fn complete_at(&self, at: Instant) {
        *lock(&self.at) = Some(at);
        self.cv.notify_all();
    }

    pub fn is_done(&self) -> bool {
        self.time().is_some()
    }

    pub fn time(&self) -> Option<Instant> {
        *lock(&self.at)
    }
}

pub(super) struct Op {
    pub(super) deps: Vec<Arc<Completion>>,
    pub(super) work: Work,
    pub(super) done: Arc<Completion>,
    /// WebAssembly: a timed operation (a sleep), held this long instead of running `work`.
    #[cfg(target_family = "wasm")]
    pub(super) delay: Option<Duration>,
    /// WebAssembly: when it was enqueued (it cannot have started earlier).
    #[cfg(target_family = "wasm")]
    pub(super) enqueued: Instant,
}

impl Op {
    /// Runs its work, then lets the work go (and what it holds: a copy's pinned or registered
    /// bytes) before handing back the completion to set, so whoever sees the operation complete
    /// also sees those holds gone — `unregister()` right after `synchronize()` finds none.
    pub(super) fn run(self) -> Arc<Completion> {
        (self.work)();
        self.done
    }
}
