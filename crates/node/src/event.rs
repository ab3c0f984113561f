use crate::errors::guard;
use crate::task::Blocking;
use cuda_node_core::{elapsed_time, runtime, Code, Error, Event, EventFlags};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

#[napi]
pub struct NativeEvent {
    inner: Option<Arc<Event>>,
}

impl NativeEvent {
    pub(crate) fn get(&self) -> cuda_node_core::Result<&Arc<Event>> {
        self.inner
            .as_ref()
            .ok_or_else(|| Error::cuda(Code::CUDA_ERROR_INVALID_HANDLE, "this Event was destroyed: create a new one"))
    }
}

#[napi]
impl NativeEvent {
    #[napi(factory)]
    pub fn create(env: Env, device: f64, blocking: bool, disable_timing: bool, interprocess: bool) -> Result<NativeEvent> {
        guard(&env, || {
            let flags = EventFlags { blocking, disable_timing, interprocess };
            Ok(NativeEvent { inner: Some(Arc::new(Event::create(runtime()?.ordinal(device)?, flags)?)) })
        })
    }

    #[napi(factory)]
    pub fn from_ipc(env: Env, device: f64, handle: Uint8ArraySlice) -> Result<NativeEvent> {
        guard(&env, || Ok(NativeEvent { inner: Some(Arc::new(Event::from_ipc(runtime()?.ordinal(device)?, handle.as_ref())?)) }))
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
        self.inner.is_none()
    }

    #[napi]
    pub fn query(&self, env: Env) -> Result<bool> {
        guard(&env, || self.get()?.query())
    }

    #[napi]
    pub fn synchronize(&self, env: Env) -> Result<()> {
        guard(&env, || self.get()?.synchronize())
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn synchronize_async(&self, env: Env) -> Result<AsyncTask<Blocking<()>>> {
        let e = guard(&env, || Ok(self.get()?.clone()))?;
        Ok(Blocking::new(move || e.synchronize()))
    }

    #[napi]
    pub fn destroy(&mut self) {
        self.inner = None;
    }
}

/// Milliseconds between two events (`cudaEventElapsedTime`).
#[napi]
pub fn event_elapsed_time(env: Env, start: &NativeEvent, end: &NativeEvent) -> Result<f64> {
    guard(&env, || Ok(elapsed_time(start.get()?, end.get()?)? as f64))
}
