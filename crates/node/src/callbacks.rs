//! Host callbacks reach JS through one weak threadsafe function per JS thread. The function a
//! stream runs only queues the callback's id for the JS thread and returns: it makes no CUDA
//! call and never waits for JS, so a blocked `synchronize()` cannot deadlock. The TS layer
//! holds the callback and keeps the event loop alive while any is pending.

use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;
use std::cell::RefCell;
use std::sync::Arc;

pub type Dispatch = ThreadsafeFunction<u32, Unknown<'static>, u32, Status, false, true>;

thread_local! {
    static DISPATCH: RefCell<Option<Arc<Dispatch>>> = const { RefCell::new(None) };
}

/// Registers `(id) => void`, which runs the JS callback registered under `id`.
#[napi]
pub fn register_host_dispatcher(f: Function<u32, Unknown<'static>>) -> Result<()> {
    let tsfn = f.build_threadsafe_function::<u32>().weak::<true>().callee_handled::<false>().build()?;
    DISPATCH.with(|d| *d.borrow_mut() = Some(Arc::new(tsfn)));
    Ok(())
}

/// The host function for callback `id`, to hand to a stream. It may run more than once (from
/// a graph); each run queues the id again.
pub fn host_fn(id: u32) -> cuda_node_core::Result<impl Fn() + Send + Sync + 'static> {
    let tsfn = DISPATCH
        .with(|d| d.borrow().clone())
        .ok_or_else(|| cuda_node_core::Error::cuda(cuda_node_core::Code::CUDA_ERROR_NOT_INITIALIZED, "no host dispatcher registered on this thread"))?;
    Ok(move || {
        // If the environment is shutting down the call is refused and the callback dropped.
        let _ = tsfn.call(id, ThreadsafeFunctionCallMode::NonBlocking);
    })
}
