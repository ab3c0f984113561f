//! Pitched (2D) copies (`cuMemcpy2DAsync`, CuPy's `runtime.memcpy2DAsync`): `height` rows of
//! `width` bytes, each side with its own pitch (the bytes from one row's start to the next's).
//! The model checks both sides here, once; a backend gets the rows already checked.

use crate::memory::DeviceMemory;
pub use crate::ops::{copy_rows, extent, End, Rows};
use crate::pinned::PinnedBlock;
use std::sync::Arc;

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
