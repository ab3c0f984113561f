//! Events on the real driver (`ops::Events`, `ops::EventOps`).

use super::device::{CudaBackend, CudaDevice};
use super::raw;
use crate::error::{Check, Result};
use crate::ops::{EventFlags, EventOps, Events};
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
            super::dropped::record("cuEventDestroy", unsafe { raw::event_destroy(self.raw) });
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
        unsafe { raw::event_query(self.raw) }.check("cuEventQuery")
    }

    fn synchronize(&self) -> Result<()> {
        // SAFETY: the event is live (it carries its context: no bind).
        unsafe { raw::event_synchronize(self.raw) }.check("cuEventSynchronize")
    }

    fn elapsed_since(&self, start: &dyn EventOps) -> Result<f32> {
        self.dev.bind()?;
        // SAFETY: both events are live.
        unsafe { raw::event_elapsed_time(raw_event(start), self.raw) }.check("cuEventElapsedTime")
    }

    fn ipc_handle(&self) -> Result<[u8; 64]> {
        self.dev.bind()?;
        // SAFETY: the event is live and interprocess (checked by the caller).
        unsafe { raw::ipc_get_event_handle(self.raw) }.check("cuIpcGetEventHandle")
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// An event of this backend's, by its handle (which is the `CUevent`).
pub(super) fn raw_event(e: &dyn EventOps) -> sys::CUevent {
    e.handle() as sys::CUevent
}

impl Events for CudaBackend {
    fn create(&self, ordinal: usize, flags: EventFlags, reuse: bool) -> Result<Box<dyn EventOps>> {
        self.bind(ordinal)?;
        let mut bits = 0u32;
        if flags.blocking {
            bits |= sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC as u32;
        }
        if flags.disable_timing {
            bits |= sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
        }
        if flags.interprocess {
            bits |= sys::CUevent_flags::CU_EVENT_INTERPROCESS as u32;
        }
        let dev = &self.devices[ordinal];
        // An interprocess event may be open in another process: never handed to a second owner.
        let keep = (!flags.interprocess).then_some(bits);
        let raw = match keep.filter(|_| reuse).and_then(|bits| dev.recycled.take_event(bits)) {
            Some(raw) => raw,
            None => raw::event_create(bits).check("cuEventCreate")?,
        };
        Ok(Box::new(CudaEvent { dev: dev.clone(), raw, keep }))
    }

    fn open_ipc(&self, ordinal: usize, handle: &[u8; 64]) -> Result<Box<dyn EventOps>> {
        self.bind(ordinal)?;
        let raw = raw::ipc_open_event_handle(handle).check("cuIpcOpenEventHandle")?;
        Ok(Box::new(CudaEvent { dev: self.devices[ordinal].clone(), raw, keep: None }))
    }
}
