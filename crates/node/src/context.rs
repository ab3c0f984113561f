//! Contexts for interop: the current device's context and a stream's, as bigints.

use crate::raw::BigU64;
use crate::stream;
use cuda_node_core::{context, runtime};

crate::exports! {
    /// Device `device`'s context, made current on this thread (`cuCtxGetCurrent` after the bind).
    c"ctxGetCurrent" => fn ctx_get_current(_cx, device: f64) -> BigU64 {
        Ok(BigU64(context::current(runtime()?.ordinal(device)?)?))
    }

    /// The context `stream` belongs to (`cuStreamGetCtx`).
    c"streamContext" => fn stream_context(_cx, stream: f64) -> BigU64 {
        Ok(BigU64(stream::with(stream, |s| context::of_stream(s))?))
    }
}
