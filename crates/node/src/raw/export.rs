//! The table of exports: [`exports!`](crate::exports) declares a concept's exports in its own
//! file, each a raw Node-API callback that [`call`] runs and an [`Export`] entry (lib.rs
//! registers every table), whose TypeScript line `native.d.ts` is written from.

use super::call::{js_name, Cx, MAX_ARGS};
use super::ret::Ret;
use crate::errors;
use cuda_node_core::Result;
use napi::sys;
use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

#[cfg(target_family = "wasm")]
extern "C" {
    /// emnapi: copies between a JS ArrayBuffer or view and its copy in wasm memory.
    fn emnapi_sync_memory(
        env: sys::napi_env,
        js_to_wasm: bool,
        arraybuffer_or_view: *mut sys::napi_value,
        offset: usize,
        len: usize,
    ) -> sys::napi_status;
}

/// A parameter as `native.d.ts` declares it: its Rust name, TypeScript type, and whether it
/// may be left out.
pub type Param = (&'static str, String, bool);

/// One exported function: its JS name, its callback, and its TypeScript signature.
pub struct Export {
    pub name: &'static CStr,
    pub f: unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value,
    /// `(params, return type)`, each param `(rust name, TS type, optional)`.
    pub signature: fn() -> (Vec<Param>, String),
    pub doc: &'static str,
}

impl Export {
    /// `name(a: number, b?: bigint | null): void`, the line `native.d.ts` declares.
    pub fn declaration(&self) -> String {
        let (params, ret) = (self.signature)();
        let params: Vec<String> =
            params.iter().map(|(n, t, opt)| format!("{}{}: {}", js_name(n), if *opt { "?" } else { "" }, t)).collect();
        format!("{}({}): {}", self.name.to_str().unwrap_or(""), params.join(", "), ret)
    }
}

/// Runs one export: reads its arguments, catches any panic, throws any error, writes the result.
///
/// # Safety
/// `env` and `info` are the ones Node-API passed to the callback being run.
pub unsafe fn call<R: Ret>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    args: usize,
    f: impl FnOnce(&Cx) -> Result<R>,
) -> sys::napi_value {
    // Node-API writes every slot asked for (undefined past those passed): ask for the export's own.
    let wanted = args.min(MAX_ARGS);
    let mut cx = Cx {
        env,
        argc: wanted,
        argv: [ptr::null_mut(); MAX_ARGS],
        #[cfg(target_family = "wasm")]
        written: Default::default(),
        thrown: std::cell::Cell::new(ptr::null_mut()),
    };
    // SAFETY: `argv` has room for `argc` values; Node-API writes at most that many and reports
    // the number passed, which may be larger: keep the smaller.
    unsafe { sys::napi_get_cb_info(env, info, &mut cx.argc, cx.argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut()) };
    cx.argc = cx.argc.min(wanted);
    let result = catch_unwind(AssertUnwindSafe(|| f(&cx).and_then(|r| r.write(env)))).unwrap_or_else(|p| Err(errors::panic_error(p)));
    #[cfg(target_family = "wasm")]
    for mut v in cx.written.take() {
        // SAFETY: `v` is a typed array of this call; `usize::MAX` (-1) is its whole length.
        unsafe { emnapi_sync_memory(env, false, &mut v, 0, usize::MAX) };
    }
    super::pump::after_call(env);
    match result {
        Ok(v) => v,
        Err(_) if !cx.thrown.get().is_null() => {
            // SAFETY: a value of this call, what a function it called threw (cleared then).
            unsafe { sys::napi_throw(env, cx.thrown.get()) };
            ptr::null_mut()
        }
        Err(e) => {
            errors::throw(env, e);
            ptr::null_mut()
        }
    }
}

/// Declares a concept's exports: each a raw Node-API callback and an entry of its `EXPORTS`
/// table (lib.rs registers every table). Arguments are read in order by their types.
///
/// ```ignore
/// exports! {
///     /// Blocks until all work on the stream is complete.
///     c"streamSynchronize" => fn stream_synchronize(_cx, stream: f64) -> () { with(stream, |s| s.synchronize()) }
/// }
/// ```
#[macro_export]
macro_rules! exports {
    ($($(#[doc = $doc:literal])* $js:literal => fn $name:ident($cx:ident $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty $body:block)*) => {
        $(
            $(#[doc = $doc])*
            unsafe extern "C" fn $name(env: napi::sys::napi_env, info: napi::sys::napi_callback_info) -> napi::sys::napi_value {
                let body = |$cx: &$crate::raw::Cx| -> cuda_node_core::Result<$ret> {
                    let _next = 0usize;
                    $(
                        let $arg = <$ty as $crate::raw::Arg>::read($cx, _next, stringify!($arg))?;
                        #[allow(unused_variables)]
                        let _next = _next + 1;
                    )*
                    $body
                };
                const ARGS: usize = <[&str]>::len(&[$(stringify!($arg)),*]);
                // SAFETY: Node-API calls this with the env and info of the call.
                unsafe { $crate::raw::call(env, info, ARGS, body) }
            }
        )*

        /// This concept's exports, for registration and for `native.d.ts`.
        pub(crate) const EXPORTS: &[$crate::raw::Export] = &[$(
            $crate::raw::Export {
                name: $js,
                f: $name,
                signature: || (
                    vec![$((stringify!($arg), <$ty as $crate::raw::Arg>::ts(), <$ty as $crate::raw::Arg>::OPTIONAL)),*],
                    <$ret as $crate::raw::Ret>::ts(),
                ),
                doc: concat!($($doc, "\n"),*),
            }
        ),*];
    };
}
