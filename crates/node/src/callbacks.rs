//! Host callbacks: JS functions that streams and graphs run, owned here. The TS layer keeps each
//! function under an id and runs it when told to (`registerHostDispatcher`); everything else is
//! decided on this side: a [`JsCallback`] is the id held by Rust, by a queued host function or by
//! a graph that captured it; when the last holder lets go, the dispatcher is told to forget the
//! id. Runs still owed by queued work keep the event loop alive, as a timer does.
//!
//! Host functions run on the driver's (or the simulator's) threads, where they must make no CUDA
//! call and never wait for JS: they only queue `(id, kind)` as due on this thread's channel, wake
//! the JS thread through a threadsafe function and return, so a blocked `synchronize()` on the JS
//! thread cannot deadlock. The JS of the due ones runs from the event loop, or sooner: when a
//! blocking synchronize on this thread returns ([`run_due`]), before it returns, as CUDA's
//! synchronize waits for a stream's host functions; and before a `synchronizeAsync` resolves.

use crate::raw::{self, Func};
use cuda_node_core::host::{self, HostSink};
use cuda_node_core::{Code, Error, Result};
use napi::sys;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// What the dispatcher is told to do with an id.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Run it (a graph's callback: it stays).
    Run = 0,
    /// Run it, then forget it (a one-shot host function).
    RunOnce = 1,
    /// Forget it: nothing holds it any more.
    Release = 2,
    /// Run the simulated kernels queued for this thread (`Channel::jobs`); no id.
    Pump = 3,
}

/// Added to a run's kind where it must run before the call in progress returns (a synchronize).
const NOW: u32 = 4;

/// The largest callback id (ids and kinds travel together in a pointer-sized word).
const MAX_ID: u32 = (1 << 30) - 1;

/// One JS thread's way back in: a threadsafe function calling the registered dispatcher.
struct Channel {
    /// Null once Node finalized it (the thread's environment went away): sends are dropped.
    tsfn: Mutex<sys::napi_threadsafe_function>,
    /// Runs queued work still owes; the function is ref'd (keeps the loop alive) while any is.
    owed: AtomicUsize,
    /// Callbacks captured into graphs, alive.
    persistent: AtomicUsize,
    /// The JS thread's environment (the pump calls JS with it).
    env: sys::napi_env,
    /// Simulated kernels whose stream reached them: each runs on the JS thread, then opens its
    /// gate (`launch_simulated`).
    jobs: Mutex<VecDeque<Job>>,
    /// Set when the thread's environment is torn down (`env_gone`): nothing is sent or run here
    /// any more, and a stream reaching a simulated kernel goes on without it.
    gone: AtomicBool,
    /// Host functions their streams (or graphs) reached, whose JS is due on this thread: each a
    /// callback id and `Kind::Run` or `Kind::RunOnce`, run by [`Channel::run_due`].
    due: Mutex<VecDeque<(u32, Kind)>>,
    /// The registered dispatcher, to call outside the threadsafe function (`run_due`).
    dispatcher: sys::napi_ref,
}

/// A simulated kernel's host implementation, due on the JS thread: the stream that reached it
/// waits at `gate` until it has run.
struct Job {
    func: sys::napi_ref,
    gate: Arc<Gate>,
}

/// Holds a stream's worker until the JS thread opens it.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.cv.notify_all();
    }

    #[cfg_attr(target_family = "wasm", allow(dead_code))]
    fn wait(&self) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        while !*open {
            open = self.cv.wait(open).unwrap_or_else(|p| p.into_inner());
        }
    }
}

// SAFETY: the threadsafe function is made to be called from any thread; the pointer is only read
// under the mutex, which its finalizer takes too. `env` and the jobs' references are only used on
// the JS thread (the pump, `call_js`); other threads only move jobs into the queue.
unsafe impl Send for Channel {}
// SAFETY: as above.
unsafe impl Sync for Channel {}

// SAFETY: the reference is made, read and deleted on the JS thread only; a worker only moves it.
unsafe impl Send for Job {}

impl Channel {
    /// Tells the JS thread; false where it is gone (nothing will run).
    fn send(&self, id: u32, kind: Kind) -> bool {
        let tsfn = self.tsfn.lock().unwrap_or_else(|p| p.into_inner());
        if tsfn.is_null() || self.gone.load(Ordering::Acquire) {
            return false;
        }
        let word = if kind == Kind::Run || kind == Kind::RunOnce {
            // Due now: the JS thread runs it at its next wake, or sooner in a synchronize.
            self.due.lock().unwrap_or_else(|p| p.into_inner()).push_back((id, kind));
            Kind::Pump as usize
        } else {
            ((id as usize) << 2) | kind as usize
        };
        // SAFETY: the function is live (not finalized: checked under the lock its finalizer
        // takes); non-blocking, so this never waits for JS.
        unsafe { sys::napi_call_threadsafe_function(*tsfn, word as *mut c_void, sys::ThreadsafeFunctionCallMode::nonblocking) };
        true
    }

    /// One run owed is paid: the function stops keeping the loop alive at the last (JS thread).
    fn paid(&self, env: sys::napi_env) {
        if self.owed.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1)) == Ok(1) {
            let tsfn = *self.tsfn.lock().unwrap_or_else(|p| p.into_inner());
            if !tsfn.is_null() {
                // SAFETY: on the JS thread, with the live function.
                unsafe { sys::napi_unref_threadsafe_function(env, tsfn) };
            }
        }
    }

    /// Runs the JS of the host functions due on this thread, in the order their streams reached
    /// them (JS thread). An exception one throws reaches `uncaughtException`, as from the event
    /// loop; the others still run.
    /// `now`: inside a synchronize, where the dispatcher runs each at once (kind | [`NOW`]),
    /// not from a promise reaction after the call returns.
    fn run_due(&self, env: sys::napi_env, now: bool) {
        loop {
            if self.gone.load(Ordering::Acquire) {
                return;
            }
            let Some((id, kind)) = self.due.lock().unwrap_or_else(|p| p.into_inner()).pop_front() else { return };
            self.paid(env);
            let mut scope = ptr::null_mut();
            // SAFETY: on the JS thread of `env`; the dispatcher's reference was made there at
            // registration and lives as long as the channel; values live in the scope opened here.
            unsafe {
                let scoped = sys::napi_open_handle_scope(env, &mut scope) == sys::Status::napi_ok;
                let (mut dispatcher, mut undefined) = (ptr::null_mut(), ptr::null_mut());
                let mut argv = [ptr::null_mut(); 2];
                sys::napi_get_reference_value(env, self.dispatcher, &mut dispatcher);
                sys::napi_get_undefined(env, &mut undefined);
                sys::napi_create_uint32(env, id, &mut argv[0]);
                sys::napi_create_uint32(env, kind as u32 | if now { NOW } else { 0 }, &mut argv[1]);
                if !dispatcher.is_null() {
                    call_reporting(env, undefined, dispatcher, &argv);
                }
                if scoped {
                    sys::napi_close_handle_scope(env, scope);
                }
            }
        }
    }

    /// Runs the simulated kernels queued for this thread, in the order their streams reached
    /// them (JS thread). An exception one throws reaches `uncaughtException`; its gate opens
    /// regardless.
    fn run_jobs(&self) {
        let env = self.env;
        loop {
            if self.gone.load(Ordering::Acquire) {
                return;
            }
            let Some(job) = self.jobs.lock().unwrap_or_else(|p| p.into_inner()).pop_front() else { return };
            let mut scope = ptr::null_mut();
            // SAFETY: on the JS thread of `env`; the reference was made there and is deleted once,
            // here; values live in the scope opened for this job.
            unsafe {
                let scoped = sys::napi_open_handle_scope(env, &mut scope) == sys::Status::napi_ok;
                let (mut func, mut undefined) = (ptr::null_mut(), ptr::null_mut());
                sys::napi_get_reference_value(env, job.func, &mut func);
                sys::napi_delete_reference(env, job.func);
                sys::napi_get_undefined(env, &mut undefined);
                if !func.is_null() {
                    call_reporting(env, undefined, func, &[]);
                }
                if scoped {
                    sys::napi_close_handle_scope(env, scope);
                }
            }
            job.gate.open();
            self.paid(env);
        }
    }
}

/// This thread's environment is being torn down (`teardown.rs`): no callback is sent or run here
/// any more, and the simulated kernels queued for this thread are let go unrun, each gate opened,
/// so that their streams go on (a stream waiting for a terminated worker's JS thread hung).
#[cfg_attr(target_family = "wasm", allow(dead_code))]
pub fn env_gone() {
    let Ok(channel) = channel() else { return };
    channel.gone.store(true, Ordering::Release);
    let jobs: Vec<Job> = channel.jobs.lock().unwrap_or_else(|p| p.into_inner()).drain(..).collect();
    for job in jobs {
        // SAFETY: on the JS thread, whose environment is still alive during its cleanup hooks;
        // the reference was made here and is deleted once.
        unsafe { sys::napi_delete_reference(channel.env, job.func) };
        job.gate.open();
    }
}

/// Runs the JS of the host functions due on this thread (JS thread): after a blocking
/// synchronize returns (`now`: each runs before this returns) and before a `synchronizeAsync`
/// resolves (each through its promise reaction, queued before the one that resolves), so that
/// what the wait covered has run. Nothing where no dispatcher is registered or nothing is due.
pub fn run_due(env: sys::napi_env, now: bool) {
    let Some(channel) = CHANNEL.try_with(|c| c.borrow().clone()).ok().flatten() else { return };
    if !channel.due.lock().unwrap_or_else(|p| p.into_inner()).is_empty() {
        channel.run_due(env, now);
    }
}

/// The binding as core's host sink: a JS thread's wait pump runs the simulated kernels due there.
struct Sink;

impl HostSink for Sink {
    fn pump(&self) {
        if let Some(channel) = CHANNEL.try_with(|c| c.borrow().clone()).ok().flatten() {
            channel.run_jobs();
        }
    }
}

thread_local! {
    static CHANNEL: RefCell<Option<Arc<Channel>>> = const { RefCell::new(None) };
}

fn channel() -> Result<Arc<Channel>> {
    CHANNEL.with(|c| c.borrow().clone()).ok_or_else(|| {
        Error::cuda(Code::CUDA_ERROR_NOT_INITIALIZED, "no host dispatcher is registered on this thread: load cuda-node through its package")
    })
}

unsafe extern "C" fn call_js(env: sys::napi_env, js_cb: sys::napi_value, context: *mut c_void, data: *mut c_void) {
    if env.is_null() || js_cb.is_null() {
        return; // the environment is going away
    }
    // SAFETY: `context` is the `Arc<Channel>` leaked at registration, alive until finalize.
    let channel = unsafe { &*(context as *const Channel) };
    let word = data as usize;
    let (id, kind) = ((word >> 2) as u32, word & 3);
    if kind == Kind::Pump as usize {
        channel.run_jobs();
        channel.run_due(env, false);
        return;
    }
    if kind != Kind::Release as usize {
        channel.paid(env);
    }
    let mut argv = [ptr::null_mut(); 2];
    let mut undefined = ptr::null_mut();
    // SAFETY: `env` is the JS thread's; the values are made and used in this callback's scope. An
    // exception the dispatcher throws stays pending and reaches `uncaughtException`, as any
    // callback's would.
    unsafe {
        sys::napi_create_uint32(env, id, &mut argv[0]);
        sys::napi_create_uint32(env, kind as u32, &mut argv[1]);
        sys::napi_get_undefined(env, &mut undefined);
        sys::napi_call_function(env, undefined, js_cb, 2, argv.as_ptr(), ptr::null_mut());
    }
}

unsafe extern "C" fn finalize(_env: sys::napi_env, _data: *mut c_void, context: *mut c_void) {
    // SAFETY: `context` is the `Arc<Channel>` leaked at registration; this is its one release.
    let channel = unsafe { Arc::from_raw(context as *const Channel) };
    *channel.tsfn.lock().unwrap_or_else(|p| p.into_inner()) = ptr::null_mut();
}

/// A JS callback held by Rust: a queued host function or a graph. Dropping the last holder tells
/// the dispatcher to forget it.
pub struct JsCallback {
    id: u32,
    channel: Arc<Channel>,
    persistent: bool,
    /// Set once a one-shot run was sent: the dispatcher forgets the id after running it.
    spent: bool,
}

impl JsCallback {
    /// The callback the dispatcher holds under `id`, on this thread. `persistent` for one a
    /// graph captures.
    pub fn new(id: f64, persistent: bool) -> Result<JsCallback> {
        let id = crate::raw::numbers::uint32("callback id", id)?;
        if id > MAX_ID {
            return Err(Error::range(format!("callback ids go up to {MAX_ID}, got {id}")));
        }
        let channel = channel()?;
        if persistent {
            channel.persistent.fetch_add(1, Ordering::Relaxed);
        }
        Ok(JsCallback { id, channel, persistent, spent: false })
    }

    /// Queues a run (a graph's callback, at each launch).
    pub fn run(&self) {
        self.channel.send(self.id, Kind::Run);
    }

    /// Queues the one run of a one-shot callback.
    pub fn run_once(mut self) {
        self.spent = true;
        self.channel.send(self.id, Kind::RunOnce);
    }
}

impl Drop for JsCallback {
    fn drop(&mut self) {
        if self.persistent {
            self.channel.persistent.fetch_sub(1, Ordering::Relaxed);
        }
        if !self.spent {
            self.channel.send(self.id, Kind::Release);
        }
    }
}

/// Hands `queue` the maker of the host function that runs the JS function `func` as a simulated
/// kernel: when the stream reaches it, it runs on this (the JS) thread, and the stream's later
/// work waits until it has returned. It runs from the event loop, or sooner from a wait that
/// blocks this thread (the wait pump). What the maker made is given back if `queue` fails.
#[cfg(not(target_family = "wasm"))]
pub fn launch_simulated<T>(
    env: sys::napi_env,
    func: sys::napi_value,
    queue: impl FnOnce(Box<dyn FnOnce() -> Result<cuda_node_core::HostFn> + '_>) -> Result<T>,
) -> Result<T> {
    // The reference made and the run owed, given back if the host function fails to queue.
    let made = std::cell::Cell::new(None);
    let queued = queue(Box::new(|| {
        let channel = channel()?;
        let mut reference = ptr::null_mut();
        // SAFETY: `func` is a value of this call, on the JS thread.
        raw::ok(unsafe { sys::napi_create_reference(env, func, 1, &mut reference) }, "holding the simulated kernel")?;
        owe(env, 1)?;
        made.set(Some(reference));
        let gate = Arc::new(Gate::default());
        let (job, held) = (Mutex::new(Some(Job { func: reference, gate: gate.clone() })), channel);
        Ok(Box::new(move || {
            let Some(job) = job.lock().unwrap_or_else(|p| p.into_inner()).take() else { return };
            held.jobs.lock().unwrap_or_else(|p| p.into_inner()).push_back(job);
            // Where the JS thread is gone, nothing will open the gate: the stream goes on.
            if held.send(0, Kind::Pump) {
                gate.wait();
            }
        }) as cuda_node_core::HostFn)
    }));
    if queued.is_err() {
        if let Some(reference) = made.get() {
            forgive(env, 1);
            // SAFETY: made above on this thread, never handed over.
            unsafe { sys::napi_delete_reference(env, reference) };
        }
    }
    queued
}

/// Keeps the event loop alive for `runs` more runs queued on this thread (call it on the JS
/// thread, where the work is queued).
pub fn owe(env: sys::napi_env, runs: usize) -> Result<()> {
    if runs == 0 {
        return Ok(());
    }
    let channel = channel()?;
    if channel.owed.fetch_add(runs, Ordering::AcqRel) == 0 {
        let tsfn = *channel.tsfn.lock().unwrap_or_else(|p| p.into_inner());
        if !tsfn.is_null() {
            // SAFETY: on the JS thread that owns the function.
            unsafe { sys::napi_ref_threadsafe_function(env, tsfn) };
        }
    }
    Ok(())
}

/// Takes back runs that were owed for work that failed to queue.
pub fn forgive(env: sys::napi_env, runs: usize) {
    if let Ok(channel) = channel() {
        if runs > 0
            && channel
                .owed
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| Some(n.saturating_sub(runs)))
                .is_ok_and(|n| n > 0 && n <= runs)
        {
            let tsfn = *channel.tsfn.lock().unwrap_or_else(|p| p.into_inner());
            if !tsfn.is_null() {
                // SAFETY: on the JS thread that owns the function.
                unsafe { sys::napi_unref_threadsafe_function(env, tsfn) };
            }
        }
    }
}

crate::exports! {
    /// Registers `(id, kind) => void`, which runs (kind 0), runs and forgets (1) or forgets (2)
    /// the callback the TS layer holds under `id`.
    c"registerHostDispatcher" => fn register_host_dispatcher(cx, dispatcher: Func) -> () {
        if channel().is_ok() {
            return Err(crate::errors::hook_taken("registerHostDispatcher"));
        }
        let channel = Arc::new(Channel {
            tsfn: Mutex::new(ptr::null_mut()),
            owed: AtomicUsize::new(0),
            persistent: AtomicUsize::new(0),
            env: cx.env,
            jobs: Mutex::new(VecDeque::new()),
            gone: AtomicBool::new(false),
            due: Mutex::new(VecDeque::new()),
            dispatcher: {
                let mut r = ptr::null_mut();
                // SAFETY: `dispatcher` is a function of this call; `r` is a valid out-pointer. The
                // reference lives as long as the thread (the hook is registered once).
                raw::ok(unsafe { sys::napi_create_reference(cx.env, dispatcher.0, 1, &mut r) }, "keeping the host dispatcher")?;
                r
            },
        });
        let context = Arc::into_raw(channel.clone()) as *mut c_void;
        let (mut name, mut tsfn) = (ptr::null_mut(), ptr::null_mut());
        // SAFETY: `env` is this call's; the name is NUL-terminated.
        unsafe { sys::napi_create_string_utf8(cx.env, c"cuda-node host callbacks".as_ptr(), -1, &mut name) };
        // SAFETY: `dispatcher` is a function of this call; `finalize` releases `context` once,
        // and `call_js` reads it meanwhile; queue size 0 is unlimited; one thread (this one).
        let status = unsafe {
            sys::napi_create_threadsafe_function(cx.env, dispatcher.0, ptr::null_mut(), name, 0, 1, ptr::null_mut(), Some(finalize), context, Some(call_js), &mut tsfn)
        };
        if status != sys::Status::napi_ok {
            // SAFETY: not created, so `finalize` never runs: release the leaked reference.
            drop(unsafe { Arc::from_raw(context as *const Channel) });
            return raw::ok(status, "creating the host dispatcher");
        }
        // Unref'd: it keeps the loop alive only while runs are owed (`owe`).
        // SAFETY: on the JS thread that made it.
        unsafe { sys::napi_unref_threadsafe_function(cx.env, tsfn) };
        *channel.tsfn.lock().unwrap_or_else(|p| p.into_inner()) = tsfn;
        CHANNEL.with(|c| *c.borrow_mut() = Some(channel));
        host::set_host_sink(&Sink);
        host::serve_this_thread();
        Ok(())
    }

    /// Host callbacks queued on this thread and not yet run (graph launches' runs included).
    c"callbacksPending" => fn callbacks_pending(_cx) -> f64 {
        Ok(channel().map_or(0, |c| c.owed.load(Ordering::Acquire)) as f64)
    }

    /// Callbacks captured into graphs on this thread that are still held.
    c"callbacksCaptured" => fn callbacks_captured(_cx) -> f64 {
        Ok(channel().map_or(0, |c| c.persistent.load(Ordering::Acquire)) as f64)
    }
}

/// Calls `func` on the JS thread of `env`; an exception it throws reaches `uncaughtException`
/// (`napi_fatal_exception`), as a host callback's or a simulated kernel's must: nothing waits
/// for their result to throw it to.
///
/// # Safety
/// 1. On the JS thread of `env`, inside a handle scope; `recv`, `func` and `argv` are values of
///    that scope.
unsafe fn call_reporting(env: sys::napi_env, recv: sys::napi_value, func: sys::napi_value, argv: &[sys::napi_value]) {
    // SAFETY: (1).
    unsafe {
        if sys::napi_call_function(env, recv, func, argv.len(), argv.as_ptr(), ptr::null_mut()) != sys::Status::napi_ok {
            let mut pending = false;
            sys::napi_is_exception_pending(env, &mut pending);
            if pending {
                let mut err = ptr::null_mut();
                sys::napi_get_and_clear_last_exception(env, &mut err);
                sys::napi_fatal_exception(env, err);
            }
        }
    }
}
