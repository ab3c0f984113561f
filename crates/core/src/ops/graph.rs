//! Graphs at the seam: a graph's definition (`CUgraph`, what a capture recorded) apart from the
//! executable graph instantiated from it (`CUgraphExec`, what launches). A graph built node by
//! node is another way to make a definition: each node is captured into it
//! (`cuStreamBeginCaptureToGraph`, the stream's `begin_capture_to_graph`), a child graph or a
//! conditional node added to it; everything past it stays the same. Launching and uploading an
//! executable are stream work (`StreamOps::launch_graph`, `upload_graph`), so this file names no
//! stream: the stream names the graph.

use super::event::EventOps;
use crate::error::Result;
use std::any::Any;

/// A node of a definition, as its backend names it (a `CUgraphNode`; the simulator's index).
pub type NodeId = u64;

/// What an executable graph keeps for its launches: the model's share of what the graph's nodes
/// use (its kernels' modules, its events). The backend lets go of it only once the executable and
/// every launch of it have completed (on the GPU a CUDA user object, released by the driver;
/// dropped on the reaper thread, never the driver's), so a graph destroyed while a launch runs
/// leaves what the launch uses in place.
pub type Held = Box<dyn Any + Send>;

/// A conditional node's kind (`CUgraphConditionalNodeType`, with if/else as an if of two bodies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CondKind {
    If,
    IfElse,
    While,
    /// A switch of this many bodies.
    Switch(u32),
}

impl CondKind {
    /// How many bodies the node has.
    pub fn bodies(self) -> u32 {
        match self {
            CondKind::If | CondKind::While => 1,
            CondKind::IfElse => 2,
            CondKind::Switch(n) => n,
        }
    }
}

/// What the built-in set-condition kernel compares: the element at the pointer, read as
/// `dtype`, against `value` with `op`; the condition becomes 1 where it holds, 0 elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CondTest {
    /// 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 u64, 7 i64, 8 f32, 9 f64.
    pub dtype: u32,
    /// 0 `==`, 1 `!=`, 2 `<`, 3 `<=`, 4 `>`, 5 `>=`; 6 the value itself (a switch's index).
    pub op: u32,
    /// The other side: the bits of an i64 (signed dtypes), u64 (unsigned) or f64 (floats).
    pub value: u64,
}

impl CondTest {
    /// Bytes of the element read.
    pub fn width(self) -> u64 {
        match self.dtype {
            0 | 1 => 1,
            2 | 3 => 2,
            4 | 5 | 8 => 4,
            _ => 8,
        }
    }

    /// The condition's value for the element's little-endian `bytes`, as the kernel sets it.
    pub fn eval(self, bytes: &[u8]) -> u32 {
        let mut b = [0u8; 8];
        b[..bytes.len()].copy_from_slice(bytes);
        let raw = u64::from_le_bytes(b);
        let cmp = |o: std::cmp::Ordering| -> u32 {
            use std::cmp::Ordering::*;
            (match self.op {
                0 => o == Equal,
                1 => o != Equal,
                2 => o == Less,
                3 => o != Greater,
                4 => o == Greater,
                _ => o != Less,
            }) as u32
        };
        let signed = |bits: u32| ((raw << (64 - bits)) as i64) >> (64 - bits);
        match self.dtype {
            8 | 9 => {
                let x = if self.dtype == 8 { f32::from_bits(raw as u32) as f64 } else { f64::from_bits(raw) };
                if self.op == 6 {
                    return x as u32;
                }
                match x.partial_cmp(&f64::from_bits(self.value)) {
                    Some(o) => cmp(o),
                    // NaN: only `!=` holds.
                    None => (self.op == 1) as u32,
                }
            }
            1 | 3 | 5 | 7 => {
                let x = signed(8 * self.width() as u32);
                if self.op == 6 {
                    return x as u32;
                }
                cmp(x.cmp(&(self.value as i64)))
            }
            _ => {
                if self.op == 6 {
                    return raw as u32;
                }
                cmp(raw.cmp(&self.value))
            }
        }
    }
}

/// A graph's definition (`CUgraph`), destroyed when dropped (a conditional node's body is
/// its parent's, destroyed with it).
pub trait GraphDef: Send + Sync + 'static {
    /// Graphviz dot of its nodes and edges (`cuGraphDebugDotPrint`).
    fn to_dot(&self) -> Result<String>;
    /// An executable graph of it (`cuGraphInstantiateWithFlags`), keeping `held` as [`Held`]
    /// says; the definition stays.
    fn instantiate(&self, held: Held) -> Result<Box<dyn GraphExec>>;
    /// The backend's own definition, for the backend that made it (an update reads its nodes).
    fn as_any(&self) -> &dyn Any;
    /// Adds a node running `child`, a copy of it (`cuGraphAddChildGraphNode`), after `deps`.
    fn add_child(&self, deps: &[NodeId], child: &dyn GraphDef) -> Result<NodeId>;
    /// Adds a node recording `event` (`cuGraphAddEventRecordNode`), after `deps`; the caller
    /// keeps the event alive as long as the graph.
    fn add_event_record(&self, deps: &[NodeId], event: &dyn EventOps) -> Result<NodeId>;
    /// Adds a node waiting for `event`'s last record (`cuGraphAddEventWaitNode`), after `deps`.
    fn add_event_wait(&self, deps: &[NodeId], event: &dyn EventOps) -> Result<NodeId>;
    /// A condition for conditional nodes of this graph (`cuGraphConditionalHandleCreate`), set
    /// to `default` at each launch where given.
    fn condition(&self, default: Option<u32>) -> Result<u64>;
    /// Adds a conditional node on `condition` after `deps` (`cuGraphAddNode`); returns it and
    /// its bodies, empty definitions to fill (owned by the node).
    fn add_conditional(&self, deps: &[NodeId], condition: u64, kind: CondKind) -> Result<(NodeId, Vec<Box<dyn GraphDef>>)>;
    /// The node's kind, as the dot names it: "kernel", "memcpy", "memset", "host", "graph",
    /// "conditional", "event_record", "wait_event", "empty", …
    fn node_kind(&self, node: NodeId) -> Result<&'static str>;
}

/// An executable graph (`CUgraphExec`), destroyed when dropped (a launch still running completes).
pub trait GraphExec: Send + Sync + 'static {
    /// Takes the node parameters of `from`, a definition of the same topology
    /// (`cuGraphExecUpdate`), and keeps `held` for the launches from now on (launches made
    /// before keep what they kept).
    fn update(&self, from: &dyn GraphDef, held: Held) -> Result<()>;
    /// The backend's own executable, for the backend's stream that launches or uploads it.
    fn as_any(&self) -> &dyn Any;
    /// Gives `node` (of the definition it was instantiated from) the parameters of `from_node`
    /// in `from`, a node of the same kind (`cuGraphExec{Kernel,Memcpy,Memset,Host}NodeSetParams`).
    fn set_params(&self, node: NodeId, from: &dyn GraphDef, from_node: NodeId) -> Result<()>;
    /// Turns `node` off (it does nothing at later launches) or on again (`cuGraphNodeSetEnabled`).
    fn set_enabled(&self, node: NodeId, enabled: bool) -> Result<()>;
}

#[cfg(test)]
mod tests {
    use super::CondTest;

    #[test]
    fn the_set_condition_test_reads_each_dtype_as_the_kernel_does() {
        let t = |dtype, op, value: u64, bytes: &[u8]| CondTest { dtype, op, value }.eval(bytes);
        assert_eq!(t(5, 2, (-1i64) as u64, &(-2i32).to_le_bytes()), 1, "int32 -2 < -1");
        assert_eq!(t(4, 2, 1, &(u32::MAX).to_le_bytes()), 0, "uint32 max is not < 1");
        assert_eq!(t(1, 0, (-1i64) as u64, &[0xff]), 1, "int8 0xff is -1");
        assert_eq!(t(8, 4, 0.5f64.to_bits(), &1.0f32.to_le_bytes()), 1, "float32 1 > 0.5");
        assert_eq!(t(9, 1, 0, &f64::NAN.to_le_bytes()), 1, "NaN != 0");
        assert_eq!(t(9, 0, f64::NAN.to_bits(), &f64::NAN.to_le_bytes()), 0, "NaN == NaN is false");
        assert_eq!(t(5, 6, 0, &3i32.to_le_bytes()), 3, "op 6 passes the element: a switch's case");
    }
}
