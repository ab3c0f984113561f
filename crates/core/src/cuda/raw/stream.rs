//! Streams: creation, ordering, host functions and captures.

use super::check::{ok, ready, Raw};
use super::graph::graph_destroy;
use cudarc::driver::sys::{self, CUresult};
use std::ffi::c_void;

// ---- streams -------------------------------------------------------------------------------

/// `cuStreamCreateWithPriority` in the current context.
pub(crate) fn stream_create(flags: u32, priority: i32) -> Raw<sys::CUstream> {
    let mut s: sys::CUstream = std::ptr::null_mut();
    // SAFETY: `s` is a valid out-pointer; the driver checks flags and priority.
    ok(unsafe { sys::cuStreamCreateWithPriority(&mut s, flags, priority) })?;
    Ok(s)
}

/// `cuStreamDestroy`.
///
/// # Safety
/// 1. `stream` was created by [`stream_create`] and is destroyed once; no use follows.
pub(crate) unsafe fn stream_destroy(stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1). Pending work still completes (S13).
    ok(unsafe { sys::cuStreamDestroy_v2(stream) })
}

/// `cuStreamGetPriority`.
///
/// # Safety
/// 1. `stream` is live: created, external and trusted, or a default stream of the current context.
pub(crate) unsafe fn stream_priority(stream: sys::CUstream) -> Raw<i32> {
    let mut p = 0;
    // SAFETY: (1); `p` is a valid out-pointer.
    ok(unsafe { sys::cuStreamGetPriority(stream, &mut p) })?;
    Ok(p)
}

/// `cuStreamGetCtx`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`] (the driver rejects many bad handles).
pub(crate) unsafe fn stream_ctx(stream: sys::CUstream) -> Raw<sys::CUcontext> {
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: (1); `ctx` is a valid out-pointer.
    ok(unsafe { sys::cuStreamGetCtx(stream, &mut ctx) })?;
    Ok(ctx)
}

/// `cuStreamGetFlags`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn stream_flags(stream: sys::CUstream) -> Raw<u32> {
    let mut flags = 0u32;
    // SAFETY: (1); `flags` is a valid out-pointer.
    ok(unsafe { sys::cuStreamGetFlags(stream, &mut flags) })?;
    Ok(flags)
}

/// `cuStreamQuery`: `Ok(true)` when all work is done, `Ok(false)` for `NOT_READY`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
#[inline]
pub(crate) unsafe fn stream_query(stream: sys::CUstream) -> Raw<bool> {
    // SAFETY: (1).
    ready(unsafe { sys::cuStreamQuery(stream) })
}

/// `cuStreamSynchronize`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
#[inline]
pub(crate) unsafe fn stream_synchronize(stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuStreamSynchronize(stream) })
}

/// `cuStreamWaitEvent` (flags 0).
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`]; `event` is live (of any device).
#[inline]
pub(crate) unsafe fn stream_wait_event(stream: sys::CUstream, event: sys::CUevent) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuStreamWaitEvent(stream, event, 0) })
}

/// `cuLaunchHostFunc`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
/// 2. `f` may be called with `user` once the stream reaches it, on a driver thread; it makes no
///    CUDA call and does not unwind. What `user` points at stays valid until then.
pub(crate) unsafe fn launch_host_func(stream: sys::CUstream, f: unsafe extern "C" fn(*mut c_void), user: *mut c_void) -> Raw<()> {
    // SAFETY: (1) and (2).
    ok(unsafe { sys::cuLaunchHostFunc(stream, Some(f), user) })
}

/// `cuStreamAddCallback` (flags 0).
///
/// # Safety
/// As [`launch_host_func`], for `f` called with the stream's status.
pub(crate) unsafe fn stream_add_callback(
    stream: sys::CUstream,
    f: unsafe extern "C" fn(sys::CUstream, CUresult, *mut c_void),
    user: *mut c_void,
) -> Raw<()> {
    // SAFETY: the caller's contract; flags must be 0.
    ok(unsafe { sys::cuStreamAddCallback(stream, Some(f), user, 0) })
}

/// `cuStreamBeginCapture`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn stream_begin_capture(stream: sys::CUstream, mode: sys::CUstreamCaptureMode) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuStreamBeginCapture_v2(stream, mode) })
}

/// `cuStreamEndCapture`. On failure, a graph the driver returned anyway is destroyed here.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn stream_end_capture(stream: sys::CUstream) -> Raw<sys::CUgraph> {
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    // SAFETY: (1); `graph` is a valid out-pointer.
    let r = unsafe { sys::cuStreamEndCapture(stream, &mut graph) };
    if r != CUresult::CUDA_SUCCESS {
        if !graph.is_null() {
            // SAFETY: a graph returned alongside an error is still ours to destroy.
            let _ = unsafe { graph_destroy(graph) };
        }
        return Err(r);
    }
    Ok(graph)
}

/// `cuStreamIsCapturing`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn stream_is_capturing(stream: sys::CUstream) -> Raw<sys::CUstreamCaptureStatus> {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: (1); `status` is a valid out-pointer.
    ok(unsafe { sys::cuStreamIsCapturing(stream, &mut status) })?;
    Ok(status)
}

/// `cuStreamBeginCaptureToGraph` (CUDA 12.3): what `stream` is given next becomes nodes of
/// `graph`, the first after `deps`.
///
/// # Safety
/// 1. `stream` and `graph` are live, of the current context; `deps` are nodes of `graph`; the
///    entry point exists (`has_entry_point`).
pub(crate) unsafe fn stream_begin_capture_to_graph(
    stream: sys::CUstream,
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    mode: sys::CUstreamCaptureMode,
) -> Raw<()> {
    // SAFETY: (1); `deps` outlives the call; no edge data (plain edges).
    ok(unsafe { sys::cuStreamBeginCaptureToGraph(stream, graph, deps.as_ptr(), std::ptr::null(), deps.len(), mode) })
}

/// The nodes a capturing `stream`'s next node would follow (`cuStreamGetCaptureInfo_v2`),
/// copied before the driver's array goes stale.
///
/// # Safety
/// 1. `stream` is live, of the current context.
pub(crate) unsafe fn stream_capture_leaves(stream: sys::CUstream) -> Raw<Vec<sys::CUgraphNode>> {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    let (mut deps, mut n): (*const sys::CUgraphNode, usize) = (std::ptr::null(), 0);
    // SAFETY: (1); every out-pointer is valid or null (id and graph not asked for).
    ok(unsafe { sys::cuStreamGetCaptureInfo_v2(stream, &mut status, std::ptr::null_mut(), std::ptr::null_mut(), &mut deps, &mut n) })?;
    if status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE {
        return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    }
    if n == 0 || deps.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: the driver's array of `n` nodes, valid until the next call on the stream.
    Ok(unsafe { std::slice::from_raw_parts(deps, n) }.to_vec())
}

/// `cuStreamEndCapture` of a capture begun with [`stream_begin_capture_to_graph`]: the graph is
/// the caller's, never destroyed here, even on failure.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn stream_end_capture_to_graph(stream: sys::CUstream) -> Raw<()> {
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    // SAFETY: (1); `graph` is a valid out-pointer.
    ok(unsafe { sys::cuStreamEndCapture(stream, &mut graph) })
}
