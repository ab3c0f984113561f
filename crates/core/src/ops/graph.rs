//! Graphs at the seam: a graph's definition (`CUgraph`, what a capture recorded) apart from the
//! executable graph instantiated from it (`CUgraphExec`, what launches). A graph built node by
//! node is another way to make a definition; everything past it stays the same. Launching and
//! uploading an executable are stream work (`StreamOps::launch_graph`, `upload_graph`), so this
//! file names no stream: the stream names the graph.

use crate::error::Result;
use std::any::Any;

/// A graph's definition (`CUgraph`), destroyed when dropped.
pub trait GraphDef: Send + Sync + 'static {
    /// Graphviz dot of its nodes and edges (`cuGraphDebugDotPrint`).
    fn to_dot(&self) -> Result<String>;
    /// An executable graph of it (`cuGraphInstantiateWithFlags`); the definition stays.
    fn instantiate(&self) -> Result<Box<dyn GraphExec>>;
    /// The backend's own definition, for the backend that made it (an update reads its nodes).
    fn as_any(&self) -> &dyn Any;
}

/// An executable graph (`CUgraphExec`), destroyed when dropped (a launch still running completes).
pub trait GraphExec: Send + Sync + 'static {
    /// Takes the node parameters of `from`, a definition of the same topology
    /// (`cuGraphExecUpdate`).
    fn update(&self, from: &dyn GraphDef) -> Result<()>;
    /// The backend's own executable, for the backend's stream that launches or uploads it.
    fn as_any(&self) -> &dyn Any;
}
