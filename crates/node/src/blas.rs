use crate::args::count;
use crate::errors::guard;
use crate::ptrs;
use crate::stream::NativeStream;
use cuda_node_core::blas::{self, Axpy, Gemm, Real};
use cuda_node_core::{runtime, Error};
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi]
pub fn device_cublas_handle(env: Env, device: f64) -> Result<BigInt> {
    guard(&env, || Ok(BigInt::from(blas::cublas_handle(runtime()?.ordinal(device)?)?)))
}

#[napi]
pub fn device_cusolver_handle(env: Env, device: f64) -> Result<BigInt> {
    guard(&env, || Ok(BigInt::from(blas::cusolver_handle(runtime()?.ordinal(device)?)?)))
}

/// Destroys the cuBLAS and cuSOLVER handles (the main thread calls this at exit).
#[napi]
pub fn release_library_handles() {
    blas::release_handles()
}

fn real(dtype: &str) -> cuda_node_core::Result<Real> {
    match dtype {
        "float32" => Ok(Real::F32),
        "float64" => Ok(Real::F64),
        other => Err(Error::type_error(format!("dtype must be 'float32' or 'float64', got '{other}'"))),
    }
}

#[napi(object)]
pub struct GemmArgs {
    pub dtype: String,
    pub trans_a: bool,
    pub trans_b: bool,
    pub m: f64,
    pub n: f64,
    pub k: f64,
    pub alpha: f64,
    pub beta: f64,
    pub a: f64,
    pub a_offset: f64,
    pub lda: f64,
    pub b: f64,
    pub b_offset: f64,
    pub ldb: f64,
    pub c: f64,
    pub c_offset: f64,
    pub ldc: f64,
}

/// Column-major gemm on `stream`; handles are the pointer table's.
#[napi]
pub fn blas_gemm(env: Env, stream: &NativeStream, g: GemmArgs) -> Result<()> {
    guard(&env, || {
        let (a, b, c) = (ptrs::get(g.a)?, ptrs::get(g.b)?, ptrs::get(g.c)?);
        let mut spec = Gemm {
            dtype: real(&g.dtype)?,
            trans_a: g.trans_a,
            trans_b: g.trans_b,
            m: count("m", g.m)?,
            n: count("n", g.n)?,
            k: count("k", g.k)?,
            alpha: g.alpha,
            beta: g.beta,
            lda: count("lda", g.lda)?,
            ldb: count("ldb", g.ldb)?,
            ldc: count("ldc", g.ldc)?,
            a_off: 0,
            b_off: 0,
            c_off: 0,
        };
        // Each matrix must lie inside its own block (a pool block is part of a larger allocation).
        let [ea, eb, ec] = spec.extents()?;
        let (am, a_off) = a.range(count("offset", g.a_offset)?, ea, "matrix A")?;
        let (bm, b_off) = b.range(count("offset", g.b_offset)?, eb, "matrix B")?;
        let (cm, c_off) = c.range(count("offset", g.c_offset)?, ec, "matrix C")?;
        (spec.a_off, spec.b_off, spec.c_off) = (a_off, b_off, c_off);
        blas::gemm(&*stream.get()?, &spec, am, bm, cm)
    })
}

#[napi(object)]
pub struct AxpyArgs {
    pub dtype: String,
    pub n: f64,
    pub alpha: f64,
    pub x: f64,
    pub x_offset: f64,
    pub incx: f64,
    pub y: f64,
    pub y_offset: f64,
    pub incy: f64,
}

#[napi]
pub fn blas_axpy(env: Env, stream: &NativeStream, o: AxpyArgs) -> Result<()> {
    guard(&env, || {
        let (x, y) = (ptrs::get(o.x)?, ptrs::get(o.y)?);
        let mut op = Axpy { dtype: real(&o.dtype)?, n: count("n", o.n)?, alpha: o.alpha, incx: count("incx", o.incx)?, incy: count("incy", o.incy)?, x_off: 0, y_off: 0 };
        let [ex, ey] = op.extents()?;
        let (xm, x_off) = x.range(count("offset", o.x_offset)?, ex, "vector x")?;
        let (ym, y_off) = y.range(count("offset", o.y_offset)?, ey, "vector y")?;
        (op.x_off, op.y_off) = (x_off, y_off);
        blas::axpy(&*stream.get()?, &op, xm, ym)
    })
}
