//! Device memory on the real driver (`ops::MemoryResource`): every kind of allocation — `cuMemAlloc`,
//! managed, foreign, IPC-opened, and stream-ordered `cuMemAllocAsync` (made by a stream) — each
//! saying its kind, plus pointer attributes, advice and the stream-ordered pool.

use super::device::{CudaBackend, CudaDevice};
use super::raw;
use crate::error::{Check, Result};
use crate::ops::{Advice, AllocKind, AllocOps, Location, MemoryKind, MemoryResource, PointerAttributes, PoolAttr};
use cudarc::driver::sys;
use std::any::Any;
use std::sync::Arc;

pub(super) fn alloc_ptr(a: &dyn AllocOps, offset: u64) -> sys::CUdeviceptr {
    a.ptr() + offset
}

/// A stream-ordered allocation, freed on its stream (which the owning block keeps alive).
pub struct CudaAsyncAlloc {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) ptr: sys::CUdeviceptr,
    pub(super) stream: sys::CUstream,
}

// SAFETY: the handles may be used from any thread once the context is bound.
unsafe impl Send for CudaAsyncAlloc {}
// SAFETY: as above.
unsafe impl Sync for CudaAsyncAlloc {}

impl Drop for CudaAsyncAlloc {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: allocated by cuMemAllocAsync, freed once, on a stream still alive (the
            // block holds it); work already enqueued on it completes before the free (A2).
            super::dropped::record("cuMemFreeAsync", unsafe { raw::mem_free_async(self.ptr, self.stream) });
        }
    }
}

impl AllocOps for CudaAsyncAlloc {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn kind(&self) -> AllocKind {
        AllocKind::StreamOrdered
    }
    fn device(&self) -> Option<usize> {
        Some(self.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

pub struct CudaAlloc {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) ptr: sys::CUdeviceptr,
}

impl Drop for CudaAlloc {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: allocated by cuMemAlloc and freed once. cuMemFree waits for pending work
            // that may use it (M2), so the GPU never touches freed memory.
            super::dropped::record("cuMemFree", unsafe { raw::mem_free(self.ptr) });
        }
    }
}

impl AllocOps for CudaAlloc {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn kind(&self) -> AllocKind {
        AllocKind::Device
    }
    fn device(&self) -> Option<usize> {
        Some(self.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Managed memory (`cuMemAllocManaged`): the host reaches it at the same address.
pub struct CudaManaged {
    pub(super) inner: CudaAlloc,
}

impl AllocOps for CudaManaged {
    fn ptr(&self) -> u64 {
        self.inner.ptr
    }
    fn kind(&self) -> AllocKind {
        AllocKind::Managed
    }
    fn device(&self) -> Option<usize> {
        Some(self.inner.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn host_ptr(&self) -> Option<*mut u8> {
        Some(self.inner.ptr as *mut u8)
    }
}

/// Someone else's allocation: never freed here (its owner's keeper outlives it, `memory.rs`).
pub struct CudaForeign {
    pub(super) base: sys::CUdeviceptr,
    pub(super) managed: bool,
}

impl AllocOps for CudaForeign {
    fn ptr(&self) -> u64 {
        self.base
    }
    fn kind(&self) -> AllocKind {
        AllocKind::Foreign
    }
    fn device(&self) -> Option<usize> {
        None
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn host_ptr(&self) -> Option<*mut u8> {
        self.managed.then_some(self.base as *mut u8)
    }
}

/// Another process's allocation, opened with `cuIpcOpenMemHandle` and closed when dropped.
pub struct CudaIpcMem {
    pub(super) dev: Arc<CudaDevice>,
    pub(super) ptr: sys::CUdeviceptr,
}

impl Drop for CudaIpcMem {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // Queued work may still read it: wait, as cuMemFree would (M2), then close.
            super::dropped::record("cuCtxSynchronize", raw::ctx_synchronize());
            // SAFETY: a context is current; the pointer came from cuIpcOpenMemHandle, closed once.
            super::dropped::record("cuIpcCloseMemHandle", unsafe { raw::ipc_close_mem_handle(self.ptr) });
        }
    }
}

impl AllocOps for CudaIpcMem {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn kind(&self) -> AllocKind {
        AllocKind::Ipc
    }
    fn device(&self) -> Option<usize> {
        Some(self.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl MemoryResource for CudaBackend {
    fn alloc(&self, ordinal: usize, size: u64) -> Result<Box<dyn AllocOps>> {
        self.bind(ordinal)?;
        // size > 0: the caller handles 0.
        let ptr = raw::mem_alloc(size as usize).check("cuMemAlloc")?;
        Ok(Box::new(CudaAlloc { dev: self.devices[ordinal].clone(), ptr }))
    }

    fn alloc_managed(&self, ordinal: usize, size: u64, global: bool) -> Result<Box<dyn AllocOps>> {
        self.bind(ordinal)?;
        let flags = if global { sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL } else { sys::CUmemAttach_flags::CU_MEM_ATTACH_HOST };
        // size > 0 and checked against free memory (memory.rs).
        let ptr = raw::mem_alloc_managed(size as usize, flags as u32).check("cuMemAllocManaged")?;
        Ok(Box::new(CudaManaged { inner: CudaAlloc { dev: self.devices[ordinal].clone(), ptr } }))
    }

    fn pointer_attributes(&self, ptr: u64) -> Result<PointerAttributes> {
        self.bind(0)?;
        fn read<T: Default>(attr: sys::CUpointer_attribute, ptr: u64) -> Result<T> {
            // SAFETY: each read below names the type the attribute is documented to write (int,
            // pointer or size).
            unsafe { raw::pointer_attribute(attr, ptr) }.check("cuPointerGetAttribute")
        }
        use sys::CUpointer_attribute as A;
        let memtype: u32 = read(A::CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr)?;
        let managed: u32 = read(A::CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr)?;
        let device: i32 = read(A::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr)?;
        let base: u64 = read(A::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr)?;
        let size: usize = read(A::CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptr)?;
        let kind = if managed != 0 {
            MemoryKind::Managed
        } else if memtype == sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32 {
            MemoryKind::Host
        } else {
            MemoryKind::Device
        };
        Ok(PointerAttributes { device: device.max(0) as usize, kind, base, size: size as u64 })
    }

    fn alloc_foreign(&self, ordinal: usize, ptr: u64) -> Result<(Box<dyn AllocOps>, u64)> {
        let attrs = self.pointer_attributes(ptr)?;
        self.bind(ordinal)?;
        let managed = attrs.kind == MemoryKind::Managed;
        Ok((Box::new(CudaForeign { base: attrs.base, managed }), ptr - attrs.base))
    }

    fn mem_advise(&self, ptr: u64, len: u64, advice: Advice, location: Location) -> Result<()> {
        self.bind(0)?;
        let advice = match advice {
            Advice::SetReadMostly => sys::CUmem_advise::CU_MEM_ADVISE_SET_READ_MOSTLY,
            Advice::UnsetReadMostly => sys::CUmem_advise::CU_MEM_ADVISE_UNSET_READ_MOSTLY,
            Advice::SetPreferredLocation => sys::CUmem_advise::CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
            Advice::UnsetPreferredLocation => sys::CUmem_advise::CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
            Advice::SetAccessedBy => sys::CUmem_advise::CU_MEM_ADVISE_SET_ACCESSED_BY,
            Advice::UnsetAccessedBy => sys::CUmem_advise::CU_MEM_ADVISE_UNSET_ACCESSED_BY,
        };
        // SAFETY: the range lies in a live managed allocation (checked in memory.rs).
        unsafe { raw::mem_advise(ptr, len as usize, advice, mem_location(location)) }.check("cuMemAdvise")
    }

    fn ipc_mem_handle(&self, ordinal: usize, ptr: u64) -> Result<[u8; 64]> {
        self.bind(ordinal)?;
        // SAFETY: `ptr` is the base of a live allocation of ours.
        unsafe { raw::ipc_get_mem_handle(ptr) }.check("cuIpcGetMemHandle")
    }

    fn ipc_open_mem(&self, ordinal: usize, handle: &[u8; 64]) -> Result<(Box<dyn AllocOps>, u64)> {
        self.bind(ordinal)?;
        let flags = sys::CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32;
        let ptr = raw::ipc_open_mem_handle(handle, flags).check("cuIpcOpenMemHandle")?;
        let opened = CudaIpcMem { dev: self.devices[ordinal].clone(), ptr };
        let (_base, size) = raw::mem_get_address_range(ptr).check("cuMemGetAddressRange")?;
        Ok((Box::new(opened), size as u64))
    }

    fn async_pool_get(&self, ordinal: usize, attr: PoolAttr) -> Result<u64> {
        let pool = self.default_mem_pool(ordinal)?;
        // SAFETY: the device's default pool lives as long as its context; every attribute
        // `pool_attr` names is a cuuint64_t value.
        unsafe { raw::mem_pool_attribute_u64(pool, pool_attr(attr)) }.check("cuMemPoolGetAttribute")
    }

    fn async_pool_set(&self, ordinal: usize, attr: PoolAttr, value: u64) -> Result<()> {
        let pool = self.default_mem_pool(ordinal)?;
        // SAFETY: as above; the model sets only the release threshold and the high-water marks
        // (to 0), the settable cuuint64_t attributes.
        unsafe { raw::mem_pool_set_attribute_u64(pool, pool_attr(attr), value) }.check("cuMemPoolSetAttribute")
    }

    fn async_pool_trim(&self, ordinal: usize) -> Result<()> {
        let pool = self.default_mem_pool(ordinal)?;
        // SAFETY: the device's default pool is valid for the life of the context.
        unsafe { raw::mem_pool_trim_to(pool, 0) }.check("cuMemPoolTrimTo")
    }
}

impl CudaBackend {
    fn default_mem_pool(&self, ordinal: usize) -> Result<sys::CUmemoryPool> {
        self.bind(ordinal)?;
        raw::device_default_mem_pool(self.devices[ordinal].dev).check("cuDeviceGetDefaultMemPool")
    }
}

/// A driver memory location.
pub(crate) fn mem_location(location: Location) -> sys::CUmemLocation {
    match location {
        Location::Device(d) => sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: d as i32 },
        Location::Host => sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST, id: 0 },
    }
}

/// The driver's name of a pool attribute; each is a `cuuint64_t`.
pub(super) fn pool_attr(attr: PoolAttr) -> sys::CUmemPool_attribute {
    use sys::CUmemPool_attribute::*;
    match attr {
        PoolAttr::ReleaseThreshold => CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
        PoolAttr::ReservedCurrent => CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
        PoolAttr::ReservedHigh => CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,
        PoolAttr::UsedCurrent => CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
        PoolAttr::UsedHigh => CU_MEMPOOL_ATTR_USED_MEM_HIGH,
    }
}
