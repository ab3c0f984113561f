//! Blocking core calls run on libuv's pool and settle a Promise: the event loop never waits.

use crate::errors::{guard_off_thread, to_js};
use napi::bindgen_prelude::*;

/// A core call to run off the JS thread. Its core error is carried as is and turned into the
/// JS error in `resolve`, where an `Env` exists.
pub struct Blocking<T: Send + 'static> {
    work: Option<Box<dyn FnOnce() -> cuda_node_core::Result<T> + Send>>,
}

impl<T: Send + ToNapiValue + TypeName + 'static> Blocking<T> {
    pub fn new(work: impl FnOnce() -> cuda_node_core::Result<T> + Send + 'static) -> AsyncTask<Self> {
        AsyncTask::new(Blocking { work: Some(Box::new(work)) })
    }
}

impl<T: Send + ToNapiValue + TypeName + 'static> Task for Blocking<T> {
    type Output = cuda_node_core::Result<T>;
    type JsValue = T;

    fn compute(&mut self) -> Result<Self::Output> {
        let work = self.work.take().expect("a task is computed once");
        Ok(guard_off_thread(work))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<T> {
        output.map_err(|e| to_js(&env, e))
    }
}
