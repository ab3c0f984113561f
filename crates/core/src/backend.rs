//! The seam between the CUDA model and what runs it: the real driver (`cuda`) or the host
//! simulator (`sim`). One backend is chosen per process, once, on first use.

use crate::device::{DeviceProps, MemInfo};
use crate::error::{Error, Result};
use crate::event::EventFlags;
use crate::ops::{AllocOps, EventOps, StreamOps};
use std::sync::OnceLock;

/// What a backend must do. Each method takes device ordinals already checked against
/// `device_count()`.
pub trait Backend: Send + Sync + 'static {
    fn device_count(&self) -> usize;
    fn device_props(&self, ordinal: usize) -> Result<DeviceProps>;
    fn mem_info(&self, ordinal: usize) -> Result<MemInfo>;
    /// Waits for all work on the device (`cuCtxSynchronize`).
    fn synchronize_device(&self, ordinal: usize) -> Result<()>;
    /// `(least, greatest)`: lower numbers are higher priorities (`cuCtxGetStreamPriorityRange`).
    fn priority_range(&self, ordinal: usize) -> Result<(i32, i32)>;
    fn stream_create(&self, ordinal: usize, nonblocking: bool, priority: i32) -> Result<Box<dyn StreamOps>>;
    fn stream_legacy(&self, ordinal: usize) -> Result<Box<dyn StreamOps>>;
    fn stream_per_thread(&self, ordinal: usize) -> Result<Box<dyn StreamOps>>;
    /// Wraps a foreign stream handle; also says whether it is non-blocking.
    fn stream_external(&self, ordinal: usize, handle: u64) -> Result<(Box<dyn StreamOps>, bool)>;
    fn event_create(&self, ordinal: usize, flags: EventFlags) -> Result<Box<dyn EventOps>>;
    /// Opens an interprocess event of another process (`cuIpcOpenEventHandle`).
    fn event_from_ipc(&self, ordinal: usize, handle: &[u8; 64]) -> Result<Box<dyn EventOps>>;
    /// Pinned host memory of `size` > 0 bytes (`cuMemHostAlloc`, portable), freed when dropped.
    fn host_alloc(&self, size: u64) -> Result<Box<dyn crate::pinned::PinnedOps>>;
    /// `(used, reserved)` bytes of the device's stream-ordered pool.
    fn async_pool_stats(&self, ordinal: usize) -> Result<(u64, u64)>;
    /// Releases the stream-ordered pool's unused memory (`cuMemPoolTrimTo(pool, 0)`).
    fn async_pool_trim(&self, ordinal: usize) -> Result<()>;
    /// The device's cuBLAS or cuSOLVER handle, created on first use.
    fn library_handle(&self, ordinal: usize, lib: crate::blas::Library) -> Result<u64>;
    /// Destroys every device's cuBLAS and cuSOLVER handles (at exit).
    fn release_library_handles(&self) {}
    /// `cuProfilerStart` / `cuProfilerStop` (the simulator only records it).
    fn profiler(&self, on: bool) -> Result<()>;
    /// Loads a cubin or PTX image into the device's context (`cuModuleLoadData`).
    fn module_load(&self, ordinal: usize, image: &[u8]) -> Result<Box<dyn crate::ops::ModuleOps>>;
    /// A device allocation of `size` > 0 bytes (`cuMemAlloc`), freed when dropped.
    fn alloc(&self, ordinal: usize, size: u64) -> Result<Box<dyn AllocOps>>;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    Cuda,
    Sim,
}

impl BackendKind {
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cuda => "cuda",
            BackendKind::Sim => "sim",
        }
    }
}

/// Which backend runs, and why (`backend()` in JS).
#[derive(Clone, Debug)]
pub struct BackendInfo {
    pub kind: BackendKind,
    pub reason: String,
    /// The driver's version as `cuDriverGetVersion` gives it (13000 for 13.0); cuda only.
    pub driver_version: Option<i32>,
}

pub struct Runtime {
    pub info: BackendInfo,
    pub backend: Box<dyn Backend>,
}

impl Runtime {
    /// Checks a device id from JS and returns it as an ordinal.
    pub fn ordinal(&self, id: f64) -> Result<usize> {
        crate::device::check_ordinal(id, self.backend.device_count())
    }
}

/// The environment variable that forces a backend.
pub const BACKEND_ENV: &str = "CUDA_NODE_BACKEND";

/// The process's runtime, chosen on first call. A failure (forcing `cuda` where no driver
/// loads) is kept and returned again to every caller, so the process never half-selects.
pub fn runtime() -> Result<&'static Runtime> {
    static RUNTIME: OnceLock<Result<Runtime>> = OnceLock::new();
    RUNTIME.get_or_init(|| select(std::env::var(BACKEND_ENV).ok().as_deref())).as_ref().map_err(Clone::clone)
}

fn select(forced: Option<&str>) -> Result<Runtime> {
    match forced.map(str::trim).unwrap_or("") {
        "sim" => sim(format!("{BACKEND_ENV}=sim")),
        "cuda" => {
            let (backend, driver_version, why) = crate::cuda::CudaBackend::load().map_err(|e| match e {
                Error::Cuda { code, message } => Error::cuda(code, format!("{BACKEND_ENV}=cuda, but {message}")),
                other => other,
            })?;
            Ok(Runtime {
                info: BackendInfo { kind: BackendKind::Cuda, reason: format!("{BACKEND_ENV}=cuda; {why}"), driver_version: Some(driver_version) },
                backend: Box::new(backend),
            })
        }
        "" => match crate::cuda::CudaBackend::load() {
            Ok((backend, driver_version, why)) => Ok(Runtime {
                info: BackendInfo { kind: BackendKind::Cuda, reason: why, driver_version: Some(driver_version) },
                backend: Box::new(backend),
            }),
            Err(e) => sim(format!("no usable CUDA driver ({}); using the simulator", e.message())),
        },
        other => Err(Error::range(format!("{BACKEND_ENV} must be 'cuda' or 'sim', got '{other}'"))),
    }
}

fn sim(reason: String) -> Result<Runtime> {
    let backend = crate::sim::SimBackend::from_env()?;
    Ok(Runtime { info: BackendInfo { kind: BackendKind::Sim, reason, driver_version: None }, backend: Box::new(backend) })
}

/// Forcing `cuda` where it cannot load is an error that says why; an unknown name is a RangeError.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;

    #[test]
    fn forcing_sim_selects_sim() {
        let rt = select(Some("sim")).unwrap();
        assert_eq!(rt.info.kind, BackendKind::Sim);
        assert!(rt.info.reason.contains("CUDA_NODE_BACKEND=sim"));
    }

    #[test]
    fn unknown_backend_is_a_range_error() {
        assert!(matches!(select(Some("opencl")), Err(Error::Range(m)) if m.contains("opencl")));
    }

    #[test]
    #[ignore = "needs a machine without a CUDA driver: .ci/run (no GPU) runs it with --include-ignored"]
    fn forcing_cuda_without_a_driver_says_why() {
        assert!(
            !crate::cuda::driver_present(),
            "a CUDA driver is present: this test is for machines without one"
        );
        let err = select(Some("cuda")).err().expect("no driver here, so forcing cuda must fail");
        assert!(err.is_code(Code::CUDA_ERROR_NOT_INITIALIZED), "{err}");
        assert!(err.message().contains("libcuda"), "{err}");
    }
}
