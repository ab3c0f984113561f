//! The simulator's cooperative mode (WebAssembly, where there are no threads): queued stream
//! work runs when JS synchronizes, queries or waits (the core pumps then), and between
//! macrotasks: after any call that leaves work queued, the scheduler the TS layer registered
//! (`simSetScheduler`, a `setTimeout(simPump)`) is called once, and `simPump` runs what can run.
//! Natively both exports do nothing: the simulator's streams have threads of their own.

use crate::raw::{self, Func};
use napi::sys;
use std::cell::Cell;
use std::ptr;

thread_local! {
    static SCHEDULER: Cell<sys::napi_ref> = const { Cell::new(ptr::null_mut()) };
    static SCHEDULED: Cell<bool> = const { Cell::new(false) };
}

#[cfg(target_family = "wasm")]
fn pending() -> bool {
    cuda_node_core::sim::coop::pending()
}

#[cfg(not(target_family = "wasm"))]
fn pending() -> bool {
    false
}

/// After each export: asks JS for a pump when work is queued and none is asked for yet.
pub fn after_call(env: sys::napi_env) {
    if SCHEDULED.get() || !pending() {
        return;
    }
    let r = SCHEDULER.get();
    if r.is_null() {
        return;
    }
    let (mut f, mut undefined) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: `r` is a reference made on this thread's env; the out-pointers are valid. The
    // scheduler only calls setTimeout, so it cannot re-enter the addon.
    unsafe {
        sys::napi_get_reference_value(env, r, &mut f);
        sys::napi_get_undefined(env, &mut undefined);
        if !f.is_null() && sys::napi_call_function(env, undefined, f, 0, ptr::null(), ptr::null_mut()) == sys::Status::napi_ok {
            SCHEDULED.set(true);
        }
    }
}

crate::exports! {
    /// Registers `() => void`, called when simulated work is queued and should be pumped soon
    /// (WebAssembly only; natively it is kept and never called).
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

    /// Runs the simulated work that can run now (WebAssembly); whether work is still queued.
    c"simPump" => fn sim_pump(_cx) -> bool {
        SCHEDULED.set(false);
        #[cfg(target_family = "wasm")]
        cuda_node_core::sim::coop::pump();
        Ok(pending())
    }
}
