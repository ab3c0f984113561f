//! Core errors become JS errors here, and nowhere else: a `CudaError` (the class the TS layer
//! registers) for CUDA failures, a `TypeError` or `RangeError` for bad arguments. Type and range
//! errors are made by Node-API itself, so no user code runs while an error is built (a replaced
//! `globalThis.RangeError` changes nothing); a `CudaError` is constructed from the registered
//! class, with nothing borrowed meanwhile, so a constructor that calls back into the addon
//! cannot find a lock held. A panic is caught before it reaches JS and reported as a `CudaError`
//! with `CUDA_ERROR_UNKNOWN`.

use cuda_node_core::{Code, Error};
use napi::sys;
use std::cell::Cell;
use std::ptr;

thread_local! {
    /// The `CudaError` class of this JS thread (each worker registers its own: error_class.rs).
    pub(crate) static CUDA_ERROR: Cell<sys::napi_ref> = const { Cell::new(ptr::null_mut()) };
}

/// Throws `err` in `env`. An exception already pending (a getter of an argument threw) is
/// replaced by a TypeError that carries its message: every error the addon throws is typed.
pub fn throw(env: sys::napi_env, err: Error) {
    let err = match take_pending(env) {
        Some(msg) => Error::type_error(format!("{} (reading an argument threw: {msg})", err.message())),
        None => err,
    };
    let value = build(env, &err);
    // SAFETY: `env` is the current call's; `value` was made in it (or is null, and then the
    // fallback below throws a plain error).
    if value.is_null() || unsafe { sys::napi_throw(env, value) } != sys::Status::napi_ok {
        let msg = std::ffi::CString::new(err.message().replace('\0', " ")).unwrap_or_default();
        // SAFETY: `msg` is NUL-terminated.
        unsafe { sys::napi_throw_error(env, ptr::null(), msg.as_ptr()) };
    }
}

/// The message of a pending exception, cleared; `None` when none is pending.
fn take_pending(env: sys::napi_env) -> Option<String> {
    let mut pending = false;
    // SAFETY: `env` is the current call's; `pending` is a valid out-pointer.
    unsafe { sys::napi_is_exception_pending(env, &mut pending) };
    if !pending {
        return None;
    }
    let mut exc = ptr::null_mut();
    // SAFETY: an exception is pending; `exc` is a valid out-pointer.
    unsafe { sys::napi_get_and_clear_last_exception(env, &mut exc) };
    let mut text = ptr::null_mut();
    // SAFETY: `exc` is a value of this call. Coercing to a string may itself throw: cleared below.
    if unsafe { sys::napi_coerce_to_string(env, exc, &mut text) } != sys::Status::napi_ok {
        take_pending(env);
        return Some("an exception".into());
    }
    let mut buf = [0u8; 512];
    let mut len = 0usize;
    // SAFETY: `text` is a string of this call; `buf` has room for its 512 bytes (cut short past that).
    unsafe { sys::napi_get_value_string_utf8(env, text, buf.as_mut_ptr().cast(), buf.len(), &mut len) };
    Some(String::from_utf8_lossy(&buf[..len]).into_owned())
}

/// The JS error for `err`, or null if it could not be made.
pub fn build(env: sys::napi_env, err: &Error) -> sys::napi_value {
    let message = err.message().to_string();
    let mut msg = ptr::null_mut();
    // SAFETY: the bytes are valid for their length during the call.
    if unsafe { sys::napi_create_string_utf8(env, message.as_ptr().cast(), message.len() as isize, &mut msg) } != sys::Status::napi_ok {
        return ptr::null_mut();
    }
    let mut out = ptr::null_mut();
    match err {
        // SAFETY: `msg` is a string of this call; `out` is a valid out-pointer.
        Error::Type(_) => unsafe { sys::napi_create_type_error(env, ptr::null_mut(), msg, &mut out) },
        // SAFETY: as above.
        Error::Range(_) => unsafe { sys::napi_create_range_error(env, ptr::null_mut(), msg, &mut out) },
        Error::Cuda { .. } | Error::Named { .. } => {
            let code = err.code_name().unwrap_or_else(|| "CUDA_ERROR_UNKNOWN".into());
            return cuda_error(env, msg, &code);
        }
    };
    out
}

/// `new CudaError(message, code)` from the registered class; a plain `Error` with `code` where
/// none is registered or the constructor failed.
fn cuda_error(env: sys::napi_env, msg: sys::napi_value, code: &str) -> sys::napi_value {
    let mut code_value = ptr::null_mut();
    // SAFETY: the bytes are valid for their length during the call.
    unsafe { sys::napi_create_string_utf8(env, code.as_ptr().cast(), code.len() as isize, &mut code_value) };
    let class_ref = CUDA_ERROR.with(Cell::get);
    if !class_ref.is_null() {
        let (mut class, mut out) = (ptr::null_mut(), ptr::null_mut());
        // SAFETY: `class_ref` is a live reference of this thread; `class` a valid out-pointer.
        unsafe { sys::napi_get_reference_value(env, class_ref, &mut class) };
        let argv = [msg, code_value];
        // A constructor may return any object: what is thrown must be an Error.
        if !class.is_null() && construct(env, class, &argv, &mut out) && is_error(env, out) {
            return out;
        }
        take_pending(env);
    }
    let mut out = ptr::null_mut();
    // SAFETY: `code_value` and `msg` are strings of this call.
    unsafe { sys::napi_create_error(env, code_value, msg, &mut out) };
    out
}

/// The refusal of a process-wide hook (`registerErrorClass`, the schedulers, the host dispatcher)
/// asked for a second time on a JS thread: the package's loader registers each once, and a later
/// call — the addon required by path, say — must not replace what every error and callback uses.
pub fn hook_taken(hook: &str) -> Error {
    Error::cuda(
        Code::CUDA_ERROR_NOT_PERMITTED,
        format!("{hook}: cuda-node's loader registered it already on this thread; it is registered once (load the package, not its addon)"),
    )
}

/// `new class(...argv)` into `out`; whether it returned normally.
fn construct(env: sys::napi_env, class: sys::napi_value, argv: &[sys::napi_value], out: &mut sys::napi_value) -> bool {
    // SAFETY: `class` is the registered constructor; `argv` holds values of this call.
    let status = unsafe { sys::napi_new_instance(env, class, argv.len(), argv.as_ptr(), out) };
    status == sys::Status::napi_ok
}

/// Whether `value` is an Error: a constructor may return any object, and what is thrown must be one.
fn is_error(env: sys::napi_env, value: sys::napi_value) -> bool {
    let mut yes = false;
    // SAFETY: `value` is a value of this call; `yes` a valid out-pointer.
    let status = unsafe { sys::napi_is_error(env, value, &mut yes) };
    status == sys::Status::napi_ok && yes
}

/// A panic's payload as a core error.
pub fn panic_error(panic: Box<dyn std::any::Any + Send>) -> Error {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Error::cuda(Code::CUDA_ERROR_UNKNOWN, format!("internal error in cuda-node (please report it): {what}"))
}

/// For work done off the JS thread (async tasks): catches panics, keeps the core error.
pub fn guard_off_thread<T>(f: impl FnOnce() -> cuda_node_core::Result<T>) -> cuda_node_core::Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| Err(panic_error(p)))
}
