//! Events (CuPy's `cupy.cuda.Event`) and elapsed time, with the checks both backends share.

use crate::error::{Code, Error, Result};
use crate::ops::EventOps;
use crate::runtime;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

// The seam's data (`backend.rs`), re-exported here where it was first defined.
pub use crate::backend::EventFlags;

pub struct Event {
    /// The backend's event and its state, made at the first call that needs it ([`Event::ops`]),
    /// as PyTorch makes its CUDA event at the first record: an event never used costs no driver
    /// call, and no allocation nor reference count (an event is held by value; what outlives a
    /// call, a graph node or an async wait, holds this part).
    made: OnceLock<Arc<MadeEvent>>,
    device: usize,
    flags: EventFlags,
}

/// An event's backend event and what was recorded in it: the part of an [`Event`] that a graph
/// node or an async wait keeps ([`Event::made`]).
pub struct MadeEvent {
    ops: Box<dyn EventOps>,
    recorded: AtomicBool,
    /// Last recorded in a capturing stream: querying or waiting on it is refused (C9).
    captured: AtomicBool,
}

impl MadeEvent {
    fn new(ops: Box<dyn EventOps>, recorded: bool) -> Arc<MadeEvent> {
        Arc::new(MadeEvent { ops, recorded: AtomicBool::new(recorded), captured: AtomicBool::new(false) })
    }

    fn not_captured(&self, what: &str) -> Result<()> {
        if self.captured.load(Ordering::Acquire) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_CAPTURED_EVENT,
                format!("{what} is not permitted on an event last recorded in a capture: it marks a point in the graph, not in a stream. Record it again outside the capture"),
            ));
        }
        Ok(())
    }

    /// True when the recorded work is complete; an event never recorded is complete (E3).
    pub fn query(&self) -> Result<bool> {
        self.not_captured("done (an event query)")?;
        self.ops.query()
    }

    pub fn synchronize(&self) -> Result<()> {
        self.not_captured("synchronize()")?;
        self.ops.synchronize()
    }
}

impl Event {
    #[inline]
    pub fn create(device: usize, flags: EventFlags) -> Result<Event> {
        if flags.interprocess && !flags.disable_timing {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                "an interprocess event cannot record timing: create it with { interprocess: true, disableTiming: true }",
            ));
        }
        let e = Event { made: OnceLock::new(), device, flags };
        if flags.interprocess {
            // Made now: it exists to be shared, and the device checks its flags.
            e.ops()?;
        }
        Ok(e)
    }

    /// Opens an interprocess event that another process shared with [`Event::ipc_handle`].
    pub fn from_ipc(device: usize, handle: &[u8]) -> Result<Event> {
        let handle: &[u8; 64] =
            handle.try_into().map_err(|_| Error::range(format!("an interprocess event handle is 64 bytes, got {}", handle.len())))?;
        let made = OnceLock::from(MadeEvent::new(runtime()?.backend.events().open_ipc(device, handle)?, true));
        let flags = EventFlags { blocking: false, disable_timing: true, interprocess: true };
        Ok(Event { made, device, flags })
    }

    /// The handle another process opens this event with. Needs `interprocess` (GPU only).
    pub fn ipc_handle(&self) -> Result<[u8; 64]> {
        if !self.flags.interprocess {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                "only an interprocess event has a handle: create it with { interprocess: true, disableTiming: true }",
            ));
        }
        self.ops()?.ipc_handle()
    }

    /// The backend's event, made here at the first call that needs one.
    pub(crate) fn ops(&self) -> Result<&dyn EventOps> {
        Ok(&*self.made()?.ops)
    }

    /// The backend's event and its state, made here at the first call that needs one: what a
    /// graph node or an async wait keeps of this event.
    pub fn made(&self) -> Result<&Arc<MadeEvent>> {
        match self.made.get() {
            Some(made) => Ok(made),
            None => self.make(),
        }
    }

    #[cold]
    fn make(&self) -> Result<&Arc<MadeEvent>> {
        // A kept event is checked with a query, which a capture under way may bar (an event is
        // often made at its first record, which may be inside a capture).
        let ops = runtime()?.backend.events().create(self.device, self.flags, !crate::capture::any_active())?;
        // Two threads making it at once: the one made second is dropped (back to the bin).
        Ok(self.made.get_or_init(|| MadeEvent::new(ops, false)))
    }

    /// Whether the backend's event is made (an event is made at its first use).
    pub fn is_made(&self) -> bool {
        self.made.get().is_some()
    }
    /// Notes a record (made by then: recording used the backend's event).
    pub(crate) fn mark_recorded(&self, in_capture: bool) {
        if let Some(made) = self.made.get() {
            made.recorded.store(true, Ordering::Release);
            made.captured.store(in_capture, Ordering::Release);
        }
    }

    fn not_captured(&self, what: &str) -> Result<()> {
        match self.made.get() {
            Some(made) => made.not_captured(what),
            None => Ok(()),
        }
    }
    pub fn handle(&self) -> Result<u64> {
        Ok(self.ops()?.handle())
    }
    pub fn device(&self) -> usize {
        self.device
    }
    pub fn flags(&self) -> EventFlags {
        self.flags
    }
    pub fn was_recorded(&self) -> bool {
        self.made.get().is_some_and(|made| made.recorded.load(Ordering::Acquire))
    }

    /// True when the recorded work is complete; an event never recorded is complete (E3).
    pub fn query(&self) -> Result<bool> {
        self.made()?.query()
    }

    pub fn synchronize(&self) -> Result<()> {
        self.made()?.synchronize()
    }
}

/// Milliseconds between two recorded, completed, timing events (`cuEventElapsedTime`). The
/// errors are the driver's codes (E5), with messages that say what to do.
pub fn elapsed_time(start: &Event, end: &Event) -> Result<f32> {
    for (role, e) in [("start", start), ("end", end)] {
        if e.flags.disable_timing {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_HANDLE,
                format!("the {role} event was created with timing disabled: both events need timing, so create them with {{ disableTiming: false }}"),
            ));
        }
    }
    if start.device != end.device {
        return Err(Error::cuda(
            Code::CUDA_ERROR_INVALID_HANDLE,
            format!("the events belong to devices {} and {}: elapsed time needs two events of one device", start.device, end.device),
        ));
    }
    for (role, e) in [("start", start), ("end", end)] {
        if !e.was_recorded() {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_HANDLE,
                format!("the {role} event was never recorded: call record() on it before asking for elapsed time"),
            ));
        }
    }
    for (what, e) in [("elapsed time (the start event)", start), ("elapsed time (the end event)", end)] {
        e.not_captured(what)?;
    }
    // The driver answers NOT_READY itself where either has not completed: only then is each
    // asked, to say which (two queries the usual call does not pay).
    match end.ops()?.elapsed_since(start.ops()?) {
        Err(Error::Cuda { code: Code::CUDA_ERROR_NOT_READY, .. }) => {
            let role = if start.ops()?.query()? { "end" } else { "start" };
            Err(Error::cuda(
                Code::CUDA_ERROR_NOT_READY,
                format!("the {role} event has not completed yet: synchronize it first (e.g. `await end.synchronizeAsync()`)"),
            ))
        }
        r => r,
    }
}
