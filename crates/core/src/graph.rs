//! Graphs made by stream capture (CuPy's `cupy.cuda.graph.Graph`): launch, upload, update, dot.

use crate::error::{Code, Error, Result};
use crate::ops::{GraphOps, HostBytes, RepeatSlot};
use crate::stream::{Captured, Stream};
use std::sync::Arc;

pub struct Graph {
    ops: Box<dyn GraphOps>,
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
    pub(crate) fn new(ops: Box<dyn GraphOps>, device: usize, captured: Captured) -> Graph {
        Graph { ops, device, host_fns: captured.host_fns, retired: Vec::new(), keep: captured.keep }
    }

    pub fn device(&self) -> usize {
        self.device
    }

    /// Host functions each launch runs.
    pub fn host_fn_count(&self) -> usize {
        self.host_fns.len()
    }

    fn check_stream(&self, stream: &Stream, what: &str) -> Result<()> {
        if stream.device() != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("{what}: a graph of device {} cannot run on a stream of device {}", self.device, stream.device()),
            ));
        }
        if stream.is_capturing()? {
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                format!("{what}: a graph cannot be launched into a stream that is capturing"),
            ));
        }
        Ok(())
    }

    /// Runs the graph on `stream`, after earlier work there and after its own previous launch.
    /// The launch keeps what its nodes use — captured host functions, pinned memory — until it
    /// has run, so the graph may be destroyed (or its thread end) while the launch is queued:
    /// the driver calls a host node through a pointer into the graph's slot, and freeing that
    /// slot first was a use-after-free on the GPU (#20).
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        self.check_stream(stream, "launch")?;
        stream.ops().launch_graph(&*self.ops)?;
        if self.host_fns.is_empty() && self.keep.is_empty() {
            return Ok(());
        }
        let (host_fns, keep) = (self.host_fns.clone(), self.keep.clone());
        let release = move || {
            drop(host_fns);
            // On the reaper thread: the last pinned block may go back to the driver, a CUDA call
            // a host function must not make.
            crate::reaper::defer_drop(keep);
        };
        if stream.ops().launch_host_fn(Box::new(release)).is_err() {
            // Not queued (the graph itself still holds them): wait for the launch instead.
            let _ = stream.ops().synchronize();
        }
        Ok(())
    }

    /// Prepares the graph on `stream` without running it.
    pub fn upload(&self, stream: &Stream) -> Result<()> {
        self.check_stream(stream, "upload")?;
        stream.ops().upload_graph(&*self.ops)
    }

    /// Graphviz dot of the graph's nodes and edges.
    pub fn to_dot(&self) -> Result<String> {
        self.ops.to_dot()
    }

    /// Takes the node parameters of `other`, a capture with the same topology; the next launch
    /// uses them. Host functions move over too. `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` if the
    /// topologies differ.
    pub fn update(&mut self, other: &Graph) -> Result<()> {
        if other.device != self.device {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "a graph can only be updated from a graph of the same device"));
        }
        self.ops.update(&*other.ops)?;
        // The updated nodes point at `other`'s host functions and pinned memory: share them. The
        // old ones stay too: launches made before the update still run the old nodes, which
        // point at them (on the GPU, dropping them here was a use-after-free).
        let old = std::mem::replace(&mut self.host_fns, other.host_fns.clone());
        self.retired.extend(old);
        self.keep.extend(other.keep.iter().cloned());
        Ok(())
    }
}
