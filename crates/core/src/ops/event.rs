//! Events at the seam: making them, and what a backend's event does.

use crate::error::Result;
use std::any::Any;

/// What a backend does to make events.
pub trait Events: Send + Sync + 'static {
    /// A new event. `reuse`: a released one may be handed back instead (the cuda backend asks
    /// each kept event's state first, a call barred while a capture is under way, so the model
    /// passes false then).
    fn create(&self, ordinal: usize, flags: EventFlags, reuse: bool) -> Result<Box<dyn EventOps>>;
    /// Opens an interprocess event of another process (`cuIpcOpenEventHandle`).
    fn open_ipc(&self, ordinal: usize, handle: &[u8; 64]) -> Result<Box<dyn EventOps>>;
}

pub trait EventOps: Send + Sync + 'static {
    fn handle(&self) -> u64;
    /// `Ok(true)` when all recorded work is complete (`cuEventQuery`); `NOT_READY` is `Ok(false)`.
    fn query(&self) -> Result<bool>;
    fn synchronize(&self) -> Result<()>;
    /// Milliseconds from `start` to `self` (`cuEventElapsedTime(start, self)`).
    fn elapsed_since(&self, start: &dyn EventOps) -> Result<f32>;
    /// The 64-byte handle another process opens the event with (`cuIpcGetEventHandle`).
    fn ipc_handle(&self) -> Result<[u8; 64]>;
    fn as_any(&self) -> &dyn Any;
}

/// How an event is made (`cuEventCreate`'s flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventFlags {
    /// The host blocks (instead of spinning) in `synchronize` (`CU_EVENT_BLOCKING_SYNC`).
    pub blocking: bool,
    pub disable_timing: bool,
    pub interprocess: bool,
}
