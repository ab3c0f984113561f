//! The cuda backend's raw layer: every driver call, one function each, as cudarc's `result`
//! layer is over `sys`. A function returns the driver's code as the error (`Raw<T>`); the caller
//! names the call with `.check(…)`. Out-pointers end here: each function returns what the
//! driver wrote.
//!
//! Functions that take handles are `unsafe`: the handles must be live and of the current
//! context, as each `# Safety` says. The few with no handle to misuse are safe. One file a
//! concept, as the seam is split; every function is re-exported here, as `raw::name`.

mod check;
/// Contexts for interop, called as `raw::context::name`.
pub(crate) mod context;
mod device;
mod event;
mod graph;
mod memory;
mod module;
/// Pools shared between processes, called as `raw::shared_pool::name`.
pub(crate) mod shared_pool;
mod stream;
pub(crate) mod system;
/// CUDA arrays, textures and surfaces, called as `raw::texture::name`.
pub(crate) mod texture;
/// Virtual memory, called as `raw::vmm::name` (not re-exported: a glob back would close a loop).
pub(crate) mod vmm;

pub(crate) use check::Raw;
pub(crate) use device::*;
pub(crate) use event::*;
pub(crate) use graph::*;
pub(crate) use memory::*;
pub(crate) use module::*;
pub(crate) use stream::*;
