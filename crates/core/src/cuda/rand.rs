//! cuRAND on the real device: the library loaded at run time (`libcurand.so.10`, or NVIDIA's
//! wheels' folders), a generator per `Generator`, bound to the call's stream at each call.

use super::device::{CudaBackend, CudaDevice};
use super::own::own;
use super::stream::CudaStream;
use crate::dynlib;
use crate::error::{Error, Result};
use crate::ops::rand::{Dist, Generate, GeneratorOps, GeneratorOrdering, OutType, RandOps, RngKind};
use crate::ops::{AllocOps, StreamOps};
use cudarc::driver::sys;
use libloading::Library;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::sync::{Arc, OnceLock};

type Gen = *mut c_void;
type Status = c_int;

/// The entry points used, with curand.h's signatures.
struct Curand {
    _lib: Library,
    create: unsafe extern "C" fn(*mut Gen, c_int) -> Status,
    destroy: unsafe extern "C" fn(Gen) -> Status,
    set_stream: unsafe extern "C" fn(Gen, sys::CUstream) -> Status,
    set_seed: unsafe extern "C" fn(Gen, c_ulonglong) -> Status,
    set_offset: unsafe extern "C" fn(Gen, c_ulonglong) -> Status,
    set_dims: unsafe extern "C" fn(Gen, c_uint) -> Status,
    set_ordering: unsafe extern "C" fn(Gen, c_int) -> Status,
    bits: unsafe extern "C" fn(Gen, *mut c_uint, usize) -> Status,
    bits64: unsafe extern "C" fn(Gen, *mut c_ulonglong, usize) -> Status,
    uniform: unsafe extern "C" fn(Gen, *mut f32, usize) -> Status,
    uniform_d: unsafe extern "C" fn(Gen, *mut f64, usize) -> Status,
    normal: unsafe extern "C" fn(Gen, *mut f32, usize, f32, f32) -> Status,
    normal_d: unsafe extern "C" fn(Gen, *mut f64, usize, f64, f64) -> Status,
    log_normal: unsafe extern "C" fn(Gen, *mut f32, usize, f32, f32) -> Status,
    log_normal_d: unsafe extern "C" fn(Gen, *mut f64, usize, f64, f64) -> Status,
    poisson: unsafe extern "C" fn(Gen, *mut c_uint, usize, f64) -> Status,
}

// SAFETY: the function pointers and the library handle may be used from any thread.
unsafe impl Send for Curand {}
// SAFETY: as above.
unsafe impl Sync for Curand {}

fn curand() -> Result<&'static Curand> {
    static C: OnceLock<std::result::Result<Curand, String>> = OnceLock::new();
    C.get_or_init(|| {
        let lib = dynlib::open(&dynlib::candidates("curand", "CUDA_NODE_CURAND_PATH", &["10"], &["curand64_10.dll"]))?;
        macro_rules! sym {
            ($n:literal) => {
                // SAFETY: cuRAND's host API entry points, with the signatures declared in `Curand` (curand.h).
                *unsafe { lib.get($n) }.map_err(|e| format!("{e}"))?
            };
        }
        Ok(Curand {
            create: sym!(b"curandCreateGenerator\0"),
            destroy: sym!(b"curandDestroyGenerator\0"),
            set_stream: sym!(b"curandSetStream\0"),
            set_seed: sym!(b"curandSetPseudoRandomGeneratorSeed\0"),
            set_offset: sym!(b"curandSetGeneratorOffset\0"),
            set_dims: sym!(b"curandSetQuasiRandomGeneratorDimensions\0"),
            set_ordering: sym!(b"curandSetGeneratorOrdering\0"),
            bits: sym!(b"curandGenerate\0"),
            bits64: sym!(b"curandGenerateLongLong\0"),
            uniform: sym!(b"curandGenerateUniform\0"),
            uniform_d: sym!(b"curandGenerateUniformDouble\0"),
            normal: sym!(b"curandGenerateNormal\0"),
            normal_d: sym!(b"curandGenerateNormalDouble\0"),
            log_normal: sym!(b"curandGenerateLogNormal\0"),
            log_normal_d: sym!(b"curandGenerateLogNormalDouble\0"),
            poisson: sym!(b"curandGeneratePoisson\0"),
            _lib: lib,
        })
    })
    .as_ref()
    .map_err(|tried| {
        Error::named(
            "CURAND_STATUS_NOT_INITIALIZED",
            format!("cuRAND could not be loaded: looked for {tried}. Install CUDA's cuRAND (pip install nvidia-curand-cu12), or set CUDA_NODE_CURAND_PATH to the library"),
        )
    })
}

/// A cuRAND status as an error named as curand.h names it.
fn status(s: Status, call: &str) -> Result<()> {
    let name = match s {
        0 => return Ok(()),
        100 => "CURAND_STATUS_VERSION_MISMATCH",
        101 => "CURAND_STATUS_NOT_INITIALIZED",
        102 => "CURAND_STATUS_ALLOCATION_FAILED",
        103 => "CURAND_STATUS_TYPE_ERROR",
        104 => "CURAND_STATUS_OUT_OF_RANGE",
        105 => "CURAND_STATUS_LENGTH_NOT_MULTIPLE",
        106 => "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED",
        201 => "CURAND_STATUS_LAUNCH_FAILURE",
        202 => "CURAND_STATUS_PREEXISTING_FAILURE",
        203 => "CURAND_STATUS_INITIALIZATION_FAILED",
        204 => "CURAND_STATUS_ARCH_MISMATCH",
        _ => "CURAND_STATUS_INTERNAL_ERROR",
    };
    Err(Error::named(name, format!("{call} failed with status {s}")))
}

struct CudaGenerator {
    dev: Arc<CudaDevice>,
    raw: usize,
    /// The stream cuRAND was last given (`curandSetStream`), set again only when another is
    /// asked: setting it at every call made 2^26 Philox normals 18× slower on an H200.
    stream: std::sync::atomic::AtomicUsize,
}

impl Drop for CudaGenerator {
    fn drop(&mut self) {
        let Ok(api) = curand() else { return };
        if self.dev.bind().is_err() {
            return;
        }
        // SAFETY: made by curandCreateGenerator and destroyed once, here; work it queued keeps
        // what it needs (cuRAND's destroy waits for nothing it does not own).
        let s = unsafe { (api.destroy)(self.raw as Gen) };
        if let Err(e) = status(s, "curandDestroyGenerator") {
            super::dropped::record_error(e);
        }
    }
}

impl GeneratorOps for CudaGenerator {
    fn set_seed(&self, seed: u64) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: a live generator of this device, its context current.
        status(unsafe { (curand()?.set_seed)(self.raw as Gen, seed) }, "curandSetPseudoRandomGeneratorSeed")
    }

    fn set_offset(&self, offset: u64) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: as in `set_seed`.
        status(unsafe { (curand()?.set_offset)(self.raw as Gen, offset) }, "curandSetGeneratorOffset")
    }

    fn set_dimensions(&self, dims: u32) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: as in `set_seed`.
        status(unsafe { (curand()?.set_dims)(self.raw as Gen, dims) }, "curandSetQuasiRandomGeneratorDimensions")
    }

    fn set_ordering(&self, ordering: GeneratorOrdering) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: as in `set_seed`; `ordering` is a `curandOrdering_t` value.
        status(unsafe { (curand()?.set_ordering)(self.raw as Gen, ordering as c_int) }, "curandSetGeneratorOrdering")
    }

    fn generate(&self, stream: &dyn StreamOps, g: &Generate, out: &dyn AllocOps) -> Result<()> {
        let s = own::<CudaStream>(stream.as_any());
        let api = curand()?;
        self.dev.bind()?;
        let h = self.raw as Gen;
        let queue = s.queue();
        if self.stream.load(std::sync::atomic::Ordering::Acquire) != queue as usize {
            // SAFETY: a live generator and a live stream, both of this device.
            status(unsafe { (api.set_stream)(h, queue) }, "curandSetStream")?;
            self.stream.store(queue as usize, std::sync::atomic::Ordering::Release);
        }
        let p = out.ptr() + g.off;
        let n = g.count as usize;
        // SAFETY: `n` elements of the type written lie inside a live allocation of this device
        // from `p`, aligned to the element (checked by the model).
        let r = unsafe {
            match (g.dist, g.dtype) {
                (Dist::Bits, OutType::U64) => (api.bits64)(h, p as *mut c_ulonglong, n),
                (Dist::Bits, _) => (api.bits)(h, p as *mut c_uint, n),
                (Dist::Poisson { lambda }, _) => (api.poisson)(h, p as *mut c_uint, n, lambda),
                (Dist::Uniform, OutType::F64) => (api.uniform_d)(h, p as *mut f64, n),
                (Dist::Uniform, _) => (api.uniform)(h, p as *mut f32, n),
                (Dist::Normal { mean, stddev }, OutType::F64) => (api.normal_d)(h, p as *mut f64, n, mean, stddev),
                (Dist::Normal { mean, stddev }, _) => (api.normal)(h, p as *mut f32, n, mean as f32, stddev as f32),
                (Dist::LogNormal { mean, stddev }, OutType::F64) => (api.log_normal_d)(h, p as *mut f64, n, mean, stddev),
                (Dist::LogNormal { mean, stddev }, _) => (api.log_normal)(h, p as *mut f32, n, mean as f32, stddev as f32),
            }
        };
        status(r, "curandGenerate")
    }

    fn handle(&self) -> u64 {
        self.raw as u64
    }
}

impl RandOps for CudaBackend {
    fn create_generator(&self, ordinal: usize, kind: RngKind) -> Result<Box<dyn GeneratorOps>> {
        let api = curand()?;
        let dev = self.devices[ordinal].clone();
        dev.bind()?;
        let mut raw: Gen = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; the device's context is current, so the
        // generator belongs to it.
        status(unsafe { (api.create)(&mut raw, kind as c_int) }, "curandCreateGenerator")?;
        Ok(Box::new(CudaGenerator { dev, raw: raw as usize, stream: usize::MAX.into() }))
    }
}
