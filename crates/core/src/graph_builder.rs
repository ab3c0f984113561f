//! Graphs built node by node (cuda.core's `GraphBuilder`): each node is what a capture into
//! the graph recorded (`cuStreamBeginCaptureToGraph`: a kernel, a copy, a memset, a host
//! function, or whatever a function enqueued), a child graph, or a conditional node whose
//! bodies are built by nested builders. The rules live here, once for both backends: a node
//! must be this builder's, a body's builder is the only one open while its body is built, a
//! conditional node takes a condition of its own graph.

use crate::error::{Code, Error, Result};
use crate::event::Event;
use crate::graph::{Built, Captured, Graph};
use crate::memory::DeviceMemory;
use crate::ops::{CondKind, CondTest, GraphDef, NodeId};
use crate::runtime::runtime;
use crate::stream::Stream;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A node as users hold it: its builder's id and its number there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeRef {
    pub builder: u64,
    pub index: u32,
}

/// A condition as users hold it: the builder whose graph made it, and its handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Condition {
    pub builder: u64,
    pub handle: u64,
}

pub struct GraphBuilder {
    id: u64,
    device: usize,
    def: Arc<dyn GraphDef>,
    /// A body's outer definitions, kept while it is built (the body is owned by its node).
    _outer: Vec<Arc<dyn GraphDef>>,
    /// This builder's id and its outer builders': a node may set their conditions.
    lineage: Vec<u64>,
    nodes: Vec<Vec<NodeId>>,
    /// What the graph's launches keep alive, shared by a root and its bodies.
    captured: Arc<Mutex<Captured>>,
    /// Bodies of this builder's conditional nodes still being built.
    open_bodies: Arc<AtomicUsize>,
    /// The conditions that drive a conditional node of this graph (its root's and its bodies'):
    /// the driver gives each conditional node a condition of its own.
    driven: Arc<Mutex<Vec<u64>>>,
    /// For a body: its outer builder's count, given back when the body is closed.
    outer_open: Option<Arc<AtomicUsize>>,
    closed: bool,
    capturing: bool,
}

impl GraphBuilder {
    /// An empty graph on `device` (`cuGraphCreate`).
    pub fn new(device: usize) -> Result<GraphBuilder> {
        let rt = runtime()?;
        rt.ordinal(device as f64)?;
        let def: Arc<dyn GraphDef> = Arc::from(rt.backend.streams().graph(device)?);
        let id = next_id();
        Ok(GraphBuilder {
            id,
            device,
            def,
            _outer: Vec::new(),
            lineage: vec![id],
            nodes: Vec::new(),
            captured: Arc::default(),
            open_bodies: Arc::default(),
            driven: Arc::default(),
            outer_open: None,
            closed: false,
            capturing: false,
        })
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn device(&self) -> usize {
        self.device
    }

    /// Whether it builds a conditional node's body.
    pub fn is_body(&self) -> bool {
        self.outer_open.is_some()
    }

    /// Nodes added so far.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Refuses work on a builder that is closed, capturing, or waiting for a body.
    fn open(&self, what: &str) -> Result<()> {
        if self.closed {
            return Err(Error::cuda(
                Code::CUDA_ERROR_ILLEGAL_STATE,
                format!("{what}: this body's builder is closed (its function has returned): add nodes inside the body's function"),
            ));
        }
        if self.capturing {
            return Err(Error::cuda(
                Code::CUDA_ERROR_ILLEGAL_STATE,
                format!("{what}: the builder is capturing (inside capture()): enqueue work on the capture's stream instead"),
            ));
        }
        if self.open_bodies.load(Ordering::Acquire) > 0 {
            return Err(Error::cuda(
                Code::CUDA_ERROR_ILLEGAL_STATE,
                format!("{what}: a conditional body of this builder is being built: add its nodes to the body's builder (the function's argument), not to the outer one"),
            ));
        }
        Ok(())
    }

    /// The definition's nodes behind `after`, each checked to be this builder's.
    fn deps(&self, after: &[NodeRef]) -> Result<Vec<NodeId>> {
        let mut deps = Vec::new();
        for n in after {
            if n.builder != self.id {
                return Err(Error::cuda(
                    Code::CUDA_ERROR_INVALID_VALUE,
                    "a node in `after` belongs to another GraphBuilder: a node can only follow nodes of its own graph (a body's nodes, nodes of the body)",
                ));
            }
            let ids =
                self.nodes.get(n.index as usize).ok_or_else(|| Error::range(format!("node {} is not a node of this builder", n.index)))?;
            deps.extend(ids.iter().copied());
        }
        deps.sort_unstable();
        deps.dedup();
        Ok(deps)
    }

    fn push(&mut self, ids: Vec<NodeId>) -> u32 {
        self.nodes.push(ids);
        self.nodes.len() as u32 - 1
    }

    /// Begins capturing into the graph on `stream`: what it is given until [`GraphBuilder::end`]
    /// becomes one node, after `after`.
    pub fn begin(&mut self, stream: &Stream, after: &[NodeRef]) -> Result<()> {
        self.open("adding a node")?;
        if stream.device() != self.device {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "the capture's stream is of another device than the graph"));
        }
        let deps = self.deps(after)?;
        stream.begin_capture_to(&*self.def, &deps)?;
        self.capturing = true;
        Ok(())
    }

    /// Ends the capture begun with [`GraphBuilder::begin`]; returns the node it made.
    pub fn end(&mut self, stream: &Stream) -> Result<u32> {
        if !self.capturing {
            return Err(Error::cuda(Code::CUDA_ERROR_ILLEGAL_STATE, "the builder is not capturing"));
        }
        self.capturing = false;
        let (leaves, kept) = stream.end_capture_to()?;
        self.captured.lock().unwrap_or_else(|p| p.into_inner()).extend(kept);
        Ok(self.push(leaves))
    }

    /// Adds a node that runs a copy of `child` (`cuGraphAddChildGraphNode`); the graph keeps
    /// what the child's launches keep.
    pub fn add_child(&mut self, child: &Graph, after: &[NodeRef]) -> Result<u32> {
        self.open("addChild")?;
        if child.device() != self.device {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "the child graph is of another device"));
        }
        let deps = self.deps(after)?;
        let (def, kept) = child.parts();
        let node = self.def.add_child(&deps, def)?;
        self.captured.lock().unwrap_or_else(|p| p.into_inner()).extend(kept);
        Ok(self.push(vec![node]))
    }

    /// Adds a node recording `event` (`wait`: waiting for its last record), after `after`
    /// (`cuGraphAddEventRecordNode`, `cuGraphAddEventWaitNode`); the graph keeps the event.
    pub fn add_event(&mut self, event: &Event, wait: bool, after: &[NodeRef]) -> Result<u32> {
        self.open(if wait { "addEventWait" } else { "addEventRecord" })?;
        if event.device() != self.device {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "the event is of another device than the graph"));
        }
        let deps = self.deps(after)?;
        let ops = event.ops()?;
        let node = if wait { self.def.add_event_wait(&deps, ops)? } else { self.def.add_event_record(&deps, ops)? };
        self.captured.lock().unwrap_or_else(|p| p.into_inner()).events.push(event.made()?.clone());
        Ok(self.push(vec![node]))
    }

    /// A condition for this graph's conditional nodes (`cuGraphConditionalHandleCreate`),
    /// reset to `default` at each launch where given.
    pub fn condition(&mut self, default: Option<u32>) -> Result<Condition> {
        self.open("condition")?;
        Ok(Condition { builder: self.id, handle: self.def.condition(default)? })
    }

    /// Adds a conditional node on `cond`, a condition of this graph or an outer one; returns the node and the
    /// builders of its bodies, which must each be closed ([`GraphBuilder::close`]) before this
    /// builder takes more.
    pub fn add_conditional(&mut self, cond: Condition, kind: CondKind, after: &[NodeRef]) -> Result<(u32, Vec<GraphBuilder>)> {
        self.open("adding a conditional node")?;
        // A condition belongs to the graph that made it; its nodes may lie there or in a body
        // nested in it (`cuGraphConditionalHandleCreate`).
        if !self.lineage.contains(&cond.builder) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                "the condition belongs to another graph: make it with this builder's condition(), or an outer builder's (a conditional node takes a condition of its own graph)",
            ));
        }
        if let CondKind::Switch(0) = kind {
            return Err(Error::range("a switch needs at least one case"));
        }
        if self.driven.lock().unwrap_or_else(|p| p.into_inner()).contains(&cond.handle) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                "the condition already drives a conditional node: each conditional node takes a condition of its own (make another with condition())",
            ));
        }
        let deps = self.deps(after)?;
        let (node, bodies) = self.def.add_conditional(&deps, cond.handle, kind)?;
        self.driven.lock().unwrap_or_else(|p| p.into_inner()).push(cond.handle);
        let index = self.push(vec![node]);
        let mut outer = self._outer.clone();
        outer.push(self.def.clone());
        let bodies: Vec<GraphBuilder> = bodies
            .into_iter()
            .map(|def| {
                let id = next_id();
                let mut lineage = vec![id];
                lineage.extend(self.lineage.iter().copied());
                GraphBuilder {
                    id,
                    device: self.device,
                    def: Arc::from(def),
                    _outer: outer.clone(),
                    lineage,
                    nodes: Vec::new(),
                    captured: self.captured.clone(),
                    open_bodies: Arc::default(),
                    driven: self.driven.clone(),
                    outer_open: Some(self.open_bodies.clone()),
                    closed: false,
                    capturing: false,
                }
            })
            .collect();
        self.open_bodies.fetch_add(bodies.len(), Ordering::AcqRel);
        Ok((index, bodies))
    }

    /// Closes a body's builder (its function has returned): the outer builder takes nodes again.
    pub fn close(&mut self) -> Result<()> {
        if self.capturing {
            return Err(Error::cuda(Code::CUDA_ERROR_ILLEGAL_STATE, "the body's builder is still capturing"));
        }
        if !self.closed {
            self.closed = true;
            if let Some(outer) = &self.outer_open {
                outer.fetch_sub(1, Ordering::AcqRel);
            }
        }
        Ok(())
    }

    /// Adds a node that sets `cond` (of this graph or an outer one) from the element at
    /// `mem + offset`, compared as `test` says: the built-in set-condition kernel.
    pub fn add_set_condition(
        &mut self,
        stream: &Stream,
        cond: Condition,
        mem: &DeviceMemory,
        offset: u64,
        test: CondTest,
        after: &[NodeRef],
    ) -> Result<u32> {
        self.open("addSetCondition")?;
        if !self.lineage.contains(&cond.builder) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                "the condition belongs to another graph: a node may set a condition of its own graph or of a graph it is nested in",
            ));
        }
        if mem.device() != self.device {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "the condition's value lies on another device than the graph"));
        }
        mem.check_range(offset, test.width(), "addSetCondition")?;
        if !offset.is_multiple_of(test.width()) {
            return Err(Error::range(format!("the condition's value must be aligned to its {} bytes", test.width())));
        }
        let ops = mem.ops()?;
        self.begin(stream, after)?;
        let set = stream.ops().and_then(|s| s.set_condition(cond.handle, ops, offset, test));
        let node = self.end(stream);
        set?;
        node
    }

    /// Graphviz dot of the graph so far.
    pub fn to_dot(&self) -> Result<String> {
        self.def.to_dot()
    }

    /// The node's kind ("kernel", "memcpy", "memset", "host", "graph", "conditional", …), or
    /// "capture" where it stands for several nodes.
    pub fn node_kind(&self, index: u32) -> Result<&'static str> {
        match self.nodes.get(index as usize).map(Vec::as_slice) {
            Some([one]) => self.def.node_kind(*one),
            Some(_) => Ok("capture"),
            None => Err(Error::range(format!("node {index} is not a node of this builder"))),
        }
    }

    /// An executable graph of what is built so far (`cuGraphInstantiateWithFlags`), keeping
    /// the host functions and pinned memory its nodes use. The builder may go on.
    pub fn instantiate(&self) -> Result<Graph> {
        if self.is_body() {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                "a conditional body is instantiated with its outer graph: instantiate the outer builder",
            ));
        }
        self.open("instantiate")?;
        let captured = self.captured.lock().unwrap_or_else(|p| p.into_inner()).clone();
        Graph::built(self.def.clone(), self.device, captured, Some(Built { builder: self.id, nodes: self.nodes.clone() }))
    }

    /// Gives `graph`'s node `index` of builder `builder` the parameters of this builder's node
    /// `from_index` (a scratch builder's one node, made with the new parameters): an update in
    /// place (`cuGraphExec{Kernel,Memcpy,Memset,Host}NodeSetParams`).
    pub fn update_node(&self, graph: &mut Graph, builder: u64, index: u32, from_index: u32) -> Result<()> {
        let captured = self.captured.lock().unwrap_or_else(|p| p.into_inner()).clone();
        match self.nodes.get(from_index as usize).map(Vec::as_slice) {
            Some([one]) => graph.set_params(builder, index, &*self.def, *one, captured),
            _ => Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "the new parameters must come from exactly one node")),
        }
    }
}

impl Drop for GraphBuilder {
    fn drop(&mut self) {
        // A body dropped unclosed (its function threw) gives its outer builder back.
        let _ = self.close();
    }
}
