//! CUDA's stream-ordered allocator (CuPy's `MemoryAsyncPool`): `cuMemAllocAsync` on the stream
//! current at allocation, `cuMemFreeAsync` on the same stream when the block is dropped. It uses
//! the device's pool, shared by every `AsyncMemoryPool` of the process, as CuPy's does.
//!
//! The limit is the pool's release threshold (`CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`), as CuPy's
//! `set_limit` sets it: memory the pool holds past it goes back to the device at the next
//! synchronization, and no limit means it is never given back (`u64::MAX`), which is what a
//! new pool sets unless `CUDA_NODE_GPU_MEMORY_LIMIT` says otherwise. It is a soft limit: an
//! allocation the pool cannot serve from what it holds is refused when growing would pass it,
//! but other users of the device's pool are not bound by it.

pub use crate::backend::PoolAttr;
use crate::block::Block;
use crate::error::{Code, Error, Result};
use crate::memory::DeviceMemory;
use crate::runtime;
use crate::shared_pool::SharedPool;
use crate::stream::Stream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// The release threshold that keeps everything the pool holds (CuPy's "no limit").
pub const NO_LIMIT: u64 = u64::MAX;

/// Set once any limit is set in this process: until then `malloc` skips reading the threshold.
static LIMITED: AtomicBool = AtomicBool::new(false);

/// What the device's pool holds and has held (high-water marks since it was made or reset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsyncPoolStats {
    pub used: u64,
    pub reserved: u64,
    pub peak_used: u64,
    pub peak_reserved: u64,
    /// Allocations that ran out of memory, synchronized the stream and were tried again.
    pub retries: u64,
}

pub struct AsyncMemoryPool {
    device: usize,
    retries: AtomicU64,
    /// A pool of its own that other processes import (`shared_pool.rs`), instead of the device's.
    shared: Option<Arc<SharedPool>>,
}

impl AsyncMemoryPool {
    /// The pool of `device`, without touching its settings.
    pub fn new(device: usize) -> AsyncMemoryPool {
        AsyncMemoryPool { device, retries: AtomicU64::new(0), shared: None }
    }

    /// A pool of its own on `device` that other processes can import (`{ shareable: true }`),
    /// with the limit `CUDA_NODE_GPU_MEMORY_LIMIT` sets, or none.
    pub fn shareable(device: usize, place: crate::ops::PoolPlace) -> Result<AsyncMemoryPool> {
        let shared = SharedPool::create(device, place)?;
        let pool = AsyncMemoryPool { device, retries: AtomicU64::new(0), shared: Some(Arc::new(shared)) };
        pool.set_limit(crate::pool::env_limit(device)?)?;
        Ok(pool)
    }

    /// The pool another process of this user shares at `path`, to be imported for `device` by
    /// its shared pool's `join` (which blocks on the socket).
    pub fn connect(device: usize, path: &str) -> AsyncMemoryPool {
        let shared = SharedPool::connect(device, path);
        AsyncMemoryPool { device, retries: AtomicU64::new(0), shared: Some(Arc::new(shared)) }
    }

    /// The shareable pool this one is, if it is one.
    pub fn shared(&self) -> Result<&Arc<SharedPool>> {
        self.shared.as_ref().ok_or_else(|| {
            Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "this pool is not shareable: make it with new AsyncMemoryPool({ shareable: true })")
        })
    }

    /// The pool of `device` with the limit `CUDA_NODE_GPU_MEMORY_LIMIT` sets, or none (as
    /// CuPy's `MemoryAsyncPool()` sets the release threshold from `CUPY_GPU_MEMORY_LIMIT`).
    pub fn create(device: usize) -> Result<AsyncMemoryPool> {
        let pool = AsyncMemoryPool::new(device);
        pool.set_limit(crate::pool::env_limit(device)?)?;
        Ok(pool)
    }

    fn get(&self, attr: PoolAttr) -> Result<u64> {
        match &self.shared {
            Some(s) => s.get(attr),
            None => runtime()?.backend.memory().async_pool_get(self.device, attr),
        }
    }

    fn set(&self, attr: PoolAttr, value: u64) -> Result<()> {
        match &self.shared {
            Some(s) => s.set(attr, value),
            None => runtime()?.backend.memory().async_pool_set(self.device, attr, value),
        }
    }

    fn alloc(&self, size: u64, stream: &Arc<Stream>) -> Result<DeviceMemory> {
        match &self.shared {
            Some(s) => s.alloc(size, stream),
            // The device's default pool, while a pool of ours is the device's current one
            // (`cuMemAllocAsync` takes from the current pool).
            None if crate::device_pool::replaced(self.device) => crate::device_pool::alloc_from_default(self.device, size, stream),
            None => stream.alloc_async(self.device, size),
        }
    }

    /// The device whose pool this is.
    pub fn device(&self) -> usize {
        self.device
    }

    /// Makes this `device`'s current pool (`cuDeviceSetMemPool`, `device_pool.rs`): a pool of
    /// our own, kept alive while current; the device's default pool for an ordinary one.
    /// `CUDA_ERROR_INVALID_DEVICE` for a pool of another device.
    pub fn make_current(&self, device: usize) -> Result<()> {
        runtime()?.ordinal(device as f64)?;
        if device != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_DEVICE,
                format!("this pool is of device {}: it cannot be device {device}'s pool", self.device),
            ));
        }
        crate::device_pool::set_current(device, self.shared.as_ref())
    }

    pub fn malloc(&self, size: u64, stream: &Arc<Stream>) -> Result<Block> {
        if size == 0 {
            return Ok(Block::whole(DeviceMemory::alloc(self.device, 0)?));
        }
        // Rounded to 512 bytes first, as CuPy's MemoryAsyncPool.malloc does: the block's size and
        // the pool's byte counts are the rounded size.
        let size = crate::memory::round_size(size);
        if LIMITED.load(Ordering::Relaxed) {
            self.check_limit(size)?;
        }
        let mut tries = 0;
        let mem = loop {
            match self.alloc(size, stream) {
                Ok(mem) => break mem,
                // As CuPy does: memory freed in stream order is the pool's again once the
                // stream has passed the frees; synchronize and try again, twice.
                Err(e) if e.is_code(Code::CUDA_ERROR_OUT_OF_MEMORY) && tries < 2 && !stream.is_capturing()? => {
                    tries += 1;
                    self.retries.fetch_add(1, Ordering::Relaxed);
                    stream.synchronize()?;
                }
                Err(e) => return Err(e),
            }
        };
        Ok(Block::whole(mem).keeping(stream.clone()))
    }

    /// CuPy's check before growing: refused if what the pool would then hold passes the limit.
    fn check_limit(&self, size: u64) -> Result<()> {
        let reserved = self.get(PoolAttr::ReservedCurrent)?;
        let used = self.get(PoolAttr::UsedCurrent)?;
        if reserved.saturating_sub(used) >= size {
            return Ok(());
        }
        let limit = self.get(PoolAttr::ReleaseThreshold)?;
        if limit.max(reserved) < reserved.saturating_add(size) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_OUT_OF_MEMORY,
                format!(
                    "out of memory allocating {size} bytes on device {}: the stream-ordered pool holds {reserved} bytes ({used} in use) and its limit is {limit} bytes",
                    self.device
                ),
            ));
        }
        Ok(())
    }

    /// Bytes in use.
    pub fn used_bytes(&self) -> Result<u64> {
        self.get(PoolAttr::UsedCurrent)
    }

    /// Bytes the pool has reserved from the device.
    pub fn total_bytes(&self) -> Result<u64> {
        self.get(PoolAttr::ReservedCurrent)
    }

    /// Reserved bytes no allocation uses (CuPy's `free_bytes`: total − used).
    pub fn free_bytes(&self) -> Result<u64> {
        Ok(self.total_bytes()?.saturating_sub(self.used_bytes()?))
    }

    /// Releases reserved memory that no allocation uses (after the device is idle).
    pub fn free_all_blocks(&self) -> Result<()> {
        let backend = &runtime()?.backend;
        backend.devices().synchronize(self.device)?;
        match &self.shared {
            Some(s) => s.trim(),
            None => backend.memory().async_pool_trim(self.device),
        }
    }

    /// Gives the device back what the pool holds past `keep` bytes and past what is in use
    /// (`cuMemPoolTrimTo`, CuPy's `runtime.memPoolTrimTo`), without waiting for the device:
    /// memory freed in stream order is the pool's once its stream has passed the free.
    pub fn trim_to(&self, keep: u64) -> Result<()> {
        let ops = match &self.shared {
            Some(s) if s.is_imported() => {
                return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "an imported pool holds no memory of its own to trim"))
            }
            Some(s) => Some(s.ops()?.0),
            None => None,
        };
        runtime()?.backend.device_pools().trim_to(self.device, ops.map(|o| o.as_ref()), keep)
    }

    /// Sets the limit (the release threshold) in bytes; 0 removes it, as in CuPy.
    pub fn set_limit(&self, bytes: u64) -> Result<()> {
        let threshold = if bytes == 0 { NO_LIMIT } else { bytes };
        self.set(PoolAttr::ReleaseThreshold, threshold)?;
        if bytes != 0 {
            LIMITED.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    /// The limit in bytes; 0 when there is none (the threshold keeps everything).
    pub fn limit(&self) -> Result<u64> {
        let t = self.get(PoolAttr::ReleaseThreshold)?;
        Ok(if t == NO_LIMIT { 0 } else { t })
    }

    pub fn stats(&self) -> Result<AsyncPoolStats> {
        Ok(AsyncPoolStats {
            used: self.get(PoolAttr::UsedCurrent)?,
            reserved: self.get(PoolAttr::ReservedCurrent)?,
            peak_used: self.get(PoolAttr::UsedHigh)?,
            peak_reserved: self.get(PoolAttr::ReservedHigh)?,
            retries: self.retries.load(Ordering::Relaxed),
        })
    }

    /// Starts the high-water marks again from the current counts (they can only be set to 0,
    /// which the driver takes as a reset).
    pub fn reset_peak_stats(&self) -> Result<()> {
        self.set(PoolAttr::UsedHigh, 0)?;
        self.set(PoolAttr::ReservedHigh, 0)
    }
}
