//! Core errors become JS errors here, and nowhere else: `CudaError` (the class the TS layer
//! registers) for CUDA failures, `TypeError` / `RangeError` for bad arguments. A panic in the
//! core is caught and reported as a `CudaError` with `CUDA_ERROR_UNKNOWN`: none crosses into JS.

use cuda_node_core::{Code, Error};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

type Factory = FunctionRef<FnArgs<(String, Option<String>, String)>, Unknown<'static>>;

thread_local! {
    /// `(kind, code, message) => Error`, set by the TS layer once per JS thread (each worker too).
    static FACTORY: RefCell<Option<Factory>> = const { RefCell::new(None) };
}

/// Registers the function that builds JS errors: `(kind: 'cuda' | 'type' | 'range', code, message)`.
#[napi]
pub fn register_error_factory(factory: Function<FnArgs<(String, Option<String>, String)>, Unknown<'static>>) -> Result<()> {
    let r = factory.create_ref()?;
    FACTORY.with(|f| *f.borrow_mut() = Some(r));
    Ok(())
}

/// Builds the JS error for a core error.
pub fn to_js(env: &Env, err: Error) -> napi::Error {
    let (kind, code) = match &err {
        Error::Cuda { .. } | Error::Named { .. } => ("cuda", err.code_name()),
        Error::Type(_) => ("type", None),
        Error::Range(_) => ("range", None),
    };
    let message = err.message().to_string();
    let built = FACTORY.with(|f| -> Option<napi::Error> {
        let f = f.borrow();
        let factory = f.as_ref()?.borrow_back(env).ok()?;
        let value = factory.call(FnArgs::from((kind.to_string(), code.clone(), message.clone()))).ok()?;
        Some(napi::Error::from(value))
    });
    built.unwrap_or_else(|| {
        let status = match kind {
            "type" | "range" => Status::InvalidArg,
            _ => Status::GenericFailure,
        };
        napi::Error::new(status, format!("{}{message}", code.map(|c| format!("{c}: ")).unwrap_or_default()))
    })
}

/// Runs a core call, mapping its error and catching any panic.
pub fn guard<T>(env: &Env, f: impl FnOnce() -> cuda_node_core::Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_js(env, e)),
        Err(panic) => Err(to_js(env, panic_error(panic))),
    }
}

/// For work done off the JS thread (async tasks): catches panics, keeps the core error.
pub fn guard_off_thread<T>(f: impl FnOnce() -> cuda_node_core::Result<T>) -> cuda_node_core::Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(panic_error(p)))
}

pub fn panic_error(panic: Box<dyn std::any::Any + Send>) -> Error {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Error::cuda(Code::CUDA_ERROR_UNKNOWN, format!("internal error in cuda-node (please report it): {what}"))
}
