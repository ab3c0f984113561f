//! Numbers from JS arrive as f64; these turn them into sizes and offsets or a RangeError.

use cuda_node_core::{Error, Result};

/// The largest byte count, offset or element count: 2^53 - 1, the largest integer a JS number
/// holds exactly (`Number.MAX_SAFE_INTEGER`; 2^53 + 1 would arrive as 2^53). The TS layer checks
/// with this one (`constants().maxCount`).
pub const MAX_COUNT: u64 = (1 << 53) - 1;

/// A byte count, offset or element count: a whole number in [0, [`MAX_COUNT`]].
pub fn count(name: &str, v: f64) -> Result<u64> {
    if !v.is_finite() || v.fract() != 0.0 || !(0.0..=MAX_COUNT as f64).contains(&v) {
        return Err(Error::range(format!("{name} must be a non-negative integer, got {v}")));
    }
    Ok(v as u64)
}

pub fn int32(name: &str, v: f64) -> Result<i32> {
    if !v.is_finite() || v.fract() != 0.0 || v < i32::MIN as f64 || v > i32::MAX as f64 {
        return Err(Error::range(format!("{name} must be a 32-bit integer, got {v}")));
    }
    Ok(v as i32)
}

pub fn uint32(name: &str, v: f64) -> Result<u32> {
    if !v.is_finite() || v.fract() != 0.0 || v < 0.0 || v > u32::MAX as f64 {
        return Err(Error::range(format!("{name} must be a 32-bit unsigned integer, got {v}")));
    }
    Ok(v as u32)
}
