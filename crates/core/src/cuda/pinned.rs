//! Pinned host memory on the real driver (`cuMemHostAlloc`).

use super::{raw, CudaDevice};
use cudarc::driver::sys;
use std::ffi::c_void;
use std::sync::Arc;

pub struct CudaPinned {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) ptr: *mut c_void,
}

// SAFETY: pinned host memory may be used from any thread.
unsafe impl Send for CudaPinned {}
// SAFETY: as above.
unsafe impl Sync for CudaPinned {}

impl crate::ops::PinnedOps for CudaPinned {
    fn ptr(&self) -> *mut u8 {
        self.ptr as *mut u8
    }
}

impl Drop for CudaPinned {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: allocated by cuMemHostAlloc and freed once; it waits for pending work (M2).
            let _ = unsafe { raw::mem_free_host(self.ptr) };
        }
    }
}

/// Host memory someone else owns, page-locked with `cuMemHostRegister` and unregistered when
/// dropped (the owner is let go only after that: `pinned.rs`).
pub struct CudaRegistered {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) ptr: *mut c_void,
}

// SAFETY: registered host memory may be used from any thread.
unsafe impl Send for CudaRegistered {}
// SAFETY: as above.
unsafe impl Sync for CudaRegistered {}

impl crate::ops::PinnedOps for CudaRegistered {
    fn ptr(&self) -> *mut u8 {
        self.ptr as *mut u8
    }
}

impl Drop for CudaRegistered {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: registered by cuMemHostRegister at this base and unregistered once; the
            // block holding it is dropped only once no queued copy holds it.
            let _ = unsafe { sys::cuMemHostUnregister(self.ptr) };
        }
    }
}
