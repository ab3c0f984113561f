//! The Node-API binding of cuda-node: argument conversion, handles and error mapping over
//! `cuda_node_core`. No CUDA logic lives here. Every export is declared in its concept's file
//! with `exports!` (raw/export.rs); build.rs lists them for the table below.

// Every file of `src/` is a module (`mod stream;`, …; `floor.rs` only with the `floor` feature,
// by its own `#![cfg]`): a new concept's file needs no line here.
automod::dir!("src");
mod raw;

use handles::table;

use napi::bindgen_prelude::*;
use napi::sys;
use raw::{Export, NodeBuffer};
use std::ptr;

/// Every concept's exports: each `EXPORTS` that a file of `src/` declares with `exports!`, listed by
/// build.rs (`crate::stream::EXPORTS`, …, by file name), so a new concept's file needs no line here.
/// (A function making a Vec, not a `const` slice: the const made the WebAssembly build 100 KB
/// larger, 1.54 MB against 1.44.)
fn tables() -> Vec<&'static [Export]> {
    let all: &[&[Export]] = include!(concat!(env!("OUT_DIR"), "/exports.rs"));
    all.to_vec()
}

crate::exports! {
    /// Every export's TypeScript declaration, with its doc comment, as `native.d.ts` declares it
    /// (written at build by scripts/native-types.js, and held to this table by a test).
    c"bindingDeclarations" => fn binding_declarations(_cx) -> NodeBuffer {
        let mut out = String::new();
        for table in tables() {
            for e in table {
                out.push_str(e.doc);
                out.push('\u{1}');
                out.push_str(&e.declaration());
                out.push('\u{2}');
            }
        }
        Ok(NodeBuffer(out.into_bytes()))
    }
}

/// Adds every export to the module's exports.
#[napi_derive::napi(module_exports)]
pub fn register(exports: Object, env: Env) -> napi::Result<()> {
    teardown::install(env.raw())?;
    for table in tables() {
        for e in table {
            let mut f = ptr::null_mut();
            // SAFETY: `name` is NUL-terminated; `f` has Node-API's callback signature.
            check_status!(unsafe {
                sys::napi_create_function(env.raw(), e.name.as_ptr(), e.name.count_bytes() as isize, Some(e.f), ptr::null_mut(), &mut f)
            })?;
            // SAFETY: `exports` and `f` are values of this env.
            check_status!(unsafe { sys::napi_set_named_property(env.raw(), exports.raw(), e.name.as_ptr(), f) })?;
        }
    }
    Ok(())
}
