//! Host memory that a stream's queued copies use, held until they have run. An event recorded
//! after each copy says when (PyTorch's caching host allocator does the same); finished holds are
//! let go the next time the stream is used, synchronized or found idle. A host function queued
//! after each copy would do it too, but it stalls the stream on the driver's one callback thread,
//! which kept pipelines over several streams from overlapping their copies.

use super::device::CudaDevice;
use super::raw;
use crate::error::{Check, Result};
use crate::ops::HostBytes;
use cudarc::driver::sys;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

const FLAGS: u32 = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;

/// A hold: the host bytes, until `event` (recorded after the copy) has completed.
struct Hold {
    event: sys::CUevent,
    _host: Arc<dyn HostBytes>,
}

// SAFETY: a CUevent may be used from any thread; the host bytes are Send + Sync.
unsafe impl Send for Hold {}

/// One stream's holds, oldest first, and its device (where finished events go for reuse).
struct Shared {
    queue: Mutex<VecDeque<Hold>>,
    dev: Arc<CudaDevice>,
    /// How many holds the queue has: a stream with none (the usual case) is reaped without
    /// taking the lock, on every synchronize and query. Written under the lock.
    held: AtomicUsize,
}

pub(super) struct Holds(Arc<Shared>);

/// Every stream's holds, so that a caller waiting for host memory to be let go (unregistering
/// it after an event synchronize, say) can have finished holds released wherever they are.
fn all() -> MutexGuard<'static, Vec<Weak<Shared>>> {
    static ALL: Mutex<Vec<Weak<Shared>>> = Mutex::new(Vec::new());
    ALL.lock().unwrap_or_else(|p| p.into_inner())
}

/// Lets go of every stream's finished holds.
pub(super) fn reap_all() {
    let live: Vec<_> = {
        let mut a = all();
        a.retain(|w| w.strong_count() > 0);
        a.iter().filter_map(Weak::upgrade).collect()
    };
    for h in live {
        Holds(h).reap_here();
    }
}

impl Holds {
    pub(super) fn new(dev: &Arc<CudaDevice>) -> Holds {
        let inner = Arc::new(Shared { queue: Mutex::new(VecDeque::new()), dev: dev.clone(), held: AtomicUsize::new(0) });
        let mut a = all();
        if a.len() > 64 {
            a.retain(|w| w.strong_count() > 0);
        }
        a.push(Arc::downgrade(&inner));
        Holds(inner)
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<Hold>> {
        self.0.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn reap_here(&self) {
        let dev = self.0.dev.clone();
        self.reap(&dev);
    }

    /// Holds `host` until the work queued on `stream` so far has run.
    pub(super) fn add(&self, dev: &CudaDevice, stream: sys::CUstream, host: Arc<dyn HostBytes>) -> Result<()> {
        self.reap(dev);
        let event = match dev.recycled.take_event(FLAGS) {
            Some(e) => e,
            None => raw::event_create(FLAGS).check("cuEventCreate")?,
        };
        // SAFETY: event and stream are live.
        if let Err(e) = unsafe { raw::event_record(event, stream) }.check("cuEventRecord") {
            // Not recorded: wait for the copy here before the bytes may go.
            // SAFETY: the stream and the event are live; the event is ours, released once.
            unsafe {
                super::dropped::record("cuStreamSynchronize", raw::stream_synchronize(stream));
                super::dropped::record("cuEventDestroy", raw::event_destroy(event));
            }
            return Err(e);
        }
        let mut q = self.lock();
        q.push_back(Hold { event, _host: host });
        self.0.held.store(q.len(), Ordering::Release);
        Ok(())
    }

    /// Lets go of the holds whose copies have run, each asked of its event: even right after a
    /// synchronize, since another thread may have queued a copy meanwhile.
    pub(super) fn reap(&self, dev: &CudaDevice) {
        // A hold added on another thread meanwhile is let go at a later reap.
        if self.0.held.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut done = Vec::new();
        {
            let mut q = self.lock();
            // SAFETY: every held event is live until released below.
            while q.front().is_some_and(|h| matches!(unsafe { raw::event_query(h.event) }, Ok(true))) {
                done.extend(q.pop_front());
            }
            self.0.held.store(q.len(), Ordering::Release);
        }
        for h in done {
            release(dev, h.event);
        }
    }

    /// The holds still pending when the stream goes: they move to the reaper thread, which waits
    /// for each copy before letting its bytes go.
    pub(super) fn orphan(&self, dev: &Arc<CudaDevice>) {
        let pending: Vec<Hold> = {
            let mut q = self.lock();
            self.0.held.store(0, Ordering::Release);
            q.drain(..).collect()
        };
        if pending.is_empty() {
            return;
        }
        struct Orphans(Arc<CudaDevice>, Vec<Hold>);
        impl Drop for Orphans {
            fn drop(&mut self) {
                for h in self.1.drain(..) {
                    // SAFETY: the event is live; waiting needs no current context.
                    super::dropped::record("cuEventSynchronize", unsafe { raw::event_synchronize(h.event) });
                    release(&self.0, h.event);
                }
            }
        }
        crate::reaper::defer_drop(Orphans(dev.clone(), pending));
    }
}

/// Keeps a completed hold's event for reuse, or destroys it.
fn release(dev: &CudaDevice, event: sys::CUevent) {
    if !dev.recycled.keep_event(event, FLAGS) {
        // SAFETY: the event is ours and released once.
        super::dropped::record("cuEventDestroy", unsafe { raw::event_destroy(event) });
    }
}
