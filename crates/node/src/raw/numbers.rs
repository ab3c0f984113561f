//! Numbers from JS arrive as f64; these turn them into sizes and offsets or a RangeError.

use cuda_node_core::{Error, Result};

/// A byte count, offset or element count: a whole number in [0, 2^53].
pub fn count(name: &str, v: f64) -> Result<u64> {
    if !v.is_finite() || v.fract() != 0.0 || !(0.0..=9_007_199_254_740_992.0).contains(&v) {
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
