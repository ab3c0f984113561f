//! What an argument is read as: each Rust type an export takes ([`Arg`]) and how it is read
//! from its JS value.

use super::call::{describe, js_name, ok, type_of, wrong, Cx, JsName};
use super::numbers;
use cuda_node_core::{Error, Result};
use napi::sys;
use std::ptr;

/// What an argument is read as. `'a` is the call: borrowed data (typed-array contents) lives
/// as long as it, since no JS runs during the call.
pub trait Arg<'a>: Sized {
    /// May be left out (or `undefined` / `null`).
    const OPTIONAL: bool = false;
    /// The argument's TypeScript type.
    fn ts() -> String;
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<Self>;
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
        numbers::count(JsName(name), v).map(Count)
    }
}

impl<'a> Arg<'a> for u32 {
    fn ts() -> String {
        "number".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<u32> {
        numbers::uint32(JsName(name), f64::read(cx, i, name)?)
    }
}

impl<'a> Arg<'a> for i32 {
    fn ts() -> String {
        "number".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> Result<i32> {
        numbers::int32(JsName(name), f64::read(cx, i, name)?)
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
