//! The simulator's cooperative mode (WebAssembly, where there are no threads): queued stream
//! work runs when JS synchronizes, queries or waits (the core pumps then), and between
//! macrotasks: after any call that leaves work queued, the scheduler the TS layer registered
//! (`simSetScheduler`, a `setTimeout(simPump, ms)`) is called with how soon to pump, and
//! `simPump` runs what can run, settles the Promises of waits that are over, and says how soon
//! to pump again (a sleep kernel under way ends at a known time). Natively both exports do
//! nothing: the simulator's streams have threads of their own. The part every call takes (asking
//! JS for a pump after it) is the raw layer's (`raw/pump.rs`).

use crate::raw::pump;
use crate::raw::{self, Func};
use napi::sys;
use std::ptr;
use std::time::Instant;

crate::exports! {
    /// Registers `(ms: number) => void`, called when simulated work is queued and should be
    /// pumped in `ms` milliseconds (WebAssembly only; natively it is kept and never called).
    c"simSetScheduler" => fn sim_set_scheduler(cx, scheduler: Func) -> () {
        if pump::has_scheduler() {
            return Err(crate::errors::hook_taken("simSetScheduler"));
        }
        let mut r = ptr::null_mut();
        // SAFETY: `scheduler` is a function of this call; `r` is a valid out-pointer.
        raw::ok(unsafe { sys::napi_create_reference(cx.env, scheduler.0, 1, &mut r) }, "keeping the scheduler")?;
        pump::set_scheduler(r);
        Ok(())
    }

    /// Runs the simulated work that can run now and settles the waits that are over
    /// (WebAssembly); in how many milliseconds to pump again, or -1 when nothing is left.
    c"simPump" => fn sim_pump(cx) -> f64 {
        pump::set_due(None);
        cuda_node_core::host::pump();
        crate::task::settle_ready(cx.env);
        let next = pump::next_pump();
        pump::set_due(next.map(|d| Instant::now() + d));
        Ok(next.map_or(-1.0, pump::millis))
    }
}
