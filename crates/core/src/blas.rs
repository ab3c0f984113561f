//! cuBLAS and cuSOLVER handles per device (CuPy's `Device.cublas_handle` / `cusolver_handle`),
//! and the few BLAS calls the `blas` module offers. Column-major, as BLAS is; the TS layer maps
//! row-major calls onto it.

use crate::block::Block;
use crate::error::{Error, Result};
use crate::memory::DeviceMemory;
use crate::runtime;
use crate::stream::Stream;

// The seam's trait and data (`ops/blas.rs`), re-exported here where they were first defined.
pub use crate::ops::blas::{host_gemm, Axpy, BlasOps, Compute, DataType, Entry, Gemm, Library, MatMul, Real, Setting};
use crate::ops::blas_table::{self, value_words, Call};
pub use crate::ops::blas_table::{
    Choice, Elem, Entry as EntryPoint, ExEntry, ExType, Io, Kind, Len, Param, Routine, Shape, ENTRIES, EX_ENTRIES,
};

impl DataType {
    /// The dtype's name in this library (`'float16'`, `'bfloat16'`, `'float32'`, `'float64'`).
    pub fn from_name(name: &str) -> Result<DataType> {
        match name {
            "float16" => Ok(DataType::F16),
            "bfloat16" => Ok(DataType::Bf16),
            "float32" => Ok(DataType::F32),
            "float64" => Ok(DataType::F64),
            other => {
                Err(Error::type_error(format!("a gemm's data type must be 'float16', 'bfloat16', 'float32' or 'float64', got '{other}'")))
            }
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DataType::F16 => "float16",
            DataType::Bf16 => "bfloat16",
            DataType::F32 => "float32",
            DataType::F64 => "float64",
        }
    }
}

impl Compute {
    /// cuBLAS's name (`'CUBLAS_COMPUTE_32F'`…), of the four compute types this library offers.
    pub fn from_name(name: &str) -> Result<Compute> {
        match name {
            "CUBLAS_COMPUTE_16F" => Ok(Compute::F16),
            "CUBLAS_COMPUTE_32F" => Ok(Compute::F32),
            "CUBLAS_COMPUTE_32F_FAST_TF32" => Ok(Compute::F32FastTf32),
            "CUBLAS_COMPUTE_64F" => Ok(Compute::F64),
            other => Err(Error::type_error(format!(
                "computeType must be 'CUBLAS_COMPUTE_16F', 'CUBLAS_COMPUTE_32F', 'CUBLAS_COMPUTE_32F_FAST_TF32' or 'CUBLAS_COMPUTE_64F', got '{other}'"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compute::F16 => "CUBLAS_COMPUTE_16F",
            Compute::F32 => "CUBLAS_COMPUTE_32F",
            Compute::F32FastTf32 => "CUBLAS_COMPUTE_32F_FAST_TF32",
            Compute::F64 => "CUBLAS_COMPUTE_64F",
        }
    }
}

impl MatMul {
    /// The type combinations cuBLAS computes (its `cublasGemmEx` table, real types; the typed
    /// entry points: one type for all, computed in it); any other is its NOT_SUPPORTED.
    pub fn check_types(&self) -> Result<()> {
        use DataType::*;
        let (a, b, c) = (self.a_type, self.b_type, self.c_type);
        let ok = match (self.entry, self.compute) {
            (Entry::Typed, compute) => a == b && b == c && compute.scale() == a && compute != Compute::F32FastTf32,
            (Entry::Ex, Compute::F16) => [a, b, c] == [F16; 3],
            (Entry::Ex, Compute::F32) => a == b && matches!((a, c), (F16, F16) | (F16, F32) | (Bf16, Bf16) | (Bf16, F32) | (F32, F32)),
            (Entry::Ex, Compute::F32FastTf32) => [a, b, c] == [F32; 3],
            (Entry::Ex, Compute::F64) => [a, b, c] == [F64; 3],
        };
        if ok {
            return Ok(());
        }
        Err(Error::named(
            "CUBLAS_STATUS_NOT_SUPPORTED",
            format!(
                "cuBLAS has no gemm of A {}, B {}, C {} computed in {} (see cublasGemmEx's table of types)",
                a.name(),
                b.name(),
                c.name(),
                self.compute.name()
            ),
        ))
    }

    /// Checks the types, the batch's strides, the operands' alignment and extents against their
    /// allocations, and cuBLAS's 32-bit sizes.
    pub fn check(&self, a: &DeviceMemory, b: &DeviceMemory, c: &DeviceMemory) -> Result<()> {
        self.check_types()?;
        for (v, what) in [
            (self.m, "m"),
            (self.n, "n"),
            (self.k, "k"),
            (self.lda, "lda"),
            (self.ldb, "ldb"),
            (self.ldc, "ldc"),
            (self.batch, "batchCount"),
        ] {
            if v > i32::MAX as u64 {
                return Err(Error::range(format!("{what} is {v}, more than cuBLAS's 32-bit sizes allow")));
            }
        }
        if !self.batched && self.batch != 1 {
            return Err(Error::range("a gemm that is not batched computes one product"));
        }
        let [.., span_c] = self.spans()?;
        if self.batch > 1 && self.stride_c < span_c {
            return Err(Error::range(format!(
                "strideC ({}) is less than the {span_c} elements one C spans: the batch's results would overlap",
                self.stride_c
            )));
        }
        for (off, ty, what) in
            [(self.a_off, self.a_type, "matrix A"), (self.b_off, self.b_type, "matrix B"), (self.c_off, self.c_type, "matrix C")]
        {
            if off % ty.size() != 0 {
                return Err(Error::range(format!(
                    "{what} starts {off} bytes into its allocation, not a multiple of its {}-byte elements",
                    ty.size()
                )));
            }
        }
        let [ea, eb, ec] = self.extents()?;
        a.check_range(self.a_off, ea, "matrix A")?;
        b.check_range(self.b_off, eb, "matrix B")?;
        c.check_range(self.c_off, ec, "matrix C")?;
        Ok(())
    }

    /// Places the matrices in their blocks: each must lie inside its own block (a pool block is
    /// part of a larger allocation), matrix `i` at `offset(i)` of it. Sets where each lies in its
    /// allocation and returns the allocations, A, B and C.
    pub fn place<'a>(&mut self, blocks: [&'a Block; 3], offset: impl FnMut(usize) -> Result<u64>) -> Result<[&'a DeviceMemory; 3]> {
        let (mems, [a, b, c]) = place_matrices(self.extents()?, blocks, offset)?;
        (self.a_off, self.b_off, self.c_off) = (a, b, c);
        Ok(mems)
    }
}

impl Axpy {
    /// Places the vectors in their blocks, as [`MatMul::place`] does: x, then y.
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

/// The calling thread's handle of `lib` for the device (cuSPARSE, cuTENSOR, cuSOLVER's sparse
/// one…), created on first use as the cuBLAS handle is, destroyed with it.
pub fn library_handle(device: usize, lib: Library) -> Result<u64> {
    runtime()?.backend.blas().handle(device, lib)
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

/// A typed (`cublas<H|S|D>gemm`), strided-batched or `Ex` matrix product on `stream`, through
/// the device's cuBLAS handle bound to it. Alpha and beta are rounded to the compute type's scale
/// type here, so both backends compute with the same values.
pub fn matmul(stream: &Stream, g: &MatMul, a: &DeviceMemory, b: &DeviceMemory, c: &DeviceMemory) -> Result<()> {
    for m in [a, b, c] {
        stream.same_device(m, "gemm")?;
    }
    g.check(a, b, c)?;
    stream.legacy_ok("a gemm")?;
    if g.m == 0 || g.n == 0 || g.batch == 0 {
        return Ok(());
    }
    let scale = g.compute.scale();
    let g = MatMul { alpha: scale.round(g.alpha), beta: scale.round(g.beta), ..*g };
    runtime()?.backend.blas().matmul(stream.ops()?, &g, a.ops()?, b.ops()?, c.ops()?)
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

/// The calling thread's cuBLAS handle's `setting` for the device (`cublasGet<Setting>`), set first
/// to `value` where one is given (`cublasSet<Setting>`).
pub fn setting(device: usize, setting: Setting, value: Option<f64>) -> Result<i32> {
    let v = match value {
        None => None,
        Some(v) => {
            let ok = v.fract() == 0.0
                && match setting {
                    Setting::PointerMode | Setting::AtomicsMode => v == 0.0 || v == 1.0,
                    Setting::MathMode => (0.0..=19.0).contains(&v) && (v as i32 & !16) <= 3,
                    Setting::Version => return Err(Error::type_error("cuBLAS's version cannot be set")),
                };
            if !ok {
                return Err(Error::range(format!("{v} is not a value of cuBLAS's {setting:?}")));
            }
            Some(v as i32)
        }
    };
    runtime()?.backend.blas().setting(device, setting, v)
}

/// A typed cuBLAS entry point by CuPy's name (`sgemv`, `zherk`, …), on `stream` through the
/// device's cuBLAS handle bound to it. `ints`: each int, long and enum parameter in the header's
/// order; `host`: in host pointer mode, the input values (a complex one as re, im); `operands`:
/// the arrays in order, then in device pointer mode the values, each a block and a byte offset in
/// it. Every size is checked against the memory given. Returns the host pointer mode's outputs.
pub fn call(stream: &Stream, name: &str, ints: &[f64], host: &[f64], operands: &[(&Block, u64)]) -> Result<Vec<f64>> {
    let (entry, ilp64) = blas_table::entry(name)?;
    checked_call(stream, name, entry, ilp64, None, ints, host, operands)
}

/// A mixed-precision `Ex` entry point by CuPy's name (`dotEx`, `sgemmEx`, …): as [`call`], with
/// `types` each typed operand's `cudaDataType` by name (`'CUDA_R_16F'`…) and the execution type
/// last; `ints`, `host` and `operands` as the typed entry computing it takes them. A combination
/// cuBLAS does not compute is its NOT_SUPPORTED.
#[allow(clippy::too_many_arguments)]
pub fn call_ex(stream: &Stream, name: &str, types: &[&str], ints: &[f64], host: &[f64], operands: &[(&Block, u64)]) -> Result<Vec<f64>> {
    let ex = blas_table::ex_entry(name).ok_or_else(|| Error::type_error(format!("cuBLAS has no entry point '{name}' in this library")))?;
    let (entry, x) = ex.resolve(types)?;
    checked_call(stream, name, entry, false, Some(x), ints, host, operands)
}

#[allow(clippy::too_many_arguments)]
fn checked_call(
    stream: &Stream,
    name: &str,
    entry: &'static EntryPoint,
    ilp64: bool,
    ex: Option<blas_table::ExCall>,
    ints: &[f64],
    host: &[f64],
    operands: &[(&Block, u64)],
) -> Result<Vec<f64>> {
    let int_params: Vec<Param> = entry.params.iter().filter(|p| !p.is_pointer()).copied().collect();
    if ints.len() != int_params.len() {
        let names: Vec<&str> = int_params.iter().map(|p| p.name()).collect();
        return Err(Error::range(format!("{name} takes {} sizes and modes ({}), got {}", names.len(), names.join(", "), ints.len())));
    }
    let mut vals = Vec::with_capacity(ints.len());
    for (p, &v) in int_params.iter().zip(ints) {
        let (lo, hi, what) = match p {
            Param::Int(_) if ilp64 => (0.0, 9007199254740991.0, "a whole number of at least 0"),
            Param::Int(_) if v > i32::MAX as f64 && v <= 9007199254740991.0 && v.fract() == 0.0 && entry.has_64() && ex.is_none() => {
                return Err(Error::range(format!(
                    "{name}: {} is {v}, more than cuBLAS's 32-bit sizes allow (2147483647): call {name}_64 ({}_64, cuBLAS 12 and later)",
                    p.name(),
                    entry.symbol
                )))
            }
            Param::Int(_) => (0.0, i32::MAX as f64, "a whole number from 0 to 2147483647 (cuBLAS's 32-bit sizes)"),
            Param::Long(_) => (0.0, 9007199254740991.0, "a whole number of at least 0"),
            Param::Enum(_, c) => (0.0, (c.values() - 1) as f64, "one of cuBLAS's values for it"),
            _ => unreachable!("ints only"),
        };
        if !(v >= lo && v <= hi && v.fract() == 0.0) {
            return Err(Error::range(format!("{name}: {} is {v}, not {what}", p.name())));
        }
        vals.push(v as i64);
    }
    let device_values = setting(stream.device(), Setting::PointerMode, None)? == 1;
    let mut c = Call { entry, ints: vals, host: host.to_vec(), device_values, ilp64, ex, offsets: Vec::with_capacity(operands.len()) };
    // cuBLAS's own refusals, said before the call: herk's family takes N or C, a complex syrk's
    // N or T, gels N with m ≥ n, matinv n ≤ 32.
    let trans = c.int("trans");
    match entry.routine {
        Routine::Herk | Routine::Her2k | Routine::Herkx if trans == 1 => {
            return Err(Error::range(format!("{name} takes trans 'N' or 'C' (op(A) = Aᴴ), not 'T'")))
        }
        Routine::Syrk | Routine::Syr2k | Routine::Syrkx if trans == 2 && entry.elem.complex() => {
            return Err(Error::range(format!("{name} takes trans 'N' or 'T' (op(A) = Aᵀ), not 'C'")))
        }
        Routine::GelsBatched if trans != 0 || c.int("m") < c.int("n") => {
            return Err(Error::range(format!(
                "{name} solves trans 'N' with m ≥ n only (cuBLAS's gelsBatched), got trans {} with m {} and n {}",
                ["'N'", "'T'", "'C'"][trans as usize],
                c.int("m"),
                c.int("n")
            )))
        }
        Routine::MatinvBatched if c.int("n") > 32 => {
            return Err(Error::range(format!(
                "{name} inverts matrices of at most 32 rows (n is {}): use getrfBatched and getriBatched",
                c.int("n")
            )))
        }
        _ => {}
    }
    let values: Vec<(&str, Kind, Io, u8)> =
        entry.params.iter().filter_map(|p| if let Param::Value(n, k, io, len) = *p { Some((n, k, io, len)) } else { None }).collect();
    let want_host: usize =
        if device_values { 0 } else { values.iter().filter(|v| v.2 != Io::Out).map(|v| value_words(entry.elem, v.1) * v.3 as usize).sum() };
    if host.len() != want_host {
        return Err(Error::range(if device_values {
            format!("{name}: the handle's pointer mode is device, so its scalars are device memory, not numbers")
        } else {
            format!("{name} takes {want_host} numbers for its scalars in host pointer mode, got {}", host.len())
        }));
    }
    // Each array parameter, its elements' bytes, and how many memory operands it is (a pointer
    // array: one a matrix).
    let arrays: Vec<(&str, Io, Shape, u64, usize)> = entry
        .params
        .iter()
        .filter_map(|p| match *p {
            Param::Array(n, io, s) | Param::Batch(n, io, s) => Some((n, io, s, c.array_size(n), entry.operands(*p, &c))),
            Param::Ints(n, io, len) => Some((n, io, Shape::Vector { len, inc: "" }, 4, 1)),
            _ => None,
        })
        .collect();
    let array_mems: usize = arrays.iter().map(|a| a.4).sum();
    let batched = entry.params.iter().any(|p| matches!(p, Param::Batch(..)));
    let want_mems = array_mems + if device_values { values.len() } else { 0 };
    if operands.len() != want_mems {
        return Err(Error::range(format!(
            "{name} takes {want_mems} memory operands in {} pointer mode{}, got {}",
            if device_values { "device" } else { "host" },
            if batched { " (a matrix a batch for each array of pointers)" } else { "" },
            operands.len()
        )));
    }
    let mut mems: Vec<Option<&DeviceMemory>> = Vec::with_capacity(want_mems);
    let mut place = |i: usize, what: &str, bytes: u64, align: u64, c: &mut Call| -> Result<()> {
        let (block, off) = operands[i];
        let (mem, at) = block.range(off, bytes, what)?;
        if at % align != 0 {
            return Err(Error::range(format!("{what} starts {at} bytes into its allocation, not a multiple of its {align}-byte elements")));
        }
        stream.same_device(mem, name)?;
        c.offsets.push(at);
        mems.push((bytes > 0).then_some(mem));
        Ok(())
    };
    let mut at = 0;
    for &(what, io, shape, size, count) in &arrays {
        let elems = c.span(shape, what)?;
        if let (Io::Out | Io::InOut, Shape::Matrix { rows, cols, ld, batch: Some((stride, count)) }) = (io, shape) {
            let one = c.span(Shape::Matrix { rows, cols, ld, batch: None }, what)?;
            if c.int(count) > 1 && (c.int(stride) as u64) < one {
                return Err(Error::range(format!(
                    "{stride} ({}) is less than the {one} elements one {what} spans: the batch's results would overlap",
                    c.int(stride)
                )));
            }
        }
        let bytes = elems.checked_mul(size).ok_or_else(|| Error::range(format!("{what} is too large")))?;
        for b in 0..count {
            let label =
                if batched && count > 0 && matches!(shape, Shape::Matrix { .. }) { format!("{what}[{b}]") } else { what.to_string() };
            place(at, &label, bytes, size, &mut c)?;
            at += 1;
        }
    }
    if batched {
        stream.not_capturing(&format!("{name} (its arrays of pointers are copied from the host)"))?;
    }
    if device_values {
        for (i, &(what, kind, _, len)) in values.iter().enumerate() {
            let size = c.value_size(what, kind);
            place(array_mems + i, what, size * len as u64, size, &mut c)?;
        }
    }
    stream.legacy_ok("a cuBLAS call")?;
    if !device_values && values.iter().any(|v| v.2 != Io::In) {
        stream.not_capturing(&format!("{name} returning its result to the host (set the pointer mode to device to capture it)"))?;
    }
    if batched && c.batch_count() == 0 {
        return Ok(vec![]);
    }
    let ops: Vec<Option<&dyn crate::ops::AllocOps>> = mems.iter().map(|m| m.map(|m| m.ops()).transpose()).collect::<Result<_>>()?;
    runtime()?.backend.blas().call(stream.ops()?, &c, &ops)
}

/// Matrices A, B and C of `extents` bytes placed in their blocks, matrix `i` at `offset(i)` of
/// block `i` and inside it: their allocations and where each lies in its allocation.
fn place_matrices(
    extents: [u64; 3],
    blocks: [&Block; 3],
    mut offset: impl FnMut(usize) -> Result<u64>,
) -> Result<([&DeviceMemory; 3], [u64; 3])> {
    let mut mems = Vec::with_capacity(3);
    let mut offs = [0; 3];
    for (i, name) in ["matrix A", "matrix B", "matrix C"].into_iter().enumerate() {
        let (mem, off) = blocks[i].range(offset(i)?, extents[i], name)?;
        mems.push(mem);
        offs[i] = off;
    }
    Ok(([mems[0], mems[1], mems[2]], offs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matmul(entry: Entry, [a, b, c]: [DataType; 3], compute: Compute) -> MatMul {
        MatMul {
            entry,
            a_type: a,
            b_type: b,
            c_type: c,
            compute,
            trans_a: false,
            trans_b: true,
            m: 3,
            n: 4,
            k: 5,
            alpha: 1.0,
            beta: 0.0,
            lda: 3,
            ldb: 4,
            ldc: 3,
            a_off: 0,
            b_off: 0,
            c_off: 0,
            batched: true,
            batch: 2,
            stride_a: 0,
            stride_b: 20,
            stride_c: 12,
        }
    }

    #[test]
    fn the_types_are_cublas_gemm_ex_table() {
        use DataType::*;
        let ok = |e, t, c| matmul(e, t, c).check_types().is_ok();
        assert!(ok(Entry::Typed, [F16; 3], Compute::F16));
        assert!(!ok(Entry::Typed, [Bf16; 3], Compute::F32));
        assert!(!ok(Entry::Typed, [F32; 3], Compute::F32FastTf32));
        assert!(ok(Entry::Ex, [F16, F16, F32], Compute::F32));
        assert!(ok(Entry::Ex, [Bf16, Bf16, Bf16], Compute::F32));
        assert!(!ok(Entry::Ex, [F16, Bf16, F32], Compute::F32));
        assert!(!ok(Entry::Ex, [F16, F16, F32], Compute::F16));
        assert!(ok(Entry::Ex, [F32; 3], Compute::F32FastTf32));
        assert!(!ok(Entry::Ex, [F64, F64, F32], Compute::F64));
        let e = matmul(Entry::Ex, [F32, F32, F64], Compute::F64).check_types().unwrap_err();
        assert_eq!(e.code_name().as_deref(), Some("CUBLAS_STATUS_NOT_SUPPORTED"));
    }

    #[test]
    fn a_batch_spans_its_strides() {
        let g = matmul(Entry::Ex, [DataType::F16, DataType::F16, DataType::F32], Compute::F32);
        // A (3×5, lda 3) shared: 15 halves; B (op(B) 5×4 stored 4×5, ldb 4): 20 + 20 halves; C: 12 + 12 floats.
        assert_eq!(g.extents().unwrap(), [30, 80, 96]);
        assert_eq!(MatMul { batch: 0, ..g }.extents().unwrap(), [0, 0, 0]);
        assert_eq!(DataType::F16.round(1.0 / 3.0), 0.333251953125);
        assert_eq!(DataType::Bf16.round(1.0 + 1.0 / 256.0), 1.0);
    }
}
