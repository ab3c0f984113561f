//! Devices above the seam: waiting for one, and checking an ordinal from JS. What a device is
//! (`DeviceProps`, `MemInfo`, `ATTRIBUTES`) is the seam's data, in `backend.rs`.

use crate::error::{Code, Error, Result};
use crate::runtime::Runtime;

// The seam's data (`backend.rs`), re-exported here where they were first defined.
pub use crate::backend::{DeviceProps, MemInfo, ATTRIBUTES};

/// Waits for all work on the device, refusing while one of its streams captures (C6b).
pub fn synchronize(ordinal: usize) -> Result<()> {
    if crate::capture::active(ordinal) {
        return Err(Error::cuda(
            Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            format!("Device.synchronize() cannot run while a stream of device {ordinal} is capturing: it would invalidate the capture"),
        ));
    }
    crate::runtime()?.backend.synchronize_device(ordinal)
}

impl Runtime {
    /// Checks a device id from JS and returns it as an ordinal. (Here, beside the rule, so
    /// that `runtime.rs` imports no model file.)
    pub fn ordinal(&self, id: f64) -> Result<usize> {
        check_ordinal(id, self.backend.device_count())
    }
}

/// Checks a device id from JS (already known to be a number) against the devices present.
/// Non-integers are a `RangeError`; integers that name no device are `CUDA_ERROR_INVALID_DEVICE`,
/// as `cudaSetDevice` reports them.
pub fn check_ordinal(id: f64, count: usize) -> Result<usize> {
    if !id.is_finite() || id.fract() != 0.0 {
        return Err(Error::range(format!("device id must be an integer, got {id}")));
    }
    if id < 0.0 || id >= count as f64 {
        let range = match count {
            0 => "there are no devices".to_string(),
            1 => "the only device is 0".to_string(),
            n => format!("devices are 0 to {}", n - 1),
        };
        return Err(Error::cuda(Code::CUDA_ERROR_INVALID_DEVICE, format!("no device {id}: {range}")));
    }
    Ok(id as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_are_checked() {
        assert_eq!(check_ordinal(0.0, 1), Ok(0));
        assert_eq!(check_ordinal(1.0, 2), Ok(1));
        for bad in [1.5, f64::NAN, f64::INFINITY] {
            assert!(matches!(check_ordinal(bad, 2), Err(Error::Range(_))), "{bad}");
        }
        for bad in [-1.0, 2.0, 2f64.powi(40)] {
            assert!(check_ordinal(bad, 2).unwrap_err().is_code(Code::CUDA_ERROR_INVALID_DEVICE), "{bad}");
        }
    }
}
