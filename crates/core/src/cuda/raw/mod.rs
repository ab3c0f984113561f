//! The cuda backend's raw layer: every driver call, one function each, as cudarc's `result`
//! layer is over `sys`. A function returns the driver's code as the error (`Raw<T>`); the caller
//! names the call with `.check(…)`. Out-pointers end here: each function returns what the
//! driver wrote.
//!
//! Functions that take handles are `unsafe`: the handles must be live and of the current
//! context, as each `# Safety` says. The few with no handle to misuse are safe. One file a
//! concept, as the seam is split; every function is re-exported here, as `raw::name`.

// Every file of `raw/` is a module (`pub(crate) mod stream;`, …): a new concept's calls need no
// line here, and are called as `raw::<concept>::name` (`raw::vmm::map`, `raw::system::…`: not
// re-exported, a glob back would close a loop). The older concepts' calls are re-exported below.
automod::dir!(pub(crate) "src/cuda/raw");

pub(crate) use check::Raw;
pub(crate) use device::*;
pub(crate) use event::*;
pub(crate) use graph::*;
pub(crate) use memory::*;
pub(crate) use module::*;
pub(crate) use stream::*;
