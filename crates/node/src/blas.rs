//! cuBLAS and cuSOLVER handles per device, and the `blas` module's calls, bound to a stream.

use crate::raw::{BigU64, Numbers};
use crate::{memory, stream};
use cuda_node_core::blas::{self, Axpy, Gemm, Real};
use cuda_node_core::{runtime, Error, Result};

fn real(dtype: &str) -> Result<Real> {
    match dtype {
        "float32" => Ok(Real::F32),
        "float64" => Ok(Real::F64),
        other => Err(Error::type_error(format!("dtype must be 'float32' or 'float64', got '{other}'"))),
    }
}

/// The `i`th of `values` as a count.
fn count(values: &[f64], i: usize, name: &str) -> Result<u64> {
    crate::raw::numbers::count(name, *values.get(i).ok_or_else(|| Error::range(format!("{name} is missing")))?)
}

crate::exports! {
    /// The device's cuBLAS handle, created on first use.
    c"deviceCublasHandle" => fn device_cublas_handle(_cx, device: f64) -> BigU64 {
        Ok(BigU64(blas::cublas_handle(runtime()?.ordinal(device)?)?))
    }

    /// The device's cuSOLVER (dense) handle, created on first use.
    c"deviceCusolverHandle" => fn device_cusolver_handle(_cx, device: f64) -> BigU64 {
        Ok(BigU64(blas::cusolver_handle(runtime()?.ordinal(device)?)?))
    }

    /// Destroys the cuBLAS and cuSOLVER handles (the main thread calls this at exit).
    c"releaseLibraryHandles" => fn release_library_handles(_cx) -> () {
        blas::release_handles();
        Ok(())
    }

    /// Column-major `C = alpha · op(A) · op(B) + beta · C` on `stream`. `dims`: m, n, k, alpha,
    /// beta, lda, ldb, ldc and A's, B's and C's byte offsets; `trans`: bit 0 A, bit 1 B.
    c"blasGemm" => fn blas_gemm(_cx, stream: f64, dtype: String, trans: u32, a: f64, b: f64, c: f64, dims: Numbers) -> () {
        let d = dims.0;
        let (a, b, c) = (memory::get(a)?, memory::get(b)?, memory::get(c)?);
        let mut spec = Gemm {
            dtype: real(&dtype)?,
            trans_a: trans & 1 != 0,
            trans_b: trans & 2 != 0,
            m: count(d, 0, "m")?,
            n: count(d, 1, "n")?,
            k: count(d, 2, "k")?,
            alpha: *d.get(3).unwrap_or(&1.0),
            beta: *d.get(4).unwrap_or(&0.0),
            lda: count(d, 5, "lda")?,
            ldb: count(d, 6, "ldb")?,
            ldc: count(d, 7, "ldc")?,
            a_off: 0,
            b_off: 0,
            c_off: 0,
        };
        let [am, bm, cm] = spec.place([&a, &b, &c], |i| count(d, 8 + i, "offset"))?;
        stream::with(stream, |s| blas::gemm(s, &spec, am, bm, cm))
    }

    /// `y = alpha · x + y` on `stream`. `dims`: n, alpha, incx, incy and x's and y's byte offsets.
    c"blasAxpy" => fn blas_axpy(_cx, stream: f64, dtype: String, x: f64, y: f64, dims: Numbers) -> () {
        let d = dims.0;
        let (x, y) = (memory::get(x)?, memory::get(y)?);
        let mut op = Axpy {
            dtype: real(&dtype)?,
            n: count(d, 0, "n")?,
            alpha: *d.get(1).unwrap_or(&1.0),
            incx: count(d, 2, "incx")?,
            incy: count(d, 3, "incy")?,
            x_off: 0,
            y_off: 0,
        };
        let [xm, ym] = op.place([&x, &y], |i| count(d, 4 + i, "offset"))?;
        stream::with(stream, |s| blas::axpy(s, &op, xm, ym))
    }
}
