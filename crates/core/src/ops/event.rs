//! Events at the seam: making them, and what a backend's event does.

use crate::error::{Error, Result};
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

impl EventFlags {
    /// `CU_EVENT_BLOCKING_SYNC`.
    pub const BLOCKING_SYNC: u32 = 1;
    /// `CU_EVENT_DISABLE_TIMING`.
    pub const DISABLE_TIMING: u32 = 2;
    /// `CU_EVENT_INTERPROCESS`.
    pub const INTERPROCESS: u32 = 4;

    /// The flags `cuEventCreate` takes as one word (the JS layer passes them so: one argument
    /// to read, not three); a bit no flag has is a `RangeError`.
    #[inline]
    pub fn from_bits(bits: u32) -> Result<EventFlags> {
        let known = Self::BLOCKING_SYNC | Self::DISABLE_TIMING | Self::INTERPROCESS;
        if bits & !known != 0 {
            return Err(Error::range(format!("event flags are blocking sync (1), disable timing (2) and interprocess (4), combined; got {bits}")));
        }
        Ok(EventFlags {
            blocking: bits & Self::BLOCKING_SYNC != 0,
            disable_timing: bits & Self::DISABLE_TIMING != 0,
            interprocess: bits & Self::INTERPROCESS != 0,
        })
    }
}
