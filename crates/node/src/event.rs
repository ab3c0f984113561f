use crate::errors::guard;
use crate::task::Blocking;
use cuda_node_core::{elapsed_time, runtime, Code, Error, Event, EventFlags};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use crate::handles::{self, Owned, Table};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    static EVENTS: RefCell<Table<Arc<Event>>> = RefCell::new(Table::default());
}

fn destroyed() -> Error {
    Error::cuda(Code::CUDA_ERROR_INVALID_HANDLE, "this Event was destroyed: create a new one")
}

/// Runs `f` on the live event behind a handle (`NativeEvent.id`), for the hot calls in `fast.rs`.
pub(crate) fn with<R>(id: f64, f: impl FnOnce(&Event) -> cuda_node_core::Result<R>) -> cuda_node_core::Result<R> {
    handles::with(&EVENTS, id, |e| f(e)).unwrap_or_else(|| Err(destroyed()))
}

/// An event as the TS layer's `Event` holds it: the object owns a handle in this thread's table.
#[napi]
pub struct NativeEvent {
    event: Owned<Arc<Event>>,
}

impl NativeEvent {
    pub(crate) fn get(&self) -> cuda_node_core::Result<Arc<Event>> {
        self.event.get().ok_or_else(destroyed)
    }

    fn wrap(e: Event) -> NativeEvent {
        NativeEvent { event: Owned::new(&EVENTS, Arc::new(e)) }
    }
}

#[napi]
impl NativeEvent {
    #[napi(factory)]
    pub fn create(env: Env, device: f64, blocking: bool, disable_timing: bool, interprocess: bool) -> Result<NativeEvent> {
        guard(&env, || {
            let flags = EventFlags { blocking, disable_timing, interprocess };
            Ok(NativeEvent::wrap(Event::create(runtime()?.ordinal(device)?, flags)?))
        })
    }

    #[napi(factory)]
    pub fn from_ipc(env: Env, device: f64, handle: Uint8ArraySlice) -> Result<NativeEvent> {
        guard(&env, || Ok(NativeEvent::wrap(Event::from_ipc(runtime()?.ordinal(device)?, handle.as_ref())?)))
    }

    #[napi]
    pub fn ipc_handle(&self, env: Env) -> Result<Buffer> {
        guard(&env, || Ok(Buffer::from(self.get()?.ipc_handle()?.to_vec())))
    }

    #[napi(getter)]
    pub fn handle(&self, env: Env) -> Result<BigInt> {
        guard(&env, || Ok(BigInt::from(self.get()?.handle())))
    }

    #[napi(getter)]
    pub fn device(&self, env: Env) -> Result<u32> {
        guard(&env, || Ok(self.get()?.device() as u32))
    }

    #[napi(getter)]
    pub fn destroyed(&self) -> bool {
        self.get().is_err()
    }

    /// The handle the hot calls take (`fast.rs`).
    #[napi(getter)]
    pub fn id(&self) -> f64 {
        self.event.id()
    }



    #[napi(ts_return_type = "Promise<void>")]
    pub fn synchronize_async(&self, env: Env) -> Result<AsyncTask<Blocking<()>>> {
        let e = guard(&env, || Ok(self.get()?.clone()))?;
        Ok(Blocking::new(move || e.synchronize()))
    }

    #[napi]
    pub fn destroy(&self) {
        drop(self.event.remove());
    }
}

/// Milliseconds between two events (`cudaEventElapsedTime`).
#[napi]
pub fn event_elapsed_time(env: Env, start: &NativeEvent, end: &NativeEvent) -> Result<f64> {
    guard(&env, || Ok(elapsed_time(&*start.get()?, &*end.get()?)? as f64))
}
