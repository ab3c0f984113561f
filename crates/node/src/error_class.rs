//! The class CUDA failures are thrown as, registered by the TS layer once on each JS thread.

use crate::errors::{hook_taken, CUDA_ERROR};
use crate::raw::{self, Func};
use napi::sys;
use std::cell::Cell;
use std::ptr;

crate::exports! {
    /// Registers the class CUDA failures are thrown as: `new CudaError(message, code)`.
    c"registerErrorClass" => fn register_error_class(cx, error_class: Func) -> () {
        if !CUDA_ERROR.with(Cell::get).is_null() {
            return Err(hook_taken("registerErrorClass"));
        }
        let mut r = ptr::null_mut();
        // SAFETY: `class` is a function of this call; `r` is a valid out-pointer.
        raw::ok(unsafe { sys::napi_create_reference(cx.env, error_class.0, 1, &mut r) }, "keeping the error class")?;
        CUDA_ERROR.with(|c| c.set(r));
        Ok(())
    }
}
