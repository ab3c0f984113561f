//! Released streams and events kept for reuse, as PyTorch pools its streams: creating either
//! costs the driver microseconds, handing back a kept one costs a lock. A kept handle is reused
//! only when it carries nothing from its last life: a stream with no pending work and no capture,
//! an event whose last record has completed (so it queries as complete, as a fresh one does; the
//! core's own `Event` starts unrecorded, so elapsed time and waits see a fresh event).

use super::raw;
use cudarc::driver::sys;
use std::collections::HashMap;
use std::sync::Mutex;

/// The most handles kept per kind (flags, priority); past it a released one is destroyed.
const KEEP: usize = 64;

/// A kept stream: its address, and whether it is known idle and not capturing without asking
/// the driver (it was never used in its last life: nothing was queued on it).
type KeptStream = (usize, bool);

/// One device's kept handles, by kind. Raw handles are stored as addresses.
#[derive(Default)]
pub(super) struct Recycled {
    streams: Mutex<HashMap<(u32, i32), Vec<KeptStream>>>,
    events: Mutex<HashMap<u32, Vec<usize>>>,
}

impl Recycled {
    /// A kept stream of these flags and priority that is idle and not capturing, if any: one
    /// known clean first (no driver call), else, where `may_query` (no capture under way that a
    /// query could break), the newest that queries idle.
    pub(super) fn take_stream(&self, flags: u32, priority: i32, may_query: bool) -> Option<sys::CUstream> {
        let mut all = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        let kept = all.get_mut(&(flags, priority))?;
        let at = match kept.iter().rposition(|&(_, clean)| clean) {
            Some(at) => at,
            None if may_query => kept.iter().rposition(|&(kept, _)| stream_is_clean(kept as sys::CUstream))?,
            None => return None,
        };
        Some(kept.swap_remove(at).0 as sys::CUstream)
    }

    /// Keeps a released stream for reuse; false where it must be destroyed instead (busy in a
    /// capture, or the bin is full). A stream never `used` cannot be capturing: no driver call.
    pub(super) fn keep_stream(&self, raw: sys::CUstream, flags: u32, priority: i32, used: bool) -> bool {
        // SAFETY: `raw` is a live stream we created.
        if used && !matches!(unsafe { raw::stream_is_capturing(raw) }, Ok(sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)) {
            return false;
        }
        let mut all = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        let kept = all.entry((flags, priority)).or_default();
        kept.len() < KEEP && {
            kept.push((raw as usize, !used));
            true
        }
    }

    /// A kept event of these flags whose last record has completed, if any: the newest first,
    /// each queried once; one that cannot be queried (last recorded in a capture, C9) would never
    /// be taken, so it is destroyed on the way instead of filling the bin.
    pub(super) fn take_event(&self, flags: u32) -> Option<sys::CUevent> {
        let mut all = self.events.lock().unwrap_or_else(|p| p.into_inner());
        let kept = all.get_mut(&flags)?;
        for at in (0..kept.len()).rev() {
            let event = kept[at] as sys::CUevent;
            // SAFETY: every kept handle is a live event we created and never destroyed.
            match unsafe { raw::event_query(event) } {
                Ok(true) => return Some(kept.swap_remove(at) as sys::CUevent),
                Ok(false) => {}
                Err(_) => {
                    // Out of the bin (the one swapped in from the end was already asked).
                    kept.swap_remove(at);
                    // SAFETY: created by us, destroyed once.
                    super::dropped::record("cuEventDestroy", unsafe { raw::event_destroy(event) });
                }
            }
        }
        None
    }

    /// Keeps a released event for reuse; false where the bin is full.
    pub(super) fn keep_event(&self, raw: sys::CUevent, flags: u32) -> bool {
        let mut all = self.events.lock().unwrap_or_else(|p| p.into_inner());
        let kept = all.entry(flags).or_default();
        kept.len() < KEEP && {
            kept.push(raw as usize);
            true
        }
    }
}

/// Idle (no pending work) and not capturing.
fn stream_is_clean(stream: sys::CUstream) -> bool {
    // SAFETY: `stream` is a live stream we created and never destroyed.
    matches!(unsafe { raw::stream_query(stream) }, Ok(true))
}
