//! A JS thread's environment going away: a worker terminated (or ending), or the main thread at
//! exit. Node then runs the environment's cleanup hooks, then the finalizers of every object, then
//! frees the thread's JS heap — ArrayBuffers included, whatever references we hold — and last the
//! thread's Rust thread-locals are dropped. Work this thread queued may still be in flight on the
//! device, so the hook installed here, which runs first (hooks run last-added first, and Node adds
//! its own when it loads the module), lets this thread's objects go in an order that keeps that
//! work's needs alive:
//!
//! 1. host callbacks: nothing is sent to or run on this thread any more, and simulated kernels
//!    queued for it are let go, their streams going on (`callbacks::env_gone`);
//! 2. graphs: launches already queued keep what they use (`Graph::launch`);
//! 3. streams and events: a capture left open is ended, its partial graph and what it kept let
//!    go (`Stream::abandon_capture`), and the events recorded in it with it; queued work goes on;
//! 4. registered host memory, its PinnedMemory still referenced or already collected: its bytes
//!    are this thread's JS heap, so the hook waits until no queued copy or launch uses them, then
//!    unregisters them (`PinnedBlock::wait_unused`);
//! 5. JS references dropped later on this thread are left to the dying environment
//!    (`handles::env_gone`).
//!
//! Everything else (streams, events, memory, pools) the finalizers let go as usual: each keeps
//! what its queued work needs by itself.

use napi::sys;
#[cfg(not(target_family = "wasm"))]
use std::ffi::c_void;

#[cfg(not(target_family = "wasm"))]
unsafe extern "C" fn hook(_arg: *mut c_void) {
    // A panic must not unwind into Node.
    let _ = std::panic::catch_unwind(|| {
        crate::callbacks::env_gone();
        drop(crate::graph::drain());
        // Captures this thread left open end here: work captured in them (a copy into
        // registered memory, say) never runs, yet their keep lists hold what it named.
        for s in crate::stream::drain() {
            s.abandon_capture();
        }
        // An event recorded in such a capture holds it (the simulator's capture, with its nodes).
        drop(crate::event::drain());
        // The table's entries go; every registered block that queued work still holds (those
        // the GC took from the table too) is waited for until that work has run.
        drop(crate::pinned::drain());
        for block in crate::pinned::registered_here() {
            cuda_node_core::pinned::PinnedBlock::wait_unused(&block);
        }
        crate::handles::env_gone();
    });
}

/// Installs the hook for `env`, the napi environment of this load of the module. Node aborts on
/// a second `(hook, arg)` pair in one environment, and loading the module twice there adds a
/// second: each load passes its own `env` as the argument. A new environment on this thread (an
/// Electron renderer reloaded) starts with JS references live again.
pub fn install(env: sys::napi_env) -> napi::Result<()> {
    crate::handles::env_started();
    // The WebAssembly build has one thread, no worker to terminate and no driver work in flight at
    // its end (emnapi's cleanup hook does not even link: it is imported from another module).
    #[cfg(target_family = "wasm")]
    {
        let _ = env;
        Ok(())
    }
    #[cfg(not(target_family = "wasm"))]
    // SAFETY: `hook` ignores its argument; Node runs it once per install, on this thread, when
    // the environment is torn down (twice for a module loaded twice: the drains find nothing).
    napi::check_status!(unsafe { sys::napi_add_env_cleanup_hook(env, Some(hook), env.cast()) })
}
