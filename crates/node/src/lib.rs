//! napi-rs glue for cuda-node: converts arguments, calls `cuda_node_core`, maps errors.
//! No CUDA logic lives here.

mod args;
mod blas;
mod callbacks;
mod device;
mod errors;
mod fast;
mod event;
mod graph;
mod handles;
mod memory;
mod module;
mod nvtx;
mod pinned;
mod ptrs;
mod stream;
mod task;

use errors::guard;
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi(object)]
pub struct BackendInfo {
    pub name: String,
    pub reason: String,
    pub driver_version: Option<i32>,
}

/// Which backend runs and why (selects it on first call).
#[napi]
pub fn backend_info(env: Env) -> Result<BackendInfo> {
    guard(&env, || {
        let rt = cuda_node_core::runtime()?;
        Ok(BackendInfo {
            name: rt.info.kind.name().to_string(),
            reason: rt.info.reason.clone(),
            driver_version: rt.info.driver_version,
        })
    })
}
