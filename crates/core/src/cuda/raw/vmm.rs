//! Virtual memory management: reserving address ranges, creating physical memory, mapping it
//! and setting who reaches it (as PyTorch's `ExpandableSegment` and cuda.core's
//! `VirtualMemoryResource` call them).

use super::check::{ok, Raw};
use cudarc::driver::sys;

/// The allocation properties of pinned device memory on `dev`, shareable with no other process.
fn device_prop(dev: sys::CUdevice) -> sys::CUmemAllocationProp {
    // SAFETY: a plain C struct; all-zero is its documented default (no handle types, no flags).
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop
}

/// `cuMemGetAllocationGranularity` for pinned memory of `dev`: `_RECOMMENDED` or `_MINIMUM`.
pub(crate) fn mem_granularity(dev: sys::CUdevice, recommended: bool) -> Raw<usize> {
    let prop = device_prop(dev);
    let option = if recommended {
        sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED
    } else {
        sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM
    };
    let mut n = 0usize;
    // SAFETY: `n` is a valid out-pointer and `prop` a fully initialised descriptor.
    ok(unsafe { sys::cuMemGetAllocationGranularity(&mut n, &prop, option) })?;
    Ok(n)
}

/// `cuMemAddressReserve` of `size` bytes (a multiple of the granularity), anywhere.
pub(crate) fn mem_address_reserve(size: usize) -> Raw<sys::CUdeviceptr> {
    let mut ptr: sys::CUdeviceptr = 0;
    // SAFETY: `ptr` is a valid out-pointer; alignment 0 and address 0 leave both to the driver.
    ok(unsafe { sys::cuMemAddressReserve(&mut ptr, size, 0, 0, 0) })?;
    Ok(ptr)
}

/// `cuMemAddressFree`.
///
/// # Safety
/// 1. `[ptr, ptr + size)` is a whole range [`mem_address_reserve`] returned, freed once, with
///    nothing mapped in it any more.
pub(crate) unsafe fn mem_address_free(ptr: sys::CUdeviceptr, size: usize) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuMemAddressFree(ptr, size) })
}

/// `cuMemCreate`: `size` bytes (a multiple of the granularity) of pinned memory on `dev`.
pub(crate) fn mem_create(dev: sys::CUdevice, size: usize) -> Raw<sys::CUmemGenericAllocationHandle> {
    let prop = device_prop(dev);
    let mut handle: sys::CUmemGenericAllocationHandle = 0;
    // SAFETY: `handle` is a valid out-pointer and `prop` a fully initialised descriptor.
    ok(unsafe { sys::cuMemCreate(&mut handle, size, &prop, 0) })?;
    Ok(handle)
}

/// `cuMemRelease`: the physical memory goes once no mapping holds it.
///
/// # Safety
/// 1. `handle` came from [`mem_create`] and is released once.
pub(crate) unsafe fn mem_release(handle: sys::CUmemGenericAllocationHandle) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuMemRelease(handle) })
}

/// `cuMemMap` of the whole of `handle` (`size` bytes) at `ptr`.
///
/// # Safety
/// 1. `[ptr, ptr + size)` lies inside a live reservation, over nothing mapped.
/// 2. `handle` is live, from [`mem_create`] with `size` bytes.
pub(crate) unsafe fn mem_map(ptr: sys::CUdeviceptr, size: usize, handle: sys::CUmemGenericAllocationHandle) -> Raw<()> {
    // SAFETY: (1) and (2); offset 0 into the handle, no flags.
    ok(unsafe { sys::cuMemMap(ptr, size, 0, handle, 0) })
}

/// `cuMemUnmap` of `[ptr, ptr + size)`. Unlike `cuMemFree` it does not wait for the device.
///
/// # Safety
/// 1. The range is exactly what [`mem_map`] mapped, unmapped once, and no work queued on
///    the device still uses it.
pub(crate) unsafe fn mem_unmap(ptr: sys::CUdeviceptr, size: usize) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuMemUnmap(ptr, size) })
}

/// `CUmemAccess_flags` by what they allow: 0 none, 1 read, 3 read and write.
pub(crate) fn access_flags(read: bool, write: bool) -> sys::CUmemAccess_flags {
    match (read, write) {
        (_, true) => sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        (true, false) => sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READ,
        (false, false) => sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE,
    }
}

/// `cuMemSetAccess` of `[ptr, ptr + size)` for each `(device, flags)`.
///
/// # Safety
/// 1. The range is mapped, all of it, by [`mem_map`].
pub(crate) unsafe fn mem_set_access(ptr: sys::CUdeviceptr, size: usize, access: &[(sys::CUdevice, sys::CUmemAccess_flags)]) -> Raw<()> {
    let descs: Vec<sys::CUmemAccessDesc> = access
        .iter()
        .map(|&(dev, flags)| sys::CUmemAccessDesc {
            location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev },
            flags,
        })
        .collect();
    // SAFETY: (1); `descs` holds `descs.len()` initialised descriptors.
    ok(unsafe { sys::cuMemSetAccess(ptr, size, descs.as_ptr(), descs.len()) })
}
