//! Simulated graphs: the nodes a capture recorded, run in order at each launch.

use super::engine::{Completion, Node};
use super::lock;
use crate::error::{Code, Error, Result};
use crate::ops::GraphOps;
use std::any::Any;
use std::sync::{Arc, Mutex};

pub struct SimGraph {
    pub(super) id: u64,
    pub(super) nodes: Mutex<Arc<Vec<Node>>>,
    pub(super) last_launch: Mutex<Option<Arc<Completion>>>,
}

pub(super) fn sim_graph(g: &dyn GraphOps) -> &SimGraph {
    g.as_any().downcast_ref::<SimGraph>().expect("the simulator is given its own graphs")
}

impl GraphOps for SimGraph {
    /// The shape `cuGraphDebugDotPrint` gives (G9): a cluster, a node a line, then the edges.
    fn to_dot(&self) -> Result<String> {
        let nodes = lock(&self.nodes).clone();
        let g = format!("graph_{}", self.id);
        let mut s = format!("digraph dot {{\nsubgraph cluster_{id} {{\nlabel=\"{g}\" graph[style = \"dashed\"];\n", id = self.id);
        for (i, n) in nodes.iter().enumerate() {
            let shape = match n.kind {
                "kernel" => "box",
                "memset" => "invtrapezium",
                "memcpy" => "trapezium",
                "host" => "octagon",
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

    fn update(&self, from: &dyn GraphOps) -> Result<()> {
        let theirs = lock(&sim_graph(from).nodes).clone();
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
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
