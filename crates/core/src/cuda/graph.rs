//! Graphs on the real driver: the captured `CUgraph` (the definition) and each `CUgraphExec`
//! instantiated from it.

use super::device::CudaDevice;
use super::own::own;
use super::raw;
use crate::error::{Check, Code, Error, Result};
use crate::ops::graph::Held;
use crate::ops::{CondKind, EventOps, GraphDef, GraphExec, NodeId};
use cudarc::driver::sys;
use std::any::Any;
use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// A graph's definition: what a capture recorded, or an empty graph built node by node.
pub struct CudaGraph {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) graph: sys::CUgraph,
    /// False for a conditional node's body, which its node owns (destroyed with the parent).
    pub(super) owned: bool,
}

/// An executable graph instantiated from a [`CudaGraph`].
pub struct CudaGraphExec {
    dev: Arc<CudaDevice>,
    pub(super) exec: sys::CUgraphExec,
}

// SAFETY: graph handles may be used from any thread once the context is bound; the library
// never uses one graph from two threads at once (napi objects live on one JS thread).
unsafe impl Send for CudaGraph {}
// SAFETY: as above.
unsafe impl Sync for CudaGraph {}
// SAFETY: as above, for the executable graph.
unsafe impl Send for CudaGraphExec {}
// SAFETY: as above.
unsafe impl Sync for CudaGraphExec {}

impl Drop for CudaGraphExec {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: ours, destroyed once; an exec still running is freed when it completes (G4).
            super::dropped::record("cuGraphExecDestroy", unsafe { raw::graph_exec_destroy(self.exec) });
        }
    }
}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        if self.owned && self.dev.bind().is_ok() {
            // SAFETY: ours (from cuStreamEndCapture or cuGraphCreate), destroyed once, after every exec
            // instantiated from it (the model drops the exec first).
            super::dropped::record("cuGraphDestroy", unsafe { raw::graph_destroy(self.graph) });
        }
    }
}

impl GraphDef for CudaGraph {
    fn to_dot(&self) -> Result<String> {
        self.dev.bind()?;
        static N: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!("cuda-node-{}-{}.dot", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
        let cpath = CString::new(path.to_string_lossy().as_bytes()).map_err(|_| Error::range("temporary path has a NUL byte"))?;
        // SAFETY: the graph is live.
        unsafe { raw::graph_debug_dot_print(self.graph, &cpath) }.check("cuGraphDebugDotPrint")?;
        let dot = std::fs::read_to_string(&path)
            .map_err(|e| Error::cuda(Code::CUDA_ERROR_OPERATING_SYSTEM, format!("reading {}: {e}", path.display())));
        let _ = std::fs::remove_file(&path);
        dot
    }

    /// Graph allocations are freed at relaunch (AUTO_FREE_ON_LAUNCH), so a capture that
    /// allocates from the stream-ordered pool can be launched again (G2).
    fn instantiate(&self, held: Held) -> Result<Box<dyn GraphExec>> {
        self.dev.bind()?;
        // CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH (G1).
        let flags: u64 = 1;
        // SAFETY: `graph` came from cuStreamEndCapture or cuGraphCreate and is live.
        let exec = holding(self.graph, held, || unsafe { raw::graph_instantiate(self.graph, flags) }.check("cuGraphInstantiateWithFlags"))?;
        Ok(Box::new(CudaGraphExec { dev: self.dev.clone(), exec }))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn add_child(&self, deps: &[NodeId], child: &dyn GraphDef) -> Result<NodeId> {
        self.dev.bind()?;
        let child = own::<CudaGraph>(child.as_any()).graph;
        // SAFETY: both graphs are live; `deps` are this graph's nodes (the model checks whose).
        let node = unsafe { raw::graph_add_child(self.graph, &nodes(deps), child) }.check("cuGraphAddChildGraphNode")?;
        Ok(node as NodeId)
    }

    fn add_event_record(&self, deps: &[NodeId], event: &dyn EventOps) -> Result<NodeId> {
        self.dev.bind()?;
        // SAFETY: the graph and event are live; the model keeps the event as long as the graph.
        let node = unsafe { raw::graph_add_event_node(self.graph, &nodes(deps), event.handle() as sys::CUevent, false) }
            .check("cuGraphAddEventRecordNode")?;
        Ok(node as NodeId)
    }

    fn add_event_wait(&self, deps: &[NodeId], event: &dyn EventOps) -> Result<NodeId> {
        self.dev.bind()?;
        // SAFETY: as for add_event_record.
        let node = unsafe { raw::graph_add_event_node(self.graph, &nodes(deps), event.handle() as sys::CUevent, true) }
            .check("cuGraphAddEventWaitNode")?;
        Ok(node as NodeId)
    }

    fn condition(&self, default: Option<u32>) -> Result<u64> {
        let ctx = self.dev.bind()?;
        needs("cuGraphConditionalHandleCreate", "12.3", "conditional nodes")?;
        // SAFETY: the graph is live, `ctx` current; the entry point exists.
        unsafe { raw::graph_conditional_handle_create(self.graph, ctx, default) }.check("cuGraphConditionalHandleCreate")
    }

    fn add_conditional(&self, deps: &[NodeId], condition: u64, kind: CondKind) -> Result<(NodeId, Vec<Box<dyn GraphDef>>)> {
        let ctx = self.dev.bind()?;
        needs("cuGraphAddNode", "12.3", "conditional nodes")?;
        use sys::CUgraphConditionalNodeType::*;
        let t = match kind {
            CondKind::If | CondKind::IfElse => CU_GRAPH_COND_TYPE_IF,
            CondKind::While => CU_GRAPH_COND_TYPE_WHILE,
            CondKind::Switch(_) => CU_GRAPH_COND_TYPE_SWITCH,
        };
        if matches!(kind, CondKind::IfElse | CondKind::Switch(_)) {
            let version = raw::driver_version().check("cuDriverGetVersion")?;
            if version < 12080 {
                return Err(Error::cuda(
                    Code::CUDA_ERROR_NOT_SUPPORTED,
                    format!(
                        "{kind:?} nodes need a CUDA 12.8 driver; this one is {}.{}: update the driver, or use if and while nodes",
                        version / 1000,
                        version % 1000 / 10
                    ),
                ));
            }
        }
        // SAFETY: the graph is live, `ctx` current, `deps` its nodes, `condition` made for it
        // (the model checks both); the entry point exists.
        let (node, bodies) = unsafe { raw::graph_add_conditional(self.graph, &nodes(deps), ctx, condition, t, kind.bodies()) }
            .check("cuGraphAddNode (conditional)")?;
        let bodies =
            bodies.into_iter().map(|graph| Box::new(CudaGraph { dev: self.dev.clone(), graph, owned: false }) as Box<dyn GraphDef>);
        Ok((node as NodeId, bodies.collect()))
    }

    fn node_kind(&self, node: NodeId) -> Result<&'static str> {
        self.dev.bind()?;
        // SAFETY: the model hands only nodes of live graphs.
        let t = unsafe { raw::graph_node_type(node as sys::CUgraphNode) }.check("cuGraphNodeGetType")?;
        Ok(kind_name(t))
    }
}

impl GraphExec for CudaGraphExec {
    fn update(&self, from: &dyn GraphDef, held: Held) -> Result<()> {
        self.dev.bind()?;
        let from = own::<CudaGraph>(from.as_any()).graph;
        // The driver replaces the executable's user objects with clones of `from`'s (launches
        // made before keep theirs until they complete): `from` holds `held` across the call.
        holding(from, held, || {
            // SAFETY: both graphs are live.
            unsafe { raw::graph_exec_update(self.exec, from) }.map_err(|(code, result)| {
                Error::cuda(
                    code,
                    format!(
                        "cuGraphExecUpdate failed ({result:?}): capture the same sequence of operations, changing only parameters, to update"
                    ),
                )
            })
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
    fn set_params(&self, node: NodeId, from: &dyn GraphDef, from_node: NodeId) -> Result<()> {
        let ctx = self.dev.bind()?;
        let _ = own::<CudaGraph>(from.as_any());
        let (node, from_node) = (node as sys::CUgraphNode, from_node as sys::CUgraphNode);
        // SAFETY: both are nodes of live graphs (the model keeps the definitions).
        let (mine, theirs) = unsafe { (raw::graph_node_type(node), raw::graph_node_type(from_node)) };
        let (mine, theirs) = (mine.check("cuGraphNodeGetType")?, theirs.check("cuGraphNodeGetType")?);
        if mine != theirs {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("the node is a {} node: it cannot take a {} node's parameters", kind_name(mine), kind_name(theirs)),
            ));
        }
        // SAFETY: the exec is live, `node` of its definition, `from_node` of a live graph of
        // the same type; `ctx` is current.
        unsafe { raw::graph_exec_set_params_from(self.exec, node, from_node, theirs, ctx) }
            .map_err(|code| Error::cuda(code, format!("the driver refused the {} node's new parameters: {code:?}", kind_name(mine))))
    }

    fn set_enabled(&self, node: NodeId, enabled: bool) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: as for set_params.
        let t = unsafe { raw::graph_node_type(node as sys::CUgraphNode) }.check("cuGraphNodeGetType")?;
        if !matches!(kind_name(t), "kernel" | "memcpy" | "memset") {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!(
                    "the node is a {} node: only kernel, memcpy and memset nodes can be turned off (cuGraphNodeSetEnabled)",
                    kind_name(t)
                ),
            ));
        }
        // SAFETY: the exec is live, `node` a kernel, memcpy or memset node of its definition.
        unsafe { raw::graph_node_set_enabled(self.exec, node as sys::CUgraphNode, enabled) }.check("cuGraphNodeSetEnabled")
    }
}

/// Runs `make` — an instantiation or an update of an executable from `graph`, which clones
/// `graph`'s user objects into the executable — while `graph` holds a user object owning `held`;
/// `graph`'s own reference goes after. The executable's clone keeps `held` until the executable
/// and every launch of it have completed (PG "CUDA User Objects"; a graph destroyed while a launch
/// runs, its RawKernel collected, unloaded the module under the running kernel node), then
/// [`release_held`] drops it on the reaper thread. A driver without user objects (before 11.3)
/// keeps none: `held` goes now, and the model's graph keeps its holds while it lives.
fn holding<T>(graph: sys::CUgraph, held: Held, make: impl FnOnce() -> Result<T>) -> Result<T> {
    static HAS: OnceLock<bool> = OnceLock::new();
    if !*HAS.get_or_init(|| ["cuUserObjectCreate", "cuGraphRetainUserObject", "cuGraphReleaseUserObject"].iter().all(|e| raw::has_entry_point(e))) {
        drop(held);
        return make();
    }
    let ptr = Box::into_raw(Box::new(held)) as *mut c_void;
    // SAFETY: `release_held` makes no CUDA call and catches any unwind; `ptr` is the
    // Box::into_raw of a Held, whose only owner the object becomes; the entry point exists.
    let object = match unsafe { raw::user_object_create(ptr, release_held) } {
        Ok(object) => object,
        Err(code) => {
            // SAFETY: not handed over (on an error the driver never calls `release_held`).
            drop(unsafe { Box::from_raw(ptr as *mut Held) });
            return Err(code).check("cuUserObjectCreate");
        }
    };
    // SAFETY: `graph` is live (the caller's); our one reference to `object` moves to it.
    if let Err(code) = unsafe { raw::graph_retain_user_object(graph, object) } {
        // SAFETY: on an error the reference is still ours; released once: `release_held` runs.
        super::dropped::record("cuUserObjectRelease", unsafe { raw::user_object_release(object) });
        return Err(code).check("cuGraphRetainUserObject");
    }
    let made = make();
    // SAFETY: `graph` is live and owns the reference retained above, released once.
    super::dropped::record("cuGraphReleaseUserObject", unsafe { raw::graph_release_user_object(graph, object) });
    made
}

/// A user object's destructor: called once by the driver, on a thread of its own, where no CUDA
/// call may be made; the last module's unload or event's destroy among `held` happens on the
/// reaper thread instead.
unsafe extern "C" fn release_held(ptr: *mut c_void) {
    // SAFETY: `ptr` is the Box::into_raw of a Held that `holding` handed to one user object,
    // whose destructor the driver calls once.
    let held = unsafe { Box::from_raw(ptr as *mut Held) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || crate::reaper::defer_drop(held)));
}

/// A definition's nodes as the driver takes them.
fn nodes(ids: &[NodeId]) -> Vec<sys::CUgraphNode> {
    ids.iter().map(|&n| n as sys::CUgraphNode).collect()
}

/// A node type as the dot and the model name it.
fn kind_name(t: sys::CUgraphNodeType) -> &'static str {
    use sys::CUgraphNodeType::*;
    match t {
        CU_GRAPH_NODE_TYPE_KERNEL => "kernel",
        CU_GRAPH_NODE_TYPE_MEMCPY => "memcpy",
        CU_GRAPH_NODE_TYPE_MEMSET => "memset",
        CU_GRAPH_NODE_TYPE_HOST => "host",
        CU_GRAPH_NODE_TYPE_GRAPH => "graph",
        CU_GRAPH_NODE_TYPE_EMPTY => "empty",
        CU_GRAPH_NODE_TYPE_WAIT_EVENT => "wait_event",
        CU_GRAPH_NODE_TYPE_EVENT_RECORD => "event_record",
        CU_GRAPH_NODE_TYPE_MEM_ALLOC => "mem_alloc",
        CU_GRAPH_NODE_TYPE_MEM_FREE => "mem_free",
        CU_GRAPH_NODE_TYPE_CONDITIONAL => "conditional",
        _ => "other",
    }
}

/// A typed error where the loaded driver lacks `entry` (new in CUDA `version`), which `what` needs.
pub(super) fn needs(entry: &str, version: &str, what: &str) -> Result<()> {
    if raw::has_entry_point(entry) {
        return Ok(());
    }
    Err(Error::cuda(
        Code::CUDA_ERROR_NOT_SUPPORTED,
        format!("{what} need a CUDA {version} driver ({entry}); the loaded driver lacks it: update the driver"),
    ))
}

#[cfg(test)]
mod tests {
    use super::release_held;
    use crate::ops::graph::Held;
    use std::ffi::c_void;
    use std::sync::{Arc, Mutex};

    /// The driver calls the destructor on a thread where no CUDA call may be made: what it held
    /// (the last module's unload among it) is dropped on the reaper thread instead.
    #[test]
    fn a_user_objects_destructor_drops_its_share_on_the_reaper_thread() {
        struct Where(Arc<Mutex<Option<String>>>);
        impl Drop for Where {
            fn drop(&mut self) {
                *self.0.lock().unwrap() = std::thread::current().name().map(String::from);
            }
        }
        let dropped_on = Arc::new(Mutex::new(None));
        let held: Held = Box::new(Where(dropped_on.clone()));
        // As an address: a driver thread calls the destructor.
        let ptr = Box::into_raw(Box::new(held)) as usize;
        // SAFETY: `ptr` is the Box::into_raw of a Held, handed over once, as `holding` does.
        std::thread::spawn(move || unsafe { release_held(ptr as *mut c_void) }).join().unwrap();
        crate::reaper::flush();
        assert_eq!(dropped_on.lock().unwrap().as_deref(), Some("cuda-node-reaper"));
    }
}
