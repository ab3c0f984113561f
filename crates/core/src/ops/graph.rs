//! Graphs at the seam: a graph's definition (`CUgraph`, what a capture recorded) apart from the
//! executable graph instantiated from it (`CUgraphExec`, what launches). A graph built node by
//! node is another way to make a definition; everything past it stays the same.

use super::stream::StreamOps;
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
    /// Runs it on `stream`, after earlier work there and after its own previous launch.
    fn launch(&self, stream: &dyn StreamOps) -> Result<()>;
    /// Prepares it on `stream` without running it (`cuGraphUpload`).
    fn upload(&self, stream: &dyn StreamOps) -> Result<()>;
    /// Takes the node parameters of `from`, a definition of the same topology
    /// (`cuGraphExecUpdate`).
    fn update(&self, from: &dyn GraphDef) -> Result<()>;
}
