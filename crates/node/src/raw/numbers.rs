//! Numbers from JS arrive as f64; these turn them into sizes and offsets or a RangeError.

use cuda_node_core::{Error, Result};
use std::fmt::Display;

/// The largest byte count, offset or element count: 2^53 - 1, the largest integer a JS number
/// holds exactly (`Number.MAX_SAFE_INTEGER`; 2^53 + 1 would arrive as 2^53). The TS layer checks
/// with this one (`constants().maxCount`).
pub const MAX_COUNT: u64 = (1 << 53) - 1;

// Each check is a range test and a round trip through the integer type: NaN fails the first, and
// a fraction or a value out of range does not come back equal. (`fract()` is a library call, and
// these run on every hot call's counts.) `name` is formatted only for the error.

/// A byte count, offset or element count: a whole number in [0, [`MAX_COUNT`]].
pub fn count(name: impl Display, v: f64) -> Result<u64> {
    if !((0.0..=MAX_COUNT as f64).contains(&v) && v as u64 as f64 == v) {
        return Err(Error::range(format!("{name} must be a non-negative integer, got {v}")));
    }
    Ok(v as u64)
}

pub fn int32(name: impl Display, v: f64) -> Result<i32> {
    if v as i32 as f64 != v {
        return Err(Error::range(format!("{name} must be a 32-bit integer, got {v}")));
    }
    Ok(v as i32)
}

pub fn uint32(name: impl Display, v: f64) -> Result<u32> {
    if v as u32 as f64 != v {
        return Err(Error::range(format!("{name} must be a 32-bit unsigned integer, got {v}")));
    }
    Ok(v as u32)
}
