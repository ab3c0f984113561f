//! Simulated device memory: host bytes behind a lock, at addresses that look like a device's
//! and are never reused, so a stale pointer can always be told apart; every kind of allocation
//! (`ops::MemoryResource`), pointer attributes and the stream-ordered pool's counts.

use super::bytes::{Buffer, Known};
use super::{lock, SimBackend, SimDevice};
use crate::error::{Code, Error, Result};
use crate::ops::{Advice, AllocKind, AllocOps, Location, MemoryKind, MemoryResource, PointerAttributes, PoolAttr};
use std::any::Any;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// What freshly allocated simulated memory holds: CUDA does not clear allocations (M1), and a
/// visible pattern catches code that assumes zeros.
pub const POISON: u8 = 0xCD;

/// The error for a host allocation the process cannot make: the allocator's failure becomes
/// `CUDA_ERROR_OUT_OF_MEMORY`, as `cuMemHostAlloc`'s does, never the allocator's abort.
pub(super) fn host_oom(size: u64, what: &str) -> Error {
    Error::cuda(Code::CUDA_ERROR_OUT_OF_MEMORY, format!("out of host memory: {size} bytes of {what} cannot be allocated"))
}

pub struct SimAlloc {
    pub(super) dev: Arc<SimDevice>,
    pub(super) ptr: u64,
    pub(super) size: u64,
    /// Shared with queued operations, which keep the bytes alive until they have run.
    pub buffer: Arc<Buffer>,
    /// False for a view of another allocation (foreign memory): it frees and counts nothing.
    owns: bool,
    kind: AllocKind,
}

impl SimAlloc {
    /// The bytes of a simulated allocation, or `CUDA_ERROR_OUT_OF_MEMORY` where the host cannot
    /// hold them (a simulated device larger than the host's memory). The caller has counted
    /// `size` in `dev.used`; it is uncounted when the allocation drops, or here on failure.
    pub(super) fn new(dev: Arc<SimDevice>, ptr: u64, size: u64, kind: AllocKind) -> Result<SimAlloc> {
        let managed = kind == AllocKind::Managed;
        let mut bytes = Vec::new();
        if usize::try_from(size).map_or(true, |n| bytes.try_reserve_exact(n).is_err()) {
            if kind != AllocKind::StreamOrdered {
                dev.used.fetch_sub(size, Ordering::Relaxed);
            }
            return Err(host_oom(size, "simulated device memory"));
        }
        bytes.resize(size as usize, POISON);
        let buffer = Arc::new(Buffer { bytes: Mutex::new(bytes) });
        super::lock(&dev.allocs).insert(ptr, Known { size, buffer: Arc::downgrade(&buffer), managed });
        Ok(SimAlloc { dev, ptr, size, buffer, owns: true, kind })
    }

    /// A view of the live allocation at `base` (never freed through the view).
    pub(super) fn view(dev: Arc<SimDevice>, base: u64, size: u64, buffer: Arc<Buffer>) -> SimAlloc {
        SimAlloc { dev, ptr: base, size, buffer, owns: false, kind: AllocKind::Foreign }
    }

    /// The host address of the bytes (managed memory's host view).
    pub(super) fn host_ptr(&self) -> *mut u8 {
        self.buffer.lock().as_mut_ptr()
    }
}

impl Drop for SimAlloc {
    fn drop(&mut self) {
        if self.owns {
            super::lock(&self.dev.allocs).remove(&self.ptr);
            // A stream-ordered allocation's bytes are the pool's: its reserve counts them (PoolModel).
            if self.kind != AllocKind::StreamOrdered {
                self.dev.used.fetch_sub(self.size, Ordering::Relaxed);
            }
        }
    }
}

/// A stream-ordered allocation: its bytes are released when the stream reaches the free.
pub struct SimAsyncAlloc {
    pub(super) inner: Option<SimAlloc>,
    pub(super) dev: Arc<SimDevice>,
    pub(super) queue: Arc<super::engine::Queue>,
}

impl Drop for SimAsyncAlloc {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            // The driver counts the bytes free at the call ([OBS] on an H100: USED_MEM_CURRENT
            // drops at cuMemFreeAsync); the memory itself is released in stream order.
            super::lock(&self.dev.async_pool).free(inner.size);
            let slot = Mutex::new(Some(inner));
            self.dev.scheduler.enqueue(&self.queue, vec![], Arc::new(move || drop(slot.lock().unwrap_or_else(|p| p.into_inner()).take())));
        }
    }
}

impl AllocOps for SimAsyncAlloc {
    fn ptr(&self) -> u64 {
        self.inner.as_ref().map_or(0, |a| a.ptr)
    }
    fn kind(&self) -> AllocKind {
        AllocKind::StreamOrdered
    }
    fn device(&self) -> Option<usize> {
        Some(self.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        self.inner.as_ref().expect("live until dropped")
    }
}

impl AllocOps for SimAlloc {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn kind(&self) -> AllocKind {
        self.kind
    }
    fn device(&self) -> Option<usize> {
        Some(self.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn host_ptr(&self) -> Option<*mut u8> {
        let managed = super::lock(&self.dev.allocs).get(&self.ptr).is_some_and(|k| k.managed);
        managed.then(|| SimAlloc::host_ptr(self))
    }
}

pub(super) fn sim_alloc(a: &dyn AllocOps) -> &SimAlloc {
    super::own::<SimAlloc>(a.as_any())
}

impl MemoryResource for SimBackend {
    fn alloc(&self, ordinal: usize, size: u64) -> Result<Box<dyn AllocOps>> {
        Ok(Box::new(alloc_on(&self.devices[ordinal], size, false)?))
    }

    fn alloc_managed(&self, ordinal: usize, size: u64, _global: bool) -> Result<Box<dyn AllocOps>> {
        Ok(Box::new(alloc_kind(&self.devices[ordinal], size, false, true)?))
    }

    fn pointer_attributes(&self, ptr: u64) -> Result<PointerAttributes> {
        for dev in &self.devices {
            let allocs = lock(&dev.allocs);
            if let Some((&base, k)) = allocs.range(..=ptr).next_back() {
                if ptr < base + k.size.max(1) {
                    let kind = if k.managed { MemoryKind::Managed } else { MemoryKind::Device };
                    return Ok(PointerAttributes { device: dev.ordinal, kind, base, size: k.size });
                }
            }
        }
        if let Some((&base, &size)) = lock(&self.host).range(..=ptr).next_back() {
            if ptr < base + size {
                return Ok(PointerAttributes { device: 0, kind: MemoryKind::Host, base, size });
            }
        }
        Err(Error::cuda(
            Code::CUDA_ERROR_INVALID_VALUE,
            format!("0x{ptr:x} is not memory the simulator knows (not allocated, or already freed)"),
        ))
    }

    fn alloc_foreign(&self, ordinal: usize, ptr: u64) -> Result<(Box<dyn AllocOps>, u64)> {
        let dev = &self.devices[ordinal];
        let found = lock(&dev.allocs).range(..=ptr).next_back().and_then(|(&base, k)| Some((base, k.size, k.buffer.upgrade()?)));
        match found {
            Some((base, size, buffer)) if ptr < base + size => Ok((Box::new(SimAlloc::view(dev.clone(), base, size, buffer)), ptr - base)),
            _ => Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, format!("0x{ptr:x} is not memory of simulated device {ordinal}"))),
        }
    }

    fn mem_advise(&self, _ptr: u64, _len: u64, _advice: Advice, _location: Location) -> Result<()> {
        // Advice changes where pages live, never what they hold: nothing to simulate.
        Ok(())
    }

    fn ipc_mem_handle(&self, _ordinal: usize, _ptr: u64) -> Result<[u8; 64]> {
        Err(ipc_mem_unsupported())
    }

    fn ipc_open_mem(&self, _ordinal: usize, _handle: &[u8; 64]) -> Result<(Box<dyn AllocOps>, u64)> {
        Err(ipc_mem_unsupported())
    }

    fn async_pool_get(&self, ordinal: usize, attr: PoolAttr) -> Result<u64> {
        Ok(lock(&self.devices[ordinal].async_pool).get(attr))
    }

    fn async_pool_set(&self, ordinal: usize, attr: PoolAttr, value: u64) -> Result<()> {
        lock(&self.devices[ordinal].async_pool).set(attr, value)
    }

    fn async_pool_trim(&self, ordinal: usize) -> Result<()> {
        let dev = &self.devices[ordinal];
        lock(&dev.async_pool).trim(0, dev.for_pool());
        Ok(())
    }
}

fn ipc_mem_unsupported() -> Error {
    Error::cuda(
        Code::CUDA_ERROR_NOT_SUPPORTED,
        "interprocess memory needs the GPU: the simulator's memory cannot be shared between processes",
    )
}

/// A simulated device allocation, counted against the device's memory.
/// `stream_ordered` allocations are capturable; a plain one under a capture that is not relaxed
/// fails and invalidates it, as `cuMemAlloc` does (C5).
pub(crate) fn alloc_on(dev: &Arc<SimDevice>, size: u64, stream_ordered: bool) -> Result<SimAlloc> {
    alloc_kind(dev, size, stream_ordered, false)
}

fn alloc_kind(dev: &Arc<SimDevice>, size: u64, stream_ordered: bool, managed: bool) -> Result<SimAlloc> {
    let ordinal = dev.ordinal;
    if !stream_ordered {
        let strict = dev.scheduler.strict_captures();
        if !strict.is_empty() {
            strict.iter().for_each(|c| c.invalidate());
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                "cudaMalloc is not permitted during a capture in 'global' or 'threadLocal' mode (it invalidated the capture); use mode 'relaxed' or an AsyncMemoryPool",
            ));
        }
    }
    let total = dev.props.total_memory;
    // A stream-ordered allocation draws on the pool's reserve, which counts the device's bytes.
    let counted = if stream_ordered { 0 } else { size };
    let used = dev.used.fetch_add(counted, Ordering::Relaxed);
    if !stream_ordered && used.checked_add(size).is_none_or(|u| u > total) {
        dev.used.fetch_sub(size, Ordering::Relaxed);
        return Err(Error::cuda(
            Code::CUDA_ERROR_OUT_OF_MEMORY,
            format!("out of memory allocating {size} bytes on simulated device {ordinal} ({used} of {total} bytes in use)"),
        ));
    }
    let ptr = dev.next_addr.fetch_add(size.div_ceil(512) * 512, Ordering::Relaxed);
    let kind = match (managed, stream_ordered) {
        (true, _) => AllocKind::Managed,
        (false, true) => AllocKind::StreamOrdered,
        (false, false) => AllocKind::Device,
    };
    SimAlloc::new(dev.clone(), ptr, size, kind)
}
