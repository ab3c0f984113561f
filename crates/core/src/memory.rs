//! Device memory (CuPy's `cupy.cuda.Memory`): a plain allocation, freed when dropped.

use crate::error::{Error, Result};
use crate::ops::AllocOps;
use crate::runtime;

/// The granularity of every pooled allocation (device, stream-ordered and pinned): sizes are
/// rounded up to 512-byte bins, as CuPy's pools do (P1).
pub const ALLOCATION_UNIT: u64 = 512;

/// `n` rounded up to a whole number of [`ALLOCATION_UNIT`]s.
pub fn round_size(n: u64) -> u64 {
    n.div_ceil(ALLOCATION_UNIT) * ALLOCATION_UNIT
}

// The seam's data (`backend.rs`, `ops.rs`), re-exported here where they were first defined.
pub use crate::backend::{Advice, MemoryKind, PointerAttributes};
pub use crate::ops::Location;

/// What foreign memory keeps alive (its owner), released only once the device has finished
/// the work queued before the memory was dropped: the owner may free the memory the moment it
/// is released, and queued kernels and copies must not see that.
pub type Keep = Box<dyn Send + Sync>;

struct ForeignRelease {
    device: usize,
    keep: Option<Keep>,
}

impl Drop for ForeignRelease {
    fn drop(&mut self) {
        // As cuMemFree does for our own memory (M2): wait for the device, then let go.
        if let Ok(rt) = runtime() {
            let _ = rt.backend.devices().synchronize(self.device);
        }
        drop(self.keep.take());
    }
}

/// Where the bytes came from, when not from our `cuMemAlloc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Own,
    Managed,
    /// Someone else's (`fromExternal`): never freed by us.
    Foreign,
    /// Another process's (`cuIpcOpenMemHandle`): closed when dropped.
    Ipc,
}

pub struct DeviceMemory {
    /// `None` for a zero-byte allocation, which touches no backend (as in CuPy).
    ops: Option<Box<dyn AllocOps>>,
    device: usize,
    size: u64,
    /// A stream-ordered allocation made during a capture belongs to the graph: its free is
    /// captured too, never deferred.
    in_capture: bool,
    origin: Origin,
    /// Foreign memory's owner (see [`Keep`]).
    keep: Option<Keep>,
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        let keep = self.keep.take().map(|keep| ForeignRelease { device: self.device, keep: Some(keep) });
        if let Some(ops) = self.ops.take() {
            // A free during a capture synchronizes or is captured into the graph: wait for the end.
            let ops = if self.in_capture { Some((ops, keep)) } else { crate::capture::defer_if_capturing(self.device, (ops, keep)) };
            drop(ops);
        } else if let Some(keep) = keep {
            drop(crate::capture::defer_if_capturing(self.device, keep));
        }
    }
}

impl DeviceMemory {
    pub fn alloc(device: usize, size: u64) -> Result<DeviceMemory> {
        let ops = if size == 0 { None } else { Some(runtime()?.backend.memory().alloc(device, size)?) };
        Ok(DeviceMemory { ops, device, size, in_capture: false, origin: Origin::Own, keep: None })
    }

    pub(crate) fn from_ops(ops: Box<dyn AllocOps>, device: usize, size: u64) -> DeviceMemory {
        DeviceMemory { ops: Some(ops), device, size, in_capture: false, origin: Origin::Own, keep: None }
    }

    /// Managed memory (`cuMemAllocManaged`, CuPy's `malloc_managed`): `global` attaches it to
    /// every stream, else to the host. Never asks for more than the device has free: an
    /// oversubscribed managed allocation can stall the GPU, so that is an out-of-memory error.
    pub fn alloc_managed(device: usize, size: u64, global: bool) -> Result<DeviceMemory> {
        let rt = runtime()?;
        if size == 0 {
            return Ok(DeviceMemory { ops: None, device, size, in_capture: false, origin: Origin::Managed, keep: None });
        }
        let free = rt.backend.devices().mem_info(device)?.free;
        if size > free {
            return Err(Error::cuda(
                crate::Code::CUDA_ERROR_OUT_OF_MEMORY,
                format!("managed allocation of {size} bytes refused: device {device} has {free} bytes free, and asking for more can stall the GPU"),
            ));
        }
        let ops = rt.backend.memory().alloc_managed(device, size, global)?;
        Ok(DeviceMemory { ops: Some(ops), device, size, in_capture: false, origin: Origin::Managed, keep: None })
    }

    /// `size` bytes at `ptr` that someone else allocated (CuPy's `UnownedMemory`), checked
    /// against what the driver knows: device or managed memory of `device`, holding the whole
    /// range. `keep` is held until the memory is dropped and the device has finished the work
    /// queued before. Returns the memory and the offset of `ptr` in it.
    pub fn foreign(device: usize, ptr: u64, size: u64, keep: Option<Keep>) -> Result<(DeviceMemory, u64)> {
        let rt = runtime()?;
        let attrs = pointer_attributes(ptr)?;
        if attrs.kind == MemoryKind::Host {
            return Err(Error::cuda(
                crate::Code::CUDA_ERROR_INVALID_VALUE,
                format!("0x{ptr:x} is host memory, not device memory: copy from it as host memory instead"),
            ));
        }
        if attrs.device != device {
            return Err(Error::cuda(
                crate::Code::CUDA_ERROR_INVALID_DEVICE,
                format!("0x{ptr:x} is memory of device {}, not of device {device}", attrs.device),
            ));
        }
        let at = ptr - attrs.base;
        if at.checked_add(size).is_none_or(|end| end > attrs.size) {
            return Err(Error::range(format!(
                "{size} bytes at 0x{ptr:x} run past the end of the {}-byte allocation at 0x{:x} that holds it",
                attrs.size, attrs.base
            )));
        }
        let (ops, offset) = rt.backend.memory().alloc_foreign(device, ptr)?;
        Ok((DeviceMemory { ops: Some(ops), device, size: offset + size, in_capture: false, origin: Origin::Foreign, keep }, offset))
    }

    /// Another process's allocation, from the handle its `ipc_handle` gave (`cuIpcOpenMemHandle`).
    pub fn open_ipc(device: usize, handle: &[u8; 64]) -> Result<DeviceMemory> {
        let (ops, size) = runtime()?.backend.memory().ipc_open_mem(device, handle)?;
        Ok(DeviceMemory { ops: Some(ops), device, size, in_capture: false, origin: Origin::Ipc, keep: None })
    }

    /// The 64-byte handle another process opens this allocation with (`cuIpcGetMemHandle`).
    /// It names the whole allocation: a pool block is found in it by its offset.
    pub fn ipc_handle(&self) -> Result<[u8; 64]> {
        runtime()?.backend.memory().ipc_mem_handle(self.device, self.ops()?.ptr())
    }

    pub fn origin(&self) -> Origin {
        self.origin
    }

    /// The host address of managed memory's bytes.
    pub fn host_ptr(&self) -> Option<*mut u8> {
        self.ops.as_ref().and_then(|o| o.host_ptr())
    }

    /// Checks that this is managed memory, for prefetch and advice.
    pub fn check_managed(&self, what: &str) -> Result<()> {
        match self.ops.as_ref() {
            Some(o) if o.host_ptr().is_some() => Ok(()),
            _ if self.size == 0 => Ok(()),
            _ => Err(Error::cuda(crate::Code::CUDA_ERROR_INVALID_VALUE, format!("{what} needs managed memory (mallocManaged)"))),
        }
    }

    /// Advice on how `[offset, offset + len)` of this managed memory is used (`cuMemAdvise`).
    pub fn advise(&self, offset: u64, len: u64, advice: Advice, location: Location) -> Result<()> {
        self.check_managed("advise")?;
        self.check_range(offset, len, "advise")?;
        if len == 0 {
            return Ok(());
        }
        check_location(location)?;
        runtime()?.backend.memory().mem_advise(self.ops()?.ptr() + offset, len, advice, location)
    }

    pub(crate) fn made_in_capture(mut self, yes: bool) -> DeviceMemory {
        self.in_capture = yes;
        self
    }

    pub fn ptr(&self) -> u64 {
        self.ops.as_ref().map_or(0, |o| o.ptr())
    }
    pub fn device(&self) -> usize {
        self.device
    }
    pub fn size(&self) -> u64 {
        self.size
    }

    pub(crate) fn ops(&self) -> Result<&dyn AllocOps> {
        self.ops.as_deref().ok_or_else(|| Error::range("a zero-byte allocation holds no data"))
    }

    /// Checks that `[offset, offset + len)` lies inside the allocation.
    pub fn check_range(&self, offset: u64, len: u64, what: &str) -> Result<()> {
        check_range(self.size, offset, len, what)
    }
}

/// What the driver knows of `ptr` (`cuPointerGetAttribute`).
pub fn pointer_attributes(ptr: u64) -> Result<PointerAttributes> {
    if ptr == 0 {
        return Err(Error::cuda(crate::Code::CUDA_ERROR_INVALID_VALUE, "0 is not a pointer"));
    }
    runtime()?.backend.memory().pointer_attributes(ptr)
}

/// Checks a location's device ordinal.
pub fn check_location(location: Location) -> Result<()> {
    if let Location::Device(d) = location {
        runtime()?.ordinal(d as f64)?;
    }
    Ok(())
}

/// The byte a memset writes: `value` must be one (0 to 255).
pub fn memset_byte(value: u32) -> Result<u8> {
    u8::try_from(value).map_err(|_| Error::range(format!("memset value must be a byte (0 to 255), got {value}")))
}

/// The fill of `count` elements of `width` bytes (at most 255), each the low bytes of `bits`,
/// and the bytes it covers.
pub fn fill_pattern(width: u32, bits: u64, count: u64) -> Result<(crate::ops::Pattern, u64)> {
    let pattern = crate::ops::Pattern { width: width.min(255) as u8, bits };
    let bytes = count.checked_mul(pattern.width as u64).ok_or_else(|| Error::range("fill count is too large"))?;
    Ok((pattern, bytes))
}

/// An IPC memory handle's bytes, checked to be the 64 a handle has.
pub fn ipc_handle_bytes(bytes: &[u8]) -> Result<&[u8; 64]> {
    bytes.try_into().map_err(|_| Error::range(format!("an IPC memory handle is 64 bytes, got {}", bytes.len())))
}

/// Checks that `[offset, offset + len)` lies inside `size` bytes.
pub fn check_range(size: u64, offset: u64, len: u64, what: &str) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(()),
        _ => Err(Error::range(format!("{what} of {len} bytes at offset {offset} runs past the end of the {size}-byte allocation"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memset_value_is_a_byte() {
        assert_eq!(memset_byte(255).unwrap(), 255);
        assert_eq!(memset_byte(256).unwrap_err().message(), "memset value must be a byte (0 to 255), got 256");
    }

    #[test]
    fn a_fill_covers_count_times_width_bytes_and_refuses_an_overflow() {
        let (pattern, bytes) = fill_pattern(4, 0xdead_beef, 10).unwrap();
        assert_eq!((pattern.width, pattern.bits, bytes), (4, 0xdead_beef, 40));
        assert_eq!(fill_pattern(1000, 0, 1).unwrap().0.width, 255, "the width is at most 255 bytes");
        assert_eq!(fill_pattern(8, 0, u64::MAX).unwrap_err().message(), "fill count is too large");
    }

    #[test]
    fn an_ipc_memory_handle_is_64_bytes() {
        assert!(ipc_handle_bytes(&[0; 64]).is_ok());
        assert_eq!(ipc_handle_bytes(&[0; 63]).unwrap_err().message(), "an IPC memory handle is 64 bytes, got 63");
    }
}
