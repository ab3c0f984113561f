//! cuFFT on the real device, loaded at run time (`libcufft.so.12` / `.11`, NVIDIA's wheels'
//! `nvidia/cu13/lib` and `nvidia/cufft/lib`): a plan made with auto-allocation off, as CuPy
//! makes them, so its work area is the caller's; each run binds the plan to its stream. Xt plans
//! (half, bfloat16) are made with cufftXtMakePlanMany and run with cufftXtExec; LTO callbacks are
//! set with cufftXtSetJITCallback before the plan is made; a plan over several devices
//! (cufftXtSetGPUs) runs on a descriptor whose buffers are the caller's, as CuPy's are.

use super::device::{CudaBackend, CudaDevice};
use super::own::own;
use super::stream::CudaStream;
use crate::dynlib;
use crate::error::{Error, Result};
use crate::ops::fft::{Callback, Direction, Exec, FftMultiOps, FftOps, FftPlanOps, FftType, Part, PlanSpec};
use crate::ops::{AllocOps, StreamOps};
use cudarc::driver::sys;
use libloading::Library;
use std::ffi::{c_char, c_int, c_longlong, c_void, CString};
use std::sync::{Arc, Mutex, OnceLock};

/// `cufftHandle` (an int) and `cufftResult`.
type Handle = c_int;
type Status = c_int;
type ExecC = unsafe extern "C" fn(Handle, *mut c_void, *mut c_void, c_int) -> Status;
type ExecR = unsafe extern "C" fn(Handle, *mut c_void, *mut c_void) -> Status;
type ExecDesc = unsafe extern "C" fn(Handle, *mut LibXtDesc, *mut LibXtDesc, c_int) -> Status;
/// `cufftXtSetJITCallback` (cuFFT 12) and `__cufftXtSetJITCallback_12_7` (11.3 to 11.4): plan,
/// the callback's symbol name, its LTO-IR and size, `cufftXtCallbackType`, `callerInfo`.
type SetJit = unsafe extern "C" fn(Handle, *const c_char, *const c_void, usize, c_int, *mut *mut c_void) -> Status;

/// `MAX_CUDA_DESCRIPTOR_GPUS` (cudalibxt.h).
const MAX_GPUS: usize = 64;

/// `cudaXtDesc` (cudalibxt.h): each GPU's buffer.
#[repr(C)]
struct XtDesc {
    version: c_int,
    n_gpus: c_int,
    gpus: [c_int; MAX_GPUS],
    data: [*mut c_void; MAX_GPUS],
    size: [usize; MAX_GPUS],
    state: *mut c_void,
}

/// `cudaLibXtDesc` (cudalibxt.h): a descriptor of cuFFT's (`library` 0, `LIB_FORMAT_CUFFT`).
#[repr(C)]
struct LibXtDesc {
    version: c_int,
    descriptor: *mut XtDesc,
    library: c_int,
    sub_format: c_int,
    lib_descriptor: *mut c_void,
}

/// `cufftXtSubFormat`'s `CUFFT_XT_FORMAT_INPLACE` and `cufftXtCopyType`'s `CUFFT_COPY_DEVICE_TO_DEVICE`.
const FORMAT_INPLACE: c_int = 2;
const COPY_DEVICE_TO_DEVICE: c_int = 2;

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
    // The Xt entry points: optional, so a cuFFT without one still runs the classic plans.
    #[allow(clippy::type_complexity)]
    xt_make_plan_many: Option<unsafe extern "C" fn(
        Handle,
        c_int,
        *mut c_longlong,
        *mut c_longlong,
        c_longlong,
        c_longlong,
        c_int,
        *mut c_longlong,
        c_longlong,
        c_longlong,
        c_int,
        c_longlong,
        *mut usize,
        c_int,
    ) -> Status>,
    xt_exec: Option<ExecC>,
    xt_set_gpus: Option<unsafe extern "C" fn(Handle, c_int, *mut c_int) -> Status>,
    make_plan_1d: Option<unsafe extern "C" fn(Handle, c_int, c_int, c_int, *mut usize) -> Status>,
    xt_set_work_area: Option<unsafe extern "C" fn(Handle, *mut *mut c_void) -> Status>,
    xt_memcpy: Option<unsafe extern "C" fn(Handle, *mut c_void, *mut c_void, c_int) -> Status>,
    xt_exec_descriptor_c2c: Option<ExecDesc>,
    xt_exec_descriptor_z2z: Option<ExecDesc>,
    /// Absent before the cuFFT of CUDA 12.8 (11.3's took no function name).
    set_jit_callback: Option<SetJit>,
}

// SAFETY: the function pointers and the library handle may be used from any thread.
unsafe impl Send for Cufft {}
// SAFETY: as above.
unsafe impl Sync for Cufft {}

fn cufft() -> Result<&'static Cufft> {
    static C: OnceLock<std::result::Result<Cufft, String>> = OnceLock::new();
    C.get_or_init(|| {
        // cuFFT 11.2 and later need nvJitLink (for LTO callbacks, and as a dependency of the
        // library): loaded first from where our loader looks (CUDA_NODE_LIBRARY_PATH, the
        // wheels), the dynamic linker finds it by its name when it loads cuFFT. Its absence is
        // cuFFT's to report.
        let _ = crate::nvjitlink::version();
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
        macro_rules! opt {
            ($n:literal) => {
                // SAFETY: as above (cufftXt.h); `None` where this cuFFT lacks it.
                unsafe { lib.get($n) }.ok().map(|s| *s)
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
            xt_make_plan_many: opt!(b"cufftXtMakePlanMany\0"),
            xt_exec: opt!(b"cufftXtExec\0"),
            xt_set_gpus: opt!(b"cufftXtSetGPUs\0"),
            make_plan_1d: opt!(b"cufftMakePlan1d\0"),
            xt_set_work_area: opt!(b"cufftXtSetWorkArea\0"),
            xt_memcpy: opt!(b"cufftXtMemcpy\0"),
            xt_exec_descriptor_c2c: opt!(b"cufftXtExecDescriptorC2C\0"),
            xt_exec_descriptor_z2z: opt!(b"cufftXtExecDescriptorZ2Z\0"),
            set_jit_callback: jit_symbol(&lib),
            _lib: lib,
        })
    })
    .as_ref()
    .map_err(|tried| missing(tried))
}

/// The JIT-callback entry point with the symbol-name signature: cuFFT 12's `cufftXtSetJITCallback`
/// (its version says 12 or more), or 11.3–11.4's `__cufftXtSetJITCallback_12_7` (the headers of
/// those versions bind the public name to it; their `cufftXtSetJITCallback` takes no name).
fn jit_symbol(lib: &Library) -> Option<SetJit> {
    // SAFETY: cufftGetVersion's signature (cufft.h).
    let get_version: unsafe extern "C" fn(*mut c_int) -> Status = *unsafe { lib.get(b"cufftGetVersion\0") }.ok()?;
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid out-pointer; the call needs no device.
    if unsafe { get_version(&mut v) } != 0 {
        return None;
    }
    let name: &[u8] = if v >= 12000 { b"cufftXtSetJITCallback\0" } else { b"__cufftXtSetJITCallback_12_7\0" };
    // SAFETY: in the versions chosen above this symbol has `SetJit`'s signature (cufftXt.h).
    unsafe { lib.get::<SetJit>(name) }.ok().map(|s| *s)
}

/// An optional entry point, or the error naming it.
fn need<T>(f: Option<T>, name: &str) -> Result<T> {
    f.ok_or_else(|| Error::named("CUFFT_NOT_SUPPORTED", format!("this cuFFT has no {name}: use the cuFFT of CUDA 12 or later")))
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
    /// Made with cufftXtMakePlanMany, run with cufftXtExec.
    xt: bool,
    work_size: u64,
    lock: Mutex<()>,
    /// What cufftXtSetJITCallback was given, kept while the plan lives: cuFFT keeps the
    /// pointers, not copies, and reads them when the plan is made (a name freed after the set
    /// made cufftMakePlanMany64 fail with CUFFT_INVALID_SIZE on the H200).
    _callbacks: Vec<KeptCallback>,
}

/// A callback's name, LTO-IR and `callerInfo` array, at addresses stable while the plan lives.
struct KeptCallback {
    _name: CString,
    _ltoir: Box<[u8]>,
    /// `void *callerInfo[1]`, the device address as an integer of pointer width.
    _info: Box<[usize; 1]>,
}

impl FftOps for CudaBackend {
    fn plan(&self, ordinal: usize, spec: &PlanSpec, callbacks: &[Callback]) -> Result<Box<dyn FftPlanOps>> {
        let api = cufft()?;
        let dev = self.devices[ordinal].clone();
        dev.bind()?;
        let mut handle: Handle = 0;
        // SAFETY: `handle` is a valid out-pointer; the device's context is current.
        status(unsafe { (api.create)(&mut handle) }, "cufftCreate")?;
        // From here the plan is destroyed with `CudaPlan` if a step fails.
        let mut plan = CudaPlan { dev, handle, ty: spec.ty, xt: spec.xt.is_some(), work_size: 0, lock: Mutex::new(()), _callbacks: Vec::new() };
        // SAFETY: `handle` is the plan just created, not yet made.
        status(unsafe { (api.set_auto_allocation)(handle, 0) }, "cufftSetAutoAllocation")?;
        for cb in callbacks {
            plan._callbacks.push(set_callback(api, handle, spec, cb)?);
        }
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
        if let Some(p) = spec.xt {
            let (it, ot) = (p.data_type(spec.ty.complex(0)), p.data_type(spec.ty.complex(1)));
            let make = need(api.xt_make_plan_many, "cufftXtMakePlanMany")?;
            // SAFETY: as for cufftMakePlanMany64 below; the types are cudaDataType values.
            let made = unsafe {
                make(
                    handle,
                    n.len() as c_int,
                    n.as_mut_ptr(),
                    inembed,
                    istride,
                    idist,
                    it,
                    onembed,
                    ostride,
                    odist,
                    ot,
                    spec.batch as c_longlong,
                    &mut work,
                    p.data_type(true),
                )
            };
            status(made, "cufftXtMakePlanMany")?;
            plan.work_size = work as u64;
            return Ok(Box::new(plan));
        }
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

    fn plan_multi(&self, devices: &[usize], spec: &PlanSpec) -> Result<Box<dyn FftMultiOps>> {
        let api = cufft()?;
        Ok(Box::new(self.make_multi(api, devices, spec)?))
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
                _ if self.xt => need(api.xt_exec, "cufftXtExec")?(self.handle, i, o, d),
                FftType::C2C => (api.exec_c2c)(self.handle, i, o, d),
                FftType::Z2Z => (api.exec_z2z)(self.handle, i, o, d),
                FftType::R2C => (api.exec_r2c)(self.handle, i, o),
                FftType::D2Z => (api.exec_d2z)(self.handle, i, o),
                FftType::C2R => (api.exec_c2r)(self.handle, i, o),
                FftType::Z2D => (api.exec_z2d)(self.handle, i, o),
            }
        };
        let call = if self.xt { "cufftXtExec".to_string() } else { format!("cufftExec{}", self.ty.name().to_ascii_uppercase()) };
        status(r, &call)
    }
}

/// Sets an LTO callback on a plan not yet made; what it gave cuFFT is returned, for the plan to keep.
fn set_callback(api: &Cufft, handle: Handle, spec: &PlanSpec, cb: &Callback) -> Result<KeptCallback> {
    let Some(set) = api.set_jit_callback else {
        return Err(Error::named(
            "CUFFT_NOT_SUPPORTED",
            "this cuFFT has no LTO callbacks taking a function's name (cufftXtSetJITCallback): they need the cuFFT of CUDA 12.8 or later",
        ));
    };
    let name = CString::new(cb.name.as_str()).map_err(|_| Error::type_error("a callback's name must not contain a NUL byte"))?;
    let mut kept = KeptCallback { _name: name, _ltoir: cb.ltoir.clone().into_boxed_slice(), _info: Box::new([cb.caller_info as usize]) };
    let infos: *mut *mut c_void = if cb.caller_info == 0 { std::ptr::null_mut() } else { kept._info.as_mut_ptr() as *mut *mut c_void };
    // SAFETY: the plan is created and not yet made; the name is NUL-terminated; the LTO-IR holds
    // `len` bytes; `infos` is NULL or one device address (the plan has one GPU), which the model
    // keeps alive while the plan lives. All three stay at their addresses while the plan lives
    // (the plan keeps `kept`), as cuFFT reads them again when the plan is made.
    let r = unsafe { set(handle, kept._name.as_ptr(), kept._ltoir.as_ptr() as *const c_void, kept._ltoir.len(), cb.kind(spec), infos) };
    status(r, "cufftXtSetJITCallback")?;
    Ok(kept)
}

/// A plan over several devices, run on descriptors of the caller's buffers.
struct CudaMultiPlan {
    devs: Vec<Arc<CudaDevice>>,
    ordinals: Vec<usize>,
    handle: Handle,
    double: bool,
    batch: u64,
    work_sizes: Vec<u64>,
    lock: Mutex<()>,
}

/// A descriptor (boxed: cuFFT keeps and writes the one it is given during the call) of `parts`.
fn descriptor(ordinals: &[usize], parts: &[Part<'_>]) -> (Box<XtDesc>, LibXtDesc) {
    let mut d = Box::new(XtDesc {
        version: 0,
        n_gpus: parts.len() as c_int,
        gpus: [0; MAX_GPUS],
        data: [std::ptr::null_mut(); MAX_GPUS],
        size: [0; MAX_GPUS],
        state: std::ptr::null_mut(),
    });
    for (k, p) in parts.iter().enumerate() {
        d.gpus[k] = ordinals[k] as c_int;
        d.data[k] = (p.mem.ptr() + p.offset) as *mut c_void;
        d.size[k] = p.len as usize;
    }
    let lib =
        LibXtDesc { version: 0, descriptor: &mut *d, library: 0, sub_format: FORMAT_INPLACE, lib_descriptor: std::ptr::null_mut() };
    (d, lib)
}

impl CudaBackend {
    fn make_multi(&self, api: &Cufft, devices: &[usize], spec: &PlanSpec) -> Result<CudaMultiPlan> {
        let devs: Vec<Arc<CudaDevice>> = devices.iter().map(|&d| self.devices[d].clone()).collect();
        devs[0].bind()?;
        let mut handle: Handle = 0;
        // SAFETY: `handle` is a valid out-pointer; the first device's context is current.
        status(unsafe { (api.create)(&mut handle) }, "cufftCreate")?;
        let mut plan = CudaMultiPlan {
            devs,
            ordinals: devices.to_vec(),
            handle,
            double: spec.ty.double(),
            batch: spec.batch,
            work_sizes: Vec::new(),
            lock: Mutex::new(()),
        };
        // SAFETY: the plan just created, not yet made.
        status(unsafe { (api.set_auto_allocation)(handle, 0) }, "cufftSetAutoAllocation")?;
        let mut gpus: Vec<c_int> = devices.iter().map(|&d| d as c_int).collect();
        let set_gpus = need(api.xt_set_gpus, "cufftXtSetGPUs")?;
        // SAFETY: `gpus` holds `gpus.len()` ordinals; the plan is not yet made.
        status(unsafe { set_gpus(handle, gpus.len() as c_int, gpus.as_mut_ptr()) }, "cufftXtSetGPUs")?;
        let mut work = vec![0usize; devices.len()];
        let make = need(api.make_plan_1d, "cufftMakePlan1d")?;
        // SAFETY: a multi-GPU plan writes one work size a GPU into `work`, which holds that many.
        let made = unsafe {
            make(handle, spec.shape[0] as c_int, spec.ty.code(), spec.batch as c_int, work.as_mut_ptr())
        };
        status(made, "cufftMakePlan1d")?;
        plan.work_sizes = work.into_iter().map(|w| w as u64).collect();
        Ok(plan)
    }
}

impl FftMultiOps for CudaMultiPlan {
    fn work_sizes(&self) -> Vec<u64> {
        self.work_sizes.clone()
    }

    fn set_work_areas(&self, areas: &[Part<'_>]) -> Result<()> {
        let api = cufft()?;
        let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.devs[0].bind()?;
        let mut ptrs: Vec<*mut c_void> = areas.iter().map(|a| (a.mem.ptr() + a.offset) as *mut c_void).collect();
        let set = need(api.xt_set_work_area, "cufftXtSetWorkArea")?;
        // SAFETY: one area a GPU, each in a live allocation of its device of at least that GPU's
        // work size (checked by the caller), kept by the model while the plan lives.
        status(unsafe { set(self.handle, ptrs.as_mut_ptr()) }, "cufftXtSetWorkArea")
    }

    fn exec(&self, parts: &[Part<'_>], scratch: &[Part<'_>], direction: Direction) -> Result<bool> {
        let api = cufft()?;
        let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.devs[0].bind()?;
        let (_d, mut desc) = descriptor(&self.ordinals, parts);
        let run = if self.double {
            need(api.xt_exec_descriptor_z2z, "cufftXtExecDescriptorZ2Z")?
        } else {
            need(api.xt_exec_descriptor_c2c, "cufftXtExecDescriptorC2C")?
        };
        // SAFETY: the descriptor names one buffer a GPU of the plan, each in a live allocation of
        // that device holding its share (checked by the caller); in place.
        let r = unsafe { run(self.handle, &mut desc, &mut desc, direction.code()) };
        status(r, if self.double { "cufftXtExecDescriptorZ2Z" } else { "cufftXtExecDescriptorC2C" })?;
        let permuted = self.batch == 1;
        if permuted {
            // One transform comes back permuted across the GPUs (its descriptor now says
            // CUFFT_XT_FORMAT_INPLACE_SHUFFLED): a copy between descriptors puts it in order.
            let (_s, mut natural) = descriptor(&self.ordinals, scratch);
            // SAFETY: both descriptors name live buffers of the same sizes on the plan's GPUs.
            let r = unsafe {
                need(api.xt_memcpy, "cufftXtMemcpy")?(self.handle, &mut natural as *mut LibXtDesc as *mut c_void, &mut desc as *mut LibXtDesc as *mut c_void, COPY_DEVICE_TO_DEVICE)
            };
            status(r, "cufftXtMemcpy")?;
        }
        // The model waits for every device before it reads the result.
        Ok(permuted)
    }
}

impl Drop for CudaMultiPlan {
    fn drop(&mut self) {
        if let (Ok(api), Ok(_)) = (cufft(), self.devs[0].bind()) {
            // SAFETY: the plan was created by cufftCreate and is destroyed once; every run waited
            // for its devices.
            let _ = unsafe { (api.destroy)(self.handle) };
        }
        // cuFFT leaves the last GPU's context current after destroying a multi-GPU plan (CuPy's
        // note): bind the first again.
        let _ = self.devs[0].bind();
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
