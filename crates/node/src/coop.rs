//! The simulator's cooperative mode (WebAssembly, where there are no threads): queued stream
//! work runs when JS synchronizes, queries or waits (the core pumps then), and between
//! macrotasks: after any call that leaves work queued, the scheduler the TS layer registered
//! (`simSetScheduler`, a `setTimeout(simPump, ms)`) is called with how soon to pump, and
//! `simPump` runs what can run, settles the Promises of waits that are over, and says how soon
//! to pump again (a sleep kernel under way ends at a known time). Natively both exports do
//! nothing: the simulator's streams have threads of their own.

use crate::raw::{self, Func};
use napi::sys;
use std::cell::Cell;
use std::ptr;
use std::time::{Duration, Instant};

thread_local! {
    static SCHEDULER: Cell<sys::napi_ref> = const { Cell::new(ptr::null_mut()) };
    /// When the pump JS was last asked for is due (None: none is asked for).
    static DUE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// How soon to pump: now when work can run or a waiting Promise may settle, at the end of a
/// sleep under way, or never (None) when nothing is left.
#[cfg(target_family = "wasm")]
fn next_pump() -> Option<Duration> {
    let next = cuda_node_core::sim::coop::next_pump();
    if next.is_none() && crate::task::waiting() {
        return Some(Duration::ZERO);
    }
    next
}

#[cfg(not(target_family = "wasm"))]
fn next_pump() -> Option<Duration> {
    None
}

fn millis(d: Duration) -> f64 {
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

crate::exports! {
    /// Registers `(ms: number) => void`, called when simulated work is queued and should be
    /// pumped in `ms` milliseconds (WebAssembly only; natively it is kept and never called).
    c"simSetScheduler" => fn sim_set_scheduler(cx, scheduler: Func) -> () {
        let mut r = ptr::null_mut();
        // SAFETY: `scheduler` is a function of this call; `r` is a valid out-pointer.
        raw::ok(unsafe { sys::napi_create_reference(cx.env, scheduler.0, 1, &mut r) }, "keeping the scheduler")?;
        let old = SCHEDULER.replace(r);
        if !old.is_null() {
            // SAFETY: the old reference was made on this thread and is no longer kept.
            unsafe { sys::napi_delete_reference(cx.env, old) };
        }
        Ok(())
    }

    /// Runs the simulated work that can run now and settles the waits that are over
    /// (WebAssembly); in how many milliseconds to pump again, or -1 when nothing is left.
    c"simPump" => fn sim_pump(cx) -> f64 {
        DUE.set(None);
        #[cfg(target_family = "wasm")]
        cuda_node_core::sim::coop::pump();
        crate::task::settle_ready(cx.env);
        let next = next_pump();
        DUE.set(next.map(|d| Instant::now() + d));
        Ok(next.map_or(-1.0, millis))
    }
}
