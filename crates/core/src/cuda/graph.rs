//! Graphs on the real driver: the captured `CUgraph` (the definition) and each `CUgraphExec`
//! instantiated from it.

use super::device::CudaDevice;
use super::own::own;
use super::raw;
use crate::error::{Check, Code, Error, Result};
use crate::ops::{GraphDef, GraphExec};
use cudarc::driver::sys;
use std::any::Any;
use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A graph's definition: what a capture recorded.
pub struct CudaGraph {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) graph: sys::CUgraph,
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
        if self.dev.bind().is_ok() {
            // SAFETY: ours (from cuStreamEndCapture), destroyed once, after every exec
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
    fn instantiate(&self) -> Result<Box<dyn GraphExec>> {
        // CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH (G1).
        let flags: u64 = 1;
        // SAFETY: `graph` came from cuStreamEndCapture and is live.
        let exec = unsafe { raw::graph_instantiate(self.graph, flags) }.check("cuGraphInstantiateWithFlags")?;
        Ok(Box::new(CudaGraphExec { dev: self.dev.clone(), exec }))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl GraphExec for CudaGraphExec {
    fn update(&self, from: &dyn GraphDef) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: both graphs are live.
        unsafe { raw::graph_exec_update(self.exec, own::<CudaGraph>(from.as_any()).graph) }.map_err(|(code, result)| {
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
