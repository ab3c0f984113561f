//! The class CUDA failures are thrown as, registered by the TS layer on each JS thread.

use crate::errors::CUDA_ERROR;
use crate::raw::{self, Func};
use napi::sys;
use std::ptr;

crate::exports! {
    /// Registers the class CUDA failures are thrown as: `new CudaError(message, code)`.
    c"registerErrorClass" => fn register_error_class(cx, error_class: Func) -> () {
        let mut r = ptr::null_mut();
        // SAFETY: `class` is a function of this call; `r` is a valid out-pointer.
        raw::ok(unsafe { sys::napi_create_reference(cx.env, error_class.0, 1, &mut r) }, "keeping the error class")?;
        let old = CUDA_ERROR.with(|c| c.replace(r));
        if !old.is_null() {
            // SAFETY: `old` was created by this function on this thread and is deleted once.
            unsafe { sys::napi_delete_reference(cx.env, old) };
        }
        Ok(())
    }
}
