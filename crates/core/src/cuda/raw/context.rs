//! Contexts for interop: the context a stream belongs to.

use super::check::{ok, Raw};
use cudarc::driver::sys;

/// `cuStreamGetCtx`: the context `stream` belongs to (the current one for the default streams).
///
/// # Safety
/// 1. `stream` is a live stream, or a default stream with a context current on this thread.
pub(crate) unsafe fn stream_ctx(stream: sys::CUstream) -> Raw<sys::CUcontext> {
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: `ctx` is a valid out-pointer; (1) is the caller's.
    ok(unsafe { sys::cuStreamGetCtx(stream, &mut ctx) })?;
    Ok(ctx)
}
