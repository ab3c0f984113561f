//! Blocking core calls run on libuv's pool and settle a Promise: the event loop never waits.
//! WebAssembly has no pool: there a call waits, keeping the event loop free, until the
//! simulator's cooperative pump finds it would no longer block (`settle_ready`), and then runs.

use crate::errors::{self, guard_off_thread};
use crate::raw::{ok, Ret};
use cuda_node_core::Result;
use napi::sys;
#[cfg(not(target_family = "wasm"))]
use std::ffi::c_void;
use std::ptr;

type Job = Box<dyn FnOnce() -> Result<()> + Send>;
type Ready = Box<dyn Fn() -> bool + Send>;

/// A core call to run off the JS thread, returned from an export as a `Promise<void>` that
/// resolves when it returns and rejects with its error.
pub struct Blocking {
    /// None: nothing to wait for; the Promise is resolved at once, with no thread hop.
    job: Option<Job>,
    /// Whether the job would return at once (WebAssembly polls it; natively unused). None:
    /// once no simulated work is left.
    #[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
    ready: Option<Ready>,
}

impl Blocking {
    pub fn new(job: impl FnOnce() -> Result<()> + Send + 'static) -> Blocking {
        Blocking { job: Some(Box::new(job)), ready: None }
    }

    /// Says when the job would no longer block: WebAssembly runs it only then.
    pub fn when(mut self, ready: impl Fn() -> bool + Send + 'static) -> Blocking {
        self.ready = Some(Box::new(ready));
        self
    }

    /// A wait that `done` says is over already: the Promise resolves without leaving this thread
    /// (a thread-pool round trip costs ~25 µs, an idle stream's query ~0.3).
    pub fn unless_done(done: bool, job: impl FnOnce() -> Result<()> + Send + 'static) -> Blocking {
        Blocking { job: (!done).then(|| Box::new(job) as Job), ready: None }
    }
}

/// Resolves or rejects `deferred` with `result`, on the JS thread; the host functions the wait
/// covered have run their JS before it resolves.
fn settle(env: sys::napi_env, deferred: sys::napi_deferred, result: Result<()>) {
    match result {
        Ok(()) => {
            crate::callbacks::run_due(env, false);
            let mut undefined = ptr::null_mut();
            // SAFETY: `env` is the JS thread's; the deferred is settled once.
            unsafe {
                sys::napi_get_undefined(env, &mut undefined);
                sys::napi_resolve_deferred(env, deferred, undefined);
            }
        }
        Err(e) => {
            let value = errors::build(env, &e);
            // SAFETY: as above; `value` was made in `env` (null only if the env is going away,
            // where the call fails harmlessly).
            unsafe { sys::napi_reject_deferred(env, deferred, value) };
        }
    }
}

#[cfg(target_family = "wasm")]
mod waits {
    use super::{Job, Ready};
    use napi::sys;
    use std::cell::RefCell;

    pub(super) struct Wait {
        pub(super) ready: Ready,
        pub(super) job: Job,
        pub(super) deferred: sys::napi_deferred,
    }

    thread_local! {
        pub(super) static WAITS: RefCell<Vec<Wait>> = const { RefCell::new(Vec::new()) };
    }
}

/// WebAssembly: runs and settles each waiting call that would no longer block (the pump calls
/// this after running what could run). Natively there is nothing to do.
pub fn settle_ready(env: sys::napi_env) {
    #[cfg(target_family = "wasm")]
    loop {
        let due = waits::WAITS.with(|w| {
            let mut w = w.borrow_mut();
            let i = w.iter().position(|x| (x.ready)())?;
            let wait = w.remove(i);
            crate::raw::pump::set_waiting(!w.is_empty());
            Some(wait)
        });
        let Some(wait) = due else { break };
        settle(env, wait.deferred, guard_off_thread(wait.job));
    }
    #[cfg(not(target_family = "wasm"))]
    let _ = env;
}

#[cfg(not(target_family = "wasm"))]
struct Work {
    job: Option<Job>,
    result: Result<()>,
    deferred: sys::napi_deferred,
    handle: sys::napi_async_work,
}

#[cfg(not(target_family = "wasm"))]
unsafe extern "C" fn execute(_env: sys::napi_env, data: *mut c_void) {
    // SAFETY: `data` is the `Work` boxed in `write`; libuv runs this once, on its pool, and
    // `complete` runs only after it returns, so nothing else touches the box meanwhile.
    let work = unsafe { &mut *(data as *mut Work) };
    if let Some(job) = work.job.take() {
        work.result = guard_off_thread(job);
    }
}

#[cfg(not(target_family = "wasm"))]
unsafe extern "C" fn complete(env: sys::napi_env, _status: sys::napi_status, data: *mut c_void) {
    // SAFETY: `data` is the `Work` boxed in `write`, handed back once, on the JS thread.
    let work = unsafe { Box::from_raw(data as *mut Work) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        settle(env, work.deferred, work.result);
        // SAFETY: the work is complete and deleted once.
        unsafe { sys::napi_delete_async_work(env, work.handle) };
    }));
}

impl Ret for Blocking {
    fn ts() -> String {
        "Promise<void>".into()
    }

    fn write(self, env: sys::napi_env) -> Result<sys::napi_value> {
        let (mut deferred, mut promise) = (ptr::null_mut(), ptr::null_mut());
        // SAFETY: `env` is the current call's; both are valid out-pointers.
        ok(unsafe { sys::napi_create_promise(env, &mut deferred, &mut promise) }, "creating a Promise")?;
        let Some(job) = self.job else {
            // The deferred was just made and is settled once, here.
            settle(env, deferred, Ok(()));
            return Ok(promise);
        };
        #[cfg(target_family = "wasm")]
        {
            // No pool to block: the pump runs the job once it would return at once.
            let ready = self.ready.unwrap_or_else(|| Box::new(|| !cuda_node_core::host::pending()));
            if ready() {
                settle(env, deferred, guard_off_thread(job));
            } else {
                waits::WAITS.with(|w| w.borrow_mut().push(waits::Wait { ready, job, deferred }));
                crate::raw::pump::set_waiting(true);
            }
            Ok(promise)
        }
        #[cfg(not(target_family = "wasm"))]
        {
            let mut name = ptr::null_mut();
            // SAFETY: as above; the name is NUL-terminated.
            ok(unsafe { sys::napi_create_string_utf8(env, c"cuda-node".as_ptr(), -1, &mut name) }, "naming the work")?;
            let data = Box::into_raw(Box::new(Work { job: Some(job), result: Ok(()), deferred, handle: ptr::null_mut() }));
            let mut handle = ptr::null_mut();
            // SAFETY: `execute` and `complete` take `data` as the `Work` it is.
            let status =
                unsafe { sys::napi_create_async_work(env, ptr::null_mut(), name, Some(execute), Some(complete), data.cast(), &mut handle) };
            if status != sys::Status::napi_ok {
                // SAFETY: not created, so never completed: reclaim it.
                let data = unsafe { Box::from_raw(data) };
                drop(data);
                return ok(status, "queueing the work").map(|_| ptr::null_mut());
            }
            // SAFETY: `data` stays ours until `complete`, which runs after the queue below.
            unsafe { (*data).handle = handle };
            // SAFETY: `handle` was just created.
            let status = unsafe { sys::napi_queue_async_work(env, handle) };
            if status != sys::Status::napi_ok {
                // SAFETY: never queued: delete it.
                unsafe { sys::napi_delete_async_work(env, handle) };
                // SAFETY: never queued, so never completed: reclaim the data.
                let data = unsafe { Box::from_raw(data) };
                drop(data);
                return ok(status, "queueing the work").map(|_| ptr::null_mut());
            }
            Ok(promise)
        }
    }
}
