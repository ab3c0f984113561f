//! Which backend runs, chosen once per process on first use: the real driver (`cuda`) where it
//! loads, else the host simulator (`sim`), or whichever `CUDA_NODE_BACKEND` forces.

use crate::backend::Backend;
use crate::error::{Error, Result};
use std::sync::OnceLock;

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

impl BackendInfo {
    /// Whether compiled kernels run; the simulator runs a kernel's host implementation instead.
    pub fn compiled_kernels(&self) -> bool {
        self.kind == BackendKind::Cuda
    }
}

pub struct Runtime {
    pub info: BackendInfo,
    pub backend: Box<dyn Backend>,
    /// How many devices there are, read once (fixed for the process): every creation checks
    /// its device against it, where asking the backend is two dynamic calls.
    pub devices: usize,
}

impl Runtime {
    fn new(info: BackendInfo, backend: Box<dyn Backend>) -> Runtime {
        let devices = backend.devices().count();
        Runtime { info, backend, devices }
    }
}

/// Refuses `what` unless the simulator runs: a simulated kernel's host implementation queued in
/// stream order waits for the JS thread, which only the simulator's blocking waits serve; on the
/// driver a synchronize on that thread would wait for it forever (the fuzzer found that hang).
pub fn require_simulator(what: &str) -> Result<()> {
    match runtime()?.info.kind {
        BackendKind::Sim => Ok(()),
        BackendKind::Cuda => Err(Error::cuda(
            crate::Code::CUDA_ERROR_NOT_SUPPORTED,
            format!("{what} runs on the simulator only: on the GPU a RawKernel launches its compiled kernel"),
        )),
    }
}

/// The environment variable that forces a backend.
pub const BACKEND_ENV: &str = "CUDA_NODE_BACKEND";

/// The process's runtime, chosen on first call. A failure (forcing `cuda` where no driver
/// loads) is kept and returned again to every caller, so the process never half-selects.
#[inline]
pub fn runtime() -> Result<&'static Runtime> {
    static RUNTIME: OnceLock<Result<Runtime>> = OnceLock::new();
    RUNTIME.get_or_init(|| select(std::env::var(BACKEND_ENV).ok().as_deref())).as_ref().map_err(Clone::clone)
}

/// WebAssembly has the simulator only: forcing `cuda` says so.
#[cfg(target_family = "wasm")]
fn select(forced: Option<&str>) -> Result<Runtime> {
    match forced.map(str::trim).unwrap_or("") {
        "sim" => sim(format!("{BACKEND_ENV}=sim (WebAssembly)")),
        "cuda" => Err(Error::cuda(
            crate::Code::CUDA_ERROR_NOT_INITIALIZED,
            format!("{BACKEND_ENV}=cuda, but this is the WebAssembly build, which has the simulator only"),
        )),
        "" => sim("the WebAssembly build has the simulator only".into()),
        other => Err(Error::range(format!("{BACKEND_ENV} must be 'cuda' or 'sim', got '{other}'"))),
    }
}

#[cfg(not(target_family = "wasm"))]
fn select(forced: Option<&str>) -> Result<Runtime> {
    match forced.map(str::trim).unwrap_or("") {
        "sim" => sim(format!("{BACKEND_ENV}=sim")),
        "cuda" => {
            let (backend, driver_version, why) = crate::cuda::CudaBackend::load().map_err(|e| match e {
                Error::Cuda { code, message } => Error::cuda(code, format!("{BACKEND_ENV}=cuda, but {message}")),
                other => other,
            })?;
            Ok(Runtime::new(
                BackendInfo { kind: BackendKind::Cuda, reason: format!("{BACKEND_ENV}=cuda; {why}"), driver_version: Some(driver_version) },
                Box::new(backend),
            ))
        }
        "" => match crate::cuda::CudaBackend::load() {
            Ok((backend, driver_version, why)) => Ok(Runtime::new(
                BackendInfo { kind: BackendKind::Cuda, reason: why, driver_version: Some(driver_version) },
                Box::new(backend),
            )),
            Err(e) => sim(format!("{}; using the simulator", unavailable(&e))),
        },
        other => Err(Error::range(format!("{BACKEND_ENV} must be 'cuda' or 'sim', got '{other}'"))),
    }
}

/// Why the driver is unusable, in a few words. The full story (where libcuda was looked for,
/// the driver's own message) is what forcing `CUDA_NODE_BACKEND=cuda` throws.
#[cfg(not(target_family = "wasm"))]
fn unavailable(e: &Error) -> String {
    if !crate::cuda::driver_present() {
        "no CUDA driver (libcuda) found".into()
    } else if e.is_code(crate::error::Code::CUDA_ERROR_NO_DEVICE) {
        "the CUDA driver found no device".into()
    } else {
        format!("the CUDA driver did not start ({})", e.code_name().unwrap_or_else(|| e.message().to_string()))
    }
}

fn sim(reason: String) -> Result<Runtime> {
    let backend = crate::sim::SimBackend::from_env()?;
    Ok(Runtime::new(BackendInfo { kind: BackendKind::Sim, reason, driver_version: None }, Box::new(backend)))
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
    fn the_default_says_in_one_short_sentence_why_it_simulates() {
        if crate::cuda::driver_present() {
            return;
        }
        let rt = select(None).unwrap();
        assert_eq!(rt.info.reason, "no CUDA driver (libcuda) found; using the simulator");
    }

    #[test]
    fn unknown_backend_is_a_range_error() {
        assert!(matches!(select(Some("opencl")), Err(Error::Range(m)) if m.contains("opencl")));
    }

    #[test]
    #[ignore = "needs a machine without a CUDA driver: .ci/run (no GPU) runs it with --include-ignored"]
    fn forcing_cuda_without_a_driver_says_why() {
        assert!(!crate::cuda::driver_present(), "a CUDA driver is present: this test is for machines without one");
        let err = select(Some("cuda")).err().expect("no driver here, so forcing cuda must fail");
        assert!(err.is_code(Code::CUDA_ERROR_NOT_INITIALIZED), "{err}");
        assert!(err.message().contains("libcuda"), "{err}");
    }
}
