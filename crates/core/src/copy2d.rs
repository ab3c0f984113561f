//! Pitched (2D) copies (`cuMemcpy2DAsync`, CuPy's `runtime.memcpy2DAsync`): `height` rows of
//! `width` bytes, each side with its own pitch (the bytes from one row's start to the next's).
//! The model checks both sides here, once; a backend gets the rows already checked.

use crate::error::{Error, Result};
use crate::memory::DeviceMemory;
use crate::ops::{AllocOps, HostBytes};
use crate::pinned::PinnedBlock;
use std::sync::Arc;

/// The shape of a 2D copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rows {
    pub width: u64,
    pub height: u64,
    pub dst_pitch: u64,
    pub src_pitch: u64,
}

/// One side of a 2D copy, as the model takes it.
pub enum Side<'a> {
    /// Device memory from an offset.
    Device(&'a DeviceMemory, u64),
    /// Pinned host memory from an offset: the copy is asynchronous and keeps it alive.
    Pinned(&'a Arc<PinnedBlock>, u64),
    /// Pageable host memory to copy from: staged before the call returns.
    Host(&'a [u8]),
    /// Pageable host memory to copy into: written before the call returns.
    HostMut(&'a mut [u8]),
}

/// One side as a backend gets it: checked, with its pitch in [`Rows`].
pub enum End<'a> {
    Device(&'a dyn AllocOps, u64),
    /// Pageable host memory (synchronous, as the driver makes it): valid during the call only.
    Pageable(*mut u8),
    /// Pinned host memory from an offset.
    Pinned(Arc<dyn HostBytes>, u64),
}

/// Bytes a pitched range spans, from its first row's start to its last row's end: `pitch` at
/// least `width`, `(height - 1) * pitch + width` (0 with no rows or columns).
pub fn extent(pitch: u64, width: u64, height: u64, what: &str) -> Result<u64> {
    if width == 0 || height == 0 {
        return Ok(0);
    }
    if pitch < width {
        return Err(Error::range(format!("{what}: a pitch of {pitch} bytes is less than the {width}-byte width of a row")));
    }
    (height - 1)
        .checked_mul(pitch)
        .and_then(|n| n.checked_add(width))
        .ok_or_else(|| Error::range(format!("{what}: {height} rows of pitch {pitch} do not fit in 64 bits")))
}

/// Copies `rows.height` rows between two host byte ranges (the simulator's and tests' model
/// of the driver's copy).
///
/// # Safety
/// 1. `src` is valid for reads of `extent(rows.src_pitch, …)` bytes and `dst` for writes of
///    `extent(rows.dst_pitch, …)` bytes, and the two do not overlap unless they are one range.
pub unsafe fn copy_rows(dst: *mut u8, src: *const u8, rows: Rows) {
    for r in 0..rows.height {
        // SAFETY: (1): row `r` lies inside both extents; `copy` allows overlap within one buffer.
        unsafe { std::ptr::copy(src.add((r * rows.src_pitch) as usize), dst.add((r * rows.dst_pitch) as usize), rows.width as usize) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extent_ends_at_the_last_rows_end() {
        assert_eq!(extent(16, 4, 3, "copy2D").unwrap(), 36);
        assert_eq!(extent(4, 4, 1, "copy2D").unwrap(), 4);
        assert_eq!(extent(0, 0, 9, "copy2D").unwrap(), 0);
        assert!(extent(3, 4, 2, "copy2D").unwrap_err().message().contains("less than the 4-byte width"));
        assert!(extent(u64::MAX, 1, 3, "copy2D").is_err());
    }

    #[test]
    fn rows_land_at_their_pitch() {
        let src: Vec<u8> = (0..12).collect();
        let mut dst = [0u8; 10];
        // SAFETY: 2 rows of 3 from pitch 6 span 9 bytes of 12; into pitch 5, 8 bytes of 10.
        unsafe { copy_rows(dst.as_mut_ptr(), src.as_ptr(), Rows { width: 3, height: 2, dst_pitch: 5, src_pitch: 6 }) };
        assert_eq!(dst, [0, 1, 2, 0, 0, 6, 7, 8, 0, 0]);
    }
}
