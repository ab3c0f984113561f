//! What a result is written as: each Rust type an export returns ([`Ret`]) and the JS value it
//! becomes, and [`js_object!`](crate::js_object) for plain structs returned as objects.

use super::args::BigU64;
use super::call::ok;
use cuda_node_core::Result;
use napi::sys;
use std::ffi::CStr;
use std::ptr;

/// What a result is written as.
pub trait Ret {
    /// The result's TypeScript type.
    fn ts() -> String;
    /// The JS value; null means `undefined` (Node-API's rule for a callback's result).
    fn write(self, env: sys::napi_env) -> Result<sys::napi_value>;
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
