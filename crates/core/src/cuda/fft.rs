//! cuFFT on the real device, loaded at run time (`libcufft.so.12` / `.11`, NVIDIA's wheels'
//! `nvidia/cu13/lib` and `nvidia/cufft/lib`): a plan made with auto-allocation off, as CuPy
//! makes them, so its work area is the caller's; each run binds the plan to its stream.

use super::device::{CudaBackend, CudaDevice};
use super::own::own;
use super::stream::CudaStream;
use crate::dynlib;
use crate::error::{Error, Result};
use crate::ops::fft::{Exec, FftOps, FftPlanOps, FftType, PlanSpec};
use crate::ops::{AllocOps, StreamOps};
use cudarc::driver::sys;
use libloading::Library;
use std::ffi::{c_int, c_longlong, c_void};
use std::sync::{Arc, Mutex, OnceLock};

/// `cufftHandle` (an int) and `cufftResult`.
type Handle = c_int;
type Status = c_int;
type ExecC = unsafe extern "C" fn(Handle, *mut c_void, *mut c_void, c_int) -> Status;
type ExecR = unsafe extern "C" fn(Handle, *mut c_void, *mut c_void) -> Status;

/// cuFFT's entry points, with the signatures of cufft.h and cufftXt.h.
struct Cufft {
    _lib: Library,
    create: unsafe extern "C" fn(*mut Handle) -> Status,
    destroy: unsafe extern "C" fn(Handle) -> Status,
    set_auto_allocation: unsafe extern "C" fn(Handle, c_int) -> Status,
    #[allow(clippy::type_complexity)]
    make_plan_many64: unsafe extern "C" fn(
        Handle,
        c_int,
        *mut c_longlong,
        *mut c_longlong,
        c_longlong,
        c_longlong,
        *mut c_longlong,
        c_longlong,
        c_longlong,
        c_int,
        c_longlong,
        *mut usize,
    ) -> Status,
    set_work_area: unsafe extern "C" fn(Handle, *mut c_void) -> Status,
    set_stream: unsafe extern "C" fn(Handle, sys::CUstream) -> Status,
    exec_c2c: ExecC,
    exec_z2z: ExecC,
    exec_r2c: ExecR,
    exec_d2z: ExecR,
    exec_c2r: ExecR,
    exec_z2d: ExecR,
}

// SAFETY: the function pointers and the library handle may be used from any thread.
unsafe impl Send for Cufft {}
// SAFETY: as above.
unsafe impl Sync for Cufft {}

fn cufft() -> Result<&'static Cufft> {
    static C: OnceLock<std::result::Result<Cufft, String>> = OnceLock::new();
    C.get_or_init(|| {
        let lib = dynlib::open(&dynlib::candidates(
            "cufft",
            "CUDA_NODE_CUFFT_PATH",
            // cuFFT 12 ships with CUDA 13, 11 with CUDA 12, 10 with CUDA 11.
            &["12", "11", "10"],
            &["cufft64_12.dll", "cufft64_11.dll", "cufft64_10.dll"],
        ))?;
        macro_rules! sym {
            ($n:literal) => {
                // SAFETY: cuFFT's entry points, with the signatures declared in `Cufft` (cufft.h).
                *unsafe { lib.get($n) }.map_err(|e| format!("{e}"))?
            };
        }
        Ok(Cufft {
            create: sym!(b"cufftCreate\0"),
            destroy: sym!(b"cufftDestroy\0"),
            set_auto_allocation: sym!(b"cufftSetAutoAllocation\0"),
            make_plan_many64: sym!(b"cufftMakePlanMany64\0"),
            set_work_area: sym!(b"cufftSetWorkArea\0"),
            set_stream: sym!(b"cufftSetStream\0"),
            exec_c2c: sym!(b"cufftExecC2C\0"),
            exec_z2z: sym!(b"cufftExecZ2Z\0"),
            exec_r2c: sym!(b"cufftExecR2C\0"),
            exec_d2z: sym!(b"cufftExecD2Z\0"),
            exec_c2r: sym!(b"cufftExecC2R\0"),
            exec_z2d: sym!(b"cufftExecZ2D\0"),
            _lib: lib,
        })
    })
    .as_ref()
    .map_err(|tried| missing(tried))
}

/// The error where cuFFT is not found: what was looked for, and how to install it.
fn missing(tried: &str) -> Error {
    Error::named(
        "CUFFT_NOT_INITIALIZED",
        format!(
            "cuFFT could not be loaded: looked for {tried}. Install CUDA's cuFFT (pip install nvidia-cufft-cu12, then \
             CUDA_NODE_LIBRARY_PATH=its site-packages), or set CUDA_NODE_CUFFT_PATH to the library"
        ),
    )
}

/// `cufftResult`'s names (cufft.h).
fn status(s: Status, call: &str) -> Result<()> {
    const NAMES: [&str; 21] = [
        "CUFFT_SUCCESS",
        "CUFFT_INVALID_PLAN",
        "CUFFT_ALLOC_FAILED",
        "CUFFT_INVALID_TYPE",
        "CUFFT_INVALID_VALUE",
        "CUFFT_INTERNAL_ERROR",
        "CUFFT_EXEC_FAILED",
        "CUFFT_SETUP_FAILED",
        "CUFFT_INVALID_SIZE",
        "CUFFT_UNALIGNED_DATA",
        "CUFFT_INCOMPLETE_PARAMETER_LIST",
        "CUFFT_INVALID_DEVICE",
        "CUFFT_PARSE_ERROR",
        "CUFFT_NO_WORKSPACE",
        "CUFFT_NOT_IMPLEMENTED",
        "CUFFT_LICENSE_ERROR",
        "CUFFT_NOT_SUPPORTED",
        "CUFFT_MISSING_DEPENDENCY",
        "CUFFT_NVRTC_FAILURE",
        "CUFFT_NVJITLINK_FAILURE",
        "CUFFT_NVSHMEM_FAILURE",
    ];
    if s == 0 {
        return Ok(());
    }
    let name = usize::try_from(s).ok().and_then(|i| NAMES.get(i)).copied().unwrap_or("CUFFT_UNKNOWN_ERROR");
    Err(Error::named(name, format!("{call} failed with status {s} ({name})")))
}

/// A plan of one device. Binding it to a stream and running it are one step under `lock`, so
/// two threads running one plan do not run on each other's stream.
struct CudaPlan {
    dev: Arc<CudaDevice>,
    handle: Handle,
    ty: FftType,
    work_size: u64,
    lock: Mutex<()>,
}

impl FftOps for CudaBackend {
    fn plan(&self, ordinal: usize, spec: &PlanSpec) -> Result<Box<dyn FftPlanOps>> {
        let api = cufft()?;
        let dev = self.devices[ordinal].clone();
        dev.bind()?;
        let mut handle: Handle = 0;
        // SAFETY: `handle` is a valid out-pointer; the device's context is current.
        status(unsafe { (api.create)(&mut handle) }, "cufftCreate")?;
        // From here the plan is destroyed with `CudaPlan` if a step fails.
        let mut plan = CudaPlan { dev, handle, ty: spec.ty, work_size: 0, lock: Mutex::new(()) };
        // SAFETY: `handle` is the plan just created, not yet made.
        status(unsafe { (api.set_auto_allocation)(handle, 0) }, "cufftSetAutoAllocation")?;
        let mut n: Vec<c_longlong> = spec.shape.iter().map(|&v| v as c_longlong).collect();
        let (mut inembed, mut onembed, istride, idist, ostride, odist) = match &spec.layout {
            Some([i, o]) => (
                i.embed.iter().map(|&v| v as c_longlong).collect::<Vec<_>>(),
                o.embed.iter().map(|&v| v as c_longlong).collect::<Vec<_>>(),
                i.stride as c_longlong,
                i.dist as c_longlong,
                o.stride as c_longlong,
                o.dist as c_longlong,
            ),
            // The basic layout (NULL embeds): cuFFT pads the real side itself when run in place.
            None => (Vec::new(), Vec::new(), 1, 0, 1, 0),
        };
        let ptr = |v: &mut Vec<c_longlong>| if v.is_empty() { std::ptr::null_mut() } else { v.as_mut_ptr() };
        let mut work: usize = 0;
        let (inembed, onembed) = (ptr(&mut inembed), ptr(&mut onembed));
        // SAFETY: `n` and the embeds hold `rank` sizes (or are NULL: the basic layout); `work` is
        // a valid out-pointer; the plan has auto-allocation off, so it allocates no work area.
        let made = unsafe {
            (api.make_plan_many64)(
                handle,
                n.len() as c_int,
                n.as_mut_ptr(),
                inembed,
                istride,
                idist,
                onembed,
                ostride,
                odist,
                spec.ty.code(),
                spec.batch as c_longlong,
                &mut work,
            )
        };
        status(made, "cufftMakePlanMany64")?;
        plan.work_size = work as u64;
        Ok(Box::new(plan))
    }
}

impl FftPlanOps for CudaPlan {
    fn work_size(&self) -> u64 {
        self.work_size
    }

    fn set_work_area(&self, area: &dyn AllocOps, offset: u64) -> Result<()> {
        let api = cufft()?;
        let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.dev.bind()?;
        // SAFETY: the area lies inside a live allocation of the plan's device, at least
        // `work_size` bytes (checked by the caller), which the model keeps while the plan lives.
        status(unsafe { (api.set_work_area)(self.handle, (area.ptr() + offset) as *mut c_void) }, "cufftSetWorkArea")
    }

    fn exec(&self, stream: &dyn StreamOps, x: &Exec, input: &dyn AllocOps, output: &dyn AllocOps) -> Result<()> {
        let api = cufft()?;
        let s = own::<CudaStream>(stream.as_any());
        let (i, o) = ((input.ptr() + x.in_off) as *mut c_void, (output.ptr() + x.out_off) as *mut c_void);
        let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.dev.bind()?;
        // SAFETY: the plan is live; the stream is live and of the plan's device.
        status(unsafe { (api.set_stream)(self.handle, s.queue()) }, "cufftSetStream")?;
        let d = x.direction.code();
        // SAFETY: input and output lie inside live allocations of the plan's device, holding
        // what the plan reads and writes for its type, batch and layout, aligned to their
        // elements (checked by the caller); the plan's work area is set.
        let r = unsafe {
            match self.ty {
                FftType::C2C => (api.exec_c2c)(self.handle, i, o, d),
                FftType::Z2Z => (api.exec_z2z)(self.handle, i, o, d),
                FftType::R2C => (api.exec_r2c)(self.handle, i, o),
                FftType::D2Z => (api.exec_d2z)(self.handle, i, o),
                FftType::C2R => (api.exec_c2r)(self.handle, i, o),
                FftType::Z2D => (api.exec_z2d)(self.handle, i, o),
            }
        };
        status(r, &format!("cufftExec{}", self.ty.name().to_ascii_uppercase()))
    }
}

impl Drop for CudaPlan {
    fn drop(&mut self) {
        if let (Ok(api), Ok(_)) = (cufft(), self.dev.bind()) {
            // SAFETY: the plan was created by cufftCreate and is destroyed once; runs already
            // queued keep what they launched.
            let _ = unsafe { (api.destroy)(self.handle) };
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_missing_cufft_is_a_typed_error_naming_what_was_looked_for() {
        let e = super::missing("/a/libcufft.so.12, libcufft.so.11");
        assert_eq!(e.code_name().as_deref(), Some("CUFFT_NOT_INITIALIZED"));
        assert!(e.to_string().contains("/a/libcufft.so.12, libcufft.so.11"), "{e}");
    }

    #[test]
    fn cufft_is_looked_for_by_the_names_cuda_11_to_13_give_it() {
        let c = crate::dynlib::candidates("cufft", "CUDA_NODE_TEST_NO_CUFFT_OVERRIDE", &["12", "11", "10"], &[]);
        if cfg!(target_os = "linux") {
            assert!(c.iter().any(|x| x == "libcufft.so.11"), "{c:?}");
        }
    }

    #[test]
    fn status_names_are_cuffts() {
        assert!(super::status(0, "x").is_ok());
        assert_eq!(super::status(9, "x").unwrap_err().code_name().as_deref(), Some("CUFFT_UNALIGNED_DATA"));
        assert_eq!(super::status(99, "x").unwrap_err().code_name().as_deref(), Some("CUFFT_UNKNOWN_ERROR"));
    }
}
