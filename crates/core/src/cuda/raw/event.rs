//! Events.

use super::check::{ok, ready, Raw};
use cudarc::driver::sys;
use std::ffi::c_char;

// ---- events --------------------------------------------------------------------------------

/// `cuEventCreate` in the current context.
pub(crate) fn event_create(flags: u32) -> Raw<sys::CUevent> {
    let mut e: sys::CUevent = std::ptr::null_mut();
    // SAFETY: `e` is a valid out-pointer; the driver checks the flags.
    ok(unsafe { sys::cuEventCreate(&mut e, flags) })?;
    Ok(e)
}

/// `cuEventDestroy`.
///
/// # Safety
/// 1. `event` was created by [`event_create`] or [`ipc_open_event_handle`], destroyed once, with no use after.
pub(crate) unsafe fn event_destroy(event: sys::CUevent) -> Raw<()> {
    // SAFETY: (1); an incomplete event is freed on completion (E6).
    ok(unsafe { sys::cuEventDestroy_v2(event) })
}

/// `cuEventRecord`.
///
/// # Safety
/// 1. `event` is live; `stream` is live, as for [`stream_priority`], of the event's device.
#[inline]
pub(crate) unsafe fn event_record(event: sys::CUevent, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuEventRecord(event, stream) })
}

/// `cuEventQuery`: `Ok(true)` when the recorded work is done, `Ok(false)` for `NOT_READY`.
///
/// # Safety
/// 1. `event` is live.
#[inline]
pub(crate) unsafe fn event_query(event: sys::CUevent) -> Raw<bool> {
    // SAFETY: (1).
    ready(unsafe { sys::cuEventQuery(event) })
}

/// `cuEventSynchronize`.
///
/// # Safety
/// 1. `event` is live.
#[inline]
pub(crate) unsafe fn event_synchronize(event: sys::CUevent) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuEventSynchronize(event) })
}

/// `cuEventElapsedTime(start, end)` in milliseconds.
///
/// # Safety
/// 1. Both events are live.
pub(crate) unsafe fn event_elapsed_time(start: sys::CUevent, end: sys::CUevent) -> Raw<f32> {
    let mut ms = 0f32;
    // SAFETY: (1); `ms` is a valid out-pointer.
    ok(unsafe { sys::cuEventElapsedTime(&mut ms, start, end) })?;
    Ok(ms)
}

/// `cuIpcGetEventHandle`.
///
/// # Safety
/// 1. `event` is live (the driver refuses one that is not interprocess).
pub(crate) unsafe fn ipc_get_event_handle(event: sys::CUevent) -> Raw<[u8; 64]> {
    let mut h = sys::CUipcEventHandle { reserved: [0; 64] };
    // SAFETY: (1); `h` is a valid out-pointer.
    ok(unsafe { sys::cuIpcGetEventHandle(&mut h, event) })?;
    Ok(h.reserved.map(|c| c as u8))
}

/// `cuIpcOpenEventHandle` in the current context.
pub(crate) fn ipc_open_event_handle(handle: &[u8; 64]) -> Raw<sys::CUevent> {
    let h = sys::CUipcEventHandle { reserved: handle.map(|b| b as c_char) };
    let mut e: sys::CUevent = std::ptr::null_mut();
    // SAFETY: `e` is a valid out-pointer; the driver validates the handle's contents.
    ok(unsafe { sys::cuIpcOpenEventHandle(&mut e, h) })?;
    Ok(e)
}
