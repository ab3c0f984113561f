//! cuBLAS and cuSOLVER on the real device: loaded at run time, one handle per thread and device
//! (as CuPy keeps them: a handle must not be used by two threads at once, so none is shared),
//! bound to the stream at each call.

use super::device::{CudaBackend, CudaDevice};
use super::own::own;
use super::stream::CudaStream;
use crate::dynlib;
use crate::error::{Error, Result};
use crate::ops::blas::{Axpy, BlasOps, Gemm, Library as Lib, Real};
use crate::ops::{AllocOps, StreamOps};
use cudarc::driver::sys;
use libloading::Library;
use std::ffi::{c_int, c_void};
use std::sync::{Arc, OnceLock};

type Handle = *mut c_void;
type Status = c_int;

struct Cublas {
    _lib: Library,
    create: unsafe extern "C" fn(*mut Handle) -> Status,
    destroy: unsafe extern "C" fn(Handle) -> Status,
    set_stream: unsafe extern "C" fn(Handle, sys::CUstream) -> Status,
    sgemm: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *const f32,
        *const f32,
        c_int,
        *const f32,
        c_int,
        *const f32,
        *mut f32,
        c_int,
    ) -> Status,
    dgemm: unsafe extern "C" fn(
        Handle,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *const f64,
        *const f64,
        c_int,
        *const f64,
        c_int,
        *const f64,
        *mut f64,
        c_int,
    ) -> Status,
    saxpy: unsafe extern "C" fn(Handle, c_int, *const f32, *const f32, c_int, *mut f32, c_int) -> Status,
    daxpy: unsafe extern "C" fn(Handle, c_int, *const f64, *const f64, c_int, *mut f64, c_int) -> Status,
}

struct Cusolver {
    _lib: Library,
    create: unsafe extern "C" fn(*mut Handle) -> Status,
    destroy: unsafe extern "C" fn(Handle) -> Status,
}

// SAFETY: the function pointers and the library handle may be used from any thread.
unsafe impl Send for Cublas {}
// SAFETY: as above.
unsafe impl Sync for Cublas {}
// SAFETY: as above.
unsafe impl Send for Cusolver {}
// SAFETY: as above.
unsafe impl Sync for Cusolver {}

fn missing(what: &str, var: &str, tried: &str) -> Error {
    Error::named(
        if what == "cuBLAS" { "CUBLAS_STATUS_NOT_INITIALIZED" } else { "CUSOLVER_STATUS_NOT_INITIALIZED" },
        format!("{what} could not be loaded: looked for {tried}. Install CUDA's {what}, or set {var} to the library"),
    )
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
            _lib: lib,
        })
    })
    .as_ref()
    .map_err(|tried| missing("cuBLAS", "CUDA_NODE_CUBLAS_PATH", tried))
}

fn cusolver() -> Result<&'static Cusolver> {
    static C: OnceLock<std::result::Result<Cusolver, String>> = OnceLock::new();
    C.get_or_init(|| {
        let lib = dynlib::open(&dynlib::candidates(
            "cusolver",
            "CUDA_NODE_CUSOLVER_PATH",
            &["12", "11"],
            &["cusolver64_12.dll", "cusolver64_11.dll"],
        ))?;
        // SAFETY: cusolverDnCreate(cusolverDnHandle_t*), from cusolverDn.h.
        let create = *unsafe { lib.get(b"cusolverDnCreate\0") }.map_err(|e| format!("{e}"))?;
        // SAFETY: cusolverDnDestroy(cusolverDnHandle_t), from cusolverDn.h.
        let destroy = *unsafe { lib.get(b"cusolverDnDestroy\0") }.map_err(|e| format!("{e}"))?;
        Ok(Cusolver { create, destroy, _lib: lib })
    })
    .as_ref()
    .map_err(|tried| missing("cuSOLVER", "CUDA_NODE_CUSOLVER_PATH", tried))
}

fn status(lib: &str, s: Status, call: &str) -> Result<()> {
    if s == 0 {
        return Ok(());
    }
    let name = match (lib, s) {
        (_, 1) => "STATUS_NOT_INITIALIZED",
        (_, 3) => "STATUS_ALLOC_FAILED",
        (_, 7) => "STATUS_INVALID_VALUE",
        (_, 8) => "STATUS_ARCH_MISMATCH",
        (_, 11) => "STATUS_MAPPING_ERROR",
        (_, 13) => "STATUS_EXECUTION_FAILED",
        (_, 14) => "STATUS_INTERNAL_ERROR",
        (_, 15) => "STATUS_NOT_SUPPORTED",
        _ => "STATUS_UNKNOWN",
    };
    let code: &'static str = match (lib, name) {
        ("cuBLAS", n) => Box::leak(format!("CUBLAS_{n}").into_boxed_str()),
        (_, n) => Box::leak(format!("CUSOLVER_{n}").into_boxed_str()),
    };
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
                // SAFETY: as above.
                Lib::Cusolver => drop(cusolver().map(|api| unsafe { (api.destroy)(h as Handle) })),
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
            match lib {
                // SAFETY: `raw` is a valid out-pointer; the device's context is current.
                Lib::Cublas => status("cuBLAS", unsafe { (cublas()?.create)(&mut raw) }, "cublasCreate")?,
                // SAFETY: as above.
                Lib::Cusolver => status("cuSOLVER", unsafe { (cusolver()?.create)(&mut raw) }, "cusolverDnCreate")?,
            }
            t.0.push((dev.clone(), lib, raw as usize));
            Ok(raw as u64)
        })
        .map_err(|_| Error::cuda(crate::Code::CUDA_ERROR_DEINITIALIZED, "this thread is ending: it has no cuBLAS or cuSOLVER handle"))?
}

const OP_N: c_int = 0;
const OP_T: c_int = 1;

fn gemm(dev: &Arc<CudaDevice>, stream: sys::CUstream, g: &Gemm, a: u64, b: u64, c: u64) -> Result<()> {
    let h = handle(dev, Lib::Cublas)? as Handle;
    let api = cublas()?;
    // SAFETY: the handle is this thread's, for this device; the stream is live and of this device.
    status("cuBLAS", unsafe { (api.set_stream)(h, stream) }, "cublasSetStream")?;
    let (ta, tb) = (if g.trans_a { OP_T } else { OP_N }, if g.trans_b { OP_T } else { OP_N });
    let (m, n, k, lda, ldb, ldc) = (g.m as c_int, g.n as c_int, g.k as c_int, g.lda as c_int, g.ldb as c_int, g.ldc as c_int);
    // SAFETY: the matrices lie inside live allocations of this device (checked by the caller,
    // sizes fit in i32); alpha and beta are host scalars read during the call.
    let s = unsafe {
        match g.dtype {
            Real::F32 => {
                let (al, be) = (g.alpha as f32, g.beta as f32);
                (api.sgemm)(h, ta, tb, m, n, k, &al, a as *const f32, lda, b as *const f32, ldb, &be, c as *mut f32, ldc)
            }
            Real::F64 => (api.dgemm)(h, ta, tb, m, n, k, &g.alpha, a as *const f64, lda, b as *const f64, ldb, &g.beta, c as *mut f64, ldc),
        }
    };
    status("cuBLAS", s, "cublas gemm")
}

fn axpy(dev: &Arc<CudaDevice>, stream: sys::CUstream, op: &Axpy, x: u64, y: u64) -> Result<()> {
    let h = handle(dev, Lib::Cublas)? as Handle;
    let api = cublas()?;
    // SAFETY: as in `gemm`.
    status("cuBLAS", unsafe { (api.set_stream)(h, stream) }, "cublasSetStream")?;
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
    status("cuBLAS", s, "cublas axpy")
}

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

    fn gemm(&self, stream: &dyn StreamOps, g: &Gemm, a: &dyn AllocOps, b: &dyn AllocOps, c: &dyn AllocOps) -> Result<()> {
        let s = cuda_stream(stream);
        gemm(&s.dev, s.queue(), g, a.ptr() + g.a_off, b.ptr() + g.b_off, c.ptr() + g.c_off)
    }

    fn axpy(&self, stream: &dyn StreamOps, op: &Axpy, x: &dyn AllocOps, y: &dyn AllocOps) -> Result<()> {
        let s = cuda_stream(stream);
        axpy(&s.dev, s.queue(), op, x.ptr() + op.x_off, y.ptr() + op.y_off)
    }
}
