//! Graphs on the real driver: the captured `CUgraph` and its instantiation.

use super::{raw, CudaDevice};
use crate::error::{Check, Code, Error, Result};
use crate::ops::GraphOps;
use cudarc::driver::sys;
use std::any::Any;
use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub struct CudaGraph {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) graph: sys::CUgraph,
    pub(super) exec: sys::CUgraphExec,
}

// SAFETY: graph handles may be used from any thread once the context is bound; the library
// never uses one graph from two threads at once (napi objects live on one JS thread).
unsafe impl Send for CudaGraph {}
// SAFETY: as above.
unsafe impl Sync for CudaGraph {}

impl CudaGraph {
    /// Instantiates `graph` (taking ownership of it). Graph allocations are freed at relaunch
    /// (AUTO_FREE_ON_LAUNCH), so a capture that allocates from the stream-ordered pool
    /// can be launched again (G2).
    pub(super) fn instantiate(dev: Arc<CudaDevice>, graph: sys::CUgraph) -> Result<CudaGraph> {
        // CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH (G1).
        let flags: u64 = 1;
        // SAFETY: `graph` came from cuStreamEndCapture.
        match unsafe { raw::graph_instantiate(graph, flags) }.check("cuGraphInstantiateWithFlags") {
            Ok(exec) => Ok(CudaGraph { dev, graph, exec }),
            Err(e) => {
                // SAFETY: the graph is ours and not instantiated.
                let _ = unsafe { raw::graph_destroy(graph) };
                Err(e)
            }
        }
    }
}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: both are ours, destroyed once; an exec still running is freed when it
            // completes (G4).
            let _ = unsafe { raw::graph_exec_destroy(self.exec) };
            // SAFETY: as above.
            let _ = unsafe { raw::graph_destroy(self.graph) };
        }
    }
}

fn cuda_graph(g: &dyn GraphOps) -> &CudaGraph {
    g.as_any().downcast_ref::<CudaGraph>().expect("the cuda backend is given its own graphs")
}

impl GraphOps for CudaGraph {
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

    fn update(&self, from: &dyn GraphOps) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: both graphs are live.
        unsafe { raw::graph_exec_update(self.exec, cuda_graph(from).graph) }.map_err(|(code, result)| {
            Error::cuda(
                code,
                format!(
                    "cuGraphExecUpdate failed ({result:?}): capture the same sequence of operations, changing only parameters, to update"
                ),
            )
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
