//! One call: its arguments as Node-API passes them ([`Cx`]), what they are for error messages,
//! and the status check every Node-API call made during it goes through.

use cuda_node_core::{Error, Result};
use napi::sys;
use std::ptr;

/// The most arguments an export takes.
pub const MAX_ARGS: usize = 12;

/// One call: its environment and arguments.
pub struct Cx {
    pub env: sys::napi_env,
    pub(super) argc: usize,
    pub(super) argv: [sys::napi_value; MAX_ARGS],
    /// WebAssembly: the typed arrays the call writes, copied back to JS when it returns
    /// (emnapi gives native code a copy of JS memory in wasm memory).
    #[cfg(target_family = "wasm")]
    pub(super) written: std::cell::RefCell<Vec<sys::napi_value>>,
    /// What a JS function this call called threw (null: nothing): the call throws it back, as
    /// it was, in place of its own error.
    pub(super) thrown: std::cell::Cell<sys::napi_value>,
}

impl Cx {
    /// Argument `i`, or `None` when it was not passed.
    pub fn arg(&self, i: usize) -> Option<sys::napi_value> {
        (i < self.argc).then(|| self.argv[i])
    }

    /// The JS type of argument `i` (`undefined` when it was not passed).
    pub fn type_of(&self, i: usize) -> sys::napi_valuetype {
        let Some(v) = self.arg(i) else {
            return sys::ValueType::napi_undefined;
        };
        type_of(self.env, v)
    }
}

/// The JS type of `v`.
pub fn type_of(env: sys::napi_env, v: sys::napi_value) -> sys::napi_valuetype {
    let mut t = sys::ValueType::napi_undefined;
    // SAFETY: `env` and `v` belong to the call in progress; `t` is a valid out-pointer.
    unsafe { sys::napi_typeof(env, v, &mut t) };
    t
}

/// A word for what a JS value is, for error messages.
pub fn describe(env: sys::napi_env, v: Option<sys::napi_value>) -> &'static str {
    let Some(v) = v else { return "nothing" };
    match type_of(env, v) {
        sys::ValueType::napi_undefined => "undefined",
        sys::ValueType::napi_null => "null",
        sys::ValueType::napi_boolean => "a boolean",
        sys::ValueType::napi_number => "a number",
        sys::ValueType::napi_string => "a string",
        sys::ValueType::napi_symbol => "a symbol",
        sys::ValueType::napi_object => "an object",
        sys::ValueType::napi_function => "a function",
        sys::ValueType::napi_external => "an external",
        sys::ValueType::napi_bigint => "a bigint",
        _ => "a value",
    }
}

/// A TypeError saying what argument `name` must be and what it was.
pub fn wrong(cx: &Cx, i: usize, name: &str, must: &str) -> Error {
    Error::type_error(format!("{} must be {must}, got {}", js_name(name), describe(cx.env, cx.arg(i))))
}

/// An argument's name as the TS layer writes it ([`js_name`]), converted only when formatted:
/// for the error of a check that mostly passes.
pub struct JsName<'a>(pub &'a str);

impl std::fmt::Display for JsName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&js_name(self.0))
    }
}

/// `snake_case` → `camelCase`: argument names as the TS layer writes them.
pub fn js_name(rust: &str) -> String {
    let mut out = String::with_capacity(rust.len());
    let mut upper = false;
    for c in rust.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Checks a Node-API status from a call that cannot fail for a well-typed value.
pub fn ok(status: sys::napi_status, what: &str) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::type_error(format!("{what} failed (Node-API status {status})")))
    }
}

/// Calls `f(arg)` synchronously on this call's thread and reads a number back. What it throws is
/// an error here, and the export throws it back as it was once it returns (`Cx::thrown`).
pub fn call_number(cx: &Cx, f: sys::napi_value, arg: f64) -> Result<f64> {
    let (mut argv, mut undefined, mut out) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    // SAFETY: `cx.env` is the current call's; the values are made and used within it.
    unsafe {
        ok(sys::napi_create_double(cx.env, arg, &mut argv), "making an argument")?;
        ok(sys::napi_get_undefined(cx.env, &mut undefined), "making an argument")?;
        let status = sys::napi_call_function(cx.env, undefined, f, 1, &argv, &mut out);
        if status == sys::Status::napi_pending_exception {
            // Kept, cleared, for the call to throw back once it returns (see `Cx::thrown`).
            let mut thrown = ptr::null_mut();
            sys::napi_get_and_clear_last_exception(cx.env, &mut thrown);
            cx.thrown.set(thrown);
            return Err(Error::cuda(cuda_node_core::Code::CUDA_ERROR_UNKNOWN, "the function threw"));
        }
        ok(status, "calling a function")?;
    }
    let mut v = 0.0;
    // SAFETY: `out` is a value of this call; `v` is a valid out-pointer.
    ok(unsafe { sys::napi_get_value_double(cx.env, out, &mut v) }, "reading a number the function returned")?;
    Ok(v)
}
