//! Pools other processes import, on the real driver (`ops::SharedPools`): a pool of our own made
//! with a POSIX file descriptor as its handle type, or one imported from such a descriptor; the
//! allocations of the first freed in stream order, the imports of the second with `cuMemFree`.

use super::device::{CudaBackend, CudaDevice};
use super::memory::{mem_location, pool_attr};
use super::own::own;
use super::raw;
use super::raw::shared_pool as pool_raw;
use super::stream::CudaStream;
use crate::error::{Check, Result};
use crate::ops::{AllocKind, AllocOps, Location, PoolAttr, PoolPlace, SharedPoolOps, SharedPools, StreamOps};
use cudarc::driver::sys;
use std::any::Any;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::Arc;

pub struct CudaSharedPool {
    dev: Arc<CudaDevice>,
    pool: sys::CUmemoryPool,
}

// SAFETY: a pool handle may be used from any thread once the context is bound.
unsafe impl Send for CudaSharedPool {}
// SAFETY: as above.
unsafe impl Sync for CudaSharedPool {}

impl Drop for CudaSharedPool {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: made or imported once, destroyed once; every allocation and import holds
            // the pool, so none is left (the driver defers the rest until frees complete).
            super::dropped::record("cuMemPoolDestroy", unsafe { pool_raw::mem_pool_destroy(self.pool) });
        }
    }
}

/// An allocation from a pool of ours, freed on its stream (which the owning block keeps alive).
struct PoolAlloc {
    _pool: Arc<CudaSharedPool>,
    dev: Arc<CudaDevice>,
    ptr: sys::CUdeviceptr,
    stream: sys::CUstream,
}

// SAFETY: the handles may be used from any thread once the context is bound.
unsafe impl Send for PoolAlloc {}
// SAFETY: as above.
unsafe impl Sync for PoolAlloc {}

impl Drop for PoolAlloc {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: allocated by cuMemAllocFromPoolAsync, freed once, on a stream still alive.
            super::dropped::record("cuMemFreeAsync", unsafe { raw::mem_free_async(self.ptr, self.stream) });
        }
    }
}

impl AllocOps for PoolAlloc {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn kind(&self) -> AllocKind {
        AllocKind::Shareable
    }
    fn device(&self) -> Option<usize> {
        Some(self.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Another process's allocation, imported into an imported pool, which it holds.
struct Imported {
    _pool: Arc<CudaSharedPool>,
    dev: Arc<CudaDevice>,
    ptr: sys::CUdeviceptr,
}

// SAFETY: as for `PoolAlloc`.
unsafe impl Send for Imported {}
// SAFETY: as above.
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: imported by cuMemPoolImportPointer and freed once; cuMemFree waits for
            // pending work that may use it (M2), as CUDA asks of an import before the exporter frees.
            super::dropped::record("cuMemFree", unsafe { raw::mem_free(self.ptr) });
        }
    }
}

impl AllocOps for Imported {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn kind(&self) -> AllocKind {
        AllocKind::Imported
    }
    fn device(&self) -> Option<usize> {
        Some(self.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl SharedPoolOps for CudaSharedPool {
    fn export(&self) -> Result<OwnedFd> {
        self.dev.bind()?;
        // SAFETY: the pool is live and was made with the POSIX file descriptor handle type.
        unsafe { pool_raw::mem_pool_export(self.pool) }.check("cuMemPoolExportToShareableHandle")
    }

    fn alloc(self: Arc<Self>, size: u64, stream: &dyn StreamOps) -> Result<Box<dyn AllocOps>> {
        self.dev.bind()?;
        let stream = own::<CudaStream>(stream.as_any()).queue();
        // SAFETY: the model allocates only from a pool made here, on a live stream of its device; size > 0.
        let ptr = unsafe { pool_raw::mem_alloc_from_pool_async(size as usize, self.pool, stream) }.check("cuMemAllocFromPoolAsync")?;
        Ok(Box::new(PoolAlloc { dev: self.dev.clone(), _pool: self, ptr, stream }))
    }

    fn export_pointer(&self, ptr: u64) -> Result<[u8; 64]> {
        self.dev.bind()?;
        // SAFETY: the model passes only a live allocation of this pool.
        unsafe { pool_raw::mem_pool_export_pointer(ptr) }.check("cuMemPoolExportPointer")
    }

    fn import_pointer(self: Arc<Self>, data: &[u8; 64]) -> Result<Box<dyn AllocOps>> {
        self.dev.bind()?;
        // SAFETY: the pool is live and imported (the model imports only into imported pools).
        let ptr = unsafe { pool_raw::mem_pool_import_pointer(self.pool, data) }.check("cuMemPoolImportPointer")?;
        Ok(Box::new(Imported { dev: self.dev.clone(), _pool: self, ptr }))
    }

    fn get(&self, attr: PoolAttr) -> Result<u64> {
        self.dev.bind()?;
        // SAFETY: the pool is live; every attribute `pool_attr` names is a cuuint64_t value.
        unsafe { raw::mem_pool_attribute_u64(self.pool, pool_attr(attr)) }.check("cuMemPoolGetAttribute")
    }

    fn set(&self, attr: PoolAttr, value: u64) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: as above; the model sets only the settable cuuint64_t attributes.
        unsafe { raw::mem_pool_set_attribute_u64(self.pool, pool_attr(attr), value) }.check("cuMemPoolSetAttribute")
    }

    fn trim(&self) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: the pool is live.
        unsafe { raw::mem_pool_trim_to(self.pool, 0) }.check("cuMemPoolTrimTo")
    }

    fn handle(&self) -> u64 {
        self.pool as u64
    }
}

impl SharedPools for CudaBackend {
    fn create_pool(&self, ordinal: usize, place: PoolPlace) -> Result<Arc<dyn SharedPoolOps>> {
        self.bind(ordinal)?;
        let dev = self.devices[ordinal].dev;
        let location = match place {
            PoolPlace::Device => mem_location(Location::Device(dev as usize)),
            // CUDA shares no pool of CU_MEM_LOCATION_TYPE_HOST (its handle types must be 0): the
            // host memory nearest the device is its host NUMA node's (-1 where it has none: node 0).
            PoolPlace::Host => {
                let numa = raw::device_attribute(dev, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID).unwrap_or(-1);
                sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST_NUMA, id: numa.max(0) }
            }
        };
        let pool = pool_raw::mem_pool_create(location).check("cuMemPoolCreate")?;
        let made = CudaSharedPool { dev: self.devices[ordinal].clone(), pool };
        if place == PoolPlace::Host {
            // A host NUMA pool is reached by the host alone until a device is given access.
            // SAFETY: the pool was just made.
            unsafe { pool_raw::mem_pool_set_access(pool, made.dev.dev) }.check("cuMemPoolSetAccess")?;
        }
        Ok(Arc::new(made))
    }

    fn import_pool(&self, ordinal: usize, fd: BorrowedFd<'_>) -> Result<Arc<dyn SharedPoolOps>> {
        self.bind(ordinal)?;
        let pool = pool_raw::mem_pool_import(fd).check("cuMemPoolImportFromShareableHandle")?;
        Ok(Arc::new(CudaSharedPool { dev: self.devices[ordinal].clone(), pool }))
    }
}
