//! Events on the real driver.

use super::CudaDevice;
use crate::error::{Check, Error, Result};
use crate::ops::EventOps;
use cudarc::driver::sys;
use std::any::Any;
use std::sync::Arc;

pub struct CudaEvent {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) raw: sys::CUevent,
    /// The flags it was created with, where it may be kept for reuse when released (not an
    /// interprocess event, nor one opened from another process).
    pub(super) keep: Option<u32>,
}

// SAFETY: CUevent handles may be used from any thread.
unsafe impl Send for CudaEvent {}
// SAFETY: as above.
unsafe impl Sync for CudaEvent {}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        if self.keep.is_some_and(|flags| self.dev.recycled.keep_event(self.raw, flags)) {
            return;
        }
        if self.dev.bind().is_ok() {
            // SAFETY: created by us, destroyed once; an incomplete event is freed on completion (E6).
            let _ = unsafe { sys::cuEventDestroy_v2(self.raw) };
        }
    }
}

impl EventOps for CudaEvent {
    fn handle(&self) -> u64 {
        self.raw as u64
    }

    fn query(&self) -> Result<bool> {
        // An event carries its context: no bind (see `CudaStream::bind_implicit`).
        // SAFETY: the event is live.
        match unsafe { sys::cuEventQuery(self.raw) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            code => Err(Error::driver("cuEventQuery", code)),
        }
    }

    fn synchronize(&self) -> Result<()> {
        // SAFETY: the event is live (it carries its context: no bind).
        unsafe { sys::cuEventSynchronize(self.raw) }.check("cuEventSynchronize")
    }

    fn elapsed_since(&self, start: &dyn EventOps) -> Result<f32> {
        self.dev.bind()?;
        let mut ms = 0f32;
        // SAFETY: both events are live; `ms` is a valid out-pointer.
        unsafe { sys::cuEventElapsedTime(&mut ms, raw_event(start), self.raw) }.check("cuEventElapsedTime")?;
        Ok(ms)
    }

    fn ipc_handle(&self) -> Result<[u8; 64]> {
        self.dev.bind()?;
        let mut h = sys::CUipcEventHandle { reserved: [0; 64] };
        // SAFETY: the event is live and interprocess (checked by the caller); `h` is a valid out-pointer.
        unsafe { sys::cuIpcGetEventHandle(&mut h, self.raw) }.check("cuIpcGetEventHandle")?;
        Ok(h.reserved.map(|c| c as u8))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

pub(super) fn raw_event(e: &dyn EventOps) -> sys::CUevent {
    e.as_any().downcast_ref::<CudaEvent>().expect("the cuda backend is given its own events").raw
}
