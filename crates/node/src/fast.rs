//! The hot calls, as raw Node-API callbacks. napi-rs's generated wrappers are what the rest of
//! the binding uses; on the paths the benchmark (#8) measures they were the cost: measured on
//! Node 20, a class method costs ~410 ns a call before any work (receiver unwrap, type-tag check,
//! borrow scopes), a free function with arguments ~130 ns, and a raw callback ~35 ns. These take
//! numbers only (handles into this thread's tables: `handles.rs`) and a string for NVTX, check
//! every argument, catch panics, and throw through the same error factory as the rest.

use crate::args::{count, uint32};
use crate::callbacks::host_fn;
use crate::errors::{panic_error, to_js};
use crate::{event, memory, module, ptrs, stream};
use cuda_node_core::ops::Launch;
use cuda_node_core::floor::{self, FloorOp};
use cuda_node_core::nvtx;
use cuda_node_core::{Error, Result};
use napi::bindgen_prelude::*;
use napi::sys;
use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

const MAX_ARGS: usize = 4;

/// One call's arguments.
struct Args {
    env: sys::napi_env,
    argc: usize,
    argv: [sys::napi_value; MAX_ARGS],
}

enum Ret {
    Undefined,
    Bool(bool),
    Number(f64),
}

impl Args {
    /// Argument `i` as a number, or a TypeError naming it.
    fn num(&self, i: usize, name: &str) -> Result<f64> {
        let mut v = 0f64;
        // SAFETY: `env` and `argv[i]` (i < argc) are this call's, valid for its duration.
        if i < self.argc && unsafe { sys::napi_get_value_double(self.env, self.argv[i], &mut v) } == sys::Status::napi_ok {
            return Ok(v);
        }
        Err(Error::type_error(format!("{name} must be a number")))
    }

    /// Argument `i` as a number, or `None` when it is absent, `undefined` or `null`.
    fn opt_num(&self, i: usize, name: &str) -> Result<Option<f64>> {
        if i >= self.argc {
            return Ok(None);
        }
        let mut t = 0;
        // SAFETY: as in `num`.
        unsafe { sys::napi_typeof(self.env, self.argv[i], &mut t) };
        match t {
            sys::ValueType::napi_undefined | sys::ValueType::napi_null => Ok(None),
            _ => self.num(i, name).map(Some),
        }
    }

    /// Argument `i` as the contents of a typed array of `kind`, borrowed for this call (JS
    /// cannot run during it, so nothing else touches the bytes).
    fn typed<T>(&self, i: usize, name: &str, kind: sys::napi_typedarray_type) -> Result<&[T]> {
        let wrong = || Error::type_error(format!("{name} must be a {}", std::any::type_name::<T>()));
        if i >= self.argc {
            return Err(wrong());
        }
        let mut is = false;
        // SAFETY: as in `num`.
        if unsafe { sys::napi_is_typedarray(self.env, self.argv[i], &mut is) } != sys::Status::napi_ok || !is {
            return Err(wrong());
        }
        let (mut t, mut len, mut data, mut buf, mut offset) = (0, 0usize, ptr::null_mut(), ptr::null_mut(), 0usize);
        // SAFETY: all out-pointers are valid; the value is a typed array.
        unsafe { sys::napi_get_typedarray_info(self.env, self.argv[i], &mut t, &mut len, &mut data, &mut buf, &mut offset) };
        if t != kind {
            return Err(wrong());
        }
        if len == 0 || data.is_null() {
            return Ok(&[]);
        }
        // SAFETY: napi reports `len` elements of `T` at `data`, alive and unmoved while this
        // synchronous call runs.
        Ok(unsafe { std::slice::from_raw_parts(data as *const T, len) })
    }

    /// Argument `i` as a string, NUL-terminated, in `small` when it fits (no allocation) or
    /// in `big`. A NUL byte inside is `nul`'s error.
    fn c_str<'a>(&self, i: usize, name: &str, small: &'a mut [u8; 256], big: &'a mut Vec<u8>, nul: fn(usize) -> Error) -> Result<&'a CStr> {
        let not_string = || Error::type_error(format!("{name} must be a string"));
        if i >= self.argc {
            return Err(not_string());
        }
        let mut len = 0usize;
        // SAFETY: `small` has room for 256 bytes; napi writes at most 255 and a NUL.
        let status = unsafe { sys::napi_get_value_string_utf8(self.env, self.argv[i], small.as_mut_ptr().cast(), small.len(), &mut len) };
        if status != sys::Status::napi_ok {
            return Err(not_string());
        }
        let bytes: &'a mut [u8] = if len + 1 < small.len() {
            &mut small[..=len]
        } else {
            // Possibly cut short: ask for the whole length, then the whole string.
            // SAFETY: a null buffer asks napi for the length only.
            unsafe { sys::napi_get_value_string_utf8(self.env, self.argv[i], ptr::null_mut(), 0, &mut len) };
            big.resize(len + 1, 0);
            // SAFETY: `big` has room for `len` bytes and the NUL.
            unsafe { sys::napi_get_value_string_utf8(self.env, self.argv[i], big.as_mut_ptr().cast(), big.len(), &mut len) };
            &mut big[..=len]
        };
        CStr::from_bytes_with_nul(bytes).map_err(|_| nul(bytes.iter().position(|&b| b == 0).unwrap_or(0)))
    }
}

/// Runs `f` for one call: reads the arguments, catches any panic, throws any error as the
/// rest of the binding does, and converts the result.
unsafe fn call(env: sys::napi_env, info: sys::napi_callback_info, f: fn(&Args) -> Result<Ret>) -> sys::napi_value {
    let mut args = Args { env, argc: MAX_ARGS, argv: [ptr::null_mut(); MAX_ARGS] };
    // SAFETY: `argv` has room for `argc` values; napi lowers `argc` to the count it wrote...
    // and reports the number passed, which may be larger: keep the smaller.
    unsafe { sys::napi_get_cb_info(env, info, &mut args.argc, args.argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut()) };
    args.argc = args.argc.min(MAX_ARGS);
    let result = catch_unwind(AssertUnwindSafe(|| f(&args))).unwrap_or_else(|p| Err(panic_error(p)));
    let mut out = ptr::null_mut();
    match result {
        // A callback that returns NULL returns `undefined` to JS (Node-API's `napi_callback`).
        Ok(Ret::Undefined) => return ptr::null_mut(),
        // SAFETY: `env` is this call's; `out` is a valid out-pointer.
        Ok(Ret::Bool(b)) => unsafe { sys::napi_get_boolean(env, b, &mut out) },
        Ok(Ret::Number(n)) => unsafe { sys::napi_create_double(env, n, &mut out) },
        Err(e) => {
            // SAFETY: `env` is this call's and valid.
            unsafe { JsError::from(to_js(&Env::from_raw(env), e)).throw_into(env) };
            return ptr::null_mut();
        }
    };
    out
}

macro_rules! fast {
    ($($js:literal => $name:ident($a:ident) $body:block)*) => {
        $(
            unsafe extern "C" fn $name(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
                fn body($a: &Args) -> Result<Ret> $body
                // SAFETY: napi calls this with its own `env` and `info`.
                unsafe { call(env, info, body) }
            }
        )*
        const FUNCTIONS: &[(&CStr, unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value)] = &[$(($js, $name)),*];
    };
}

fast! {
    c"streamSynchronize" => stream_synchronize(a) {
        stream::with(a.num(0, "stream")?, |s| s.synchronize())?;
        Ok(Ret::Undefined)
    }
    c"streamQuery" => stream_query(a) {
        Ok(Ret::Bool(stream::with(a.num(0, "stream")?, |s| s.query())?))
    }
    c"streamRecord" => stream_record(a) {
        let (sid, eid) = (a.num(0, "stream")?, a.num(1, "event")?);
        stream::with(sid, |s| event::with(eid, |e| s.record(e)))?;
        Ok(Ret::Undefined)
    }
    c"streamWaitEvent" => stream_wait_event(a) {
        let (sid, eid) = (a.num(0, "stream")?, a.num(1, "event")?);
        stream::with(sid, |s| event::with(eid, |e| s.wait_event(e)))?;
        Ok(Ret::Undefined)
    }
    c"streamSleep" => stream_sleep(a) {
        let (sid, ns) = (a.num(0, "stream")?, count("ns", a.num(1, "ns")?)?);
        stream::with(sid, |s| s.sleep(ns))?;
        Ok(Ret::Undefined)
    }
    c"streamLaunchHostFn" => stream_launch_host_fn(a) {
        let sid = a.num(0, "stream")?;
        let f = host_fn(uint32("callback id", a.num(1, "callback id")?)?)?;
        stream::with(sid, |s| s.launch_repeat_fn(std::sync::Arc::new(f)))?;
        Ok(Ret::Undefined)
    }
    c"kernelLaunch" => kernel_launch(a) {
        // meta: grid x y z, block x y z, shared memory bytes, argument count, then each argument's size; args:
        // the arguments' bytes in turn (the driver copies them at the launch).
        let (fid, sid) = (a.num(0, "kernel")?, a.num(1, "stream")?);
        let meta: &[u32] = a.typed(2, "launch shape", sys::TypedarrayType::uint32_array)?;
        let bytes: &[u8] = a.typed(3, "argument bytes", sys::TypedarrayType::uint8_array)?;
        let (shape, sizes) = meta.split_at_checked(8).ok_or_else(|| Error::range("the launch shape needs 8 numbers and the sizes"))?;
        let sizes = sizes.get(..shape[7] as usize).ok_or_else(|| Error::range("the launch shape lists fewer sizes than arguments"))?;
        let mut parts: Vec<&[u8]> = Vec::with_capacity(sizes.len());
        let mut at = 0usize;
        for &n in sizes {
            let end = at + n as usize;
            parts.push(bytes.get(at..end).ok_or_else(|| Error::range("argument sizes exceed the argument bytes"))?);
            at = end;
        }
        let launch = Launch { grid: [shape[0], shape[1], shape[2]], block: [shape[3], shape[4], shape[5]], shared_mem: shape[6], args: &parts };
        module::with_function(fid, |f| stream::with(sid, |s| f.launch(s, &launch)))?;
        Ok(Ret::Undefined)
    }
    c"eventQuery" => event_query(a) {
        Ok(Ret::Bool(event::with(a.num(0, "event")?, |e| e.query())?))
    }
    c"eventSynchronize" => event_synchronize(a) {
        event::with(a.num(0, "event")?, |e| e.synchronize())?;
        Ok(Ret::Undefined)
    }
    c"poolMalloc" => pool_malloc(a) {
        let (pid, size, sid) = (a.num(0, "pool")?, count("size", a.num(1, "size")?)?, a.num(2, "stream")?);
        let block = memory::with_pool(pid, |pool| stream::with(sid, |s| pool.malloc(size, s)))?;
        Ok(Ret::Number(ptrs::insert(block)))
    }
    c"asyncPoolMalloc" => async_pool_malloc(a) {
        let (pid, size, sid) = (a.num(0, "pool")?, count("size", a.num(1, "size")?)?, a.num(2, "stream")?);
        let block = memory::with_async_pool(pid, |pool| stream::with(sid, |s| pool.malloc(size, s)))?;
        Ok(Ret::Number(ptrs::insert(block)))
    }
    c"memFree" => mem_free(a) {
        ptrs::remove(a.num(0, "handle")?)?;
        Ok(Ret::Undefined)
    }
    c"driverFloor" => driver_floor(a) {
        // The benchmark's in-process floor (op 0: event record+query, 1: idle stream synchronize).
        let op = match uint32("floor op", a.num(0, "floor op")?)? {
            0 => FloorOp::EventRecordQuery,
            1 => FloorOp::StreamSynchronize,
            n => return Err(Error::range(format!("floor op must be 0 or 1, got {n}"))),
        };
        let (sid, eid, n) = (a.num(1, "stream")?, a.num(2, "event")?, uint32("count", a.num(3, "count")?)?);
        Ok(Ret::Number(stream::with(sid, |s| event::with(eid, |e| floor::floor(op, s, e, n)))?))
    }
    c"nvtxRangePush" => nvtx_range_push(a) {
        let (mut small, mut big) = ([0u8; 256], Vec::new());
        let m = a.c_str(0, "an NVTX message", &mut small, &mut big, nvtx::nul_error)?;
        let color = crate::nvtx::color(a.opt_num(1, "idColor")?.map(|id| id as i64), a.opt_num(2, "argb")?.map(|c| c as u32));
        Ok(Ret::Number(nvtx::range_push_c(m, color) as f64))
    }
    c"nvtxRangePop" => nvtx_range_pop(_a) {
        Ok(Ret::Number(nvtx::range_pop() as f64))
    }
}

/// Adds the hot calls to the module's exports.
#[napi_derive::napi(module_exports)]
pub fn register(mut exports: Object, env: Env) -> napi::Result<()> {
    for (name, f) in FUNCTIONS {
        let mut value = ptr::null_mut();
        // SAFETY: `name` is NUL-terminated; `f` has napi's callback signature.
        check_status!(unsafe { sys::napi_create_function(env.raw(), name.as_ptr(), name.count_bytes() as isize, Some(*f), ptr::null_mut(), &mut value) })?;
        // SAFETY: `value` is the function napi just created in this env.
        exports.set_named_property(name.to_str().unwrap_or_default(), unsafe { Unknown::from_raw_unchecked(env.raw(), value) })?;
    }
    Ok(())
}
