//! Simulated graphs: the nodes a capture recorded (the definition), and the executable graph
//! that runs them in order at each launch.

use super::engine::{Completion, Node};
use super::{lock, own};
use crate::error::{Code, Error, Result};
use crate::ops::{GraphDef, GraphExec};
use std::any::Any;
use std::sync::{Arc, Mutex};

/// What a capture recorded.
pub struct SimGraph {
    pub(super) id: u64,
    pub(super) nodes: Arc<Vec<Node>>,
}

/// An executable graph: its nodes (another definition's after an update) and its last launch.
pub struct SimGraphExec {
    pub(super) nodes: Mutex<Arc<Vec<Node>>>,
    pub(super) last_launch: Mutex<Option<Arc<Completion>>>,
}

impl GraphDef for SimGraph {
    /// The shape `cuGraphDebugDotPrint` gives (G9): a cluster, a node a line, then the edges.
    fn to_dot(&self) -> Result<String> {
        let nodes = self.nodes.clone();
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

    fn instantiate(&self) -> Result<Box<dyn GraphExec>> {
        Ok(Box::new(SimGraphExec { nodes: Mutex::new(self.nodes.clone()), last_launch: Mutex::new(None) }))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl GraphExec for SimGraphExec {
    fn update(&self, from: &dyn GraphDef) -> Result<()> {
        let theirs = own::<SimGraph>(from.as_any()).nodes.clone();
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
        let (a, b2) = (seven.instantiate().unwrap(), seven.instantiate().unwrap());
        let read = || {
            let mut out = [0u8; 4];
            s.copy_dtoh(&mut out, &*m, 0).unwrap();
            out[0]
        };
        s.launch_graph(&*a).unwrap();
        assert_eq!(read(), 7);
        a.update(&*nine).unwrap();
        s.launch_graph(&*a).unwrap();
        assert_eq!(read(), 9, "the updated executable runs the other definition's nodes");
        s.launch_graph(&*b2).unwrap();
        assert_eq!(read(), 7, "a second executable of the same definition is not updated with the first");
        assert!(seven.to_dot().unwrap().contains("KERNEL"), "the definition still describes its own fill");
    }
}
