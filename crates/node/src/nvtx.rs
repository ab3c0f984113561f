use crate::errors::guard;
use cuda_node_core::nvtx::{self, Color};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// The colour of a message from CuPy's `id_color` or an ARGB value (which wins).
pub(crate) fn color(id_color: Option<i64>, argb: Option<u32>) -> Color {
    match (argb, id_color) {
        (Some(c), _) => Color::Argb(c),
        (None, Some(id)) => Color::from_id(id),
        (None, None) => Color::None,
    }
}

#[napi]
pub fn nvtx_mark(env: Env, message: String, id_color: Option<i64>, argb: Option<u32>) -> Result<()> {
    guard(&env, || nvtx::mark(&message, color(id_color, argb)))
}

// nvtxRangePush and nvtxRangePop are hot calls: `fast.rs`.

#[napi]
pub fn nvtx_range_start(env: Env, message: String, id_color: Option<i64>, argb: Option<u32>) -> Result<BigInt> {
    guard(&env, || Ok(BigInt::from(nvtx::range_start(&message, color(id_color, argb))?)))
}

#[napi]
pub fn nvtx_range_end(id: BigInt) {
    nvtx::range_end(id.get_u64().1)
}

/// Starts or stops the profiler (`cuProfilerStart` / `cuProfilerStop`).
#[napi]
pub fn profiler_set(env: Env, on: bool) -> Result<()> {
    guard(&env, || cuda_node_core::profiler::set(on))
}

#[napi]
pub fn profiler_active() -> bool {
    cuda_node_core::profiler::active()
}
