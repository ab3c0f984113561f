//! The `sim` backend: a host simulator with CUDA's ordering rules, so that everything runs and
//! tests anywhere. What it presents is documented in the README ("The simulator"). Each part the
//! seam asks for is implemented in the file of its concept's name (`device.rs`, `memory.rs`,
//! `pinned.rs`, `stream.rs`, `event.rs`, `graph.rs`, `module.rs`, `blas.rs`, `nccl/`);
//! `backend.rs` makes the backend and hands the parts out. This file only declares the files and
//! re-exports: what they share lives in files that import none of them back (`device.rs`: the
//! backend and its devices; `bytes.rs`, `pool.rs`, `lock.rs`, `own.rs`).

// Every file of `sim/` is a module (`pub(crate) mod stream;`, …; `coop.rs` is WebAssembly's
// only, by its own `#![cfg]`): a new concept's file needs no line here. A folder is declared.
automod::dir!(pub(crate) "src/sim");
mod nccl;

pub use backend::{DEFAULT_MEMORY, DEVICES_ENV, MAX_DEVICES, MEMORY_ENV};
use device::HostRanges;
pub(crate) use device::SimDevice;
pub use device::{sim_peers, SimBackend, PRIORITY_RANGE};
use lock::lock;
pub(crate) use memory::alloc_on;
use own::own;
