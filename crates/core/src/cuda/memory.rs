//! Device allocations on the real driver: `cuMemAlloc` and stream-ordered `cuMemAllocAsync`.

use super::CudaDevice;
use crate::ops::AllocOps;
use cudarc::driver::sys;
use std::any::Any;
use std::sync::Arc;

pub(super) fn alloc_ptr(a: &dyn AllocOps, offset: u64) -> sys::CUdeviceptr {
    a.ptr() + offset
}

/// A stream-ordered allocation, freed on its stream (which the owning block keeps alive).
pub struct CudaAsyncAlloc {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) ptr: sys::CUdeviceptr,
    pub(super) stream: sys::CUstream,
}

// SAFETY: the handles may be used from any thread once the context is bound.
unsafe impl Send for CudaAsyncAlloc {}
// SAFETY: as above.
unsafe impl Sync for CudaAsyncAlloc {}

impl Drop for CudaAsyncAlloc {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: allocated by cuMemAllocAsync, freed once, on a stream still alive (the
            // block holds it); work already enqueued on it completes before the free (A2).
            let _ = unsafe { sys::cuMemFreeAsync(self.ptr, self.stream) };
        }
    }
}

impl AllocOps for CudaAsyncAlloc {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

pub struct CudaAlloc {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) ptr: sys::CUdeviceptr,
}

impl Drop for CudaAlloc {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: allocated by cuMemAlloc and freed once. cuMemFree waits for pending work
            // that may use it (M2), so the GPU never touches freed memory.
            let _ = unsafe { sys::cuMemFree_v2(self.ptr) };
        }
    }
}

impl AllocOps for CudaAlloc {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The device an allocation of this backend is on.
pub(super) fn alloc_device(a: &dyn AllocOps) -> Arc<CudaDevice> {
    let any = a.as_any();
    if let Some(p) = any.downcast_ref::<CudaAlloc>() {
        return p.dev.clone();
    }
    any.downcast_ref::<CudaAsyncAlloc>().map(|p| p.dev.clone()).expect("the cuda backend is given its own allocations")
}
