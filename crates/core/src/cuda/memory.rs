//! Device allocations on the real driver: `cuMemAlloc` and stream-ordered `cuMemAllocAsync`.

use super::{raw, CudaDevice};
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
            let _ = unsafe { raw::mem_free_async(self.ptr, self.stream) };
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
            let _ = unsafe { raw::mem_free(self.ptr) };
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

/// Managed memory (`cuMemAllocManaged`): the host reaches it at the same address.
pub struct CudaManaged {
    pub(super) inner: CudaAlloc,
}

impl AllocOps for CudaManaged {
    fn ptr(&self) -> u64 {
        self.inner.ptr
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn host_ptr(&self) -> Option<*mut u8> {
        Some(self.inner.ptr as *mut u8)
    }
}

/// Someone else's allocation: never freed here (its owner's keeper outlives it, `memory.rs`).
pub struct CudaForeign {
    pub(super) base: sys::CUdeviceptr,
    pub(super) managed: bool,
}

impl AllocOps for CudaForeign {
    fn ptr(&self) -> u64 {
        self.base
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn host_ptr(&self) -> Option<*mut u8> {
        self.managed.then_some(self.base as *mut u8)
    }
}

/// Another process's allocation, opened with `cuIpcOpenMemHandle` and closed when dropped.
pub struct CudaIpcMem {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) ptr: sys::CUdeviceptr,
}

impl Drop for CudaIpcMem {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // Queued work may still read it: wait, as cuMemFree would (M2), then close.
            // SAFETY: a context is current; the pointer came from cuIpcOpenMemHandle, closed once.
            let _ = unsafe { sys::cuCtxSynchronize() };
            // SAFETY: as above.
            let _ = unsafe { sys::cuIpcCloseMemHandle(self.ptr) };
        }
    }
}

impl AllocOps for CudaIpcMem {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The device an allocation made by this backend is on, where its kind says (device memory of
/// ours, stream-ordered or managed); `None` for memory the driver resolves by address alone.
pub(super) fn alloc_device(a: &dyn AllocOps) -> Option<Arc<CudaDevice>> {
    let any = a.as_any();
    if let Some(p) = any.downcast_ref::<CudaAlloc>() {
        return Some(p.dev.clone());
    }
    if let Some(p) = any.downcast_ref::<CudaManaged>() {
        return Some(p.inner.dev.clone());
    }
    if let Some(p) = any.downcast_ref::<CudaIpcMem>() {
        return Some(p.dev.clone());
    }
    any.downcast_ref::<CudaAsyncAlloc>().map(|p| p.dev.clone())
}
