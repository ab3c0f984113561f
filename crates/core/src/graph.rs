//! Graphs made by stream capture (CuPy's `cupy.cuda.graph.Graph`): update, dot, and what a
//! graph keeps alive. Launching and uploading one are stream work, in `stream.rs`, so that this
//! file names no stream (the stream names the graph its capture ends in).

use crate::error::{Code, Error, Result};
use crate::ops::{GraphDef, GraphExec, HostBytes, HostFn, NodeId, RepeatSlot};
use std::any::Any;
use std::sync::{Arc, Mutex};

/// Something a graph keeps alive, type-erased (this file names no event nor module).
pub(crate) type Kept = Arc<dyn Any + Send + Sync>;

/// What a capture's graph must keep alive: its host functions, the pinned memory its copies use,
/// the events its nodes record or wait for, and the modules of its kernels.
#[derive(Default, Clone)]
pub(crate) struct Captured {
    pub host_fns: Vec<Arc<RepeatSlot>>,
    pub keep: Vec<Arc<dyn HostBytes>>,
    /// Events its nodes record or wait for (`Arc<MadeEvent>`s).
    pub events: Vec<Kept>,
    /// The modules of its kernel nodes (`ModuleOps::keep_alive`): a module unloaded while a
    /// graph holds one of its kernels (its RawKernel collected) would leave the node running
    /// unloaded code, a fault at the next launch.
    pub modules: Vec<Kept>,
}

impl Captured {
    pub(crate) fn extend(&mut self, other: Captured) {
        self.host_fns.extend(other.host_fns);
        self.keep.extend(other.keep);
        self.events.extend(other.events);
        self.modules.extend(other.modules);
    }
}

/// The nodes of a graph built node by node, as its builder numbered them: each a list of the
/// definition's nodes (a capture may end in several).
pub(crate) struct Built {
    pub builder: u64,
    pub nodes: Vec<Vec<NodeId>>,
}

pub struct Graph {
    /// Declared before `def`: dropped first, as the driver's executable goes before its graph.
    exec: Box<dyn GraphExec>,
    /// Shared with the builder that made it, which may go on adding nodes (the executable
    /// is a snapshot).
    def: Arc<dyn GraphDef>,
    /// Its builder's nodes, for the updates of single nodes; None for a capture's graph.
    built: Option<Built>,
    device: usize,
    /// Host functions captured into the graph: each launch calls them, so they live as long as
    /// the graph does (CuPy keeps them too; forgetting it is a use-after-free).
    host_fns: Vec<Arc<RepeatSlot>>,
    /// Host nodes each launch runs (a node's new host function, set in place, replaces its old
    /// one at launch, while both stay in `host_fns`).
    runs: usize,
    /// Host functions of the graph before an update: launches made before it still run them.
    retired: Vec<Arc<RepeatSlot>>,
    /// Pinned memory its copies read or write at every launch.
    keep: Vec<Arc<dyn HostBytes>>,
    /// Events its nodes record or wait for.
    events: Vec<Kept>,
    /// The modules of its kernel nodes.
    modules: Vec<Kept>,
    /// Its events and modules again, shared with the executable ([`crate::ops::Held`]): the
    /// backend keeps them until the executable and every launch of it have completed, so a graph
    /// of kernels destroyed (its RawKernels collected) while a launch runs leaves the launch's
    /// code loaded. What `set_params` and `update` add is added here too. Host functions and
    /// pinned memory are not in it: each launch's release holds them (`launch_holds`), let go
    /// where `unregister()` and a thread's end look for them (the reaper), never later on a
    /// driver thread's schedule.
    shared: Arc<Mutex<Vec<Kept>>>,
}

impl Graph {
    /// The graph of a capture's definition: instantiates it.
    pub(crate) fn new(def: Box<dyn GraphDef>, device: usize, captured: Captured) -> Result<Graph> {
        Graph::built(Arc::from(def), device, captured, None)
    }

    /// Instantiates `def`, the executable keeping a share of `captured` for its launches.
    pub(crate) fn built(def: Arc<dyn GraphDef>, device: usize, captured: Captured, built: Option<Built>) -> Result<Graph> {
        let shared = Arc::new(Mutex::new(captured.events.iter().chain(&captured.modules).cloned().collect::<Vec<_>>()));
        let exec = def.instantiate(Box::new(shared.clone()))?;
        Ok(Graph {
            shared,
            exec,
            def,
            built,
            device,
            runs: captured.host_fns.len(),
            host_fns: captured.host_fns,
            retired: Vec::new(),
            keep: captured.keep,
            events: captured.events,
            modules: captured.modules,
        })
    }

    /// Adds `events` and `modules` to what the executable keeps for its launches.
    fn share(&self, events: &[Kept], modules: &[Kept]) {
        self.shared.lock().unwrap_or_else(|p| p.into_inner()).extend(events.iter().chain(modules).cloned());
    }

    /// Its definition, and what its launches keep alive (a builder's child node takes both).
    pub(crate) fn parts(&self) -> (&dyn GraphDef, Captured) {
        let (keep, events, modules) = (self.keep.clone(), self.events.clone(), self.modules.clone());
        (&*self.def, Captured { host_fns: self.host_fns.clone(), keep, events, modules })
    }

    /// The definition's node behind node `index` of builder `builder`: one of the builder that
    /// made this graph, standing for one node.
    fn node(&self, builder: u64, index: u32) -> Result<NodeId> {
        let built = self.built.as_ref().filter(|b| b.builder == builder).ok_or_else(|| {
            Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                "the node is not one of this graph's: pass a node of the GraphBuilder that instantiated it",
            )
        })?;
        match built.nodes.get(index as usize).map(Vec::as_slice) {
            Some([one]) => Ok(*one),
            Some(many) => Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("node {index} stands for {} nodes (a capture's last ones): update a node added by itself", many.len()),
            )),
            None => Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("node {index} was added after this graph was instantiated: instantiate again to update it"),
            )),
        }
    }

    /// Gives node `index` (of the builder that made this graph) the parameters of `from_node`
    /// of `from`, a node of the same kind; the next launch uses them. What the new parameters
    /// point at (`kept`: a host function, pinned memory) is kept from now on
    /// (`GraphBuilder::update_node` reads them from a scratch builder).
    pub(crate) fn set_params(&mut self, builder: u64, index: u32, from: &dyn GraphDef, from_node: NodeId, kept: Captured) -> Result<()> {
        let node = self.node(builder, index)?;
        self.exec.set_params(node, from, from_node).map_err(|e| on_node(e, index))?;
        // Launches made before keep running the old host functions, still held; each launch
        // from now on holds the new ones too.
        self.share(&kept.events, &kept.modules);
        self.host_fns.extend(kept.host_fns);
        self.keep.extend(kept.keep);
        self.events.extend(kept.events);
        self.modules.extend(kept.modules);
        Ok(())
    }

    /// Turns node `index` off (later launches skip it) or on again (`cuGraphNodeSetEnabled`).
    pub fn set_enabled(&self, builder: u64, index: u32, enabled: bool) -> Result<()> {
        let node = self.node(builder, index)?;
        self.exec.set_enabled(node, enabled).map_err(|e| on_node(e, index))
    }

    pub fn device(&self) -> usize {
        self.device
    }

    pub(crate) fn exec(&self) -> &dyn GraphExec {
        &*self.exec
    }

    /// What a launch must keep until it has run — captured host functions and pinned memory, and
    /// with them the events its nodes record or wait for and its kernels' modules — as a function
    /// that lets go of them, queued behind the launch (`Stream`'s `Graph::launch`); `None` when
    /// the graph holds no host function and no pinned memory. The graph may be destroyed meanwhile
    /// (the driver frees a running executable when it completes), and with it the last other
    /// holder of an event or a module. A graph of kernels and events alone queues no host
    /// function (one a launch would stall the stream on the driver's callback thread): the
    /// executable's share (`shared`) keeps them past a launch still running when the graph goes.
    /// Where the backend keeps that share (a driver with user objects, CUDA 11.3, and the
    /// simulator) this release's events and modules are a second hold, kept for drivers without.
    pub(crate) fn launch_holds(&self) -> Option<HostFn> {
        if self.host_fns.is_empty() && self.keep.is_empty() {
            return None;
        }
        let host_fns = self.host_fns.clone();
        let driver_owned = (self.keep.clone(), self.events.clone(), self.modules.clone());
        Some(Box::new(move || {
            drop(host_fns);
            // On the reaper thread: the last pinned block may go back to the driver, the last
            // event be destroyed, the last module unloaded: CUDA calls a host function must not make.
            crate::reaper::defer_drop(driver_owned);
        }))
    }

    /// Host functions each launch runs.
    pub fn host_fn_count(&self) -> usize {
        self.runs
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
        // The executable's share from now on: this graph's holds and `other`'s (the driver
        // replaces the executable's user objects with ones of `other`'s definition).
        self.exec.update(&*other.def, Box::new(self.shared.clone()))?;
        self.share(&other.events, &other.modules);
        // The updated nodes point at `other`'s host functions and pinned memory: share them. The
        // old ones stay too: launches made before the update still run the old nodes, which
        // point at them (on the GPU, dropping them here was a use-after-free).
        let old = std::mem::replace(&mut self.host_fns, other.host_fns.clone());
        self.runs = other.runs;
        self.retired.extend(old);
        self.keep.extend(other.keep.iter().cloned());
        self.events.extend(other.events.iter().cloned());
        self.modules.extend(other.modules.iter().cloned());
        Ok(())
    }
}

/// A driver's refusal, naming the node it was about.
fn on_node(e: Error, index: u32) -> Error {
    match e {
        Error::Cuda { code, message } => Error::cuda(code, format!("node {index}: {message}")),
        e => e,
    }
}
