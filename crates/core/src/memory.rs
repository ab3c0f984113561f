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

pub struct DeviceMemory {
    /// `None` for a zero-byte allocation, which touches no backend (as in CuPy).
    ops: Option<Box<dyn AllocOps>>,
    device: usize,
    size: u64,
    /// A stream-ordered allocation made during a capture belongs to the graph: its free is
    /// captured too, never deferred.
    in_capture: bool,
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        if let Some(ops) = self.ops.take() {
            // A free during a capture synchronizes or is captured into the graph: wait for the end.
            let ops = if self.in_capture { Some(ops) } else { crate::capture::defer_if_capturing(self.device, ops) };
            drop(ops);
        }
    }
}

impl DeviceMemory {
    pub fn alloc(device: usize, size: u64) -> Result<DeviceMemory> {
        let ops = if size == 0 { None } else { Some(runtime()?.backend.alloc(device, size)?) };
        Ok(DeviceMemory { ops, device, size, in_capture: false })
    }

    pub(crate) fn from_ops(ops: Box<dyn AllocOps>, device: usize, size: u64) -> DeviceMemory {
        DeviceMemory { ops: Some(ops), device, size, in_capture: false }
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

/// Checks that `[offset, offset + len)` lies inside `size` bytes.
pub fn check_range(size: u64, offset: u64, len: u64, what: &str) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(()),
        _ => Err(Error::range(format!("{what} of {len} bytes at offset {offset} runs past the end of the {size}-byte allocation"))),
    }
}
