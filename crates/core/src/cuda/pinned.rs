//! Pinned host memory on the real driver (`ops::HostMemory`): `cuMemHostAlloc` and `cuMemHostRegister`.

use super::device::{CudaBackend, CudaDevice};
use super::{holds, raw};
use crate::error::{Check, Result};
use crate::ops::{HostMemory, PinnedOps};
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

impl PinnedOps for CudaPinned {
    fn ptr(&self) -> *mut u8 {
        self.ptr as *mut u8
    }
}

impl Drop for CudaPinned {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: allocated by cuMemHostAlloc and freed once; it waits for pending work (M2).
            super::dropped::record("cuMemFreeHost", unsafe { raw::mem_free_host(self.ptr) });
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

impl PinnedOps for CudaRegistered {
    fn ptr(&self) -> *mut u8 {
        self.ptr as *mut u8
    }
}

impl Drop for CudaRegistered {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: registered by cuMemHostRegister at this base and unregistered once; the
            // block holding it is dropped only once no queued copy holds it.
            super::dropped::record("cuMemHostUnregister", unsafe { raw::mem_host_unregister(self.ptr) });
        }
    }
}

impl HostMemory for CudaBackend {
    fn alloc(&self, size: u64) -> Result<Box<dyn PinnedOps>> {
        // Portable pinned memory belongs to no one context; any current context will do.
        self.bind(0)?;
        let ptr = raw::mem_host_alloc(size as usize).check("cuMemHostAlloc")?;
        Ok(Box::new(CudaPinned { dev: self.devices[0].clone(), ptr }))
    }

    fn register(&self, ptr: *mut u8, len: u64) -> Result<Box<dyn PinnedOps>> {
        self.bind(0)?;
        // SAFETY: the caller keeps `len` bytes at `ptr` alive until the result is dropped.
        unsafe { raw::mem_host_register(ptr.cast(), len as usize, sys::CU_MEMHOSTREGISTER_PORTABLE) }.check("cuMemHostRegister")?;
        Ok(Box::new(CudaRegistered { dev: self.devices[0].clone(), ptr: ptr.cast() }))
    }

    fn release_finished_holds(&self) {
        holds::reap_all();
    }
}
