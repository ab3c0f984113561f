//! Devices and contexts: the driver itself, each device's facts, primary contexts, peers.

use super::check::{ok, Raw};
use cudarc::driver::sys::{self, CUresult};
use std::ffi::{c_char, c_int, CStr};

// ---- the driver ----------------------------------------------------------------------------

/// Whether libcuda can be opened. cudarc panics where it cannot, so this asks without calling.
pub(crate) fn driver_present() -> bool {
    // SAFETY: is_culib_present only tries to dlopen candidate names and drops what it opens.
    std::panic::catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false)
}

/// The driver's sentence for `code` (`cuGetErrorString`), if it has one. Given to `error.rs`
/// only once `cuInit` has succeeded, so libcuda is loaded whenever it runs.
pub(crate) fn error_string(code: CUresult) -> Option<String> {
    cudarc::driver::result::DriverError(code).error_string().ok().map(|s| s.to_string_lossy().into_owned())
}

/// `cuInit(0)`.
///
/// # Safety
/// 1. libcuda is present ([`driver_present`]): cudarc panics on the first call otherwise.
pub(crate) unsafe fn init() -> Raw<()> {
    // SAFETY: (1) is the caller's; cuInit has no other precondition.
    ok(unsafe { sys::cuInit(0) })
}

/// `cuDriverGetVersion`, as 13000 for 13.0.
pub(crate) fn driver_version() -> Raw<i32> {
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid out-pointer; the call has no precondition (not even cuInit).
    ok(unsafe { sys::cuDriverGetVersion(&mut v) })?;
    Ok(v)
}

/// `cuDeviceGetCount`.
pub(crate) fn device_count() -> Raw<i32> {
    let mut n: c_int = 0;
    // SAFETY: `n` is a valid out-pointer; before cuInit the driver returns NOT_INITIALIZED.
    ok(unsafe { sys::cuDeviceGetCount(&mut n) })?;
    Ok(n)
}

/// `cuDeviceGet`: the handle of device `ordinal`.
pub(crate) fn device_get(ordinal: i32) -> Raw<sys::CUdevice> {
    let mut dev: sys::CUdevice = 0;
    // SAFETY: `dev` is a valid out-pointer; the driver checks the ordinal.
    ok(unsafe { sys::cuDeviceGet(&mut dev, ordinal) })?;
    Ok(dev)
}

/// `cuDeviceGetName`.
pub(crate) fn device_name(dev: sys::CUdevice) -> Raw<String> {
    let mut name = [0 as c_char; 256];
    // SAFETY: the buffer holds 256 bytes and we pass its length; the driver checks `dev`.
    ok(unsafe { sys::cuDeviceGetName(name.as_mut_ptr(), name.len() as c_int, dev) })?;
    // SAFETY: cuDeviceGetName wrote a NUL-terminated string into `name` (it truncates to fit).
    Ok(unsafe { CStr::from_ptr(name.as_ptr()) }.to_string_lossy().into_owned())
}

/// `cuDeviceTotalMem`.
pub(crate) fn device_total_mem(dev: sys::CUdevice) -> Raw<usize> {
    let mut total: usize = 0;
    // SAFETY: `total` is a valid out-pointer; the driver checks `dev`.
    ok(unsafe { sys::cuDeviceTotalMem_v2(&mut total, dev) })?;
    Ok(total)
}

/// `cuDeviceGetAttribute`.
pub(crate) fn device_attribute(dev: sys::CUdevice, attr: sys::CUdevice_attribute) -> Raw<i32> {
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid out-pointer; the driver checks `dev` and `attr`.
    ok(unsafe { sys::cuDeviceGetAttribute(&mut v, attr, dev) })?;
    Ok(v)
}

/// `cuDeviceGetDefaultMemPool`.
pub(crate) fn device_default_mem_pool(dev: sys::CUdevice) -> Raw<sys::CUmemoryPool> {
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    // SAFETY: `pool` is a valid out-pointer; the driver checks `dev`.
    ok(unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, dev) })?;
    Ok(pool)
}

// ---- contexts ------------------------------------------------------------------------------

/// `cuDevicePrimaryCtxRetain`. The retained context is never released here.
pub(crate) fn primary_ctx_retain(dev: sys::CUdevice) -> Raw<sys::CUcontext> {
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: `ctx` is a valid out-pointer; the driver checks `dev`.
    ok(unsafe { sys::cuDevicePrimaryCtxRetain(&mut ctx, dev) })?;
    Ok(ctx)
}

/// `cuCtxGetCurrent`.
#[inline]
pub(crate) fn ctx_current() -> Raw<sys::CUcontext> {
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: `ctx` is a valid out-pointer.
    ok(unsafe { sys::cuCtxGetCurrent(&mut ctx) })?;
    Ok(ctx)
}

/// `cuCtxSetCurrent`.
///
/// # Safety
/// 1. `ctx` is a live context (a retained primary context lives as long as the process).
#[inline]
pub(crate) unsafe fn ctx_set_current(ctx: sys::CUcontext) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuCtxSetCurrent(ctx) })
}

/// `cuCtxSynchronize` on the current context.
pub(crate) fn ctx_synchronize() -> Raw<()> {
    // SAFETY: no arguments; with no current context the driver returns an error.
    ok(unsafe { sys::cuCtxSynchronize() })
}

/// `cuCtxGetStreamPriorityRange`: `(least, greatest)`.
pub(crate) fn ctx_stream_priority_range() -> Raw<(i32, i32)> {
    let (mut least, mut greatest) = (0, 0);
    // SAFETY: both are valid out-pointers.
    ok(unsafe { sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) })?;
    Ok((least, greatest))
}

/// `cuCtxGetLimit` of the current context.
pub(crate) fn ctx_get_limit(limit: sys::CUlimit) -> Raw<usize> {
    let mut v: usize = 0;
    // SAFETY: `v` is a valid out-pointer; the driver checks `limit` (an unknown one is an error).
    ok(unsafe { sys::cuCtxGetLimit(&mut v, limit) })?;
    Ok(v)
}

/// `cuCtxSetLimit` of the current context.
pub(crate) fn ctx_set_limit(limit: sys::CUlimit, value: usize) -> Raw<()> {
    // SAFETY: plain values; the driver checks both and may block until earlier work is done.
    ok(unsafe { sys::cuCtxSetLimit(limit, value) })
}

/// `cuMemGetInfo` of the current context: `(free, total)`.
pub(crate) fn mem_get_info() -> Raw<(usize, usize)> {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: both are valid out-pointers.
    ok(unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) })?;
    Ok((free, total))
}

/// `cuProfilerStart` or `cuProfilerStop`.
pub(crate) fn profiler(on: bool) -> Raw<()> {
    if on {
        // SAFETY: no arguments; with no current context the driver returns an error.
        ok(unsafe { sys::cuProfilerStart() })
    } else {
        // SAFETY: as above.
        ok(unsafe { sys::cuProfilerStop() })
    }
}

/// `cuDeviceGetUuid_v2`: the device's 16 bytes.
pub(crate) fn device_uuid(dev: sys::CUdevice) -> Raw<[u8; 16]> {
    let mut u = sys::CUuuid { bytes: [0; 16] };
    // SAFETY: `u` is a valid out-pointer; an invalid device handle is an error, not UB.
    ok(unsafe { sys::cuDeviceGetUuid_v2(&mut u, dev) })?;
    Ok(u.bytes.map(|b| b as u8))
}

/// `cuDeviceGetPCIBusId`: `domain:bus:device.function`.
pub(crate) fn device_pci_bus_id(dev: sys::CUdevice) -> Raw<String> {
    let mut id = [0 as c_char; 64];
    // SAFETY: the buffer holds 64 bytes and we pass its length; the driver NUL-terminates.
    ok(unsafe { sys::cuDeviceGetPCIBusId(id.as_mut_ptr(), id.len() as c_int, dev) })?;
    // SAFETY: the driver wrote a NUL-terminated string into `id`.
    Ok(unsafe { CStr::from_ptr(id.as_ptr()) }.to_string_lossy().into_owned())
}

/// `cuDeviceCanAccessPeer`.
pub(crate) fn device_can_access_peer(dev: sys::CUdevice, peer: sys::CUdevice) -> Raw<bool> {
    let mut can: c_int = 0;
    // SAFETY: `can` is a valid out-pointer; invalid device handles are an error, not UB.
    ok(unsafe { sys::cuDeviceCanAccessPeer(&mut can, dev, peer) })?;
    Ok(can != 0)
}

/// `cuCtxEnablePeerAccess` / `cuCtxDisablePeerAccess` for the current context.
///
/// # Safety
/// 1. `peer` is a live context (a retained primary context) and a context is current.
pub(crate) unsafe fn ctx_peer_access(peer: sys::CUcontext, on: bool) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe {
        if on {
            sys::cuCtxEnablePeerAccess(peer, 0)
        } else {
            sys::cuCtxDisablePeerAccess(peer)
        }
    })
}
