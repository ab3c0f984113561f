//! WebAssembly's cooperative simulator, the part every call takes: after each export, JS is
//! asked for a pump (the scheduler `simSetScheduler` registered, coop.rs) when simulated work is
//! queued and none is asked for by then. Natively nothing is ever due: the simulator's streams
//! have threads of their own, and [`after_call`] returns at once.

use napi::sys;
use std::cell::Cell;
use std::ptr;
use std::time::{Duration, Instant};

thread_local! {
    static SCHEDULER: Cell<sys::napi_ref> = const { Cell::new(ptr::null_mut()) };
    /// When the pump JS was last asked for is due (None: none is asked for).
    static DUE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// WebAssembly: whether a Promise waits for simulated work (task.rs says so).
    static WAITING: Cell<bool> = const { Cell::new(false) };
}

/// Keeps `scheduler` (a reference) as the one to call (registered once a thread: coop.rs).
pub fn set_scheduler(scheduler: sys::napi_ref) {
    SCHEDULER.set(scheduler);
}

/// Whether a scheduler is registered on this thread.
pub fn has_scheduler() -> bool {
    !SCHEDULER.get().is_null()
}

/// Records when the next pump is due (None: none asked for).
pub fn set_due(due: Option<Instant>) {
    DUE.set(due);
}

/// WebAssembly: whether a Promise waits for simulated work (a wait task.rs keeps).
#[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
pub fn set_waiting(waiting: bool) {
    WAITING.set(waiting);
}

/// How soon to pump: now when work can run or a waiting Promise may settle, at the end of a
/// sleep under way, or never (None) when nothing is left.
#[cfg(target_family = "wasm")]
pub fn next_pump() -> Option<Duration> {
    let next = cuda_node_core::host::next_pump();
    if next.is_none() && WAITING.get() {
        return Some(Duration::ZERO);
    }
    next
}

#[cfg(not(target_family = "wasm"))]
pub fn next_pump() -> Option<Duration> {
    None
}

/// `d` in whole milliseconds, rounded up, as `setTimeout` takes it.
pub fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e3).ceil()
}

/// After each export: asks JS for a pump when work is queued and none is asked for by then.
pub fn after_call(env: sys::napi_env) {
    let Some(wait) = next_pump() else { return };
    let due = Instant::now() + wait;
    if DUE.get().is_some_and(|d| d <= due) {
        return;
    }
    let r = SCHEDULER.get();
    if r.is_null() {
        return;
    }
    let (mut f, mut undefined, mut ms) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    // SAFETY: `r` is a reference made on this thread's env; the out-pointers are valid. The
    // scheduler only calls setTimeout, so it cannot re-enter the addon.
    unsafe {
        sys::napi_get_reference_value(env, r, &mut f);
        sys::napi_get_undefined(env, &mut undefined);
        sys::napi_create_double(env, millis(wait), &mut ms);
        if !f.is_null() && sys::napi_call_function(env, undefined, f, 1, &ms, ptr::null_mut()) == sys::Status::napi_ok {
            DUE.set(Some(due));
        }
    }
}
