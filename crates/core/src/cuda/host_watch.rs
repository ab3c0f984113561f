//! Host functions run as soon as their stream gets there. The driver runs a host function on its
//! one callback thread, which it wakes when the stream reaches it: ~16 µs on an idle stream of
//! an H200, before our function has even handed its work to the JS thread. So each host function
//! is queued twice: an event recorded just before it, which a thread of ours watches, spinning,
//! for a short while; and the host function itself, as before. Whichever gets there first runs
//! the function; the other finds it gone. The driver's still runs it when the watch gave up
//! (a long wait) and still orders it: a synchronize returns only after it, and so after the
//! function ran, on either thread.
//!
//! Stream order holds: a later host function's event completes only after the earlier host
//! function has returned (the stream waits for it), by which time the earlier one has run.

use super::device::CudaDevice;
use super::raw;
use crate::ops::HostFn;
use cudarc::driver::sys;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

const FLAGS: u32 = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;

/// How long a host function is watched; after that the driver's callback thread runs it, and
/// this thread spins no longer for it.
const WATCH: Duration = Duration::from_micros(500);

/// How long the thread keeps spinning once nothing is left to watch, for the next host function:
/// waking a sleeping thread costs about what the driver's own wake does.
const LINGER: Duration = Duration::from_millis(2);

/// One host function, run by the first of the watch and the driver's callback to get there.
pub(super) struct Race(Mutex<Option<HostFn>>);

impl Race {
    pub(super) fn new(f: HostFn) -> Race {
        Race(Mutex::new(Some(f)))
    }

    /// Runs the function unless it already ran. It runs under the lock, so the other side, finding
    /// it gone, returns only once it has run: a synchronize after the driver's callback sees it done.
    pub(super) fn run(&self) {
        let mut f = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = f.take() {
            let _ = catch_unwind(AssertUnwindSafe(f));
        }
    }
}

/// A host function watched through the event recorded just before it.
struct Watched {
    race: Arc<Race>,
    event: sys::CUevent,
    dev: Arc<CudaDevice>,
    /// The stream's address and device: its entries are asked in order. (The per-thread
    /// default streams of two threads share one: a wrong guess there only leaves a function to
    /// the driver's callback.)
    stream: (usize, usize),
    since: Instant,
}

// SAFETY: a CUevent may be queried and recorded from any thread; the rest is Send.
unsafe impl Send for Watched {}

struct Watch {
    list: Mutex<Vec<Watched>>,
    wake: Condvar,
    /// Whether the thread sleeps on `wake` (written under `list`'s lock, read under it).
    asleep: AtomicBool,
}

fn watch() -> &'static Watch {
    static WATCH_: OnceLock<&'static Watch> = OnceLock::new();
    WATCH_.get_or_init(|| {
        let w: &'static Watch = Box::leak(Box::new(Watch { list: Mutex::new(Vec::new()), wake: Condvar::new(), asleep: AtomicBool::new(false) }));
        // Without its thread, every host function is the driver's alone, as before.
        let _ = std::thread::Builder::new().name("cuda-node host watch".into()).spawn(move || w.run());
        w
    })
}

impl Watch {
    fn lock(&self) -> MutexGuard<'_, Vec<Watched>> {
        self.list.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn run(&self) {
        let mut idle_since = Instant::now();
        loop {
            let mut list = self.lock();
            if list.is_empty() {
                if idle_since.elapsed() < LINGER {
                    drop(list);
                    std::hint::spin_loop();
                    std::thread::yield_now();
                    continue;
                }
                self.asleep.store(true, Ordering::Relaxed);
                while list.is_empty() {
                    list = self.wake.wait(list).unwrap_or_else(|p| p.into_inner());
                }
                self.asleep.store(false, Ordering::Relaxed);
            }
            // Scanned without the lock, so a thread queueing a host function never waits for
            // the driver's answers here; what it queues meanwhile joins after these.
            let mut mine = std::mem::take(&mut *list);
            drop(list);
            let (run, done) = scan(&mut mine);
            let mut list = self.lock();
            mine.append(&mut list);
            *list = mine;
            if list.is_empty() {
                idle_since = Instant::now();
            }
            drop(list);
            for race in run {
                race.run();
            }
            for (dev, event) in done {
                release(&dev, event);
            }
        }
    }
}

/// An event no longer watched, and the device it goes back to.
type Left = (Arc<CudaDevice>, sys::CUevent);

/// Takes out of `list` the host functions whose events completed (to run) and those watched long
/// enough (left to the driver's callback), with the events either leaves. A stream's entries after
/// one still pending are not asked: their events cannot have completed before it.
fn scan(list: &mut Vec<Watched>) -> (Vec<Arc<Race>>, Vec<Left>) {
    let now = Instant::now();
    let mut pending: Vec<(usize, usize)> = Vec::new();
    let (mut run, mut done) = (Vec::new(), Vec::new());
    list.retain(|w| {
        let state = if pending.contains(&w.stream) {
            Ok(false)
        } else {
            // SAFETY: a watched event is live until released.
            unsafe { raw::event_query(w.event) }
        };
        match state {
            Ok(true) => run.push(w.race.clone()),
            Ok(false) => {
                if !pending.contains(&w.stream) {
                    pending.push(w.stream);
                }
                if now.duration_since(w.since) < WATCH {
                    return true;
                }
            }
            // The event cannot tell (a faulted context): the driver's callback runs the
            // function, or does not, as before.
            Err(_) => {}
        }
        done.push((w.dev.clone(), w.event));
        false
    });
    (run, done)
}

/// Records the event the watch will spin on, just before the host function is queued on `stream`:
/// None where it cannot (the driver's callback then runs the function alone).
pub(super) fn mark(dev: &CudaDevice, stream: sys::CUstream) -> Option<sys::CUevent> {
    let event = match dev.recycled.take_event(FLAGS) {
        Some(e) => e,
        None => raw::event_create(FLAGS).ok()?,
    };
    // SAFETY: the event and the stream are live.
    if unsafe { raw::event_record(event, stream) }.is_err() {
        release(dev, event);
        return None;
    }
    Some(event)
}

/// Watches `event` (from [`mark`]) for the host function queued after it.
pub(super) fn start(dev: &Arc<CudaDevice>, stream: sys::CUstream, event: sys::CUevent, race: Arc<Race>) {
    let w = watch();
    let mut list = w.lock();
    list.push(Watched { race, event, dev: dev.clone(), stream: (stream as usize, dev.ordinal), since: Instant::now() });
    if w.asleep.load(Ordering::Relaxed) {
        w.wake.notify_one();
    }
}

/// Gives back a [`mark`]ed event that will not be watched (the host function was not queued).
pub(super) fn unmark(dev: &CudaDevice, event: sys::CUevent) {
    release(dev, event);
}

/// Keeps a watched event for reuse, or destroys it.
fn release(dev: &CudaDevice, event: sys::CUevent) {
    if !dev.recycled.keep_event(event, FLAGS) {
        // SAFETY: the event is ours and released once.
        super::dropped::record("cuEventDestroy", unsafe { raw::event_destroy(event) });
    }
}
