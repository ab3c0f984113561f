//! cuBLAS and cuSOLVER handles per device (CuPy's `Device.cublas_handle` / `cusolver_handle`),
//! and the few BLAS calls the `blas` module offers. Column-major, as BLAS is; the TS layer maps
//! row-major calls onto it.

use crate::block::Block;
use crate::error::{Error, Result};
use crate::memory::DeviceMemory;
use crate::runtime;
use crate::stream::Stream;

// The seam's trait and data (`ops/blas.rs`), re-exported here where they were first defined.
pub use crate::ops::blas::{host_gemm, Axpy, BlasOps, Gemm, Library, Real};

impl Gemm {
    /// Checks the operands' extents against their allocations, and cuBLAS's 32-bit sizes.
    pub fn check(&self, a: &DeviceMemory, b: &DeviceMemory, c: &DeviceMemory) -> Result<()> {
        let [ea, eb, ec] = self.extents()?;
        a.check_range(self.a_off, ea, "matrix A")?;
        b.check_range(self.b_off, eb, "matrix B")?;
        c.check_range(self.c_off, ec, "matrix C")?;
        for (v, what) in [(self.m, "m"), (self.n, "n"), (self.k, "k"), (self.lda, "lda"), (self.ldb, "ldb"), (self.ldc, "ldc")] {
            if v > i32::MAX as u64 {
                return Err(Error::range(format!("{what} is {v}, more than cuBLAS's 32-bit sizes allow")));
            }
        }
        Ok(())
    }

    /// Places the matrices in their blocks: each must lie inside its own block (a pool block is
    /// part of a larger allocation), matrix `i` at `offset(i)` of it. Sets where each lies in its
    /// allocation and returns the allocations, A, B and C.
    pub fn place<'a>(&mut self, blocks: [&'a Block; 3], mut offset: impl FnMut(usize) -> Result<u64>) -> Result<[&'a DeviceMemory; 3]> {
        let [ea, eb, ec] = self.extents()?;
        let (am, a_off) = blocks[0].range(offset(0)?, ea, "matrix A")?;
        let (bm, b_off) = blocks[1].range(offset(1)?, eb, "matrix B")?;
        let (cm, c_off) = blocks[2].range(offset(2)?, ec, "matrix C")?;
        (self.a_off, self.b_off, self.c_off) = (a_off, b_off, c_off);
        Ok([am, bm, cm])
    }
}

impl Axpy {
    /// Places the vectors in their blocks, as [`Gemm::place`] does: x, then y.
    pub fn place<'a>(&mut self, blocks: [&'a Block; 2], mut offset: impl FnMut(usize) -> Result<u64>) -> Result<[&'a DeviceMemory; 2]> {
        let [ex, ey] = self.extents()?;
        let (xm, x_off) = blocks[0].range(offset(0)?, ex, "vector x")?;
        let (ym, y_off) = blocks[1].range(offset(1)?, ey, "vector y")?;
        (self.x_off, self.y_off) = (x_off, y_off);
        Ok([xm, ym])
    }

    /// Checks the vectors' extents against their allocations, and cuBLAS's 32-bit sizes.
    pub fn check(&self, x: &DeviceMemory, y: &DeviceMemory) -> Result<()> {
        let [ex, ey] = self.extents()?;
        x.check_range(self.x_off, ex, "vector x")?;
        y.check_range(self.y_off, ey, "vector y")?;
        if self.n > i32::MAX as u64 {
            return Err(Error::range("n is more than cuBLAS's 32-bit sizes allow"));
        }
        Ok(())
    }
}

/// The device's cuBLAS handle, created on first use (one per device, whatever asks).
pub fn cublas_handle(device: usize) -> Result<u64> {
    runtime()?.backend.blas().handle(device, Library::Cublas)
}

/// The device's cuSOLVER (dense) handle, created on first use.
pub fn cusolver_handle(device: usize) -> Result<u64> {
    runtime()?.backend.blas().handle(device, Library::Cusolver)
}

/// Destroys the handles (the TS layer calls this when the main thread exits).
pub fn release_handles() {
    if let Ok(rt) = runtime() {
        rt.backend.blas().release_handles();
    }
}

/// `C = alpha · op(A) · op(B) + beta · C` on `stream` (the device's cuBLAS handle, bound to it).
pub fn gemm(stream: &Stream, g: &Gemm, a: &DeviceMemory, b: &DeviceMemory, c: &DeviceMemory) -> Result<()> {
    for m in [a, b, c] {
        stream.same_device(m, "gemm")?;
    }
    g.check(a, b, c)?;
    stream.legacy_ok("a gemm")?;
    if g.m == 0 || g.n == 0 {
        return Ok(());
    }
    runtime()?.backend.blas().gemm(stream.ops()?, g, a.ops()?, b.ops()?, c.ops()?)
}

/// `y = alpha · x + y` on `stream`.
pub fn axpy(stream: &Stream, op: &Axpy, x: &DeviceMemory, y: &DeviceMemory) -> Result<()> {
    stream.same_device(x, "axpy")?;
    stream.same_device(y, "axpy")?;
    op.check(x, y)?;
    stream.legacy_ok("an axpy")?;
    if op.n == 0 {
        return Ok(());
    }
    runtime()?.backend.blas().axpy(stream.ops()?, op, x.ops()?, y.ops()?)
}
