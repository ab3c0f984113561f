//! The stream-ordered pool's counts, one a device.

use crate::error::{Code, Error, Result};
use crate::ops::PoolAttr;
use std::sync::atomic::{AtomicU64, Ordering};

/// What the pool needs of its device: its memory in use (the pool's reserve counts there), its
/// size and its ordinal (for messages). The device holds the pool, so the pool names no device.
#[derive(Clone, Copy)]
pub(crate) struct Device<'a> {
    pub used: &'a AtomicU64,
    pub total: u64,
    pub ordinal: usize,
}

/// How much the stream-ordered pool reserves at a time: the driver grows it in steps of its own,
/// not by the allocation ([OBS] 32 MiB on an H100), so a small allocation that the reserve cannot
/// serve grows it by a step, and the next small ones do not grow it.
pub(crate) const RESERVE_STEP: u64 = 32 << 20;

/// The device's stream-ordered pool as the driver counts it: bytes in use (free at the
/// `cuMemFreeAsync` call), bytes reserved (grown in [`RESERVE_STEP`]s to cover what is used;
/// given back past the release threshold at a synchronization, or by a trim), and the high-water
/// marks of both. The reserve is the device's memory in use (`dev.used`), whether allocations
/// use it or not: memory freed to the pool is not the device's again until the pool gives it back
/// (CuPy's `test_free_all_blocks_large_chunk`).
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
    /// Takes `size` bytes from the reserve, growing it from the device `dev` (by steps, as far as
    /// the device has room, at least by what is missing); `CUDA_ERROR_OUT_OF_MEMORY` where the
    /// device has less free than is missing.
    pub fn alloc(&mut self, size: u64, dev: Device<'_>) -> Result<()> {
        let idle = self.reserved - self.used;
        if idle < size {
            let missing = size - idle;
            let total = dev.total;
            let in_use = dev.used.load(Ordering::Relaxed);
            let room = total.saturating_sub(in_use);
            if missing > room {
                return Err(Error::cuda(
                    Code::CUDA_ERROR_OUT_OF_MEMORY,
                    format!("out of memory allocating {size} bytes on simulated device {} ({in_use} of {total} bytes in use)", dev.ordinal),
                ));
            }
            let grow = missing.div_ceil(RESERVE_STEP).saturating_mul(RESERVE_STEP).min(room).max(missing);
            dev.used.fetch_add(grow, Ordering::Relaxed);
            self.reserved += grow;
        }
        self.used += size;
        self.used_high = self.used_high.max(self.used);
        self.reserved_high = self.reserved_high.max(self.reserved);
        Ok(())
    }

    pub fn free(&mut self, size: u64) {
        self.used = self.used.saturating_sub(size);
    }

    /// At a synchronization the pool gives back what it holds past the release threshold.
    pub fn settle(&mut self, dev: Device<'_>) {
        if self.reserved > self.threshold {
            self.release_to(self.threshold, dev);
        }
    }

    /// `cuMemPoolTrimTo(pool, keep)`.
    pub fn trim(&mut self, keep: u64, dev: Device<'_>) {
        self.release_to(keep, dev);
    }

    /// Gives the device back what the pool reserves past `keep` and what is in use.
    fn release_to(&mut self, keep: u64, dev: Device<'_>) {
        let reserved = self.reserved.min(keep.max(self.used));
        dev.used.fetch_sub(self.reserved - reserved, Ordering::Relaxed);
        self.reserved = reserved;
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
