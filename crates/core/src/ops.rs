//! The seam's per-concept traits, one file a concept: what each backend implements for
//! devices, memory, pinned host memory, streams, events, graphs, modules, and each library's
//! own (`blas.rs`, `nccl.rs`). The owning types above (`stream.rs`, `event.rs`, `memory.rs`, …)
//! check arguments and state once, for both backends, then call these; `backend.rs` hands the
//! parts out. Every name is re-exported here, so `crate::ops::StreamOps` names it wherever it lives.

// Every file of `ops/` is a module (`pub mod device;`, …): a new concept's trait needs no line here.
automod::dir!(pub "src/ops");

pub use device::{DeviceOps, DeviceProps, MemInfo, ATTRIBUTES};
pub use event::{EventFlags, EventOps, Events};
pub use graph::{CondKind, CondTest, GraphDef, GraphExec, NodeId};
pub use memory::{Advice, AllocKind, AllocOps, Location, MemoryKind, MemoryResource, PointerAttributes, PoolAttr};
pub use module::{CacheConfig, FuncAttr, FunctionOps, Launch, ModuleOps, Modules};
pub use pinned::{HostBytes, HostMemory, PinnedOps};
pub use shared_pool::{PoolPlace, SharedPoolOps, SharedPools};
pub use stream::{
    copy_rows, extent, CaptureMode, CaptureStatus, End, HostFn, Pattern, RepeatFn, RepeatSlot, Rows, StatusFn, StreamOps, Streams,
};
pub use texture::{AddressMode, ArrayDesc, ArrayOps, ChannelKind, FilterMode, Format, Linear, ObjectOps, ResourceRef, TexDesc, Textures};
pub use vmm::{Access, ReservationOps, VirtualMemory};
