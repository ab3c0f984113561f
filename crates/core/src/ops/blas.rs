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
    fn axpy(&self, stream: &dyn StreamOps, op: &Axpy, x: &dyn AllocOps, y: &dyn AllocOps) -> Result<()>;
    /// A typed, strided-batched or `Ex` matrix product ([`MatMul`]), checked above the seam.
    fn matmul(&self, stream: &dyn StreamOps, g: &MatMul, a: &dyn AllocOps, b: &dyn AllocOps, c: &dyn AllocOps) -> Result<()>;
    /// A typed entry point of the table ([`Call`], checked above the seam): `mems` are the
    /// arrays, then (device pointer mode) the values, `None` where one spans no element. Returns
    /// the host pointer mode's output values (`Out` and `InOut`, in order, as JS numbers).
    fn call(&self, stream: &dyn StreamOps, call: &Call, mems: &[Option<&dyn AllocOps>]) -> Result<Vec<f64>>;
    /// The calling thread's cuBLAS handle's `setting` for the device, set first to `value` where
    /// one is given (checked above the seam).
    fn setting(&self, ordinal: usize, setting: Setting, value: Option<i32>) -> Result<i32>;
}

pub use super::blas_table::{Call, DataType};

/// A cuBLAS handle's setting (`cublasGet<Setting>`, `cublasSet<Setting>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// `cublasPointerMode_t`: host 0, device 1.
    PointerMode,
    /// `cublasMath_t`: default 0, tensor-op 1, pedantic 2, TF32 3, with 16 (no reduced-precision reductions).
    MathMode,
    /// `cublasAtomicsMode_t`: not allowed 0, allowed 1.
    AtomicsMode,
    /// `cublasGetVersion` (read only).
    Version,
}

/// The libraries whose handles a device hands out (CuPy's `Device.<lib>_handle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Library {
    Cublas,
    Cusolver,
    Cusparse,
    Cutensor,
    CusolverSp,
}

impl Library {
    /// The library's name as NVIDIA writes it, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Library::Cublas => "cuBLAS",
            Library::Cusolver => "cuSOLVER",
            Library::Cusparse => "cuSPARSE",
            Library::Cutensor => "cuTENSOR",
            Library::CusolverSp => "cuSOLVER (sparse)",
        }
    }
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

/// The shape of one product `C = alpha · op(A) · op(B) + beta · C`, column-major, with `op(A)`
/// m×k and `op(B)` k×n, each matrix from its first element ([`host_gemm`]'s; a [`MatMul`] is
/// the call).
#[derive(Clone, Copy, Debug)]
pub struct Gemm {
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

/// cuBLAS's compute types (`cublasComputeType_t`): the precision of the products and sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compute {
    /// `CUBLAS_COMPUTE_16F`: half, with half scalars.
    F16,
    /// `CUBLAS_COMPUTE_32F`: single, with single scalars.
    F32,
    /// `CUBLAS_COMPUTE_32F_FAST_TF32`: single data, products on tensor cores in TF32.
    F32FastTf32,
    /// `CUBLAS_COMPUTE_64F`: double.
    F64,
}

impl Compute {
    /// cublas_api.h's numbers.
    pub fn code(self) -> i32 {
        match self {
            Compute::F16 => 64,
            Compute::F32 => 68,
            Compute::F32FastTf32 => 77,
            Compute::F64 => 70,
        }
    }

    /// The type of alpha and beta (cuBLAS's "scale type").
    pub fn scale(self) -> DataType {
        match self {
            Compute::F16 => DataType::F16,
            Compute::F32 | Compute::F32FastTf32 => DataType::F32,
            Compute::F64 => DataType::F64,
        }
    }
}

/// Which cuBLAS entry point a [`MatMul`] is: `cublas<H|S|D>gemm[StridedBatched]` (A, B and C of
/// one type, computed in it) or `cublasGemm[StridedBatched]Ex` (the types and compute type given).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Typed,
    Ex,
}

/// `C[i] = alpha · op(A[i]) · op(B[i]) + beta · C[i]` for `i < batch`, column-major, each
/// matrix `stride_*` elements after the one before (`batched`: the strided-batched entry point
/// is called, else `batch` is 1). Offsets are in bytes into each allocation; alpha and beta are
/// already rounded to the compute type's scale type.
#[derive(Clone, Copy, Debug)]
pub struct MatMul {
    pub entry: Entry,
    pub a_type: DataType,
    pub b_type: DataType,
    pub c_type: DataType,
    pub compute: Compute,
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
    pub batched: bool,
    pub batch: u64,
    pub stride_a: u64,
    pub stride_b: u64,
    pub stride_c: u64,
}

impl MatMul {
    /// The shape of one product, for [`host_gemm`].
    pub fn shape(&self) -> Gemm {
        Gemm {
            trans_a: self.trans_a,
            trans_b: self.trans_b,
            m: self.m,
            n: self.n,
            k: self.k,
            alpha: self.alpha,
            beta: self.beta,
            lda: self.lda,
            ldb: self.ldb,
            ldc: self.ldc,
        }
    }

    /// The elements one A, B and C span (checked: leading dimensions cover the rows).
    pub fn spans(&self) -> Result<[u64; 3]> {
        let (ar, ac) = if self.trans_a { (self.k, self.m) } else { (self.m, self.k) };
        let (br, bc) = if self.trans_b { (self.n, self.k) } else { (self.k, self.n) };
        Ok([span(ar, ac, self.lda, "A")?, span(br, bc, self.ldb, "B")?, span(self.m, self.n, self.ldc, "C")?])
    }

    /// The bytes A, B and C span from their offsets over the whole batch.
    pub fn extents(&self) -> Result<[u64; 3]> {
        let spans = self.spans()?;
        let mut out = [0; 3];
        for (i, (what, ty, stride)) in
            [("matrix A", self.a_type, self.stride_a), ("matrix B", self.b_type, self.stride_b), ("matrix C", self.c_type, self.stride_c)]
                .into_iter()
                .enumerate()
        {
            let elems = if spans[i] == 0 || self.batch == 0 {
                0
            } else {
                (self.batch - 1)
                    .checked_mul(stride)
                    .and_then(|v| v.checked_add(spans[i]))
                    .ok_or_else(|| Error::range(format!("{what} is too large")))?
            };
            out[i] = bytes(elems, ty.size(), what)?;
        }
        Ok(out)
    }
}
