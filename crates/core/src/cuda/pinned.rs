//! Pinned host memory on the real driver (`cuMemHostAlloc`).

use super::{raw, CudaDevice};
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
