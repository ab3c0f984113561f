//! Simulated graphs: the nodes a capture recorded or a builder added (the definition), and the
//! executable graph that runs them in order at each launch. A conditional node runs its bodies
//! as its condition says, read when the node runs (in stream order): a set-condition node
//! earlier in the graph has set it by then.

use super::engine::{Completion, Node, Work};
use super::event::{sim_event, Recorded};
use super::{lock, own};
use crate::error::{Code, Error, Result};
use crate::ops::graph::Held;
use crate::ops::{CondKind, EventOps, GraphDef, GraphExec, NodeId};
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// A condition: its value, and what each launch of its graph sets it to first.
pub(super) struct Cond {
    value: AtomicU32,
    default: Option<u32>,
}

/// Conditions by handle, for the set-condition kernel (a handle is a plain number, as on the GPU).
fn conditions() -> &'static Mutex<HashMap<u64, Weak<Cond>>> {
    static C: OnceLock<Mutex<HashMap<u64, Weak<Cond>>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

/// Sets the condition `handle` names; false where no live graph has it.
pub(super) fn set_condition(handle: u64, value: u32) -> bool {
    let cond = lock(conditions()).get(&handle).and_then(Weak::upgrade);
    cond.map(|c| c.value.store(value, Ordering::SeqCst)).is_some()
}

/// Whether `handle` names a live condition.
pub(super) fn is_condition(handle: u64) -> bool {
    lock(conditions()).get(&handle).is_some_and(|c| c.strong_count() > 0)
}

/// A definition: what a capture recorded, or what a builder has added so far.
pub struct SimGraph {
    pub(super) id: u64,
    pub(super) nodes: Arc<Mutex<Vec<Node>>>,
    /// The conditions made for its conditional nodes, reset at each run of the graph.
    conds: Arc<Mutex<Vec<Arc<Cond>>>>,
}

impl SimGraph {
    pub(super) fn new(id: u64, nodes: Vec<Node>) -> SimGraph {
        SimGraph { id, nodes: Arc::new(Mutex::new(nodes)), conds: Arc::default() }
    }

    fn snapshot(&self) -> Arc<Vec<Node>> {
        Arc::new(lock(&self.nodes).clone())
    }

    fn add(&self, deps: &[NodeId], kind: &'static str, label: String, work: Work) -> Result<NodeId> {
        self.add_armed(deps, kind, label, work, None)
    }

    fn add_armed(&self, deps: &[NodeId], kind: &'static str, label: String, work: Work, arm: Option<Work>) -> Result<NodeId> {
        let mut nodes = lock(&self.nodes);
        let deps = deps.iter().map(|&d| d as usize).collect::<Vec<_>>();
        if let Some(bad) = deps.iter().find(|&&d| d >= nodes.len()) {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, format!("node {bad} is not a node of this graph")));
        }
        nodes.push(Node { kind, label, work, deps, arm });
        Ok(nodes.len() as u64 - 1)
    }

    /// What running the graph does: reset its conditions, then run its nodes in order.
    fn runner(&self) -> impl Fn() + Send + Sync + 'static {
        let (nodes, conds) = (self.nodes.clone(), self.conds.clone());
        move || run(&lock(&nodes).clone(), &conds, None)
    }
}

/// Runs `nodes` in recording order (a topological order, PG 4.2.1), those `enabled` says are
/// off skipped, after resetting the graph's conditions to their defaults.
fn run(nodes: &[Node], conds: &Mutex<Vec<Arc<Cond>>>, enabled: Option<&[bool]>) {
    for c in lock(conds).iter() {
        if let Some(d) = c.default {
            c.value.store(d, Ordering::SeqCst);
        }
    }
    for (i, n) in nodes.iter().enumerate() {
        if enabled.is_none_or(|e| e.get(i).copied().unwrap_or(true)) {
            (n.work)();
        }
    }
}

/// An executable graph: its nodes (another definition's after an update), which are on, its
/// last launch, and what it keeps for its launches.
pub struct SimGraphExec {
    pub(super) nodes: Mutex<Arc<Vec<Node>>>,
    pub(super) enabled: Mutex<Vec<bool>>,
    pub(super) conds: Arc<Mutex<Vec<Arc<Cond>>>>,
    pub(super) last_launch: Mutex<Option<Arc<Completion>>>,
    /// The model's share ([`Held`]), as the driver's user object keeps it: each launch holds the
    /// one current when it was queued until it has run (an update replaces it for later launches).
    held: Mutex<Arc<Mutex<Held>>>,
}

impl SimGraphExec {
    /// What a launch of it runs: the nodes that are on, in recording order, after the graph's
    /// conditions are reset; each node's per-launch state is armed as the launch is queued.
    pub(super) fn launch_work(&self) -> Work {
        let nodes = lock(&self.nodes).clone();
        let enabled = lock(&self.enabled).clone();
        let conds = self.conds.clone();
        let held = lock(&self.held).clone();
        for (n, on) in nodes.iter().zip(&enabled) {
            if let (Some(arm), true) = (&n.arm, on) {
                arm()
            }
        }
        Arc::new(move || {
            // Named so the closure owns it: the launch keeps it until the closure goes.
            let _held = &held;
            run(&nodes, &conds, Some(&enabled))
        })
    }
}

impl GraphDef for SimGraph {
    /// The shape `cuGraphDebugDotPrint` gives (G9): a cluster, a node a line, then the edges.
    fn to_dot(&self) -> Result<String> {
        let nodes = self.snapshot();
        let g = format!("graph_{}", self.id);
        let mut s = format!("digraph dot {{\nsubgraph cluster_{id} {{\nlabel=\"{g}\" graph[style = \"dashed\"];\n", id = self.id);
        for (i, n) in nodes.iter().enumerate() {
            let shape = match n.kind {
                "kernel" => "box",
                "memset" => "invtrapezium",
                "memcpy" => "trapezium",
                "host" => "octagon",
                "conditional" => "diamond",
                "event_record" | "wait_event" => "rectangle",
                "graph" => "doubleoctagon",
                _ => "ellipse",
            };
            s.push_str(&format!(
                "\"{g}_node_{i}\"[style=\"solid\" shape=\"{shape}\" label=\"{i}\\n{}\\n{}\\n\"];\n",
                n.kind.to_uppercase(),
                n.label.replace('"', "'")
            ));
        }
        for (i, n) in nodes.iter().enumerate() {
            for d in &n.deps {
                s.push_str(&format!("\"{g}_node_{d}\" -> \"{g}_node_{i}\";\n"));
            }
        }
        s.push_str("}\n}\n");
        Ok(s)
    }

    fn instantiate(&self, held: Held) -> Result<Box<dyn GraphExec>> {
        let nodes = self.snapshot();
        Ok(Box::new(SimGraphExec {
            held: Mutex::new(Arc::new(Mutex::new(held))),
            enabled: Mutex::new(vec![true; nodes.len()]),
            nodes: Mutex::new(nodes),
            conds: self.conds.clone(),
            last_launch: Mutex::new(None),
        }))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn add_child(&self, deps: &[NodeId], child: &dyn GraphDef) -> Result<NodeId> {
        let child = own::<SimGraph>(child.as_any());
        // A copy, as cuGraphAddChildGraphNode makes: later changes to the child are not seen.
        let copy = SimGraph { id: child.id, nodes: Arc::new(Mutex::new(child.snapshot().to_vec())), conds: child.conds.clone() };
        let label = format!("graph_{}", child.id);
        self.add(deps, "graph", label, Arc::new(copy.runner()))
    }

    fn add_event_record(&self, deps: &[NodeId], event: &dyn EventOps) -> Result<NodeId> {
        let e = sim_event(event);
        // Each launch marks the event pending (the arm, at the launch) and the node completes it
        // where it runs, as a record in stream order does. A record node in a conditional body
        // (never armed) completes the event where it runs.
        let pending: Arc<Mutex<std::collections::VecDeque<Arc<Completion>>>> = Arc::default();
        let (state, queue) = (e.state.clone(), pending.clone());
        let arm: Work = Arc::new(move || {
            let c = Completion::pending();
            *lock(&state) = Recorded::Ran(c.clone());
            lock(&queue).push_back(c);
        });
        let state = e.state.clone();
        let work: Work = Arc::new(move || match lock(&pending).pop_front() {
            Some(c) => c.complete(),
            None => *lock(&state) = Recorded::Ran(Completion::done_now()),
        });
        self.add_armed(deps, "event_record", format!("0x{:x}", e.handle), work, Some(arm))
    }

    fn add_event_wait(&self, deps: &[NodeId], event: &dyn EventOps) -> Result<NodeId> {
        let e = sim_event(event);
        let state = e.state.clone();
        let work: Work = Arc::new(move || {
            let recorded = lock(&state).clone();
            if let Recorded::Ran(c) = recorded {
                c.wait();
            }
        });
        self.add(deps, "wait_event", format!("0x{:x}", e.handle), work)
    }

    fn condition(&self, default: Option<u32>) -> Result<u64> {
        static NEXT: AtomicU64 = AtomicU64::new(0x1000);
        let handle = NEXT.fetch_add(1, Ordering::Relaxed);
        let cond = Arc::new(Cond { value: AtomicU32::new(default.unwrap_or(0)), default });
        let mut all = lock(conditions());
        all.retain(|_, c| c.strong_count() > 0);
        all.insert(handle, Arc::downgrade(&cond));
        lock(&self.conds).push(cond);
        Ok(handle)
    }

    fn add_conditional(&self, deps: &[NodeId], condition: u64, kind: CondKind) -> Result<(NodeId, Vec<Box<dyn GraphDef>>)> {
        let cond = lock(conditions()).get(&condition).and_then(Weak::upgrade);
        let cond = cond
            .filter(|c| lock(&self.conds).iter().any(|mine| Arc::ptr_eq(mine, c)))
            .ok_or_else(|| Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "the condition is not one of this graph's"))?;
        let bodies: Vec<SimGraph> = (0..kind.bodies()).map(|i| SimGraph::new(self.id * 64 + 1 + i as u64, Vec::new())).collect();
        let runners: Vec<_> = bodies.iter().map(|b| b.runner()).collect();
        let work: Work = Arc::new(move || {
            let v = cond.value.load(Ordering::SeqCst);
            match kind {
                CondKind::If if v != 0 => runners[0](),
                CondKind::IfElse => runners[(v == 0) as usize](),
                CondKind::While => {
                    while cond.value.load(Ordering::SeqCst) != 0 {
                        runners[0]()
                    }
                }
                CondKind::Switch(_) => {
                    if let Some(r) = runners.get(v as usize) {
                        r()
                    }
                }
                CondKind::If => {}
            }
        });
        let label = format!("{kind:?}");
        let node = self.add(deps, "conditional", label, work)?;
        Ok((node, bodies.into_iter().map(|b| Box::new(b) as Box<dyn GraphDef>).collect()))
    }

    fn node_kind(&self, node: NodeId) -> Result<&'static str> {
        lock(&self.nodes)
            .get(node as usize)
            .map(|n| n.kind)
            .ok_or_else(|| Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, format!("node {node} is not a node of this graph")))
    }
}

impl GraphExec for SimGraphExec {
    fn update(&self, from: &dyn GraphDef, held: Held) -> Result<()> {
        let theirs = own::<SimGraph>(from.as_any()).snapshot();
        let mut mine = lock(&self.nodes);
        let same = mine.len() == theirs.len() && mine.iter().zip(theirs.iter()).all(|(a, b)| a.kind == b.kind && a.deps == b.deps);
        if !same {
            return Err(Error::cuda(
                Code::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
                format!(
                    "the graphs differ in topology ({} nodes against {}, or other kinds or edges): capture the same sequence of operations to update",
                    mine.len(),
                    theirs.len()
                ),
            ));
        }
        *mine = theirs;
        *lock(&self.held) = Arc::new(Mutex::new(held));
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn set_params(&self, node: NodeId, from: &dyn GraphDef, from_node: NodeId) -> Result<()> {
        let theirs = lock(&own::<SimGraph>(from.as_any()).nodes).get(from_node as usize).cloned();
        let theirs = theirs.ok_or_else(|| Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "the new parameters' node is gone"))?;
        let mut mine = lock(&self.nodes);
        let Some(old) = mine.get(node as usize) else {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, format!("node {node} is not a node of this graph")));
        };
        if old.kind != theirs.kind || !matches!(old.kind, "kernel" | "memcpy" | "memset" | "host") {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("node {node} is a {} node: it cannot take a {} node's parameters", old.kind, theirs.kind),
            ));
        }
        let mut nodes = mine.to_vec();
        nodes[node as usize] = Node { deps: nodes[node as usize].deps.clone(), ..theirs };
        *mine = Arc::new(nodes);
        Ok(())
    }

    fn set_enabled(&self, node: NodeId, enabled: bool) -> Result<()> {
        let kind = lock(&self.nodes).get(node as usize).map(|n| n.kind);
        match kind {
            Some("kernel" | "memcpy" | "memset") => {
                lock(&self.enabled)[node as usize] = enabled;
                Ok(())
            }
            Some(kind) => Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("node {node} is a {kind} node: only kernel, memcpy and memset nodes can be turned off (cuGraphNodeSetEnabled)"),
            )),
            None => Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, format!("node {node} is not a node of this graph"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::SimBackend;
    use crate::backend::Backend;
    use crate::ops::{CaptureMode, Pattern};

    #[test]
    fn a_definition_instantiates_executables_that_launch_and_update_apart() {
        let b = SimBackend::new(1, 1 << 20);
        let s = b.streams().create(0, true, 0).unwrap();
        let m = b.memory().alloc(0, 4).unwrap();
        let capture = |bits| {
            s.begin_capture(CaptureMode::Relaxed).unwrap();
            s.fill(&*m, 0, Pattern { width: 4, bits }, 1).unwrap();
            s.end_capture().unwrap()
        };
        let (seven, nine) = (capture(7), capture(9));
        let (a, b2) = (seven.instantiate(Box::new(())).unwrap(), seven.instantiate(Box::new(())).unwrap());
        let read = || {
            let mut out = [0u8; 4];
            s.copy_dtoh(&mut out, &*m, 0).unwrap();
            out[0]
        };
        s.launch_graph(&*a).unwrap();
        assert_eq!(read(), 7);
        a.update(&*nine, Box::new(())).unwrap();
        s.launch_graph(&*a).unwrap();
        assert_eq!(read(), 9, "the updated executable runs the other definition's nodes");
        s.launch_graph(&*b2).unwrap();
        assert_eq!(read(), 7, "a second executable of the same definition is not updated with the first");
        assert!(seven.to_dot().unwrap().contains("KERNEL"), "the definition still describes its own fill");
    }
}
