//! The backend itself: opening the driver. Its parts are implemented in the files of their
//! concepts' names, and `backend.rs` (the seam) hands them out.

use super::device::{CudaBackend, CudaDevice};
use super::raw;
use crate::error::{Check, Code, Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};

static LOADED: AtomicBool = AtomicBool::new(false);

/// True once libcuda has been opened and initialised in this process.
pub fn driver_loaded() -> bool {
    LOADED.load(Ordering::Acquire)
}

/// Whether libcuda can be opened at all. cudarc panics where it cannot, so ask first.
pub fn driver_present() -> bool {
    raw::driver_present()
}

impl CudaBackend {
    /// Opens the driver and initialises it. Returns the backend, the driver version and a
    /// sentence for `backend().reason`.
    pub fn load() -> Result<(Self, i32, String)> {
        if !driver_present() {
            let mut names = cudarc::get_lib_name_candidates("cuda");
            names.dedup_by(|a, b| a == b);
            names.sort();
            names.dedup();
            return Err(Error::cuda(
                Code::CUDA_ERROR_NOT_INITIALIZED,
                format!("the CUDA driver library could not be loaded (looked for libcuda as {})", names.join(", ")),
            ));
        }
        // SAFETY: the library is present (checked above).
        unsafe { raw::init() }.check("cuInit")?;
        LOADED.store(true, Ordering::Release);
        crate::error::set_driver_description(raw::error_string);
        let version = raw::driver_version().check("cuDriverGetVersion")?;
        let count = raw::device_count().check("cuDeviceGetCount")?;
        if count <= 0 {
            return Err(Error::cuda(Code::CUDA_ERROR_NO_DEVICE, "the CUDA driver loaded but found no device"));
        }
        let mut handles = Vec::with_capacity(count as usize);
        for ordinal in 0..count {
            handles.push(raw::device_get(ordinal).check("cuDeviceGet")?);
        }
        let devices = CudaDevice::all(handles);
        let why = format!(
            "CUDA driver {}.{} loaded with {} device{}",
            version / 1000,
            (version % 1000) / 10,
            count,
            if count == 1 { "" } else { "s" }
        );
        Ok((CudaBackend { devices }, version, why))
    }
}
