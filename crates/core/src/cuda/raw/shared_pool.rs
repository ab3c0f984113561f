//! Stream-ordered pools of our own that other processes import: `cuMemPoolCreate` with a POSIX
//! file descriptor as the handle type, exporting the pool and its allocations, importing them.

use super::check::{ok, Raw};
use cudarc::driver::sys;
use std::ffi::{c_int, c_void};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

const POSIX_FD: sys::CUmemAllocationHandleType = sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;

/// `cuMemPoolCreate`: a pool of pinned memory at `location` (a device, or the host), exportable
/// as a POSIX file descriptor.
pub(crate) fn mem_pool_create(location: sys::CUmemLocation) -> Raw<sys::CUmemoryPool> {
    // SAFETY: a plain C struct; all-zero is its documented default (no maximum size, no flags).
    let mut props: sys::CUmemPoolProps = unsafe { std::mem::zeroed() };
    props.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = POSIX_FD;
    props.location = location;
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    // SAFETY: `pool` is a valid out-pointer and `props` a fully initialised descriptor.
    ok(unsafe { sys::cuMemPoolCreate(&mut pool, &props) })?;
    Ok(pool)
}

/// `cuMemPoolDestroy`: memory still allocated from the pool keeps it until freed.
///
/// # Safety
/// 1. `pool` came from [`mem_pool_create`] or [`mem_pool_import`] and is destroyed once.
pub(crate) unsafe fn mem_pool_destroy(pool: sys::CUmemoryPool) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuMemPoolDestroy(pool) })
}

/// `cuMemPoolExportToShareableHandle`: a new file descriptor naming the pool, the caller's.
///
/// # Safety
/// 1. `pool` is live and was made with the POSIX file descriptor handle type.
pub(crate) unsafe fn mem_pool_export(pool: sys::CUmemoryPool) -> Raw<OwnedFd> {
    let mut fd: c_int = -1;
    // SAFETY: (1); for this handle type the out-pointer is an `int`.
    ok(unsafe { sys::cuMemPoolExportToShareableHandle(&mut fd as *mut c_int as *mut c_void, pool, POSIX_FD, 0) })?;
    // SAFETY: the driver made `fd` for us: it is open and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `cuMemPoolImportFromShareableHandle` of the pool `fd` names (the descriptor stays the caller's).
pub(crate) fn mem_pool_import(fd: BorrowedFd<'_>) -> Raw<sys::CUmemoryPool> {
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    // The handle of this type is the descriptor's number, passed as the pointer's value.
    let handle = fd.as_raw_fd() as usize as *mut c_void;
    // SAFETY: `pool` is a valid out-pointer; `fd` is open for the call; the driver validates it.
    ok(unsafe { sys::cuMemPoolImportFromShareableHandle(&mut pool, handle, POSIX_FD, 0) })?;
    Ok(pool)
}

/// `cuMemAllocFromPoolAsync` on `stream`, freed with [`super::mem_free_async`].
///
/// # Safety
/// 1. `pool` is live and was made in this process (an imported pool cannot allocate).
/// 2. `stream` is live and of the pool's device.
pub(crate) unsafe fn mem_alloc_from_pool_async(size: usize, pool: sys::CUmemoryPool, stream: sys::CUstream) -> Raw<sys::CUdeviceptr> {
    let mut ptr: sys::CUdeviceptr = 0;
    // SAFETY: (1) and (2); `ptr` is a valid out-pointer.
    ok(unsafe { sys::cuMemAllocFromPoolAsync(&mut ptr, size, pool, stream) })?;
    Ok(ptr)
}

/// `cuMemPoolExportPointer`: the 64 bytes another process imports the allocation at `ptr` with.
///
/// # Safety
/// 1. `ptr` is a live allocation of a pool made with a shareable handle type.
pub(crate) unsafe fn mem_pool_export_pointer(ptr: sys::CUdeviceptr) -> Raw<[u8; 64]> {
    let mut data = sys::CUmemPoolPtrExportData { reserved: [0; 64] };
    // SAFETY: (1); `data` is a valid out-pointer.
    ok(unsafe { sys::cuMemPoolExportPointer(&mut data, ptr) })?;
    Ok(data.reserved)
}

/// `cuMemPoolImportPointer`: another process's allocation of `pool`, freed with [`super::mem_free`].
///
/// # Safety
/// 1. `pool` is live, imported with [`mem_pool_import`].
pub(crate) unsafe fn mem_pool_import_pointer(pool: sys::CUmemoryPool, data: &[u8; 64]) -> Raw<sys::CUdeviceptr> {
    let mut share = sys::CUmemPoolPtrExportData { reserved: *data };
    let mut ptr: sys::CUdeviceptr = 0;
    // SAFETY: (1); `ptr` and `share` are valid for the call; the driver validates the data.
    ok(unsafe { sys::cuMemPoolImportPointer(&mut ptr, pool, &mut share) })?;
    Ok(ptr)
}

/// `cuMemPoolSetAccess`: `device` reaches the pool's memory for reads and writes.
///
/// # Safety
/// 1. `pool` is live.
pub(crate) unsafe fn mem_pool_set_access(pool: sys::CUmemoryPool, device: sys::CUdevice) -> Raw<()> {
    let desc = sys::CUmemAccessDesc {
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    // SAFETY: (1); one initialised descriptor.
    ok(unsafe { sys::cuMemPoolSetAccess(pool, &desc, 1) })
}
