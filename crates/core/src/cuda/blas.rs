//! cuBLAS and cuSOLVER on the real device: loaded at run time, one handle per thread and device
//! (as CuPy keeps them: a handle must not be used by two threads at once, so none is shared),
//! bound to the stream at each call.

use super::device::{CudaBackend, CudaDevice};
use super::own::own;
use super::stream::CudaStream;
use crate::dynlib;
use crate::error::{Error, Result};
use super::blas_abi::{self, CArg};
use crate::ops::blas::{Axpy, BlasOps, Call, DataType, Entry, Library as Lib, MatMul, Real, Setting};
use crate::ops::blas_table::{value_words, Io, Param};
use crate::ops::{AllocOps, StreamOps};
use cudarc::driver::sys;
use libloading::Library;
use std::ffi::{c_int, c_longlong, c_void};
use std::sync::{Arc, OnceLock};

type Handle = *mut c_void;
type Status = c_int;
/// cublas<H|S|D>gemm(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), of
/// element `T` (`__half` as its bits, `u16`).
type GemmFn<T> = unsafe extern "C" fn(Handle, c_int, c_int, c_int, c_int, c_int, *const T, *const T, c_int, *const T, c_int, *const T, *mut T, c_int) -> Status;

struct Cublas {
    lib: Library,
    create: unsafe extern "C" fn(*mut Handle) -> Status,
    destroy: unsafe extern "C" fn(Handle) -> Status,
    set_stream: unsafe extern "C" fn(Handle, sys::CUstream) -> Status,
    sgemm: GemmFn<f32>,
    dgemm: GemmFn<f64>,
    saxpy: unsafe extern "C" fn(Handle, c_int, *const f32, *const f32, c_int, *mut f32, c_int) -> Status,
    daxpy: unsafe extern "C" fn(Handle, c_int, *const f64, *const f64, c_int, *mut f64, c_int) -> Status,
    /// cublasHgemm: as sgemm, with `__half` scalars and matrices (here their bits, `u16`).
    hgemm: GemmFn<u16>,
    /// cublas<H|S|D>gemmStridedBatched: the typed gemm with a `long long` stride after each
    /// matrix's leading dimension, and the batch count last; the element type erased here.
    hgemm_batched: BatchedFn,
    sgemm_batched: BatchedFn,
    dgemm_batched: BatchedFn,
    /// cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta,
    /// C, Ctype, ldc, computeType, algo).
    gemm_ex: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *const c_void,
        *const c_void,
        c_int,
        c_int,
        *const c_void,
        c_int,
        c_int,
        *const c_void,
        *mut c_void,
        c_int,
        c_int,
        c_int,
        c_int,
    ) -> Status,
    /// cublasGemmStridedBatchedEx: GemmEx with each stride after its leading dimension, and
    /// the batch count before the compute type.
    gemm_batched_ex: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *const c_void,
        *const c_void,
        c_int,
        c_int,
        c_longlong,
        *const c_void,
        c_int,
        c_int,
        c_longlong,
        *const c_void,
        *mut c_void,
        c_int,
        c_int,
        c_longlong,
        c_int,
        c_int,
        c_int,
    ) -> Status,
}

/// cublas<H|S|D>gemmStridedBatched(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B,
/// ldb, strideB, beta, C, ldc, strideC, batchCount), pointers to the type's elements.
type BatchedFn = unsafe extern "C" fn(
    Handle,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *const c_void,
    *const c_void,
    c_int,
    c_longlong,
    *const c_void,
    c_int,
    c_longlong,
    *const c_void,
    *mut c_void,
    c_int,
    c_longlong,
    c_int,
) -> Status;

/// A library of which this backend only makes and destroys handles (cuSOLVER's dense and
/// sparse ones, cuSPARSE, cuTENSOR): CuPy's `Device.<lib>_handle`, for other native code.
struct HandleLib {
    _lib: Library,
    create: unsafe extern "C" fn(*mut Handle) -> Status,
    destroy: unsafe extern "C" fn(Handle) -> Status,
}

// SAFETY: the function pointers and the library handle may be used from any thread.
unsafe impl Send for Cublas {}
// SAFETY: as above.
unsafe impl Sync for Cublas {}
// SAFETY: as above.
unsafe impl Send for HandleLib {}
// SAFETY: as above.
unsafe impl Sync for HandleLib {}

/// The prefix of `lib`'s status names (`CUBLAS`, `CUSOLVER`, …).
fn prefix(lib: Lib) -> &'static str {
    match lib {
        Lib::Cublas => "CUBLAS",
        Lib::Cusolver | Lib::CusolverSp => "CUSOLVER",
        Lib::Cusparse => "CUSPARSE",
        Lib::Cutensor => "CUTENSOR",
    }
}

/// The variable that names `lib`'s file, overriding the search.
fn override_var(lib: Lib) -> &'static str {
    match lib {
        Lib::Cublas => "CUDA_NODE_CUBLAS_PATH",
        Lib::Cusolver | Lib::CusolverSp => "CUDA_NODE_CUSOLVER_PATH",
        Lib::Cusparse => "CUDA_NODE_CUSPARSE_PATH",
        Lib::Cutensor => "CUDA_NODE_CUTENSOR_PATH",
    }
}

/// A status name as the `'static` code an error carries: each name is made once, however often
/// it is reported.
fn intern(name: String) -> &'static str {
    static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.iter().find(|n| **n == name) {
        return n;
    }
    let n: &'static str = Box::leak(name.into_boxed_str());
    names.push(n);
    n
}

fn missing(lib: Lib, tried: &str) -> Error {
    let (what, var) = (lib.name(), override_var(lib));
    let code = intern(format!("{}_STATUS_NOT_INITIALIZED", prefix(lib)));
    Error::named(code, format!("{what} could not be loaded: looked for {tried}. Install CUDA's {what}, or set {var} to the library"))
}

fn cublas() -> Result<&'static Cublas> {
    static C: OnceLock<std::result::Result<Cublas, String>> = OnceLock::new();
    C.get_or_init(|| {
        let lib = dynlib::open(&dynlib::candidates(
            "cublas",
            "CUDA_NODE_CUBLAS_PATH",
            &["13", "12", "11"],
            &["cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll"],
        ))?;
        macro_rules! sym {
            ($n:literal) => {
                // SAFETY: cuBLAS's v2 entry points, with the signatures declared in `Cublas` (cublas_api.h).
                *unsafe { lib.get($n) }.map_err(|e| format!("{e}"))?
            };
        }
        Ok(Cublas {
            create: sym!(b"cublasCreate_v2\0"),
            destroy: sym!(b"cublasDestroy_v2\0"),
            set_stream: sym!(b"cublasSetStream_v2\0"),
            sgemm: sym!(b"cublasSgemm_v2\0"),
            dgemm: sym!(b"cublasDgemm_v2\0"),
            saxpy: sym!(b"cublasSaxpy_v2\0"),
            daxpy: sym!(b"cublasDaxpy_v2\0"),
            hgemm: sym!(b"cublasHgemm\0"),
            hgemm_batched: sym!(b"cublasHgemmStridedBatched\0"),
            sgemm_batched: sym!(b"cublasSgemmStridedBatched\0"),
            dgemm_batched: sym!(b"cublasDgemmStridedBatched\0"),
            gemm_ex: sym!(b"cublasGemmEx\0"),
            gemm_batched_ex: sym!(b"cublasGemmStridedBatchedEx\0"),
            lib,
        })
    })
    .as_ref()
    .map_err(|tried| missing(Lib::Cublas, tried))
}

/// Where each handle library is looked for and what makes and destroys its handles: the file's
/// stem, its versions and Windows names, and the two entry points (cusolverDn.h, cusolverSp.h,
/// cusparse.h, cutensor.h of cuTENSOR 2: `cutensorCreate(cutensorHandle_t*)`).
fn handle_lib(lib: Lib) -> Result<&'static HandleLib> {
    type Slot = OnceLock<std::result::Result<HandleLib, String>>;
    /// Its slot below, stem, versions, Windows names, and create and destroy symbols.
    type Search = (usize, &'static str, &'static [&'static str], &'static [&'static str], &'static [u8], &'static [u8]);
    static SLOTS: [Slot; 4] = [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let (i, stem, versions, windows, create, destroy): Search = match lib {
        Lib::Cublas => unreachable!("cuBLAS is loaded by cublas()"),
        Lib::Cusolver => {
            (0, "cusolver", &["12", "11"], &["cusolver64_12.dll", "cusolver64_11.dll"], b"cusolverDnCreate\0", b"cusolverDnDestroy\0")
        }
        Lib::CusolverSp => {
            (1, "cusolver", &["12", "11"], &["cusolver64_12.dll", "cusolver64_11.dll"], b"cusolverSpCreate\0", b"cusolverSpDestroy\0")
        }
        Lib::Cusparse => {
            (2, "cusparse", &["12", "11"], &["cusparse64_12.dll", "cusparse64_11.dll"], b"cusparseCreate\0", b"cusparseDestroy\0")
        }
        // cuTENSOR 1 (libcutensor.so.1) has no handle to create; an unversioned file of it is
        // passed over because it lacks the symbols.
        Lib::Cutensor => (3, "cutensor", &["2"], &["cutensor.dll"], b"cutensorCreate\0", b"cutensorDestroy\0"),
    };
    SLOTS[i]
        .get_or_init(|| {
            dynlib::open_with(&dynlib::candidates(stem, override_var(lib), versions, windows), |l| {
                // SAFETY: `<lib>Create(<lib>Handle_t*)` and `<lib>Destroy(<lib>Handle_t)`, as
                // declared in `HandleLib`, from the library's header.
                let create = *unsafe { l.get(create) }.ok()?;
                // SAFETY: as above.
                let destroy = *unsafe { l.get(destroy) }.ok()?;
                Some(HandleLib { create, destroy, _lib: l })
            })
        })
        .as_ref()
        .map_err(|tried| missing(lib, tried))
}

fn status(lib: Lib, s: Status, call: &str) -> Result<()> {
    if s == 0 {
        return Ok(());
    }
    let name = match (lib, s) {
        (_, 1) => "NOT_INITIALIZED",
        (Lib::Cublas | Lib::Cutensor, 3) | (Lib::Cusolver | Lib::CusolverSp | Lib::Cusparse, 2) => "ALLOC_FAILED",
        (Lib::Cublas | Lib::Cutensor, 7) | (Lib::Cusolver | Lib::CusolverSp | Lib::Cusparse, 3) => "INVALID_VALUE",
        (Lib::Cublas | Lib::Cutensor, 8) | (Lib::Cusolver | Lib::CusolverSp | Lib::Cusparse, 4) => "ARCH_MISMATCH",
        (Lib::Cublas | Lib::Cutensor, 11) | (Lib::Cusolver | Lib::CusolverSp | Lib::Cusparse, 5) => "MAPPING_ERROR",
        (Lib::Cublas | Lib::Cutensor, 13) | (Lib::Cusolver | Lib::CusolverSp | Lib::Cusparse, 6) => "EXECUTION_FAILED",
        (Lib::Cublas | Lib::Cutensor, 14) | (Lib::Cusolver | Lib::CusolverSp | Lib::Cusparse, 7) => "INTERNAL_ERROR",
        (Lib::Cublas | Lib::Cutensor, 15) | (Lib::Cusolver | Lib::CusolverSp, 9) | (Lib::Cusparse, 10) => "NOT_SUPPORTED",
        (Lib::Cublas | Lib::Cutensor, 16) => "LICENSE_ERROR",
        (Lib::Cutensor, 20) => "INSUFFICIENT_DRIVER",
        _ => "UNKNOWN",
    };
    let code = intern(format!("{}_STATUS_{name}", prefix(lib)));
    Err(Error::named(code, format!("{call} failed with status {s}")))
}

thread_local! {
    /// This thread's handles, by device and library, created on first use and destroyed when
    /// the thread ends (a worker's with it; the main thread's by `release_handles` at exit).
    static HANDLES: std::cell::RefCell<ThreadHandles> = const { std::cell::RefCell::new(ThreadHandles(Vec::new())) };
}

struct ThreadHandles(Vec<(Arc<CudaDevice>, Lib, usize)>);

impl ThreadHandles {
    fn destroy_all(&mut self) {
        for (dev, lib, h) in self.0.drain(..) {
            if dev.bind().is_err() {
                continue;
            }
            match lib {
                // SAFETY: created by cublasCreate on this thread, destroyed once; only this thread
                // ever used it, and no call of it is in flight.
                Lib::Cublas => drop(cublas().map(|api| unsafe { (api.destroy)(h as Handle) })),
                // SAFETY: as above, by the library's own create.
                _ => drop(handle_lib(lib).map(|api| unsafe { (api.destroy)(h as Handle) })),
            }
        }
    }
}

impl Drop for ThreadHandles {
    fn drop(&mut self) {
        self.destroy_all();
    }
}

fn handle(dev: &Arc<CudaDevice>, lib: Lib) -> Result<u64> {
    HANDLES
        .try_with(|t| {
            let mut t = t.borrow_mut();
            if let Some(&(_, _, h)) = t.0.iter().find(|(d, l, _)| Arc::ptr_eq(d, dev) && *l == lib) {
                return Ok(h as u64);
            }
            dev.bind()?;
            let mut raw: Handle = std::ptr::null_mut();
            let (create, call) = match lib {
                Lib::Cublas => (cublas()?.create, "cublasCreate"),
                Lib::Cusolver => (handle_lib(lib)?.create, "cusolverDnCreate"),
                Lib::CusolverSp => (handle_lib(lib)?.create, "cusolverSpCreate"),
                Lib::Cusparse => (handle_lib(lib)?.create, "cusparseCreate"),
                Lib::Cutensor => (handle_lib(lib)?.create, "cutensorCreate"),
            };
            // SAFETY: `raw` is a valid out-pointer; the device's context is current.
            status(lib, unsafe { create(&mut raw) }, call)?;
            t.0.push((dev.clone(), lib, raw as usize));
            Ok(raw as u64)
        })
        .map_err(|_| {
            Error::cuda(crate::Code::CUDA_ERROR_DEINITIALIZED, format!("this thread is ending: it has no {} handle", lib.name()))
        })?
}

const OP_N: c_int = 0;
const OP_T: c_int = 1;
/// `CUBLAS_GEMM_DEFAULT`: cuBLAS picks the algorithm.
const GEMM_DEFAULT: c_int = -1;

fn axpy(dev: &Arc<CudaDevice>, stream: sys::CUstream, op: &Axpy, x: u64, y: u64) -> Result<()> {
    let h = handle(dev, Lib::Cublas)? as Handle;
    let api = cublas()?;
    // SAFETY: as in `gemm`.
    status(Lib::Cublas, unsafe { (api.set_stream)(h, stream) }, "cublasSetStream")?;
    let _host = HostScalars::new(h)?;
    let (n, ix, iy) = (op.n as c_int, op.incx as c_int, op.incy as c_int);
    // SAFETY: the vectors lie inside live allocations of this device (checked by the caller).
    let s = unsafe {
        match op.dtype {
            Real::F32 => {
                let al = op.alpha as f32;
                (api.saxpy)(h, n, &al, x as *const f32, ix, y as *mut f32, iy)
            }
            Real::F64 => (api.daxpy)(h, n, &op.alpha, x as *const f64, ix, y as *mut f64, iy),
        }
    };
    status(Lib::Cublas, s, "cublas axpy")
}

/// A scalar in the compute type's scale type, as cuBLAS reads it through a host pointer.
fn scalar(ty: DataType, v: f64) -> [u8; 8] {
    let mut b = [0u8; 8];
    ty.write(&mut b, 0, v);
    b
}

fn matmul(dev: &Arc<CudaDevice>, stream: sys::CUstream, g: &MatMul, a: u64, b: u64, c: u64) -> Result<()> {
    let h = handle(dev, Lib::Cublas)? as Handle;
    let api = cublas()?;
    // SAFETY: the handle is this thread's, for this device; the stream is live and of this device.
    status(Lib::Cublas, unsafe { (api.set_stream)(h, stream) }, "cublasSetStream")?;
    let _host = HostScalars::new(h)?;
    let (ta, tb) = (if g.trans_a { OP_T } else { OP_N }, if g.trans_b { OP_T } else { OP_N });
    let (m, n, k, lda, ldb, ldc) = (g.m as c_int, g.n as c_int, g.k as c_int, g.lda as c_int, g.ldb as c_int, g.ldc as c_int);
    let (sa, sb, sc, batch) = (g.stride_a as c_longlong, g.stride_b as c_longlong, g.stride_c as c_longlong, g.batch as c_int);
    let scale = g.compute.scale();
    let (alpha, beta) = (scalar(scale, g.alpha), scalar(scale, g.beta));
    let (al, be) = (alpha.as_ptr() as *const c_void, beta.as_ptr() as *const c_void);
    let (a, b, c) = (a as *const c_void, b as *const c_void, c as *mut c_void);
    // SAFETY: the matrices of the whole batch lie inside live allocations of this device, aligned
    // to their elements, their types a combination cuBLAS computes (checked by the caller; sizes
    // fit in i32); alpha and beta are host scalars of the scale type, read during the call.
    let s = unsafe {
        match (g.entry, g.batched) {
            (Entry::Typed, false) => match g.a_type {
                DataType::F16 => (api.hgemm)(h, ta, tb, m, n, k, al as _, a as _, lda, b as _, ldb, be as _, c as _, ldc),
                DataType::F32 => (api.sgemm)(h, ta, tb, m, n, k, al as _, a as _, lda, b as _, ldb, be as _, c as _, ldc),
                DataType::F64 => (api.dgemm)(h, ta, tb, m, n, k, al as _, a as _, lda, b as _, ldb, be as _, c as _, ldc),
                DataType::Bf16 => unreachable!("checked: no typed bfloat16 gemm"),
            },
            (Entry::Typed, true) => {
                let f = match g.a_type {
                    DataType::F16 => api.hgemm_batched,
                    DataType::F32 => api.sgemm_batched,
                    DataType::F64 => api.dgemm_batched,
                    DataType::Bf16 => unreachable!("checked: no typed bfloat16 gemm"),
                };
                f(h, ta, tb, m, n, k, al, a, lda, sa, b, ldb, sb, be, c, ldc, sc, batch)
            }
            (Entry::Ex, false) => (api.gemm_ex)(
                h,
                ta,
                tb,
                m,
                n,
                k,
                al,
                a,
                g.a_type.code(),
                lda,
                b,
                g.b_type.code(),
                ldb,
                be,
                c,
                g.c_type.code(),
                ldc,
                g.compute.code(),
                GEMM_DEFAULT,
            ),
            (Entry::Ex, true) => (api.gemm_batched_ex)(
                h,
                ta,
                tb,
                m,
                n,
                k,
                al,
                a,
                g.a_type.code(),
                lda,
                sa,
                b,
                g.b_type.code(),
                ldb,
                sb,
                be,
                c,
                g.c_type.code(),
                ldc,
                sc,
                batch,
                g.compute.code(),
                GEMM_DEFAULT,
            ),
        }
    };
    status(Lib::Cublas, s, if g.entry == Entry::Ex { "cublasGemmEx" } else { "cublas gemm" })
}

/// cuBLAS's entry point `symbol`, looked up once; a typed error naming it where this cuBLAS
/// has none (an older release).
fn symbol(symbol: &str) -> Result<*const c_void> {
    static FOUND: std::sync::Mutex<Vec<(String, usize)>> = std::sync::Mutex::new(Vec::new());
    let mut found = FOUND.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, f)) = found.iter().find(|(s, _)| *s == symbol) {
        return Ok(f as *const c_void);
    }
    let api = cublas()?;
    // SAFETY: the symbol is only read as an address here; it is called with its C type by
    // `blas_abi::call`, whose signature the table gives.
    let f = unsafe { api.lib.get::<*const c_void>(symbol.as_bytes()) }
        .map(|s| *s)
        .map_err(|_| Error::named("CUBLAS_STATUS_NOT_SUPPORTED", format!(
            "the cuBLAS loaded has no {symbol}: install cuBLAS {} or later, or set CUDA_NODE_CUBLAS_PATH to one",
            if symbol.ends_with("_64") { 12 } else { 11 }
        )))?;
    found.push((symbol.to_string(), f as usize));
    Ok(f)
}

/// `cublasGet<X>(handle, int*)` of a setting, and its setter `cublasSet<X>(handle, int)`.
fn setting_symbols(s: Setting) -> (&'static str, Option<&'static str>) {
    match s {
        Setting::PointerMode => ("cublasGetPointerMode_v2", Some("cublasSetPointerMode_v2")),
        Setting::MathMode => ("cublasGetMathMode", Some("cublasSetMathMode")),
        Setting::AtomicsMode => ("cublasGetAtomicsMode", Some("cublasSetAtomicsMode")),
        Setting::Version => ("cublasGetVersion_v2", None),
    }
}

fn get_setting(h: Handle, s: Setting) -> Result<i32> {
    let (get, _) = setting_symbols(s);
    // SAFETY: `cublasGet<X>(cublasHandle_t, <enum or int>*)`, as declared (cublas_api.h).
    let f: unsafe extern "C" fn(Handle, *mut c_int) -> Status = unsafe { std::mem::transmute(symbol(get)?) };
    let mut v: c_int = 0;
    // SAFETY: the handle is this thread's; `v` is a valid out-pointer.
    status(Lib::Cublas, unsafe { f(h, &mut v) }, get)?;
    Ok(v)
}

fn set_setting(h: Handle, s: Setting, v: i32) -> Result<()> {
    let set = setting_symbols(s).1.ok_or_else(|| Error::type_error("cuBLAS's version cannot be set"))?;
    // SAFETY: `cublasSet<X>(cublasHandle_t, <enum>)`, as declared (cublas_api.h).
    let f: unsafe extern "C" fn(Handle, c_int) -> Status = unsafe { std::mem::transmute(symbol(set)?) };
    // SAFETY: the handle is this thread's.
    status(Lib::Cublas, unsafe { f(h, v) }, set)
}

/// The handle in host pointer mode while it lives, as the calls with host scalars (gemm,
/// axpy, the products) need whatever the user set; the mode set before is put back after.
struct HostScalars(Handle, i32);

impl HostScalars {
    fn new(h: Handle) -> Result<HostScalars> {
        let mode = get_setting(h, Setting::PointerMode)?;
        if mode != 0 {
            set_setting(h, Setting::PointerMode, 0)?;
        }
        Ok(HostScalars(h, mode))
    }
}

impl Drop for HostScalars {
    fn drop(&mut self) {
        if self.1 != 0 {
            let _ = set_setting(self.0, Setting::PointerMode, self.1);
        }
    }
}

/// A typed entry point of the table: its C arguments in the header's order, host scalars in
/// buffers that outlive the call (cuBLAS blocks for a host result), the outputs read back.
///
/// A `Batched` entry's arrays of pointers are made here: stream-ordered allocations the
/// pointers are copied into before the call (the driver stages the pageable bytes before the
/// copy returns) and freed in stream order after it.
fn call(dev: &Arc<CudaDevice>, stream: sys::CUstream, ops: &dyn StreamOps, c: &Call, mems: &[u64]) -> Result<Vec<f64>> {
    let h = handle(dev, Lib::Cublas)? as Handle;
    let api = cublas()?;
    let sym = c.symbol();
    let f = symbol(&sym)?;
    // SAFETY: the handle is this thread's, for this device; the stream is live and of this device.
    status(Lib::Cublas, unsafe { (api.set_stream)(h, stream) }, "cublasSetStream")?;
    let elem = c.entry.elem;
    let values = c.entry.params.iter().filter(|p| matches!(p, Param::Value(..))).count();
    let arrays = mems.len() - if c.device_values { values } else { 0 };
    // Host pointer mode: each value's bytes, inputs encoded, outputs zeroed.
    // Each in 8-byte words (at most five doubles: rotm's), 16-byte aligned: cuBLAS reads a
    // cuDoubleComplex scalar with aligned 16-byte loads (misaligned, zrot and every Z call with a
    // host scalar crashed the process on the H200).
    let mut host: Vec<Slot> = Vec::with_capacity(values);
    let mut given = c.host.iter().copied();
    for p in c.entry.params {
        if let Param::Value(name, kind, io, len) = *p {
            let words = value_words(elem, kind) * len as usize;
            let v: Vec<f64> = if io == Io::Out || c.device_values { vec![0.0; words] } else { given.by_ref().take(words).collect() };
            let mut w = Slot([0u64; 6]);
            for (k, chunk) in c.encode_value(name, kind, &v).chunks(8).enumerate().take(5) {
                let mut b = [0u8; 8];
                b[..chunk.len()].copy_from_slice(chunk);
                w.0[k] = u64::from_le_bytes(b);
            }
            host.push(w);
        }
    }
    let (mut ints, mut ai, mut vi) = (c.ints.iter(), 0, 0);
    let mut args = Vec::with_capacity(c.entry.params.len());
    let mut pointer_arrays: Vec<Box<dyn AllocOps>> = Vec::new();
    let mut info: c_int = 0;
    for p in c.entry.params {
        let arg = match p {
            // A 64-bit variant's sizes are `int64_t`; its enums stay `int`.
            Param::Int(_) if c.ilp64 => CArg::L(*ints.next().unwrap_or(&0) as c_longlong),
            Param::Int(_) | Param::Enum(..) => CArg::I(*ints.next().unwrap_or(&0) as c_int),
            Param::Long(_) => CArg::L(*ints.next().unwrap_or(&0) as c_longlong),
            Param::Array(..) => {
                ai += 1;
                CArg::P(mems[ai - 1] as *mut c_void)
            }
            Param::Ints(..) => {
                ai += 1;
                CArg::P(mems[ai - 1] as *mut c_void)
            }
            Param::HostInfo(_) => CArg::P(&mut info as *mut c_int as *mut c_void),
            Param::Batch(..) => {
                let n = c.entry.operands(*p, c);
                let bytes: Vec<u8> = mems[ai..ai + n].iter().flat_map(|p| p.to_le_bytes()).collect();
                ai += n;
                if n == 0 {
                    CArg::P(std::ptr::null_mut())
                } else {
                    let buf = ops.alloc_async(bytes.len() as u64)?;
                    ops.copy_htod(&*buf, 0, &bytes)?;
                    let at = buf.ptr();
                    pointer_arrays.push(buf);
                    CArg::P(at as *mut c_void)
                }
            }
            Param::Value(..) => {
                vi += 1;
                CArg::P(if c.device_values { mems[arrays + vi - 1] as *mut c_void } else { host[vi - 1].0.as_mut_ptr() as *mut c_void })
            }
        };
        args.push(arg);
        // An `Ex` entry's C arguments: each operand's `cudaDataType` after the parameter its
        // table names, and the execution type last.
        if let Some(x) = &c.ex {
            for (&(_, _, after), ty) in x.entry.types.iter().zip(&x.types) {
                if after == p.name() {
                    args.push(CArg::I(ty.code()));
                }
            }
        }
    }
    if let Some(x) = &c.ex {
        args.extend(x.entry.exec_codes(x.exec).into_iter().map(CArg::I));
    }
    // SAFETY: `f` is the entry's symbol, whose C parameters the table gives in order (checked
    // against cuBLAS's header); the arrays lie inside live allocations of this device, of the
    // extents the sizes imply (checked by the model; 0 where an array spans nothing); host
    // scalars live in `host` until after the call, which blocks for host results.
    let s = unsafe { blas_abi::call(f, h, &args) }.ok_or_else(|| Error::named("CUBLAS_STATUS_NOT_SUPPORTED", format!("{sym}: no C signature for it")))?;
    // Freed in stream order, after the call's work.
    drop(pointer_arrays);
    status(Lib::Cublas, s, &sym)?;
    if info != 0 {
        return Err(Error::named("CUBLAS_STATUS_INVALID_VALUE", format!("{sym}: cuBLAS found parameter {} invalid", -info)));
    }
    if c.device_values {
        return Ok(vec![]);
    }
    let mut out = Vec::new();
    let mut i = 0;
    for p in c.entry.params {
        if let Param::Value(name, kind, io, len) = *p {
            if io != Io::In {
                let bytes: Vec<u8> = host[i].0.iter().flat_map(|w| w.to_le_bytes()).collect();
                out.extend(c.decode_value(name, kind, &bytes[..(c.value_size(name, kind) * len as u64) as usize]));
            }
            i += 1;
        }
    }
    Ok(out)
}

/// One host scalar's words, aligned as cuBLAS's widest scalar (`cuDoubleComplex`) must be.
#[repr(C, align(16))]
struct Slot([u64; 6]);

fn cuda_stream(s: &dyn StreamOps) -> &CudaStream {
    own::<CudaStream>(s.as_any())
}

impl BlasOps for CudaBackend {
    fn handle(&self, ordinal: usize, lib: Lib) -> Result<u64> {
        handle(&self.devices[ordinal], lib)
    }

    fn release_handles(&self) {
        let _ = HANDLES.try_with(|t| t.borrow_mut().destroy_all());
    }

    fn axpy(&self, stream: &dyn StreamOps, op: &Axpy, x: &dyn AllocOps, y: &dyn AllocOps) -> Result<()> {
        let s = cuda_stream(stream);
        axpy(&s.dev, s.queue(), op, x.ptr() + op.x_off, y.ptr() + op.y_off)
    }

    fn matmul(&self, stream: &dyn StreamOps, g: &MatMul, a: &dyn AllocOps, b: &dyn AllocOps, c: &dyn AllocOps) -> Result<()> {
        let s = cuda_stream(stream);
        matmul(&s.dev, s.queue(), g, a.ptr() + g.a_off, b.ptr() + g.b_off, c.ptr() + g.c_off)
    }

    fn call(&self, stream: &dyn StreamOps, c: &Call, mems: &[Option<&dyn AllocOps>]) -> Result<Vec<f64>> {
        let s = cuda_stream(stream);
        let ptrs: Vec<u64> = mems.iter().zip(&c.offsets).map(|(m, off)| m.map_or(0, |m| m.ptr() + off)).collect();
        call(&s.dev, s.queue(), stream, c, &ptrs)
    }

    fn setting(&self, ordinal: usize, s: Setting, value: Option<i32>) -> Result<i32> {
        let dev = &self.devices[ordinal];
        let h = handle(dev, Lib::Cublas)? as Handle;
        if let Some(v) = value {
            set_setting(h, s, v)?;
        }
        get_setting(h, s)
    }
}
