//! Memory: allocations of every kind, copies, and the stream-ordered pool.

use super::check::{ok, Raw};
use cudarc::driver::sys;
use std::ffi::{c_char, c_void};

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

/// `cuMemAllocManaged` in the current context, attached as `flags` says (`CUmemAttach_flags`).
pub(crate) fn mem_alloc_managed(size: usize, flags: u32) -> Raw<sys::CUdeviceptr> {
    let mut ptr: sys::CUdeviceptr = 0;
    // SAFETY: `ptr` is a valid out-pointer; the driver checks the size and flags.
    ok(unsafe { sys::cuMemAllocManaged(&mut ptr, size, flags) })?;
    Ok(ptr)
}

/// `cuPointerGetAttribute`: what the driver knows of `ptr`, as a `T`.
///
/// # Safety
/// 1. `T` is the type `attr` is documented to write (an int, a pointer or a size).
pub(crate) unsafe fn pointer_attribute<T: Default>(attr: sys::CUpointer_attribute, ptr: sys::CUdeviceptr) -> Raw<T> {
    let mut v = T::default();
    // SAFETY: (1): `v` has the type the attribute writes; the driver looks the address up.
    ok(unsafe { sys::cuPointerGetAttribute(&mut v as *mut T as *mut c_void, attr, ptr) })?;
    Ok(v)
}

/// `cuMemAdvise_v2`.
///
/// # Safety
/// 1. `[ptr, ptr + len)` lies in a live managed allocation.
pub(crate) unsafe fn mem_advise(ptr: sys::CUdeviceptr, len: usize, advice: sys::CUmem_advise, location: sys::CUmemLocation) -> Raw<()> {
    // SAFETY: (1) is the caller's.
    ok(unsafe { sys::cuMemAdvise_v2(ptr, len, advice, location) })
}

/// `cuMemPrefetchAsync_v2` (flags 0) on `stream`.
///
/// # Safety
/// 1. `[ptr, ptr + len)` lies in live managed memory.
/// 2. `stream` is live, as for [`stream_priority`].
pub(crate) unsafe fn mem_prefetch_async(ptr: sys::CUdeviceptr, len: usize, location: sys::CUmemLocation, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1) and (2) are the caller's.
    ok(unsafe { sys::cuMemPrefetchAsync_v2(ptr, len, location, 0, stream) })
}

/// `cuIpcGetMemHandle`: the 64 bytes another process opens the allocation with.
///
/// # Safety
/// 1. `ptr` is the base of a live allocation of the current context.
pub(crate) unsafe fn ipc_get_mem_handle(ptr: sys::CUdeviceptr) -> Raw<[u8; 64]> {
    let mut h = sys::CUipcMemHandle { reserved: [0; 64] };
    // SAFETY: `h` is a valid out-pointer; (1) is the caller's.
    ok(unsafe { sys::cuIpcGetMemHandle(&mut h, ptr) })?;
    Ok(h.reserved.map(|b| b as u8))
}

/// `cuIpcOpenMemHandle_v2` in the current context, with `flags` (`CUipcMem_flags`).
pub(crate) fn ipc_open_mem_handle(handle: &[u8; 64], flags: u32) -> Raw<sys::CUdeviceptr> {
    let h = sys::CUipcMemHandle { reserved: handle.map(|b| b as c_char) };
    let mut ptr: sys::CUdeviceptr = 0;
    // SAFETY: `ptr` is a valid out-pointer; the driver validates the handle's contents.
    ok(unsafe { sys::cuIpcOpenMemHandle_v2(&mut ptr, h, flags) })?;
    Ok(ptr)
}

/// `cuIpcCloseMemHandle`.
///
/// # Safety
/// 1. `ptr` came from [`ipc_open_mem_handle`] and is closed once, with no use after.
pub(crate) unsafe fn ipc_close_mem_handle(ptr: sys::CUdeviceptr) -> Raw<()> {
    // SAFETY: (1) is the caller's.
    ok(unsafe { sys::cuIpcCloseMemHandle(ptr) })
}

/// `cuMemGetAddressRange_v2`: the `(base, size)` of the allocation holding `ptr`.
pub(crate) fn mem_get_address_range(ptr: sys::CUdeviceptr) -> Raw<(sys::CUdeviceptr, usize)> {
    let (mut base, mut size) = (0 as sys::CUdeviceptr, 0usize);
    // SAFETY: both are valid out-pointers; the driver looks the address up.
    ok(unsafe { sys::cuMemGetAddressRange_v2(&mut base, &mut size, ptr) })?;
    Ok((base, size))
}

/// `cuMemHostRegister_v2`: page-locks `len` bytes at `ptr` with `flags`.
///
/// # Safety
/// 1. `len` bytes at `ptr` stay allocated until [`mem_host_unregister`] has been called on them.
pub(crate) unsafe fn mem_host_register(ptr: *mut c_void, len: usize, flags: u32) -> Raw<()> {
    // SAFETY: (1) is the caller's.
    ok(unsafe { sys::cuMemHostRegister_v2(ptr, len, flags) })
}

/// `cuMemHostUnregister`.
///
/// # Safety
/// 1. `ptr` is the base [`mem_host_register`] registered, unregistered once, with no queued
///    copy still using it.
pub(crate) unsafe fn mem_host_unregister(ptr: *mut c_void) -> Raw<()> {
    // SAFETY: (1) is the caller's.
    ok(unsafe { sys::cuMemHostUnregister(ptr) })
}
