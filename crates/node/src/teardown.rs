//! A JS thread's environment going away (a worker terminated or ending, or the main thread at
//! exit): the environment cleanup hook installed here runs first (hooks run last-added first, and
//! Node adds its own when it loads the module), before Node's finalizers and before the thread's
//! JS heap is freed. The order in which this thread's objects go is the model's
//! (`cuda_node_core::teardown::thread_ending`); the hook hands it this thread's tables.

use cuda_node_core::stream::UserStream;
use cuda_node_core::teardown::ThreadTables;
use napi::sys;
#[cfg(not(target_family = "wasm"))]
use std::ffi::c_void;

/// This thread's tables, as the model's teardown takes them.
#[cfg_attr(target_family = "wasm", allow(dead_code))]
struct Tables;

impl ThreadTables for Tables {
    fn stop_callbacks(&self) {
        crate::callbacks::env_gone();
    }
    fn drop_graphs(&self) {
        drop(crate::graph::drain());
    }
    fn take_streams(&self) -> Vec<UserStream> {
        crate::stream::drain()
    }
    fn drop_events(&self) {
        drop(crate::event::drain());
    }
    fn drop_pinned(&self) {
        drop(crate::pinned::drain());
    }
    fn forget_js(&self) {
        // Shared pools stop serving: their sockets and private directories go with them.
        drop(crate::async_pool::drain());
        crate::history::forget();
        crate::handles::env_gone();
    }
}

#[cfg(not(target_family = "wasm"))]
unsafe extern "C" fn hook(_arg: *mut c_void) {
    // A panic must not unwind into Node.
    let _ = std::panic::catch_unwind(|| cuda_node_core::teardown::thread_ending(&Tables));
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
