//! The `cuda` backend: the real driver, loaded at run time through cudarc's `sys` layer.
//! Each part the seam asks for is implemented in the file of its concept's name (`device.rs`,
//! `memory.rs`, `pinned.rs`, `stream.rs`, `event.rs`, `graph.rs`, `module.rs`, `blas.rs`,
//! `nccl.rs`); `backend.rs` loads the driver and hands the parts out. This file only declares
//! the files and re-exports: what they share lives in files that import none of them back
//! (`device.rs`: the backend, its devices and their contexts; `own.rs`). Raw driver calls
//! live in `raw/` and nowhere else; each `unsafe` block says why it holds. Errors a drop cannot
//! return are recorded in `dropped.rs`.

// Every file of `cuda/` is a module (`mod stream;`, …): a new concept's file needs no line here.
automod::dir!("src/cuda");
pub(crate) mod raw;

pub use backend::{driver_loaded, driver_present};
pub use device::CudaBackend;
/// The driver errors that drops (destroys, frees, unregisters, closes, unloads) recorded since
/// the last call, oldest first, at most 64 (`dropped.rs`).
pub use dropped::take as take_drop_errors;
#[cfg(feature = "floor")]
pub(crate) use stream::sleep_function;
