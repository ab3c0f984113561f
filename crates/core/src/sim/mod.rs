//! The `sim` backend: a host simulator with CUDA's ordering rules, so that everything runs and
//! tests anywhere. What it presents is documented in the README ("The simulator"). Each part the
//! seam asks for is implemented in the file of its concept's name (`device.rs`, `memory.rs`,
//! `pinned.rs`, `stream.rs`, `event.rs`, `graph.rs`, `module.rs`, `blas.rs`, `nccl/`);
//! `backend.rs` makes the backend and hands the parts out. This file only declares the files and
//! re-exports: what they share lives in files that import none of them back (`device.rs`: the
//! backend and its devices; `bytes.rs`, `pool.rs`, `lock.rs`, `own.rs`).

mod backend;
mod blas;
mod bytes;
mod context;
#[cfg(target_family = "wasm")]
pub mod coop;
mod device;
mod engine;
mod event;
mod fft;
mod graph;
mod lock;
mod memory;
mod module;
mod nccl;
mod op;
mod own;
mod pinned;
mod pool;
mod rand;
mod shared_pool;
mod stream;
mod system;
mod texture;
pub mod vmm;

pub use backend::{DEFAULT_MEMORY, DEVICES_ENV, MAX_DEVICES, MEMORY_ENV};
use device::HostRanges;
pub(crate) use device::SimDevice;
pub use device::{sim_peers, SimBackend, PRIORITY_RANGE};
#[cfg(not(target_family = "wasm"))]
pub use engine::set_wait_pump;
use lock::lock;
pub(crate) use memory::alloc_on;
use own::own;
