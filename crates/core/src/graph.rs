//! Graphs made by stream capture (CuPy's `cupy.cuda.graph.Graph`): update, dot, and what a
//! graph keeps alive. Launching and uploading one are stream work, in `stream.rs`, so that this
//! file names no stream (the stream names the graph its capture ends in).

use crate::error::{Code, Error, Result};
use crate::ops::{GraphDef, GraphExec, HostBytes, HostFn, RepeatSlot};
use std::sync::Arc;

/// What a capture's graph must keep alive: its host functions and the pinned memory its copies use.
#[derive(Default)]
pub(crate) struct Captured {
    pub host_fns: Vec<Arc<RepeatSlot>>,
    pub keep: Vec<Arc<dyn HostBytes>>,
}

pub struct Graph {
    /// Declared before `def`: dropped first, as the driver's executable goes before its graph.
    exec: Box<dyn GraphExec>,
    def: Box<dyn GraphDef>,
    device: usize,
    /// Host functions captured into the graph: each launch calls them, so they live as long as
    /// the graph does (CuPy keeps them too; forgetting it is a use-after-free).
    host_fns: Vec<Arc<RepeatSlot>>,
    /// Host functions of the graph before an update: launches made before it still run them.
    retired: Vec<Arc<RepeatSlot>>,
    /// Pinned memory its copies read or write at every launch.
    keep: Vec<Arc<dyn HostBytes>>,
}

impl Graph {
    pub(crate) fn new(def: Box<dyn GraphDef>, exec: Box<dyn GraphExec>, device: usize, captured: Captured) -> Graph {
        Graph { exec, def, device, host_fns: captured.host_fns, retired: Vec::new(), keep: captured.keep }
    }

    pub fn device(&self) -> usize {
        self.device
    }

    pub(crate) fn exec(&self) -> &dyn GraphExec {
        &*self.exec
    }

    /// What a launch must keep until it has run — captured host functions, pinned memory — as
    /// a function that lets go of them, queued behind the launch (`Stream`'s `Graph::launch`);
    /// `None` when the graph holds nothing.
    pub(crate) fn launch_holds(&self) -> Option<HostFn> {
        if self.host_fns.is_empty() && self.keep.is_empty() {
            return None;
        }
        let (host_fns, keep) = (self.host_fns.clone(), self.keep.clone());
        Some(Box::new(move || {
            drop(host_fns);
            // On the reaper thread: the last pinned block may go back to the driver, a CUDA call
            // a host function must not make.
            crate::reaper::defer_drop(keep);
        }))
    }

    /// Host functions each launch runs.
    pub fn host_fn_count(&self) -> usize {
        self.host_fns.len()
    }

    /// Graphviz dot of the graph's nodes and edges.
    pub fn to_dot(&self) -> Result<String> {
        self.def.to_dot()
    }

    /// Takes the node parameters of `other`, a capture with the same topology; the next launch
    /// uses them. Host functions move over too. `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` if the
    /// topologies differ.
    pub fn update(&mut self, other: &Graph) -> Result<()> {
        if other.device != self.device {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "a graph can only be updated from a graph of the same device"));
        }
        self.exec.update(&*other.def)?;
        // The updated nodes point at `other`'s host functions and pinned memory: share them. The
        // old ones stay too: launches made before the update still run the old nodes, which
        // point at them (on the GPU, dropping them here was a use-after-free).
        let old = std::mem::replace(&mut self.host_fns, other.host_fns.clone());
        self.retired.extend(old);
        self.keep.extend(other.keep.iter().cloned());
        Ok(())
    }
}
