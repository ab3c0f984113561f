//! The seam's per-concept traits, one file a concept: what each backend implements for
//! devices, memory, pinned host memory, streams, events, graphs, modules, and each library's
//! own (`blas.rs`, `nccl.rs`). The owning types above (`stream.rs`, `event.rs`, `memory.rs`, …)
//! check arguments and state once, for both backends, then call these; `backend.rs` hands the
//! parts out. Every name is re-exported here, so `crate::ops::StreamOps` names it wherever it lives.

pub mod blas;
pub mod context;
pub mod device;
pub mod event;
pub mod fft;
pub mod graph;
pub mod half;
pub mod memory;
pub mod module;
pub mod nccl;
pub mod pinned;
pub mod rand;
pub mod shared_pool;
pub mod stream;
pub mod system;
pub mod texture;
pub mod vmm;

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
