//! Stream capture bookkeeping shared by both backends: which devices have a capture under way,
//! and frees that must wait for it. A `cudaFree` (or anything that synchronizes) during a
//! capture would invalidate it, or fail outright under the global mode (C5, M2), so memory the
//! GC releases meanwhile is kept here and freed when the device's last capture ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

// The seam's data (`ops.rs`), re-exported here where they were first defined.
pub use crate::ops::{CaptureMode, CaptureStatus};

/// Captures under way per device, and how many on blocking streams: read on every enqueue, so
/// atomics rather than the registry's lock. Devices past the array count through the lock only.
const FAST: usize = 64;
static ACTIVE: [AtomicUsize; FAST] = [const { AtomicUsize::new(0) }; FAST];
static BLOCKING: [AtomicUsize; FAST] = [const { AtomicUsize::new(0) }; FAST];
/// Captures under way on any device.
static ANY: AtomicUsize = AtomicUsize::new(0);

/// What a capture under way keeps for its graph (host functions, pinned memory), shared with
/// the streams that join it.
pub(crate) type Keep = std::sync::Arc<Mutex<crate::graph::Captured>>;

#[derive(Default)]
struct DeviceCaptures {
    /// The keep lists of the captures under way through this library.
    keeps: Vec<Keep>,
    active: usize,
    /// Captures on blocking streams: the legacy stream may not be used meanwhile (C6c).
    blocking: usize,
    deferred: Vec<Box<dyn Send>>,
}

fn registry() -> MutexGuard<'static, HashMap<usize, DeviceCaptures>> {
    static R: OnceLock<Mutex<HashMap<usize, DeviceCaptures>>> = OnceLock::new();
    R.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn began(device: usize, blocking: bool, keep: &Keep) {
    let mut r = registry();
    let d = r.entry(device).or_default();
    d.keeps.push(keep.clone());
    d.active += 1;
    d.blocking += blocking as usize;
    ANY.fetch_add(1, Ordering::AcqRel);
    if device < FAST {
        ACTIVE[device].fetch_add(1, Ordering::AcqRel);
        BLOCKING[device].fetch_add(blocking as usize, Ordering::AcqRel);
    }
}

/// Records the end of a capture; once none remains, the deferred frees happen (here, outside the lock).
pub(crate) fn ended(device: usize, blocking: bool, keep: &Keep) {
    let released = {
        let mut r = registry();
        let d = r.entry(device).or_default();
        d.keeps.retain(|k| !std::sync::Arc::ptr_eq(k, keep));
        if d.active > 0 {
            ANY.fetch_sub(1, Ordering::AcqRel);
        }
        d.active = d.active.saturating_sub(1);
        d.blocking = d.blocking.saturating_sub(blocking as usize);
        if device < FAST {
            ACTIVE[device].store(d.active, Ordering::Release);
            BLOCKING[device].store(d.blocking, Ordering::Release);
        }
        if d.active == 0 {
            std::mem::take(&mut d.deferred)
        } else {
            Vec::new()
        }
    };
    drop(released);
}

/// True while any stream of `device` is capturing (through this library).
pub fn active(device: usize) -> bool {
    if device < FAST {
        return ACTIVE[device].load(Ordering::Acquire) > 0;
    }
    registry().get(&device).is_some_and(|d| d.active > 0)
}

/// True while any stream of any device is capturing (through this library): a thread may then be
/// barred from calls such as `cuEventQuery` (the global capture mode bars them on every thread).
pub fn any_active() -> bool {
    ANY.load(Ordering::Acquire) > 0
}

/// True while a blocking stream of `device` is capturing.
pub fn blocking_active(device: usize) -> bool {
    if device < FAST {
        return BLOCKING[device].load(Ordering::Acquire) > 0;
    }
    registry().get(&device).is_some_and(|d| d.blocking > 0)
}

/// Keeps `value` until the device's captures have ended, if any is under way; else gives it back.
pub(crate) fn defer_if_capturing<T: Send + 'static>(device: usize, value: T) -> Option<T> {
    let mut r = registry();
    match r.get_mut(&device) {
        Some(d) if d.active > 0 => {
            d.deferred.push(Box::new(value));
            None
        }
        _ => Some(value),
    }
}

/// For a stream that joined a capture begun on another stream (by waiting on an event recorded
/// in it): the driver does not say which of the device's captures it joined, so what it must keep
/// is kept by each capture under way on the device (a graph may then hold memory a little longer,
/// never too short). Returns false where none is under way here.
pub(crate) fn keep_in_joined(device: usize, add: impl Fn(&mut crate::graph::Captured)) -> bool {
    let r = registry();
    let Some(d) = r.get(&device).filter(|d| !d.keeps.is_empty()) else { return false };
    for k in &d.keeps {
        add(&mut k.lock().unwrap_or_else(|p| p.into_inner()));
    }
    true
}
