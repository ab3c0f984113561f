//! Graphs at the seam: what a capture made.

use crate::error::Result;
use std::any::Any;

/// An instantiated graph (`CUgraphExec`, with the `CUgraph` it came from).
pub trait GraphOps: Send + Sync + 'static {
    fn to_dot(&self) -> Result<String>;
    /// `cuGraphExecUpdate` from another capture of the same topology.
    fn update(&self, from: &dyn GraphOps) -> Result<()>;
    fn as_any(&self) -> &dyn Any;
}
