//! cuBLAS and cuSOLVER handles per device, and the `blas` module's calls, bound to a stream.

use crate::raw::{BigU64, Numbers, Strings};
use crate::{memory, stream};
use cuda_node_core::blas::{self, Axpy, Choice, Compute, DataType, Entry, EntryPoint, Io, Kind, Library, MatMul, Param, Real, Setting, ENTRIES};
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

/// The table of typed entry points as JSON, for the TS layer to make a method of each:
/// `[{"name", "elem", "has64", "params": [{"name", "kind", …}]}]` (`has64`: cuBLAS has its
/// 64-bit variant, called as `<name>_64`).
fn entries_json() -> String {
    let io = |io: Io| match io {
        Io::In => "in",
        Io::Out => "out",
        Io::InOut => "inout",
    };
    let kind = |k: Kind| match k {
        Kind::Elem => "elem",
        Kind::Real => "real",
        Kind::Index => "index",
    };
    let params = |e: &EntryPoint| -> Vec<String> {
        e.params
            .iter()
            .map(|p| match *p {
                Param::Int(n) => format!(r#"{{"name":"{n}","kind":"int"}}"#),
                Param::Long(n) => format!(r#"{{"name":"{n}","kind":"long"}}"#),
                Param::Enum(n, c) => {
                    let c = match c {
                        Choice::Op => "op",
                        Choice::Fill => "fill",
                        Choice::Side => "side",
                        Choice::Diag => "diag",
                    };
                    format!(r#"{{"name":"{n}","kind":"enum","choice":"{c}"}}"#)
                }
                Param::Value(n, k, i, len) => format!(r#"{{"name":"{n}","kind":"value","of":"{}","io":"{}","len":{len}}}"#, kind(k), io(i)),
                Param::Array(n, i, _) => format!(r#"{{"name":"{n}","kind":"array","io":"{}"}}"#, io(i)),
                Param::Batch(n, i, _) => format!(r#"{{"name":"{n}","kind":"batch","io":"{}"}}"#, io(i)),
                Param::Ints(n, i, _) => format!(r#"{{"name":"{n}","kind":"array","io":"{}"}}"#, io(i)),
                Param::HostInfo(n) => format!(r#"{{"name":"{n}","kind":"internal"}}"#),
            })
            .collect()
    };
    let entries: Vec<String> = ENTRIES
        .iter()
        .map(|e| format!(r#"{{"name":"{}","elem":"{}","has64":{},"params":[{}]}}"#, e.name, e.elem.name(), e.has_64(), params(e).join(",")))
        .collect();
    format!("[{}]", entries.join(","))
}

/// The `Ex` entry points as JSON: `[{"name", "types": [[param, option]…], "exec", "execOption", "combos":
/// [[[type…], exec, typed entry]…]}]`, the types by their `cudaDataType` names.
fn ex_entries_json() -> String {
    let entries: Vec<String> = blas::EX_ENTRIES
        .iter()
        .map(|x| {
            let types: Vec<String> = x.types.iter().map(|t| format!(r#"["{}","{}"]"#, t.0, t.1)).collect();
            let combos: Vec<String> = x
                .combos
                .iter()
                .map(|(ts, e, typed)| {
                    let ts: Vec<String> = ts.iter().map(|t| format!(r#""{}""#, t.name())).collect();
                    format!(r#"[[{}],"{}","{typed}"]"#, ts.join(","), x.exec_name(*e))
                })
                .collect();
            format!(
                r#"{{"name":"{}","types":[{}],"exec":{},"execOption":"{}","combos":[{}]}}"#,
                x.name,
                types.join(","),
                x.exec,
                x.exec_option(),
                combos.join(",")
            )
        })
        .collect();
    format!("[{}]", entries.join(","))
}

fn setting(name: &str) -> Result<Setting> {
    match name {
        "pointerMode" => Ok(Setting::PointerMode),
        "mathMode" => Ok(Setting::MathMode),
        "atomicsMode" => Ok(Setting::AtomicsMode),
        "version" => Ok(Setting::Version),
        other => Err(Error::type_error(format!("a cuBLAS setting is 'pointerMode', 'mathMode', 'atomicsMode' or 'version', got '{other}'"))),
    }
}

/// The memory operands of `blasCall` and `blasCallEx` (their handles, then their byte offsets,
/// read in that order): each block with its offset, checked.
fn operands(mems: &Numbers, offsets: &Numbers) -> Result<(Vec<std::sync::Arc<cuda_node_core::Block>>, Vec<u64>)> {
    if mems.0.len() != offsets.0.len() {
        return Err(Error::range("each memory operand needs its offset"));
    }
    let blocks = mems.0.iter().map(|h| memory::get(*h)).collect::<Result<Vec<_>>>()?;
    let offsets = offsets.0.iter().map(|off| crate::raw::numbers::count("offset", *off)).collect::<Result<Vec<_>>>()?;
    Ok((blocks, offsets))
}

crate::exports! {
    /// cuBLAS's typed entry points this library calls, as JSON (read once by lib/blas.ts).
    c"blasEntries" => fn blas_entries(_cx) -> String {
        Ok(entries_json())
    }

    /// The calling thread's cuBLAS handle's `setting` for the device, set first to `value` if given.
    c"blasSetting" => fn blas_setting(_cx, device: f64, setting_name: String, value: Option<f64>) -> i32 {
        blas::setting(runtime()?.ordinal(device)?, setting(&setting_name)?, value)
    }

    /// A typed entry point by CuPy's name on `stream`: `ints` its int, long and enum parameters in
    /// order, `host` its input scalars in host pointer mode, `mems` and `offsets` its memory
    /// operands (arrays, then device-mode scalars) and their byte offsets. Returns the host
    /// pointer mode's output scalars.
    c"blasCall" => fn blas_call(_cx, stream: f64, name: String, ints: Numbers, host: Numbers, mems: Numbers, offsets: Numbers) -> Vec<f64> {
        let (blocks, offsets) = operands(&mems, &offsets)?;
        let operands: Vec<_> = blocks.iter().map(|b| &**b).zip(offsets).collect();
        stream::with(stream, |s| blas::call(s, &name, ints.0, host.0, &operands))
    }

    /// cuBLAS's mixed-precision `Ex` entry points this library calls, as JSON (read once by lib/blas.ts).
    c"blasExEntries" => fn blas_ex_entries(_cx) -> String {
        Ok(ex_entries_json())
    }

    /// An `Ex` entry point by CuPy's name on `stream`, as `blasCall`, with `types` each typed
    /// operand's `cudaDataType` by name and the execution type last.
    c"blasCallEx" => fn blas_call_ex(_cx, stream: f64, name: String, types: Strings, ints: Numbers, host: Numbers, mems: Numbers, offsets: Numbers) -> Vec<f64> {
        let (blocks, offsets) = operands(&mems, &offsets)?;
        let operands: Vec<_> = blocks.iter().map(|b| &**b).zip(offsets).collect();
        let types: Vec<&str> = types.0.iter().map(|t| t.as_str()).collect();
        stream::with(stream, |s| blas::call_ex(s, &name, &types, ints.0, host.0, &operands))
    }

    /// The device's cuBLAS handle, created on first use.
    c"deviceCublasHandle" => fn device_cublas_handle(_cx, device: f64) -> BigU64 {
        Ok(BigU64(blas::cublas_handle(runtime()?.ordinal(device)?)?))
    }

    /// The device's cuSOLVER (dense) handle, created on first use.
    c"deviceCusolverHandle" => fn device_cusolver_handle(_cx, device: f64) -> BigU64 {
        Ok(BigU64(blas::cusolver_handle(runtime()?.ordinal(device)?)?))
    }

    /// The device's handle of `library` (`'cusparse'`, `'cutensor'` or `'cusolverSp'`), created on
    /// first use.
    c"deviceLibraryHandle" => fn device_library_handle(_cx, device: f64, library: String) -> BigU64 {
        let lib = match library.as_str() {
            "cusparse" => Library::Cusparse,
            "cutensor" => Library::Cutensor,
            "cusolverSp" => Library::CusolverSp,
            other => return Err(Error::type_error(format!("library must be 'cusparse', 'cutensor' or 'cusolverSp', got '{other}'"))),
        };
        Ok(BigU64(blas::library_handle(runtime()?.ordinal(device)?, lib)?))
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
        // cublasSgemm or cublasDgemm: the typed entry of one product, as `blas.gemm` calls it.
        let (ty, compute) = match real(&dtype)? {
            Real::F32 => (DataType::F32, Compute::F32),
            Real::F64 => (DataType::F64, Compute::F64),
        };
        let mut spec = MatMul {
            entry: Entry::Typed,
            a_type: ty,
            b_type: ty,
            c_type: ty,
            compute,
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
            batched: false,
            batch: 1,
            stride_a: 0,
            stride_b: 0,
            stride_c: 0,
        };
        let [am, bm, cm] = spec.place([&a, &b, &c], |i| count(d, 8 + i, "offset"))?;
        stream::with(stream, |s| blas::matmul(s, &spec, am, bm, cm))
    }

    /// Column-major `C[i] = alpha · op(A[i]) · op(B[i]) + beta · C[i]` on `stream`. `types`: the
    /// entry (`'typed'`: cublas<H|S|D>gemm, or `'ex'`: cublasGemmEx), A's, B's and C's data types
    /// and the compute type; `flags`: bit 0 transposes A, bit 1 B, bit 2 calls the strided-batched
    /// entry; `dims`: m, n, k, alpha, beta, lda, ldb, ldc, A's, B's and C's byte offsets, the batch
    /// count and the strides in elements.
    c"blasMatmul" => fn blas_matmul(_cx, stream: f64, types: Strings, flags: u32, a: f64, b: f64, c: f64, dims: Numbers) -> () {
        let (d, t) = (dims.0, types.0);
        let ty = |i: usize| t.get(i).map(String::as_str).unwrap_or("");
        let (a, b, c) = (memory::get(a)?, memory::get(b)?, memory::get(c)?);
        let mut spec = MatMul {
            entry: match ty(0) {
                "typed" => Entry::Typed,
                "ex" => Entry::Ex,
                other => return Err(Error::type_error(format!("the gemm entry must be 'typed' or 'ex', got '{other}'"))),
            },
            a_type: DataType::from_name(ty(1))?,
            b_type: DataType::from_name(ty(2))?,
            c_type: DataType::from_name(ty(3))?,
            compute: Compute::from_name(ty(4))?,
            trans_a: flags & 1 != 0,
            trans_b: flags & 2 != 0,
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
            batched: flags & 4 != 0,
            batch: count(d, 11, "batchCount")?,
            stride_a: count(d, 12, "strideA")?,
            stride_b: count(d, 13, "strideB")?,
            stride_c: count(d, 14, "strideC")?,
        };
        let [am, bm, cm] = spec.place([&a, &b, &c], |i| count(d, 8 + i, "offset"))?;
        stream::with(stream, |s| blas::matmul(s, &spec, am, bm, cm))
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
