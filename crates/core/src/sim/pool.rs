//! The stream-ordered pool's counts, one a device.

use crate::error::{Code, Error, Result};
use crate::ops::PoolAttr;

/// The device's stream-ordered pool as the driver counts it: bytes in use (free at the
/// `cuMemFreeAsync` call), bytes reserved (grown to cover what is used; given back past the
/// release threshold at a synchronization, or by a trim), and the high-water marks of both.
#[derive(Default)]
pub(crate) struct PoolModel {
    used: u64,
    reserved: u64,
    used_high: u64,
    reserved_high: u64,
    /// The driver's default is 0: everything unused is given back at a synchronization.
    threshold: u64,
}

impl PoolModel {
    pub fn alloc(&mut self, size: u64) {
        self.used += size;
        self.reserved = self.reserved.max(self.used);
        self.used_high = self.used_high.max(self.used);
        self.reserved_high = self.reserved_high.max(self.reserved);
    }

    pub fn free(&mut self, size: u64) {
        self.used = self.used.saturating_sub(size);
    }

    /// At a synchronization the pool gives back what it holds past the release threshold.
    pub fn settle(&mut self) {
        if self.reserved > self.threshold {
            self.reserved = self.threshold.max(self.used);
        }
    }

    /// `cuMemPoolTrimTo(pool, keep)`.
    pub fn trim(&mut self, keep: u64) {
        self.reserved = self.reserved.min(keep.max(self.used));
    }

    pub fn get(&self, attr: PoolAttr) -> u64 {
        use PoolAttr::*;
        match attr {
            ReleaseThreshold => self.threshold,
            ReservedCurrent => self.reserved,
            ReservedHigh => self.reserved_high,
            UsedCurrent => self.used,
            UsedHigh => self.used_high,
        }
    }

    /// As the driver takes it: a high-water mark can only be reset (to the current count).
    pub fn set(&mut self, attr: PoolAttr, value: u64) -> Result<()> {
        use PoolAttr::*;
        match attr {
            ReleaseThreshold => self.threshold = value,
            UsedHigh | ReservedHigh if value != 0 => {
                return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "a pool's high-water mark can only be reset to 0"))
            }
            UsedHigh => self.used_high = self.used,
            ReservedHigh => self.reserved_high = self.reserved,
            ReservedCurrent | UsedCurrent => {
                return Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "the pool's current counts cannot be set"))
            }
        }
        Ok(())
    }
}
