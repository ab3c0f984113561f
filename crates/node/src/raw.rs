//! The binding's one mechanism. Every function the addon exports is a raw Node-API callback,
//! declared with [`exports!`] in the file of its concept (`stream.rs`, `event.rs`, ...): each
//! argument is read by its Rust type ([`Arg`]), the result written by its type ([`Ret`]), a core
//! error thrown as the JS error its kind maps to (`errors.rs`), and a panic caught. The same
//! declaration gives the function's TypeScript signature ([`Export::signature`]); the build
//! writes `native.d.ts` from that table (`scripts/native-types.js`), and a test holds the file to
//! the table, so no native call is typed by hand.
//!
//! Hot and cold calls share this path; what makes a call hot is what it takes and returns. The
//! rule: a call made once per GPU operation (synchronize, query, record, wait, launch, malloc,
//! free, NVTX push and pop) takes only numbers, booleans, handles and typed arrays, and returns
//! only a number, a boolean or nothing, so that it allocates nothing and costs one crossing
//! (~35 ns here, ~65 ns on the H100 host; a napi-rs class method costs ~400). Setup calls
//! (create, destroy, properties, compile) may take and return strings, objects and Promises.

use crate::errors;
use cuda_node_core::{Error, Result};
use napi::sys;
use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

/// The most arguments an export takes.
pub const MAX_ARGS: usize = 12;

/// One call: its environment and arguments.
pub struct Cx {
    pub env: sys::napi_env,
    argc: usize,
    argv: [sys::napi_value; MAX_ARGS],
    /// WebAssembly: the typed arrays the call writes, copied back to JS when it returns
    /// (emnapi gives native code a copy of JS memory in wasm memory).
    #[cfg(target_family = "wasm")]
    written: std::cell::RefCell<Vec<sys::napi_value>>,
}

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

/// What an argument is read as. `'a` is the call: borrowed data (typed-array contents) lives
/// as long as it, since no JS runs during the call.
pub trait Arg<'a>: Sized {
    /// May be left out (or `undefined` / `null`).
    const OPTIONAL: bool = false;
    /// The argument's TypeScript type.
    fn ts() -> String;
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<Self>;
}

/// What a result is written as.
pub trait Ret {
    /// The result's TypeScript type.
    fn ts() -> String;
    /// The JS value; null means `undefined` (Node-API's rule for a callback's result).
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value>;
}

/// Checks a Node-API status from a call that cannot fail for a well-typed value.
pub fn ok(status: sys::napi_status, what: &str) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::type_error(format!("{what} failed (Node-API status {status})")))
    }
}

impl<'a> Arg<'a> for f64 {
    fn ts() -> String {
        "number".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<f64> {
        let mut v = 0f64;
        if let Some(a) = cx.arg(i) {
            // SAFETY: `env` and the argument belong to this call; `v` is a valid out-pointer.
            if unsafe { sys::napi_get_value_double(cx.env, a, &mut v) } == sys::Status::napi_ok {
                return Ok(v);
            }
        }
        Err(wrong(cx, i, name, "a number"))
    }
}

impl<'a> Arg<'a> for bool {
    fn ts() -> String {
        "boolean".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<bool> {
        let mut v = false;
        if let Some(a) = cx.arg(i) {
            // SAFETY: as for f64.
            if unsafe { sys::napi_get_value_bool(cx.env, a, &mut v) } == sys::Status::napi_ok {
                return Ok(v);
            }
        }
        Err(wrong(cx, i, name, "a boolean"))
    }
}

/// A byte count, offset or element count: a whole number in [0, 2^53).
pub struct Count(pub u64);

impl<'a> Arg<'a> for Count {
    fn ts() -> String {
        "number".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<Count> {
        let v = f64::read(cx, i, name)?;
        crate::args::count(&js_name(name), v).map(Count)
    }
}

impl<'a> Arg<'a> for u32 {
    fn ts() -> String {
        "number".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<u32> {
        crate::args::uint32(&js_name(name), f64::read(cx, i, name)?)
    }
}

impl<'a> Arg<'a> for i32 {
    fn ts() -> String {
        "number".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<i32> {
        crate::args::int32(&js_name(name), f64::read(cx, i, name)?)
    }
}

impl<'a, T: Arg<'a>> Arg<'a> for Option<T> {
    const OPTIONAL: bool = true;
    fn ts() -> String {
        format!("{} | null", T::ts())
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<Option<T>> {
        match cx.type_of(i) {
            sys::ValueType::napi_undefined | sys::ValueType::napi_null => Ok(None),
            _ => T::read(cx, i, name).map(Some),
        }
    }
}

/// An unsigned 64-bit integer passed as a bigint (a driver handle or an address).
pub struct BigU64(pub u64);

impl<'a> Arg<'a> for BigU64 {
    fn ts() -> String {
        "bigint".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<BigU64> {
        if cx.type_of(i) != sys::ValueType::napi_bigint {
            return Err(wrong(cx, i, name, "a bigint"));
        }
        let (mut v, mut lossless) = (0u64, false);
        // SAFETY: the argument is a bigint (checked); both are valid out-pointers.
        unsafe { sys::napi_get_value_bigint_uint64(cx.env, cx.argv[i], &mut v, &mut lossless) };
        if !lossless {
            return Err(Error::range(format!("{} must be an unsigned 64-bit integer", js_name(name))));
        }
        Ok(BigU64(v))
    }
}

impl Ret for BigU64 {
    fn ts() -> String {
        "bigint".into()
    }
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: `env` is this call's; `out` is a valid out-pointer.
        ok(unsafe { sys::napi_create_bigint_uint64(env, self.0, &mut out) }, "creating a bigint")?;
        Ok(out)
    }
}

/// The longest string an export reads (kernel sources are the longest in practice).
const MAX_STRING: usize = 256 << 20;

impl<'a> Arg<'a> for String {
    fn ts() -> String {
        "string".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<String> {
        if cx.type_of(i) != sys::ValueType::napi_string {
            return Err(wrong(cx, i, name, "a string"));
        }
        string(cx.env, cx.argv[i], name)
    }
}

/// The string `v` (known to be one) as UTF-8.
pub fn string(env: sys::napi_env, v: sys::napi_value, name: &str) -> Result<String> {
    let mut len = 0usize;
    // SAFETY: a null buffer asks for the length only.
    ok(unsafe { sys::napi_get_value_string_utf8(env, v, ptr::null_mut(), 0, &mut len) }, "reading a string")?;
    if len > MAX_STRING {
        return Err(Error::range(format!("{} is {len} bytes long, more than {MAX_STRING} allowed", js_name(name))));
    }
    let mut buf = vec![0u8; len + 1];
    // SAFETY: `buf` has room for `len` bytes and the NUL.
    ok(unsafe { sys::napi_get_value_string_utf8(env, v, buf.as_mut_ptr().cast(), buf.len(), &mut len) }, "reading a string")?;
    buf.truncate(len);
    String::from_utf8(buf).map_err(|_| Error::type_error(format!("{} is not valid UTF-8", js_name(name))))
}

impl Ret for String {
    fn ts() -> String {
        "string".into()
    }
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: the bytes are valid for their length during the call.
        ok(unsafe { sys::napi_create_string_utf8(env, self.as_ptr().cast(), self.len() as isize, &mut out) }, "creating a string")?;
        Ok(out)
    }
}

/// The most strings an array argument may hold (compiler options, name expressions).
const MAX_STRINGS: u32 = 4096;

/// An array of strings, read element by element: a sparse or enormous array is an error, not a
/// loop over 2^32 holes.
pub struct Strings(pub Vec<String>);

impl<'a> Arg<'a> for Strings {
    fn ts() -> String {
        "string[]".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<Strings> {
        let Some(v) = cx.arg(i) else {
            return Err(wrong(cx, i, name, "an array of strings"));
        };
        let mut is = false;
        // SAFETY: `v` belongs to this call; `is` is a valid out-pointer.
        unsafe { sys::napi_is_array(cx.env, v, &mut is) };
        if !is {
            return Err(wrong(cx, i, name, "an array of strings"));
        }
        let mut len = 0u32;
        // SAFETY: `v` is an array.
        ok(unsafe { sys::napi_get_array_length(cx.env, v, &mut len) }, "reading an array")?;
        if len > MAX_STRINGS {
            return Err(Error::range(format!("{} has {len} entries, more than {MAX_STRINGS} allowed", js_name(name))));
        }
        let mut out = Vec::with_capacity(len as usize);
        for k in 0..len {
            let mut e = ptr::null_mut();
            // SAFETY: `v` is an array; `e` is a valid out-pointer. A getter that throws leaves
            // an exception pending, which `call` turns into this function's TypeError.
            ok(unsafe { sys::napi_get_element(cx.env, v, k, &mut e) }, "reading an array element")?;
            if type_of(cx.env, e) != sys::ValueType::napi_string {
                return Err(Error::type_error(format!("{}[{k}] must be a string, got {}", js_name(name), describe(cx.env, Some(e)))));
            }
            out.push(string(cx.env, e, name)?);
        }
        Ok(Strings(out))
    }
}

/// Where a typed array of `kind` keeps its elements, and how many there are.
fn typed_array(cx: &Cx, i: usize, name: &str, kind: sys::napi_typedarray_type, must: &str) -> Result<(*mut std::ffi::c_void, usize)> {
    let Some(v) = cx.arg(i) else {
        return Err(wrong(cx, i, name, must));
    };
    let mut is = false;
    // SAFETY: `v` belongs to this call; `is` is a valid out-pointer.
    if unsafe { sys::napi_is_typedarray(cx.env, v, &mut is) } != sys::Status::napi_ok || !is {
        return Err(wrong(cx, i, name, must));
    }
    let (mut t, mut len, mut data, mut buf, mut offset) = (0, 0usize, ptr::null_mut(), ptr::null_mut(), 0usize);
    // SAFETY: `v` is a typed array; all out-pointers are valid.
    ok(unsafe { sys::napi_get_typedarray_info(cx.env, v, &mut t, &mut len, &mut data, &mut buf, &mut offset) }, "reading a typed array")?;
    if t != kind {
        return Err(wrong(cx, i, name, must));
    }
    Ok((data, if data.is_null() { 0 } else { len }))
}

/// A `Uint8Array` (a `Buffer` too), read for the call.
pub struct Bytes<'a>(pub &'a [u8]);

impl<'a> Arg<'a> for Bytes<'a> {
    fn ts() -> String {
        "Uint8Array".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<Bytes<'a>> {
        let (data, len) = typed_array(cx, i, name, sys::TypedarrayType::uint8_array, "a Uint8Array")?;
        if len == 0 {
            return Ok(Bytes(&[]));
        }
        // SAFETY: Node-API reports `len` bytes at `data`, alive and unmoved while this synchronous
        // call runs, and no JS runs meanwhile to touch them.
        Ok(Bytes(unsafe { std::slice::from_raw_parts(data as *const u8, len) }))
    }
}

/// A `Uint8Array` written during the call.
pub struct BytesMut<'a>(pub &'a mut [u8]);

impl<'a> Arg<'a> for BytesMut<'a> {
    fn ts() -> String {
        "Uint8Array".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<BytesMut<'a>> {
        let (data, len) = typed_array(cx, i, name, sys::TypedarrayType::uint8_array, "a Uint8Array")?;
        if len == 0 {
            return Ok(BytesMut(&mut []));
        }
        #[cfg(target_family = "wasm")]
        cx.written.borrow_mut().extend(cx.arg(i));
        // SAFETY: as for `Bytes`; the call is the only writer while it runs.
        Ok(BytesMut(unsafe { std::slice::from_raw_parts_mut(data as *mut u8, len) }))
    }
}

/// A `Uint32Array`, read for the call.
pub struct Words<'a>(pub &'a [u32]);

impl<'a> Arg<'a> for Words<'a> {
    fn ts() -> String {
        "Uint32Array".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<Words<'a>> {
        let (data, len) = typed_array(cx, i, name, sys::TypedarrayType::uint32_array, "a Uint32Array")?;
        if len == 0 {
            return Ok(Words(&[]));
        }
        // SAFETY: as for `Bytes`: `len` aligned u32 elements (a Uint32Array's are aligned).
        Ok(Words(unsafe { std::slice::from_raw_parts(data as *const u32, len) }))
    }
}

/// A `Float64Array`, read for the call (a call's many numbers at once).
pub struct Numbers<'a>(pub &'a [f64]);

impl<'a> Arg<'a> for Numbers<'a> {
    fn ts() -> String {
        "Float64Array".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<Numbers<'a>> {
        let (data, len) = typed_array(cx, i, name, sys::TypedarrayType::float64_array, "a Float64Array")?;
        if len == 0 {
            return Ok(Numbers(&[]));
        }
        // SAFETY: as for `Bytes`: `len` aligned f64 elements.
        Ok(Numbers(unsafe { std::slice::from_raw_parts(data as *const f64, len) }))
    }
}

/// The JS object that owns a native object: when it is collected, the handle is released
/// (`handles::own`). Any object or function will do.
pub struct Owner(pub sys::napi_value);

impl<'a> Arg<'a> for Owner {
    fn ts() -> String {
        "object".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<Owner> {
        match cx.type_of(i) {
            sys::ValueType::napi_object | sys::ValueType::napi_function => Ok(Owner(cx.argv[i])),
            _ => Err(wrong(cx, i, name, "an object")),
        }
    }
}

/// A JS function, for the calls that register one.
pub struct Func(pub sys::napi_value);

impl<'a> Arg<'a> for Func {
    fn ts() -> String {
        "Function".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<Func> {
        match cx.type_of(i) {
            sys::ValueType::napi_function => Ok(Func(cx.argv[i])),
            _ => Err(wrong(cx, i, name, "a function")),
        }
    }
}

/// Calls `f(arg)` synchronously on this call's thread and reads a number back. A throw stays
/// pending (the export's error then reports it) and is an error here.
pub fn call_number(cx: &Cx, f: sys::napi_value, arg: f64) -> Result<f64> {
    let (mut argv, mut undefined, mut out) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    // SAFETY: `cx.env` is the current call's; the values are made and used within it.
    unsafe {
        ok(sys::napi_create_double(cx.env, arg, &mut argv), "making an argument")?;
        ok(sys::napi_get_undefined(cx.env, &mut undefined), "making an argument")?;
        ok(sys::napi_call_function(cx.env, undefined, f, 1, &argv, &mut out), "calling a function")?;
    }
    let mut v = 0.0;
    // SAFETY: `out` is a value of this call; `v` is a valid out-pointer.
    ok(unsafe { sys::napi_get_value_double(cx.env, out, &mut v) }, "reading a number the function returned")?;
    Ok(v)
}

/// An `ArrayBuffer` argument, as a value.
pub struct JsArrayBuffer(pub sys::napi_value);

impl<'a> Arg<'a> for JsArrayBuffer {
    fn ts() -> String {
        "ArrayBuffer".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<JsArrayBuffer> {
        let Some(v) = cx.arg(i) else {
            return Err(wrong(cx, i, name, "an ArrayBuffer"));
        };
        let mut is = false;
        // SAFETY: `v` belongs to this call; `is` is a valid out-pointer.
        unsafe { sys::napi_is_arraybuffer(cx.env, v, &mut is) };
        if !is {
            return Err(wrong(cx, i, name, "an ArrayBuffer"));
        }
        Ok(JsArrayBuffer(v))
    }
}

/// An `ArrayBuffer` the export made, returned as it is.
pub struct ArrayBufferOut(pub sys::napi_value);

impl Ret for ArrayBufferOut {
    fn ts() -> String {
        "ArrayBuffer".into()
    }
    fn write(self, _env: sys::napi_env) -> Result<sys::napi_value> {
        Ok(self.0)
    }
}

impl Ret for () {
    fn ts() -> String {
        "void".into()
    }
    fn write(self, _env: sys::napi_env) -> Result<sys::napi_value> {
        Ok(ptr::null_mut())
    }
}

impl Ret for bool {
    fn ts() -> String {
        "boolean".into()
    }
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: `env` is this call's; `out` is a valid out-pointer.
        ok(unsafe { sys::napi_get_boolean(env, self, &mut out) }, "creating a boolean")?;
        Ok(out)
    }
}

impl Ret for f64 {
    fn ts() -> String {
        "number".into()
    }
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: as for bool.
        ok(unsafe { sys::napi_create_double(env, self, &mut out) }, "creating a number")?;
        Ok(out)
    }
}

impl Ret for u32 {
    fn ts() -> String {
        "number".into()
    }
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value> {
        (self as f64).write(env)
    }
}

impl Ret for i32 {
    fn ts() -> String {
        "number".into()
    }
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value> {
        (self as f64).write(env)
    }
}

impl<T: Ret> Ret for Option<T> {
    fn ts() -> String {
        format!("{} | null", T::ts())
    }
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value> {
        match self {
            Some(v) => v.write(env),
            None => {
                let mut out = ptr::null_mut();
                // SAFETY: `env` is this call's; `out` is a valid out-pointer.
                ok(unsafe { sys::napi_get_null(env, &mut out) }, "creating null")?;
                Ok(out)
            }
        }
    }
}

impl<T: Ret> Ret for Vec<T> {
    fn ts() -> String {
        format!("Array<{}>", T::ts())
    }
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value> {
        let mut arr = ptr::null_mut();
        // SAFETY: `env` is this call's; `arr` is a valid out-pointer.
        ok(unsafe { sys::napi_create_array_with_length(env, self.len(), &mut arr) }, "creating an array")?;
        for (i, v) in self.into_iter().enumerate() {
            let v = v.write(env)?;
            // SAFETY: `arr` is the array made above; `v` a value of this call.
            ok(unsafe { sys::napi_set_element(env, arr, i as u32, v) }, "filling an array")?;
        }
        Ok(arr)
    }
}

/// Bytes returned as a new Node `Buffer`.
pub struct NodeBuffer(pub Vec<u8>);

impl Ret for NodeBuffer {
    fn ts() -> String {
        "Buffer".into()
    }
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value> {
        let (mut data, mut out) = (ptr::null_mut(), ptr::null_mut());
        // SAFETY: the source is valid for its length; Node copies it into the new Buffer.
        ok(unsafe { sys::napi_create_buffer_copy(env, self.0.len(), self.0.as_ptr().cast(), &mut data, &mut out) }, "creating a Buffer")?;
        Ok(out)
    }
}

/// A JS object built field by field: `(camelCase name, value)`.
pub fn object(env: sys::napi_env, fields: &[(&CStr, sys::napi_value)]) -> Result<sys::napi_value> {
    let mut obj = ptr::null_mut();
    // SAFETY: `env` is this call's; `obj` is a valid out-pointer.
    ok(unsafe { sys::napi_create_object(env, &mut obj) }, "creating an object")?;
    for (name, v) in fields {
        // SAFETY: `obj` was made above; `name` is NUL-terminated; `v` a value of this call.
        ok(unsafe { sys::napi_set_named_property(env, obj, name.as_ptr(), *v) }, "setting a property")?;
    }
    Ok(obj)
}

/// A plain struct returned to JS as an object, its TypeScript type written from its fields.
/// `js_object! { /// doc  pub struct MemInfo { free: f64 = c"free", total: f64 = c"total" } }`
#[macro_export]
macro_rules! js_object {
    ($(#[$m:meta])* pub struct $name:ident { $($field:ident : $ty:ty = $js:literal),* $(,)? }) => {
        $(#[$m])*
        pub struct $name { $(pub $field: $ty),* }

        impl $crate::raw::Ret for $name {
            fn ts() -> String {
                let fields: Vec<String> = vec![$(format!("{}: {}", $js.to_str().unwrap_or(""), <$ty as $crate::raw::Ret>::ts())),*];
                format!("{{ {} }}", fields.join("; "))
            }
            fn write(self, env: napi::sys::napi_env) -> cuda_node_core::Result<napi::sys::napi_value> {
                let fields = [$(($js, <$ty as $crate::raw::Ret>::write(self.$field, env)?)),*];
                $crate::raw::object(env, &fields)
            }
        }
    };
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
    crate::coop::after_call(env);
    match result {
        Ok(v) => v,
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
