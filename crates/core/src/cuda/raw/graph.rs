//! Graphs: definitions and executables.

use super::check::{ok, Raw};
use cudarc::driver::sys::{self, CUresult};
use std::ffi::CStr;

// ---- graphs --------------------------------------------------------------------------------

/// `cuGraphInstantiateWithFlags`.
///
/// # Safety
/// 1. `graph` is live.
pub(crate) unsafe fn graph_instantiate(graph: sys::CUgraph, flags: u64) -> Raw<sys::CUgraphExec> {
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    // SAFETY: (1); `exec` is a valid out-pointer.
    ok(unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, flags) })?;
    Ok(exec)
}

/// `cuGraphDestroy`.
///
/// # Safety
/// 1. `graph` is ours, destroyed once, with no use after.
pub(crate) unsafe fn graph_destroy(graph: sys::CUgraph) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuGraphDestroy(graph) })
}

/// `cuGraphExecDestroy`. An exec still running is freed when it completes (G4).
///
/// # Safety
/// 1. `exec` is ours, destroyed once, with no use after.
pub(crate) unsafe fn graph_exec_destroy(exec: sys::CUgraphExec) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuGraphExecDestroy(exec) })
}

/// `cuGraphLaunch`.
///
/// # Safety
/// 1. `exec` and `stream` are live, of the current context.
pub(crate) unsafe fn graph_launch(exec: sys::CUgraphExec, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuGraphLaunch(exec, stream) })
}

/// `cuGraphUpload`.
///
/// # Safety
/// 1. `exec` and `stream` are live, of the current context.
pub(crate) unsafe fn graph_upload(exec: sys::CUgraphExec, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuGraphUpload(exec, stream) })
}

/// `cuGraphDebugDotPrint` (flags 0: the default detail) to `path`.
///
/// # Safety
/// 1. `graph` is live.
pub(crate) unsafe fn graph_debug_dot_print(graph: sys::CUgraph, path: &CStr) -> Raw<()> {
    // SAFETY: (1); `path` is NUL-terminated.
    ok(unsafe { sys::cuGraphDebugDotPrint(graph, path.as_ptr(), 0) })
}

/// `cuGraphExecUpdate`: on failure, the code and the driver's reason.
///
/// # Safety
/// 1. `exec` and `graph` are live.
pub(crate) unsafe fn graph_exec_update(
    exec: sys::CUgraphExec,
    graph: sys::CUgraph,
) -> std::result::Result<(), (CUresult, sys::CUgraphExecUpdateResult)> {
    let mut info = sys::CUgraphExecUpdateResultInfo {
        result: sys::CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_SUCCESS,
        errorNode: std::ptr::null_mut(),
        errorFromNode: std::ptr::null_mut(),
    };
    // SAFETY: (1); `info` is a valid out-pointer.
    ok(unsafe { sys::cuGraphExecUpdate_v2(exec, graph, &mut info) }).map_err(|code| (code, info.result))
}
