//! Graphs: definitions and executables.

use super::check::{ok, Raw};
use cudarc::driver::sys::{self, CUresult};
use std::ffi::{c_uint, c_void, CStr};

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

// ---- graphs built node by node ---------------------------------------------------------------

/// Whether the loaded driver exports `name` (an entry point newer than the oldest driver this
/// library runs on): calling a missing one would panic in the loader.
pub(crate) fn has_entry_point(name: &str) -> bool {
    let name = format!("{name}\0");
    // SAFETY: `culib` opens the driver library already opened at init; looking a symbol up
    // calls nothing.
    std::panic::catch_unwind(|| unsafe { sys::culib().get::<unsafe extern "C" fn()>(name.as_bytes()).is_ok() }).unwrap_or(false)
}

/// `cuGraphCreate`: an empty graph.
pub(crate) fn graph_create() -> Raw<sys::CUgraph> {
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    // SAFETY: `graph` is a valid out-pointer; flags must be 0.
    ok(unsafe { sys::cuGraphCreate(&mut graph, 0) })?;
    Ok(graph)
}

/// `cuGraphAddChildGraphNode`: a node running a copy of `child`.
///
/// # Safety
/// 1. `graph` and `child` are live; `deps` are nodes of `graph`.
pub(crate) unsafe fn graph_add_child(graph: sys::CUgraph, deps: &[sys::CUgraphNode], child: sys::CUgraph) -> Raw<sys::CUgraphNode> {
    let mut node: sys::CUgraphNode = std::ptr::null_mut();
    // SAFETY: (1); `node` is a valid out-pointer; `deps` outlives the call.
    ok(unsafe { sys::cuGraphAddChildGraphNode(&mut node, graph, deps.as_ptr(), deps.len(), child) })?;
    Ok(node)
}

/// `cuGraphConditionalHandleCreate` (CUDA 12.3), with `CU_GRAPH_COND_ASSIGN_DEFAULT` where a
/// default is given.
///
/// # Safety
/// 1. `graph` is live, `ctx` the current context; the entry point exists ([`has_entry_point`]).
pub(crate) unsafe fn graph_conditional_handle_create(graph: sys::CUgraph, ctx: sys::CUcontext, default: Option<u32>) -> Raw<u64> {
    let mut handle: sys::CUgraphConditionalHandle = 0;
    let flags = if default.is_some() { 1 } else { 0 };
    // SAFETY: (1); `handle` is a valid out-pointer.
    ok(unsafe { sys::cuGraphConditionalHandleCreate(&mut handle, graph, ctx, default.unwrap_or(0), flags) })?;
    Ok(handle)
}

/// `cuGraphAddNode` of a conditional node (CUDA 12.3; if/else and switch 12.8): the node and
/// its `size` body graphs, owned by the node.
///
/// # Safety
/// 1. `graph` is live, `ctx` the current context, `deps` nodes of `graph`, `handle` made for
///    `graph`; the entry point exists ([`has_entry_point`]).
pub(crate) unsafe fn graph_add_conditional(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    ctx: sys::CUcontext,
    handle: u64,
    kind: sys::CUgraphConditionalNodeType,
    size: u32,
) -> Raw<(sys::CUgraphNode, Vec<sys::CUgraph>)> {
    // SAFETY: all-zero is a valid CUgraphNodeParams (null pointers, zero counts).
    let mut params: sys::CUgraphNodeParams = unsafe { std::mem::zeroed() };
    params.type_ = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_CONDITIONAL;
    params.__bindgen_anon_1.conditional =
        sys::CUDA_CONDITIONAL_NODE_PARAMS { handle, type_: kind, size, phGraph_out: std::ptr::null_mut(), ctx };
    let mut node: sys::CUgraphNode = std::ptr::null_mut();
    // SAFETY: (1); `node` is a valid out-pointer; `deps` and `params` outlive the call.
    ok(unsafe { sys::cuGraphAddNode(&mut node, graph, deps.as_ptr(), deps.len(), &mut params) })?;
    // SAFETY: the driver wrote `size` body graphs' handles, which the node owns, at phGraph_out.
    let bodies = unsafe {
        let c = params.__bindgen_anon_1.conditional;
        std::slice::from_raw_parts(c.phGraph_out, size as usize).to_vec()
    };
    Ok((node, bodies))
}

/// `cuGraphNodeGetType`.
///
/// # Safety
/// 1. `node` is a live node.
pub(crate) unsafe fn graph_node_type(node: sys::CUgraphNode) -> Raw<sys::CUgraphNodeType> {
    let mut t = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
    // SAFETY: (1); `t` is a valid out-pointer.
    ok(unsafe { sys::cuGraphNodeGetType(node, &mut t) })?;
    Ok(t)
}

/// Gives `node` of `exec` the parameters of `from`, a node of the same type: read with
/// `cuGraph{Kernel,Memcpy,Memset,Host}NodeGetParams`, set with the matching
/// `cuGraphExec…NodeSetParams` (which copy them). Other types: `CUDA_ERROR_NOT_SUPPORTED`.
///
/// # Safety
/// 1. `exec` is live; `node` is a node of the graph it was instantiated from; `from` is a live
///    node of type `t`, of a graph that outlives the call; `ctx` is the current context.
pub(crate) unsafe fn graph_exec_set_params_from(
    exec: sys::CUgraphExec,
    node: sys::CUgraphNode,
    from: sys::CUgraphNode,
    t: sys::CUgraphNodeType,
    ctx: sys::CUcontext,
) -> Raw<()> {
    use std::mem::MaybeUninit;
    use sys::CUgraphNodeType::*;
    // SAFETY: for each: the get call writes the whole out-structure before it is read (it is
    // read only where the call succeeded; all-zero is not a valid CUDA_MEMCPY3D, whose memory
    // types start at 1, so none is zero-initialised); (1) for the calls, and the pointers read
    // from `from`'s parameters stay valid while its graph lives, past the set (a copy).
    unsafe {
        match t {
            CU_GRAPH_NODE_TYPE_KERNEL => {
                let mut p = MaybeUninit::<sys::CUDA_KERNEL_NODE_PARAMS>::uninit();
                ok(sys::cuGraphKernelNodeGetParams_v2(from, p.as_mut_ptr()))?;
                ok(sys::cuGraphExecKernelNodeSetParams_v2(exec, node, p.as_ptr()))
            }
            CU_GRAPH_NODE_TYPE_MEMCPY => {
                let mut p = MaybeUninit::<sys::CUDA_MEMCPY3D>::uninit();
                ok(sys::cuGraphMemcpyNodeGetParams(from, p.as_mut_ptr()))?;
                ok(sys::cuGraphExecMemcpyNodeSetParams(exec, node, p.as_ptr(), ctx))
            }
            CU_GRAPH_NODE_TYPE_MEMSET => {
                let mut p = MaybeUninit::<sys::CUDA_MEMSET_NODE_PARAMS>::uninit();
                ok(sys::cuGraphMemsetNodeGetParams(from, p.as_mut_ptr()))?;
                ok(sys::cuGraphExecMemsetNodeSetParams(exec, node, p.as_ptr(), ctx))
            }
            CU_GRAPH_NODE_TYPE_HOST => {
                let mut p = MaybeUninit::<sys::CUDA_HOST_NODE_PARAMS>::uninit();
                ok(sys::cuGraphHostNodeGetParams(from, p.as_mut_ptr()))?;
                ok(sys::cuGraphExecHostNodeSetParams(exec, node, p.as_ptr()))
            }
            _ => Err(CUresult::CUDA_ERROR_NOT_SUPPORTED),
        }
    }
}

/// `cuGraphNodeSetEnabled` (CUDA 11.6).
///
/// # Safety
/// 1. `exec` is live; `node` is a kernel, memcpy or memset node of the graph it was
///    instantiated from.
pub(crate) unsafe fn graph_node_set_enabled(exec: sys::CUgraphExec, node: sys::CUgraphNode, enabled: bool) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuGraphNodeSetEnabled(exec, node, enabled as u32) })
}

/// `cuGraphAddEventRecordNode` (`wait`: `cuGraphAddEventWaitNode`).
///
/// # Safety
/// 1. `graph` and `event` are live, and the event outlives the graph; `deps` are nodes of `graph`.
pub(crate) unsafe fn graph_add_event_node(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    event: sys::CUevent,
    wait: bool,
) -> Raw<sys::CUgraphNode> {
    let mut node: sys::CUgraphNode = std::ptr::null_mut();
    // SAFETY: (1); `node` is a valid out-pointer; `deps` outlives the call.
    ok(unsafe {
        if wait {
            sys::cuGraphAddEventWaitNode(&mut node, graph, deps.as_ptr(), deps.len(), event)
        } else {
            sys::cuGraphAddEventRecordNode(&mut node, graph, deps.as_ptr(), deps.len(), event)
        }
    })?;
    Ok(node)
}

// ---- user objects: what an executable keeps until its launches have completed --------------

/// `cuUserObjectCreate` with one reference, the caller's, and `CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`
/// (the one flag there is). Once every reference is released — the caller's, a graph's, an
/// executable's cloned from its graph at instantiation or update — and every launch of those
/// executables has completed, the driver calls `destroy(ptr)` once, on a thread of its own. On an
/// error `destroy` is never called: the caller still owns `ptr`.
///
/// # Safety
/// 1. `destroy` makes no CUDA call and does not unwind; it may be called with `ptr` on any
///    thread once the last reference is released, and what `ptr` points at stays valid until then.
/// 2. The entry point exists ([`has_entry_point`]: CUDA 11.3).
pub(crate) unsafe fn user_object_create(ptr: *mut c_void, destroy: unsafe extern "C" fn(*mut c_void)) -> Raw<sys::CUuserObject> {
    let mut object: sys::CUuserObject = std::ptr::null_mut();
    let flags = sys::CUuserObject_flags::CU_USER_OBJECT_NO_DESTRUCTOR_SYNC as c_uint;
    // SAFETY: (1) and (2); `object` is a valid out-pointer.
    ok(unsafe { sys::cuUserObjectCreate(&mut object, ptr, Some(destroy), 1, flags) })?;
    Ok(object)
}

/// `cuGraphRetainUserObject` with `CU_GRAPH_USER_OBJECT_MOVE`: the caller's one reference to
/// `object` becomes `graph`'s (on an error it stays the caller's).
///
/// # Safety
/// 1. `graph` is live; the caller owns a reference to `object` ([`user_object_create`]), which it
///    no longer uses as its own once this succeeds.
pub(crate) unsafe fn graph_retain_user_object(graph: sys::CUgraph, object: sys::CUuserObject) -> Raw<()> {
    let flags = sys::CUuserObjectRetain_flags::CU_GRAPH_USER_OBJECT_MOVE as c_uint;
    // SAFETY: (1); one reference, moved.
    ok(unsafe { sys::cuGraphRetainUserObject(graph, object, 1, flags) })
}

/// `cuGraphReleaseUserObject` of one reference `graph` owns (executables instantiated from it
/// keep theirs).
///
/// # Safety
/// 1. `graph` is live and owns a reference to `object` ([`graph_retain_user_object`]), released
///    once.
pub(crate) unsafe fn graph_release_user_object(graph: sys::CUgraph, object: sys::CUuserObject) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuGraphReleaseUserObject(graph, object, 1) })
}

/// `cuUserObjectRelease` of the caller's one reference: `destroy` runs if it was the last.
///
/// # Safety
/// 1. The caller owns a reference to `object` ([`user_object_create`]), released once, and does
///    not use `object` after.
pub(crate) unsafe fn user_object_release(object: sys::CUuserObject) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuUserObjectRelease(object, 1) })
}
