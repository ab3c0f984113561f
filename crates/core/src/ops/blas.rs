//! cuBLAS and cuSOLVER at the seam: the trait a backend implements and the plain data it is
//! given. The handles and the checked calls are `blas.rs`'s, above the seam.

use crate::error::{Error, Result};
use crate::ops::{AllocOps, StreamOps};

/// What a backend implements for cuBLAS and cuSOLVER. Sizes and ranges reaching it are checked.
pub trait BlasOps: Send + Sync + 'static {
    /// The calling thread's cuBLAS or cuSOLVER handle for the device, created on first use (one
    /// per thread, as CuPy keeps them: a handle is never used by two threads at once).
    fn handle(&self, ordinal: usize, lib: Library) -> Result<u64>;
    /// Destroys the calling thread's cuBLAS and cuSOLVER handles (the main thread's, at exit;
    /// another thread's go when it ends).
    fn release_handles(&self) {}
    fn gemm(&self, stream: &dyn StreamOps, g: &Gemm, a: &dyn AllocOps, b: &dyn AllocOps, c: &dyn AllocOps) -> Result<()>;
    fn axpy(&self, stream: &dyn StreamOps, op: &Axpy, x: &dyn AllocOps, y: &dyn AllocOps) -> Result<()>;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Library {
    Cublas,
    Cusolver,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Real {
    F32,
    F64,
}

impl Real {
    pub fn size(self) -> u64 {
        match self {
            Real::F32 => 4,
            Real::F64 => 8,
        }
    }
}

/// `C = alpha · op(A) · op(B) + beta · C`, column-major, with `op(A)` m×k and `op(B)` k×n.
/// Offsets are in bytes into each allocation.
#[derive(Clone, Copy, Debug)]
pub struct Gemm {
    pub dtype: Real,
    pub trans_a: bool,
    pub trans_b: bool,
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub alpha: f64,
    pub beta: f64,
    pub lda: u64,
    pub ldb: u64,
    pub ldc: u64,
    pub a_off: u64,
    pub b_off: u64,
    pub c_off: u64,
}

/// `y = alpha · x + y` over `n` elements with strides.
#[derive(Clone, Copy, Debug)]
pub struct Axpy {
    pub dtype: Real,
    pub n: u64,
    pub alpha: f64,
    pub incx: u64,
    pub incy: u64,
    pub x_off: u64,
    pub y_off: u64,
}

/// Elements a column-major `rows`×`cols` matrix with leading dimension `ld` spans.
fn span(rows: u64, cols: u64, ld: u64, what: &str) -> Result<u64> {
    if ld < rows.max(1) {
        return Err(Error::range(format!("the leading dimension of {what} ({ld}) is less than its {rows} rows")));
    }
    if rows == 0 || cols == 0 {
        return Ok(0);
    }
    ld.checked_mul(cols - 1).and_then(|x| x.checked_add(rows)).ok_or_else(|| Error::range(format!("{what} is too large")))
}

fn bytes(elems: u64, size: u64, what: &str) -> Result<u64> {
    elems.checked_mul(size).ok_or_else(|| Error::range(format!("{what} is too large")))
}

impl Gemm {
    /// The bytes A, B and C span from their offsets (checked: leading dimensions cover the rows).
    pub fn extents(&self) -> Result<[u64; 3]> {
        let (ar, ac) = if self.trans_a { (self.k, self.m) } else { (self.m, self.k) };
        let (br, bc) = if self.trans_b { (self.n, self.k) } else { (self.k, self.n) };
        let s = self.dtype.size();
        Ok([
            bytes(span(ar, ac, self.lda, "A")?, s, "matrix A")?,
            bytes(span(br, bc, self.ldb, "B")?, s, "matrix B")?,
            bytes(span(self.m, self.n, self.ldc, "C")?, s, "matrix C")?,
        ])
    }
}

impl Axpy {
    /// The bytes x and y span from their offsets.
    pub fn extents(&self) -> Result<[u64; 2]> {
        if self.incx == 0 || self.incy == 0 {
            return Err(Error::range("strides must be at least 1"));
        }
        let need = |inc: u64| -> Result<u64> {
            let elems = if self.n == 0 {
                0
            } else {
                (self.n - 1).checked_mul(inc).and_then(|v| v.checked_add(1)).ok_or_else(|| Error::range("the vector is too large"))?
            };
            bytes(elems, self.dtype.size(), "the vector")
        };
        Ok([need(self.incx)?, need(self.incy)?])
    }
}

/// The host version of gemm, column-major, for the simulator (and as a reference).
pub fn host_gemm<T: Copy + Into<f64>>(g: &Gemm, a: &[T], b: &[T], c: &mut [f64]) {
    let at = |i: u64, l: u64| -> f64 {
        if g.trans_a {
            a[(l + i * g.lda) as usize].into()
        } else {
            a[(i + l * g.lda) as usize].into()
        }
    };
    let bt = |l: u64, j: u64| -> f64 {
        if g.trans_b {
            b[(j + l * g.ldb) as usize].into()
        } else {
            b[(l + j * g.ldb) as usize].into()
        }
    };
    for j in 0..g.n {
        for i in 0..g.m {
            let mut acc = 0.0;
            for l in 0..g.k {
                acc += at(i, l) * bt(l, j);
            }
            let ci = (i + j * g.ldc) as usize;
            c[ci] = g.alpha * acc + if g.beta == 0.0 { 0.0 } else { g.beta * c[ci] };
        }
    }
}
