//! The cuda backend's raw layer: every driver call, one function each, as cudarc's `result`
//! layer is over `sys`. A function returns the driver's code as the error (`Raw<T>`); the caller
//! names the call with `.check(…)`. Out-pointers end here: each function returns what the
//! driver wrote.
//!
//! Functions that take handles are `unsafe`: the handles must be live and of the current
//! context, as each `# Safety` says. The few with no handle to misuse are safe. One file a
//! concept, as the seam is split; every function is re-exported here, as `raw::name`.

mod device;
mod event;
mod graph;
mod memory;
mod module;
mod stream;
mod system;

use cudarc::driver::sys::{self, CUresult};
pub(crate) use device::*;
pub(crate) use event::*;
pub(crate) use graph::*;
pub(crate) use memory::*;
pub(crate) use module::*;
use std::ffi::{c_char, c_int, c_void, CStr};
pub(crate) use stream::*;
pub(crate) use system::*;

/// A driver call's result: the value it wrote, or its code.
pub(crate) type Raw<T> = std::result::Result<T, CUresult>;

#[inline(always)]
fn ok(r: CUresult) -> Raw<()> {
    match r {
        CUresult::CUDA_SUCCESS => Ok(()),
        code => Err(code),
    }
}

/// `Ok(true)` for success, `Ok(false)` for `CUDA_ERROR_NOT_READY`, the code otherwise.
#[inline(always)]
fn ready(r: CUresult) -> Raw<bool> {
    match r {
        CUresult::CUDA_SUCCESS => Ok(true),
        CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        code => Err(code),
    }
}
