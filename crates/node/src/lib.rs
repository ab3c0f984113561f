//! The Node-API binding of cuda-node: argument conversion, handles and error mapping over
//! `cuda_node_core`. No CUDA logic lives here. Every export is declared in its concept's file
//! with `exports!` (raw/export.rs) and registered below.

mod async_pool;
mod backend;
mod blas;
mod callbacks;
mod constants;
mod context;
mod coop;
mod device;
mod error_class;
mod errors;
mod event;
mod fft;
#[cfg(feature = "floor")]
mod floor;
mod graph;
mod graph_builder;
mod handles;
mod host_cache;
mod kernel;
mod memory;
mod module;
mod nccl;
mod nvjitlink;
mod nvrtc;
mod nvtx;
mod pinned;
mod pinned_pool;
mod pool;
mod profiler;
mod rand;
mod raw;
mod stream;
mod system;
mod task;
mod teardown;
mod texture;
mod vmm;

use napi::bindgen_prelude::*;
use napi::sys;
use raw::{Export, NodeBuffer};
use std::ptr;

/// Every concept's exports.
fn tables() -> Vec<&'static [Export]> {
    vec![
        backend::EXPORTS,
        error_class::EXPORTS,
        callbacks::EXPORTS,
        device::EXPORTS,
        stream::EXPORTS,
        event::EXPORTS,
        graph::EXPORTS,
        memory::EXPORTS,
        pool::EXPORTS,
        async_pool::EXPORTS,
        pinned::EXPORTS,
        pinned_pool::EXPORTS,
        nvrtc::EXPORTS,
        nvjitlink::EXPORTS,
        module::EXPORTS,
        kernel::EXPORTS,
        blas::EXPORTS,
        context::EXPORTS,
        nccl::EXPORTS,
        nvtx::EXPORTS,
        profiler::EXPORTS,
        coop::EXPORTS,
        constants::EXPORTS,
        graph_builder::EXPORTS,
        system::EXPORTS,
        EXPORTS,
        vmm::EXPORTS,
        texture::EXPORTS,
        #[cfg(feature = "floor")]
        floor::EXPORTS,
        host_cache::EXPORTS,
        rand::EXPORTS,
        fft::EXPORTS,
    ]
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
