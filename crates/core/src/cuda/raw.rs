//! The cuda backend's raw layer: every driver call, one function each, as cudarc's `result`
//! layer is over `sys`. A function returns the driver's code as the error (`Raw<T>`); the caller
//! names the call with `.check(…)`. Out-pointers end here: each function returns what the
//! driver wrote.
//!
//! Functions that take handles are `unsafe`: the handles must be live and of the current
//! context, as each `# Safety` says. The few with no handle to misuse are safe.

use cudarc::driver::sys::{self, CUresult};
use std::ffi::{c_char, c_int, c_void, CStr};

/// A driver call's result: the value it wrote, or its code.
pub(crate) type Raw<T> = std::result::Result<T, CUresult>;

#[inline(always)]
fn ok(r: CUresult) -> Raw<()> {
    match r {
        CUresult::CUDA_SUCCESS => Ok(()),
        code => Err(code),
    }
}

/// `Ok(true)` for success, `Ok(false)` for `CUDA_ERROR_NOT_READY`, the code otherwise.
#[inline(always)]
fn ready(r: CUresult) -> Raw<bool> {
    match r {
        CUresult::CUDA_SUCCESS => Ok(true),
        CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        code => Err(code),
    }
}

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

// ---- streams -------------------------------------------------------------------------------

/// `cuStreamCreateWithPriority` in the current context.
pub(crate) fn stream_create(flags: u32, priority: i32) -> Raw<sys::CUstream> {
    let mut s: sys::CUstream = std::ptr::null_mut();
    // SAFETY: `s` is a valid out-pointer; the driver checks flags and priority.
    ok(unsafe { sys::cuStreamCreateWithPriority(&mut s, flags, priority) })?;
    Ok(s)
}

/// `cuStreamDestroy`.
///
/// # Safety
/// 1. `stream` was created by [`stream_create`] and is destroyed once; no use follows.
pub(crate) unsafe fn stream_destroy(stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1). Pending work still completes (S13).
    ok(unsafe { sys::cuStreamDestroy_v2(stream) })
}

/// `cuStreamGetPriority`.
///
/// # Safety
/// 1. `stream` is live: created, external and trusted, or a default stream of the current context.
pub(crate) unsafe fn stream_priority(stream: sys::CUstream) -> Raw<i32> {
    let mut p = 0;
    // SAFETY: (1); `p` is a valid out-pointer.
    ok(unsafe { sys::cuStreamGetPriority(stream, &mut p) })?;
    Ok(p)
}

/// `cuStreamGetCtx`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`] (the driver rejects many bad handles).
pub(crate) unsafe fn stream_ctx(stream: sys::CUstream) -> Raw<sys::CUcontext> {
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: (1); `ctx` is a valid out-pointer.
    ok(unsafe { sys::cuStreamGetCtx(stream, &mut ctx) })?;
    Ok(ctx)
}

/// `cuStreamGetFlags`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn stream_flags(stream: sys::CUstream) -> Raw<u32> {
    let mut flags = 0u32;
    // SAFETY: (1); `flags` is a valid out-pointer.
    ok(unsafe { sys::cuStreamGetFlags(stream, &mut flags) })?;
    Ok(flags)
}

/// `cuStreamQuery`: `Ok(true)` when all work is done, `Ok(false)` for `NOT_READY`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
#[inline]
pub(crate) unsafe fn stream_query(stream: sys::CUstream) -> Raw<bool> {
    // SAFETY: (1).
    ready(unsafe { sys::cuStreamQuery(stream) })
}

/// `cuStreamSynchronize`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
#[inline]
pub(crate) unsafe fn stream_synchronize(stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuStreamSynchronize(stream) })
}

/// `cuStreamWaitEvent` (flags 0).
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`]; `event` is live (of any device).
#[inline]
pub(crate) unsafe fn stream_wait_event(stream: sys::CUstream, event: sys::CUevent) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuStreamWaitEvent(stream, event, 0) })
}

/// `cuLaunchHostFunc`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
/// 2. `f` may be called with `user` once the stream reaches it, on a driver thread; it makes no
///    CUDA call and does not unwind. What `user` points at stays valid until then.
pub(crate) unsafe fn launch_host_func(stream: sys::CUstream, f: unsafe extern "C" fn(*mut c_void), user: *mut c_void) -> Raw<()> {
    // SAFETY: (1) and (2).
    ok(unsafe { sys::cuLaunchHostFunc(stream, Some(f), user) })
}

/// `cuStreamAddCallback` (flags 0).
///
/// # Safety
/// As [`launch_host_func`], for `f` called with the stream's status.
pub(crate) unsafe fn stream_add_callback(
    stream: sys::CUstream,
    f: unsafe extern "C" fn(sys::CUstream, CUresult, *mut c_void),
    user: *mut c_void,
) -> Raw<()> {
    // SAFETY: the caller's contract; flags must be 0.
    ok(unsafe { sys::cuStreamAddCallback(stream, Some(f), user, 0) })
}

/// `cuStreamBeginCapture`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn stream_begin_capture(stream: sys::CUstream, mode: sys::CUstreamCaptureMode) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuStreamBeginCapture_v2(stream, mode) })
}

/// `cuStreamEndCapture`. On failure, a graph the driver returned anyway is destroyed here.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn stream_end_capture(stream: sys::CUstream) -> Raw<sys::CUgraph> {
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    // SAFETY: (1); `graph` is a valid out-pointer.
    let r = unsafe { sys::cuStreamEndCapture(stream, &mut graph) };
    if r != CUresult::CUDA_SUCCESS {
        if !graph.is_null() {
            // SAFETY: a graph returned alongside an error is still ours to destroy.
            let _ = unsafe { graph_destroy(graph) };
        }
        return Err(r);
    }
    Ok(graph)
}

/// `cuStreamIsCapturing`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn stream_is_capturing(stream: sys::CUstream) -> Raw<sys::CUstreamCaptureStatus> {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: (1); `status` is a valid out-pointer.
    ok(unsafe { sys::cuStreamIsCapturing(stream, &mut status) })?;
    Ok(status)
}

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

// ---- memory --------------------------------------------------------------------------------

/// `cuMemAlloc` in the current context.
pub(crate) fn mem_alloc(size: usize) -> Raw<sys::CUdeviceptr> {
    let mut ptr: sys::CUdeviceptr = 0;
    // SAFETY: `ptr` is a valid out-pointer; the driver checks the size.
    ok(unsafe { sys::cuMemAlloc_v2(&mut ptr, size) })?;
    Ok(ptr)
}

/// `cuMemFree`. It waits for pending work that may use the memory (M2).
///
/// # Safety
/// 1. `ptr` came from [`mem_alloc`] and is freed once, with no use after.
pub(crate) unsafe fn mem_free(ptr: sys::CUdeviceptr) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuMemFree_v2(ptr) })
}

/// `cuMemAllocAsync` on `stream`.
///
/// # Safety
/// 1. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn mem_alloc_async(size: usize, stream: sys::CUstream) -> Raw<sys::CUdeviceptr> {
    let mut ptr: sys::CUdeviceptr = 0;
    // SAFETY: (1); `ptr` is a valid out-pointer.
    ok(unsafe { sys::cuMemAllocAsync(&mut ptr, size, stream) })?;
    Ok(ptr)
}

/// `cuMemFreeAsync` on `stream`: work already enqueued on it completes first (A2).
///
/// # Safety
/// 1. `ptr` came from [`mem_alloc_async`] and is freed once, with no use after.
/// 2. `stream` is live.
pub(crate) unsafe fn mem_free_async(ptr: sys::CUdeviceptr, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1) and (2).
    ok(unsafe { sys::cuMemFreeAsync(ptr, stream) })
}

/// `cuMemHostAlloc` (portable) in the current context.
pub(crate) fn mem_host_alloc(size: usize) -> Raw<*mut c_void> {
    let mut ptr: *mut c_void = std::ptr::null_mut();
    // SAFETY: `ptr` is a valid out-pointer; the driver checks the size.
    ok(unsafe { sys::cuMemHostAlloc(&mut ptr, size, sys::CU_MEMHOSTALLOC_PORTABLE) })?;
    Ok(ptr)
}

/// `cuMemFreeHost`. It waits for pending work that may use the memory (M2).
///
/// # Safety
/// 1. `ptr` came from [`mem_host_alloc`] and is freed once, with no use after.
pub(crate) unsafe fn mem_free_host(ptr: *mut c_void) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuMemFreeHost(ptr) })
}

/// `cuMemsetD8Async`.
///
/// # Safety
/// 1. `[dst, dst + size)` lies inside a live allocation of the stream's device.
/// 2. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn memset_d8_async(dst: sys::CUdeviceptr, value: u8, size: usize, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1) and (2).
    ok(unsafe { sys::cuMemsetD8Async(dst, value, size, stream) })
}

/// `cuMemcpyHtoDAsync`. From pageable memory the driver stages the bytes before returning (M5).
///
/// # Safety
/// 1. `[dst, dst + len)` lies inside a live allocation of the stream's device.
/// 2. `src` is valid for reads of `len` bytes until the copy has run (pageable: until return).
/// 3. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn memcpy_htod_async(dst: sys::CUdeviceptr, src: *const c_void, len: usize, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1), (2) and (3).
    ok(unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src, len, stream) })
}

/// `cuMemcpyDtoHAsync`.
///
/// # Safety
/// 1. `[src, src + len)` lies inside a live allocation of the stream's device.
/// 2. `dst` is valid for writes of `len` bytes until the copy has run.
/// 3. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn memcpy_dtoh_async(dst: *mut c_void, src: sys::CUdeviceptr, len: usize, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1), (2) and (3).
    ok(unsafe { sys::cuMemcpyDtoHAsync_v2(dst, src, len, stream) })
}

/// `cuMemcpyDtoDAsync`.
///
/// # Safety
/// 1. Both ranges lie inside live allocations of the stream's device.
/// 2. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn memcpy_dtod_async(dst: sys::CUdeviceptr, src: sys::CUdeviceptr, len: usize, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1) and (2).
    ok(unsafe { sys::cuMemcpyDtoDAsync_v2(dst, src, len, stream) })
}

/// `cuMemcpy2DAsync`: `copy.Height` rows of `copy.WidthInBytes` bytes between pitched ranges.
/// From pageable memory the driver stages the bytes before returning (M5).
///
/// # Safety
/// 1. Each side names device memory (`dstDevice`/`srcDevice`) or host memory
///    (`dstHost`/`srcHost`) by its memory type, and its pitched range
///    (`(Height - 1) * pitch + WidthInBytes` bytes) lies inside a live allocation of the stream's
///    device or in host memory valid until the copy has run (pageable: until return).
/// 2. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn memcpy_2d_async(copy: &sys::CUDA_MEMCPY2D, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1) and (2); `copy` is a valid, fully initialised descriptor for the call.
    ok(unsafe { sys::cuMemcpy2DAsync_v2(copy, stream) })
}

/// `cuMemcpyPeerAsync`: between two devices' memory, in `stream`'s order.
///
/// # Safety
/// 1. Both ranges lie inside live allocations of the devices whose contexts are given.
/// 2. Both contexts are live (retained primary contexts); `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn memcpy_peer_async(
    dst: sys::CUdeviceptr,
    dst_ctx: sys::CUcontext,
    src: sys::CUdeviceptr,
    src_ctx: sys::CUcontext,
    len: usize,
    stream: sys::CUstream,
) -> Raw<()> {
    // SAFETY: (1) and (2).
    ok(unsafe { sys::cuMemcpyPeerAsync(dst, dst_ctx, src, src_ctx, len, stream) })
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

/// `cuMemPoolGetAttribute` for a `cuuint64_t` attribute.
///
/// # Safety
/// 1. `pool` is live (a device's default pool lives as long as its context).
/// 2. `attr` is one whose value is a `cuuint64_t`.
pub(crate) unsafe fn mem_pool_attribute_u64(pool: sys::CUmemoryPool, attr: sys::CUmemPool_attribute) -> Raw<u64> {
    let mut v: u64 = 0;
    // SAFETY: (1) and (2); `v` is a valid out-pointer of the attribute's size.
    ok(unsafe { sys::cuMemPoolGetAttribute(pool, attr, &mut v as *mut u64 as *mut c_void) })?;
    Ok(v)
}

/// `cuMemPoolSetAttribute` for a `cuuint64_t` attribute.
///
/// # Safety
/// 1. `pool` is live (a device's default pool lives as long as its context).
/// 2. `attr` is a settable one whose value is a `cuuint64_t` (the release threshold, or a
///    `*_MEM_HIGH` mark, which takes only 0).
pub(crate) unsafe fn mem_pool_set_attribute_u64(pool: sys::CUmemoryPool, attr: sys::CUmemPool_attribute, value: u64) -> Raw<()> {
    let mut v = value;
    // SAFETY: (1) and (2); `v` is valid for reads of the attribute's size during the call.
    ok(unsafe { sys::cuMemPoolSetAttribute(pool, attr, &mut v as *mut u64 as *mut c_void) })
}

/// `cuMemPoolTrimTo`.
///
/// # Safety
/// 1. `pool` is live.
pub(crate) unsafe fn mem_pool_trim_to(pool: sys::CUmemoryPool, keep: usize) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuMemPoolTrimTo(pool, keep) })
}

// ---- modules and kernels -------------------------------------------------------------------

/// `cuModuleLoadData` into the current context.
///
/// # Safety
/// 1. `image` points at a complete cubin, or a NUL-terminated PTX image, that outlives the call.
pub(crate) unsafe fn module_load_data(image: *const c_void) -> Raw<sys::CUmodule> {
    let mut m: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: (1); `m` is a valid out-pointer.
    ok(unsafe { sys::cuModuleLoadData(&mut m, image) })?;
    Ok(m)
}

/// `cuModuleUnload`.
///
/// # Safety
/// 1. `module` was loaded by [`module_load_data`], unloaded once, when no function of it is used again.
pub(crate) unsafe fn module_unload(module: sys::CUmodule) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuModuleUnload(module) })
}

/// `cuModuleGetFunction`.
///
/// # Safety
/// 1. `module` is loaded.
pub(crate) unsafe fn module_get_function(module: sys::CUmodule, name: &CStr) -> Raw<sys::CUfunction> {
    let mut f: sys::CUfunction = std::ptr::null_mut();
    // SAFETY: (1); `name` is NUL-terminated; `f` is a valid out-pointer.
    ok(unsafe { sys::cuModuleGetFunction(&mut f, module, name.as_ptr()) })?;
    Ok(f)
}

/// `cuFuncGetAttribute`.
///
/// # Safety
/// 1. `f` is live (its module is loaded).
pub(crate) unsafe fn func_attribute(f: sys::CUfunction, attr: sys::CUfunction_attribute) -> Raw<i32> {
    let mut v = 0;
    // SAFETY: (1); `v` is a valid out-pointer.
    ok(unsafe { sys::cuFuncGetAttribute(&mut v, attr, f) })?;
    Ok(v)
}

/// `cuFuncSetAttribute`.
///
/// # Safety
/// 1. `f` is live (its module is loaded); the driver validates the value.
pub(crate) unsafe fn func_set_attribute(f: sys::CUfunction, attr: sys::CUfunction_attribute, value: i32) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuFuncSetAttribute(f, attr, value) })
}

/// `cuFuncGetParamInfo`: parameter `i`'s `(offset, size)`. Needs a 12.4+ driver: cudarc panics
/// where the symbol is missing, so the caller catches that.
///
/// # Safety
/// 1. `f` is live (its module is loaded).
pub(crate) unsafe fn func_param_info(f: sys::CUfunction, i: usize) -> Raw<(usize, usize)> {
    let (mut offset, mut size) = (0usize, 0usize);
    // SAFETY: (1); both are valid out-pointers.
    ok(unsafe { sys::cuFuncGetParamInfo(f, i, &mut offset, &mut size) })?;
    Ok((offset, size))
}

/// `cuLaunchKernel`.
///
/// # Safety
/// 1. A context owning `f` and `stream` is current; `stream` is live.
/// 2. `params` holds one pointer per kernel parameter, each to a value of the parameter's size,
///    alive for the call (the driver copies the values).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn launch_kernel(
    f: sys::CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared_mem: u32,
    stream: sys::CUstream,
    params: *mut *mut c_void,
) -> Raw<()> {
    let ([gx, gy, gz], [bx, by, bz]) = (grid, block);
    // SAFETY: (1) and (2); no `extra` parameters.
    ok(unsafe { sys::cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared_mem, stream, params, std::ptr::null_mut()) })
}

// ---- graphs --------------------------------------------------------------------------------

/// `cuGraphInstantiateWithFlags`.
///
/// # Safety
/// 1. `graph` is live.
pub(crate) unsafe fn graph_instantiate(graph: sys::CUgraph, flags: u64) -> Raw<sys::CUgraphExec> {
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    // SAFETY: (1); `exec` is a valid out-pointer.
    ok(unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, flags) })?;
    Ok(exec)
}

/// `cuGraphDestroy`.
///
/// # Safety
/// 1. `graph` is ours, destroyed once, with no use after.
pub(crate) unsafe fn graph_destroy(graph: sys::CUgraph) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuGraphDestroy(graph) })
}

/// `cuGraphExecDestroy`. An exec still running is freed when it completes (G4).
///
/// # Safety
/// 1. `exec` is ours, destroyed once, with no use after.
pub(crate) unsafe fn graph_exec_destroy(exec: sys::CUgraphExec) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuGraphExecDestroy(exec) })
}

/// `cuGraphLaunch`.
///
/// # Safety
/// 1. `exec` and `stream` are live, of the current context.
pub(crate) unsafe fn graph_launch(exec: sys::CUgraphExec, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuGraphLaunch(exec, stream) })
}

/// `cuGraphUpload`.
///
/// # Safety
/// 1. `exec` and `stream` are live, of the current context.
pub(crate) unsafe fn graph_upload(exec: sys::CUgraphExec, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuGraphUpload(exec, stream) })
}

/// `cuGraphDebugDotPrint` (flags 0: the default detail) to `path`.
///
/// # Safety
/// 1. `graph` is live.
pub(crate) unsafe fn graph_debug_dot_print(graph: sys::CUgraph, path: &CStr) -> Raw<()> {
    // SAFETY: (1); `path` is NUL-terminated.
    ok(unsafe { sys::cuGraphDebugDotPrint(graph, path.as_ptr(), 0) })
}

/// `cuGraphExecUpdate`: on failure, the code and the driver's reason.
///
/// # Safety
/// 1. `exec` and `graph` are live.
pub(crate) unsafe fn graph_exec_update(
    exec: sys::CUgraphExec,
    graph: sys::CUgraph,
) -> std::result::Result<(), (CUresult, sys::CUgraphExecUpdateResult)> {
    let mut info = sys::CUgraphExecUpdateResultInfo {
        result: sys::CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_SUCCESS,
        errorNode: std::ptr::null_mut(),
        errorFromNode: std::ptr::null_mut(),
    };
    // SAFETY: (1); `info` is a valid out-pointer.
    ok(unsafe { sys::cuGraphExecUpdate_v2(exec, graph, &mut info) }).map_err(|code| (code, info.result))
}
