//! cuBLAS's typed entry points as one table: each entry's symbol, element type and C parameters
//! after the handle, in the header's order (cublas_api.h). The model checks a call against its
//! entry (`blas.rs`), the cuda backend calls the symbol with those parameters, the simulator runs
//! its host reference of the entry's [`Routine`]. Adding an entry point is a line here.

use crate::error::{Error, Result};

/// The element type of a typed entry point: cuBLAS's S, D, C and Z.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    S,
    D,
    C,
    Z,
}

impl Elem {
    pub fn size(self) -> u64 {
        match self {
            Elem::S => 4,
            Elem::D | Elem::C => 8,
            Elem::Z => 16,
        }
    }

    pub fn complex(self) -> bool {
        matches!(self, Elem::C | Elem::Z)
    }

    /// Its real type (single for S and C, double for D and Z).
    pub fn real(self) -> Elem {
        match self {
            Elem::S | Elem::C => Elem::S,
            Elem::D | Elem::Z => Elem::D,
        }
    }

    /// The dtype's name in this library.
    pub fn name(self) -> &'static str {
        match self {
            Elem::S => "float32",
            Elem::D => "float64",
            Elem::C => "complex64",
            Elem::Z => "complex128",
        }
    }
}

/// Which of cuBLAS's enums an enum parameter is; its values are the header's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// `cublasOperation_t`: N 0, T 1, C 2.
    Op,
    /// `cublasFillMode_t`: lower 0, upper 1.
    Fill,
    /// `cublasSideMode_t`: left 0, right 1.
    Side,
    /// `cublasDiagType_t`: non-unit 0, unit 1.
    Diag,
}

impl Choice {
    /// How many values it has (0 to this, exclusive).
    pub fn values(self) -> i64 {
        match self {
            Choice::Op => 3,
            Choice::Fill | Choice::Side | Choice::Diag => 2,
        }
    }
}

/// What a value or array holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The entry's element type.
    Elem,
    /// Its real type (herk's alpha and beta, a rotation's cosine).
    Real,
    /// An `int` (amax's 1-based index).
    Index,
}

/// Whether the call reads, writes or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Io {
    In,
    Out,
    InOut,
}

/// A length, from the call's ints by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Len {
    Of(&'static str),
    /// `k + 1` (a symmetric band's rows).
    Plus1(&'static str),
    /// `kl + ku + 1` (a general band's rows).
    Band(&'static str, &'static str),
    /// The smaller of two (geqrf's reflectors).
    Min(&'static str, &'static str),
    /// `a · b` (a batch's pivots: n a matrix).
    Product(&'static str, &'static str),
    /// By an operation: the first where it is N, else the second.
    ByOp(&'static str, &'static str, &'static str),
    /// By a side: the first where it is left, else the second.
    BySide(&'static str, &'static str, &'static str),
}

/// The elements a device array spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `len` elements `inc` apart.
    Vector { len: Len, inc: &'static str },
    /// A column-major `rows`×`cols` matrix, columns `ld` apart; with `batch` (stride, count),
    /// `count` of them `stride` elements apart.
    Matrix { rows: Len, cols: Len, ld: &'static str, batch: Option<(&'static str, &'static str)> },
    /// A triangle of an n×n matrix packed by columns: n(n+1)/2 elements.
    Packed(&'static str),
}

/// One C parameter after the handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// An `int`: a size, an increment or a leading dimension.
    Int(&'static str),
    /// A `long long`: a batch's stride in elements.
    Long(&'static str),
    /// One of cuBLAS's enums (an `int`).
    Enum(&'static str, Choice),
    /// `len` scalars the call reads or writes where the handle's pointer mode says: host memory
    /// (numbers from and to JS) or device memory.
    Value(&'static str, Kind, Io, u8),
    /// A device array of the entry's element type.
    Array(&'static str, Io, Shape),
    /// A device array of `batchCount` pointers, each to an array of `Shape` (the `Batched`
    /// entry points' `const float* const Aarray[]`): given as one memory operand a matrix.
    Batch(&'static str, Io, Shape),
    /// A device array of `len` ints (getrf's pivots and infos).
    Ints(&'static str, Io, Len),
    /// A host int the call writes (getrsBatched's `info`: which parameter was invalid). The
    /// model checks the parameters first; a non-zero one is reported as an error.
    HostInfo(&'static str),
}

impl Param {
    pub fn name(self) -> &'static str {
        match self {
            Param::Int(n) | Param::Long(n) | Param::Enum(n, _) | Param::Value(n, ..) | Param::Array(n, ..) | Param::Batch(n, ..) => n,
            Param::Ints(n, ..) | Param::HostInfo(n) => n,
        }
    }

    /// Whether the C parameter is a pointer (else an `int`, or a `long long` for [`Param::Long`]).
    pub fn is_pointer(self) -> bool {
        matches!(self, Param::Value(..) | Param::Array(..) | Param::Batch(..) | Param::Ints(..) | Param::HostInfo(..))
    }
}

/// The computation an entry performs, whatever its element type (the simulator's reference).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routine {
    Amax,
    Amin,
    Asum,
    Axpy,
    Copy,
    Dot,
    Dotc,
    Nrm2,
    Rot,
    Rotg,
    Rotm,
    Rotmg,
    Scal,
    Swap,
    Gemv,
    Gbmv,
    Ger,
    Gerc,
    Symv,
    Hemv,
    Sbmv,
    Hbmv,
    Spmv,
    Hpmv,
    Syr,
    Her,
    Syr2,
    Her2,
    Spr,
    Hpr,
    Spr2,
    Hpr2,
    Trmv,
    Tbmv,
    Tpmv,
    Trsv,
    Tbsv,
    Tpsv,
    Gemm,
    GemmStridedBatched,
    GemmBatched,
    Symm,
    Hemm,
    Syrk,
    Herk,
    Syr2k,
    Her2k,
    Syrkx,
    Herkx,
    Trmm,
    Trsm,
    TrsmBatched,
    GetrfBatched,
    GetrsBatched,
    GetriBatched,
    MatinvBatched,
    GeqrfBatched,
    GelsBatched,
    Geam,
    Dgmm,
    Tpttr,
    Trttp,
}

/// One typed entry point.
#[derive(Debug)]
pub struct Entry {
    /// CuPy's name (`sgemv`, `icamax`, `zdscal`), the method's in JS.
    pub name: &'static str,
    /// The library's symbol.
    pub symbol: &'static str,
    pub routine: Routine,
    pub elem: Elem,
    /// The C parameters after the handle, in order.
    pub params: &'static [Param],
}

use Choice::{Diag, Fill, Op, Side};
use Io::{In, InOut, Out};
use Kind::{Elem as E, Index, Real};
use Len::{Band, ByOp, BySide, Of, Plus1};
use Param::{Array, Batch, Enum, HostInfo, Int, Ints, Long, Value};

const fn vec(len: Len, inc: &'static str) -> Shape {
    Shape::Vector { len, inc }
}
const fn mat(rows: Len, cols: Len, ld: &'static str) -> Shape {
    Shape::Matrix { rows, cols, ld, batch: None }
}
const N: Len = Of("n");
const M: Len = Of("m");
const INCX: Param = Int("incx");
const INCY: Param = Int("incy");
const fn x(io: Io, len: Len) -> Param {
    Array("x", io, vec(len, "incx"))
}
const fn y(io: Io, len: Len) -> Param {
    Array("y", io, vec(len, "incy"))
}
const ALPHA: Param = Value("alpha", E, In, 1);
const ALPHA_R: Param = Value("alpha", Real, In, 1);
const BETA: Param = Value("beta", E, In, 1);
const BETA_R: Param = Value("beta", Real, In, 1);
const UPLO: Param = Enum("uplo", Fill);
const TRANS: Param = Enum("trans", Op);
const DIAG: Param = Enum("diag", Diag);
const SIDE: Param = Enum("side", Side);
const LDA: Param = Int("lda");
const LDB: Param = Int("ldb");
const LDC: Param = Int("ldc");
/// An n×n matrix A (its triangle read by symmetric and triangular entries).
const A_NN: Param = Array("A", In, mat(N, N, "lda"));
/// A band matrix's (k+1)×n storage.
const A_BAND: Param = Array("A", In, mat(Plus1("k"), N, "lda"));

// Level 1.
const IAMAX: &[Param] = &[Int("n"), x(In, N), INCX, Value("result", Index, Out, 1)];
const ASUM: &[Param] = &[Int("n"), x(In, N), INCX, Value("result", Real, Out, 1)];
const AXPY: &[Param] = &[Int("n"), ALPHA, x(In, N), INCX, y(InOut, N), INCY];
const COPY: &[Param] = &[Int("n"), x(In, N), INCX, y(Out, N), INCY];
const DOT: &[Param] = &[Int("n"), x(In, N), INCX, y(In, N), INCY, Value("result", E, Out, 1)];
const ROT: &[Param] = &[Int("n"), x(InOut, N), INCX, y(InOut, N), INCY, Value("c", Real, In, 1), Value("s", E, In, 1)];
const ROT_R: &[Param] = &[Int("n"), x(InOut, N), INCX, y(InOut, N), INCY, Value("c", Real, In, 1), Value("s", Real, In, 1)];
const ROTG: &[Param] = &[Value("a", E, InOut, 1), Value("b", E, InOut, 1), Value("c", Real, Out, 1), Value("s", E, Out, 1)];
const ROTM: &[Param] = &[Int("n"), x(InOut, N), INCX, y(InOut, N), INCY, Value("param", Real, In, 5)];
const ROTMG: &[Param] = &[
    Value("d1", Real, InOut, 1),
    Value("d2", Real, InOut, 1),
    Value("x1", Real, InOut, 1),
    Value("y1", Real, In, 1),
    Value("param", Real, Out, 5),
];
const SCAL: &[Param] = &[Int("n"), ALPHA, x(InOut, N), INCX];
const SCAL_R: &[Param] = &[Int("n"), ALPHA_R, x(InOut, N), INCX];
const SWAP: &[Param] = &[Int("n"), x(InOut, N), INCX, y(InOut, N), INCY];

// Level 2.
const GEMV: &[Param] = &[
    TRANS,
    Int("m"),
    Int("n"),
    ALPHA,
    Array("A", In, mat(M, N, "lda")),
    LDA,
    x(In, ByOp("trans", "n", "m")),
    INCX,
    BETA,
    y(InOut, ByOp("trans", "m", "n")),
    INCY,
];
const GBMV: &[Param] = &[
    TRANS,
    Int("m"),
    Int("n"),
    Int("kl"),
    Int("ku"),
    ALPHA,
    Array("A", In, mat(Band("kl", "ku"), N, "lda")),
    LDA,
    x(In, ByOp("trans", "n", "m")),
    INCX,
    BETA,
    y(InOut, ByOp("trans", "m", "n")),
    INCY,
];
const GER: &[Param] = &[Int("m"), Int("n"), ALPHA, x(In, M), INCX, y(In, N), INCY, Array("A", InOut, mat(M, N, "lda")), LDA];
const SYMV: &[Param] = &[UPLO, Int("n"), ALPHA, A_NN, LDA, x(In, N), INCX, BETA, y(InOut, N), INCY];
const SBMV: &[Param] = &[UPLO, Int("n"), Int("k"), ALPHA, A_BAND, LDA, x(In, N), INCX, BETA, y(InOut, N), INCY];
const SPMV: &[Param] = &[UPLO, Int("n"), ALPHA, Array("AP", In, Shape::Packed("n")), x(In, N), INCX, BETA, y(InOut, N), INCY];
const SYR: &[Param] = &[UPLO, Int("n"), ALPHA, x(In, N), INCX, Array("A", InOut, mat(N, N, "lda")), LDA];
const HER: &[Param] = &[UPLO, Int("n"), ALPHA_R, x(In, N), INCX, Array("A", InOut, mat(N, N, "lda")), LDA];
const SYR2: &[Param] = &[UPLO, Int("n"), ALPHA, x(In, N), INCX, y(In, N), INCY, Array("A", InOut, mat(N, N, "lda")), LDA];
const SPR: &[Param] = &[UPLO, Int("n"), ALPHA, x(In, N), INCX, Array("AP", InOut, Shape::Packed("n"))];
const HPR: &[Param] = &[UPLO, Int("n"), ALPHA_R, x(In, N), INCX, Array("AP", InOut, Shape::Packed("n"))];
const SPR2: &[Param] = &[UPLO, Int("n"), ALPHA, x(In, N), INCX, y(In, N), INCY, Array("AP", InOut, Shape::Packed("n"))];
const TRMV: &[Param] = &[UPLO, TRANS, DIAG, Int("n"), A_NN, LDA, x(InOut, N), INCX];
const TBMV: &[Param] = &[UPLO, TRANS, DIAG, Int("n"), Int("k"), A_BAND, LDA, x(InOut, N), INCX];
const TPMV: &[Param] = &[UPLO, TRANS, DIAG, Int("n"), Array("AP", In, Shape::Packed("n")), x(InOut, N), INCX];

// Level 3.
const fn op_a(t: &'static str) -> Shape {
    mat(ByOp(t, "m", "k"), ByOp(t, "k", "m"), "lda")
}
const GEMM: &[Param] = &[
    Enum("transa", Op),
    Enum("transb", Op),
    Int("m"),
    Int("n"),
    Int("k"),
    ALPHA,
    Array("A", In, op_a("transa")),
    LDA,
    Array("B", In, mat(ByOp("transb", "k", "n"), ByOp("transb", "n", "k"), "ldb")),
    LDB,
    BETA,
    Array("C", InOut, mat(M, N, "ldc")),
    LDC,
];
const fn batched(rows: Len, cols: Len, ld: &'static str, stride: &'static str) -> Shape {
    Shape::Matrix { rows, cols, ld, batch: Some((stride, "batchCount")) }
}
const GEMM_STRIDED: &[Param] = &[
    Enum("transa", Op),
    Enum("transb", Op),
    Int("m"),
    Int("n"),
    Int("k"),
    ALPHA,
    Array("A", In, batched(ByOp("transa", "m", "k"), ByOp("transa", "k", "m"), "lda", "strideA")),
    LDA,
    Long("strideA"),
    Array("B", In, batched(ByOp("transb", "k", "n"), ByOp("transb", "n", "k"), "ldb", "strideB")),
    LDB,
    Long("strideB"),
    BETA,
    Array("C", InOut, batched(M, N, "ldc", "strideC")),
    LDC,
    Long("strideC"),
    Int("batchCount"),
];
const A_SIDE: Param = Array("A", In, mat(BySide("side", "m", "n"), BySide("side", "m", "n"), "lda"));
const SYMM: &[Param] = &[
    SIDE,
    UPLO,
    Int("m"),
    Int("n"),
    ALPHA,
    A_SIDE,
    LDA,
    Array("B", In, mat(M, N, "ldb")),
    LDB,
    BETA,
    Array("C", InOut, mat(M, N, "ldc")),
    LDC,
];
const fn op_nk(t: &'static str, name: &'static str, ld: &'static str) -> Param {
    Array(name, In, mat(ByOp(t, "n", "k"), ByOp(t, "k", "n"), ld))
}
const C_NN: Param = Array("C", InOut, mat(N, N, "ldc"));
const SYRK: &[Param] = &[UPLO, TRANS, Int("n"), Int("k"), ALPHA, op_nk("trans", "A", "lda"), LDA, BETA, C_NN, LDC];
const HERK: &[Param] = &[UPLO, TRANS, Int("n"), Int("k"), ALPHA_R, op_nk("trans", "A", "lda"), LDA, BETA_R, C_NN, LDC];
const SYR2K: &[Param] =
    &[UPLO, TRANS, Int("n"), Int("k"), ALPHA, op_nk("trans", "A", "lda"), LDA, op_nk("trans", "B", "ldb"), LDB, BETA, C_NN, LDC];
const HER2K: &[Param] =
    &[UPLO, TRANS, Int("n"), Int("k"), ALPHA, op_nk("trans", "A", "lda"), LDA, op_nk("trans", "B", "ldb"), LDB, BETA_R, C_NN, LDC];
const TRMM: &[Param] = &[
    SIDE,
    UPLO,
    TRANS,
    DIAG,
    Int("m"),
    Int("n"),
    ALPHA,
    A_SIDE,
    LDA,
    Array("B", In, mat(M, N, "ldb")),
    LDB,
    Array("C", Out, mat(M, N, "ldc")),
    LDC,
];
const TRSM: &[Param] = &[SIDE, UPLO, TRANS, DIAG, Int("m"), Int("n"), ALPHA, A_SIDE, LDA, Array("B", InOut, mat(M, N, "ldb")), LDB];
const GEMM_BATCHED: &[Param] = &[
    Enum("transa", Op),
    Enum("transb", Op),
    Int("m"),
    Int("n"),
    Int("k"),
    ALPHA,
    Batch("A", In, op_a("transa")),
    LDA,
    Batch("B", In, mat(ByOp("transb", "k", "n"), ByOp("transb", "n", "k"), "ldb")),
    LDB,
    BETA,
    Batch("C", InOut, mat(M, N, "ldc")),
    LDC,
    Int("batchCount"),
];
const TRSM_BATCHED: &[Param] = &[
    SIDE,
    UPLO,
    TRANS,
    DIAG,
    Int("m"),
    Int("n"),
    ALPHA,
    Batch("A", In, mat(BySide("side", "m", "n"), BySide("side", "m", "n"), "lda")),
    LDA,
    Batch("B", InOut, mat(M, N, "ldb")),
    LDB,
    Int("batchCount"),
];
const PIVOTS: Len = Len::Product("n", "batchSize");
const GETRF: &[Param] = &[
    Int("n"),
    Batch("A", InOut, mat(N, N, "lda")),
    LDA,
    Ints("P", Out, PIVOTS),
    Ints("info", Out, Of("batchSize")),
    Int("batchSize"),
];
const GETRS: &[Param] = &[
    TRANS,
    Int("n"),
    Int("nrhs"),
    Batch("A", In, mat(N, N, "lda")),
    LDA,
    Ints("devIpiv", In, PIVOTS),
    Batch("B", InOut, mat(N, Of("nrhs"), "ldb")),
    LDB,
    HostInfo("info"),
    Int("batchSize"),
];
const GETRI: &[Param] = &[
    Int("n"),
    Batch("A", In, mat(N, N, "lda")),
    LDA,
    Ints("P", In, PIVOTS),
    Batch("C", Out, mat(N, N, "ldc")),
    LDC,
    Ints("info", Out, Of("batchSize")),
    Int("batchSize"),
];
const MATINV: &[Param] = &[
    Int("n"),
    Batch("A", In, mat(N, N, "lda")),
    LDA,
    Batch("Ainv", Out, mat(N, N, "lda_inv")),
    Int("lda_inv"),
    Ints("info", Out, Of("batchSize")),
    Int("batchSize"),
];
const GEQRF: &[Param] = &[
    Int("m"),
    Int("n"),
    Batch("A", InOut, mat(M, N, "lda")),
    LDA,
    Batch("TauArray", Out, vec(Len::Min("m", "n"), "")),
    HostInfo("info"),
    Int("batchSize"),
];
const GELS: &[Param] = &[
    TRANS,
    Int("m"),
    Int("n"),
    Int("nrhs"),
    Batch("A", InOut, mat(M, N, "lda")),
    LDA,
    Batch("C", InOut, mat(M, Of("nrhs"), "ldc")),
    LDC,
    HostInfo("info"),
    Ints("devInfoArray", Out, Of("batchSize")),
    Int("batchSize"),
];
const GEAM: &[Param] = &[
    Enum("transa", Op),
    Enum("transb", Op),
    Int("m"),
    Int("n"),
    ALPHA,
    Array("A", In, mat(ByOp("transa", "m", "n"), ByOp("transa", "n", "m"), "lda")),
    LDA,
    BETA,
    Array("B", In, mat(ByOp("transb", "m", "n"), ByOp("transb", "n", "m"), "ldb")),
    LDB,
    Array("C", Out, mat(M, N, "ldc")),
    LDC,
];
const DGMM: &[Param] = &[
    Enum("mode", Side),
    Int("m"),
    Int("n"),
    Array("A", In, mat(M, N, "lda")),
    LDA,
    Array("x", In, vec(BySide("mode", "m", "n"), "incx")),
    INCX,
    Array("C", Out, mat(M, N, "ldc")),
    LDC,
];
const TPTTR: &[Param] = &[UPLO, Int("n"), Array("AP", In, Shape::Packed("n")), Array("A", Out, mat(N, N, "lda")), LDA];
const TRTTP: &[Param] = &[UPLO, Int("n"), A_NN, LDA, Array("AP", Out, Shape::Packed("n"))];

macro_rules! entries {
    ($($routine:ident $params:ident: $($name:literal $symbol:literal $elem:ident),+;)*) => {
        /// Every typed entry point this library calls.
        pub static ENTRIES: &[Entry] = &[
            $($(Entry { name: $name, symbol: $symbol, routine: Routine::$routine, elem: Elem::$elem, params: $params },)+)*
        ];
    };
}

entries! {
    Amax IAMAX: "isamax" "cublasIsamax_v2" S, "idamax" "cublasIdamax_v2" D, "icamax" "cublasIcamax_v2" C, "izamax" "cublasIzamax_v2" Z;
    Amin IAMAX: "isamin" "cublasIsamin_v2" S, "idamin" "cublasIdamin_v2" D, "icamin" "cublasIcamin_v2" C, "izamin" "cublasIzamin_v2" Z;
    Asum ASUM: "sasum" "cublasSasum_v2" S, "dasum" "cublasDasum_v2" D, "scasum" "cublasScasum_v2" C, "dzasum" "cublasDzasum_v2" Z;
    Axpy AXPY: "saxpy" "cublasSaxpy_v2" S, "daxpy" "cublasDaxpy_v2" D, "caxpy" "cublasCaxpy_v2" C, "zaxpy" "cublasZaxpy_v2" Z;
    Copy COPY: "scopy" "cublasScopy_v2" S, "dcopy" "cublasDcopy_v2" D, "ccopy" "cublasCcopy_v2" C, "zcopy" "cublasZcopy_v2" Z;
    Dot DOT: "sdot" "cublasSdot_v2" S, "ddot" "cublasDdot_v2" D, "cdotu" "cublasCdotu_v2" C, "zdotu" "cublasZdotu_v2" Z;
    Dotc DOT: "cdotc" "cublasCdotc_v2" C, "zdotc" "cublasZdotc_v2" Z;
    Nrm2 ASUM: "snrm2" "cublasSnrm2_v2" S, "dnrm2" "cublasDnrm2_v2" D, "scnrm2" "cublasScnrm2_v2" C, "dznrm2" "cublasDznrm2_v2" Z;
    Rot ROT_R: "srot" "cublasSrot_v2" S, "drot" "cublasDrot_v2" D, "csrot" "cublasCsrot_v2" C, "zdrot" "cublasZdrot_v2" Z;
    Rot ROT: "crot" "cublasCrot_v2" C, "zrot" "cublasZrot_v2" Z;
    Rotg ROTG: "srotg" "cublasSrotg_v2" S, "drotg" "cublasDrotg_v2" D, "crotg" "cublasCrotg_v2" C, "zrotg" "cublasZrotg_v2" Z;
    Rotm ROTM: "srotm" "cublasSrotm_v2" S, "drotm" "cublasDrotm_v2" D;
    Rotmg ROTMG: "srotmg" "cublasSrotmg_v2" S, "drotmg" "cublasDrotmg_v2" D;
    Scal SCAL: "sscal" "cublasSscal_v2" S, "dscal" "cublasDscal_v2" D, "cscal" "cublasCscal_v2" C, "zscal" "cublasZscal_v2" Z;
    Scal SCAL_R: "csscal" "cublasCsscal_v2" C, "zdscal" "cublasZdscal_v2" Z;
    Swap SWAP: "sswap" "cublasSswap_v2" S, "dswap" "cublasDswap_v2" D, "cswap" "cublasCswap_v2" C, "zswap" "cublasZswap_v2" Z;
    Gemv GEMV: "sgemv" "cublasSgemv_v2" S, "dgemv" "cublasDgemv_v2" D, "cgemv" "cublasCgemv_v2" C, "zgemv" "cublasZgemv_v2" Z;
    Gbmv GBMV: "sgbmv" "cublasSgbmv_v2" S, "dgbmv" "cublasDgbmv_v2" D, "cgbmv" "cublasCgbmv_v2" C, "zgbmv" "cublasZgbmv_v2" Z;
    Ger GER: "sger" "cublasSger_v2" S, "dger" "cublasDger_v2" D, "cgeru" "cublasCgeru_v2" C, "zgeru" "cublasZgeru_v2" Z;
    Gerc GER: "cgerc" "cublasCgerc_v2" C, "zgerc" "cublasZgerc_v2" Z;
    Symv SYMV: "ssymv" "cublasSsymv_v2" S, "dsymv" "cublasDsymv_v2" D, "csymv" "cublasCsymv_v2" C, "zsymv" "cublasZsymv_v2" Z;
    Hemv SYMV: "chemv" "cublasChemv_v2" C, "zhemv" "cublasZhemv_v2" Z;
    Sbmv SBMV: "ssbmv" "cublasSsbmv_v2" S, "dsbmv" "cublasDsbmv_v2" D;
    Hbmv SBMV: "chbmv" "cublasChbmv_v2" C, "zhbmv" "cublasZhbmv_v2" Z;
    Spmv SPMV: "sspmv" "cublasSspmv_v2" S, "dspmv" "cublasDspmv_v2" D;
    Hpmv SPMV: "chpmv" "cublasChpmv_v2" C, "zhpmv" "cublasZhpmv_v2" Z;
    Syr SYR: "ssyr" "cublasSsyr_v2" S, "dsyr" "cublasDsyr_v2" D, "csyr" "cublasCsyr_v2" C, "zsyr" "cublasZsyr_v2" Z;
    Her HER: "cher" "cublasCher_v2" C, "zher" "cublasZher_v2" Z;
    Syr2 SYR2: "ssyr2" "cublasSsyr2_v2" S, "dsyr2" "cublasDsyr2_v2" D, "csyr2" "cublasCsyr2_v2" C, "zsyr2" "cublasZsyr2_v2" Z;
    Her2 SYR2: "cher2" "cublasCher2_v2" C, "zher2" "cublasZher2_v2" Z;
    Spr SPR: "sspr" "cublasSspr_v2" S, "dspr" "cublasDspr_v2" D;
    Hpr HPR: "chpr" "cublasChpr_v2" C, "zhpr" "cublasZhpr_v2" Z;
    Spr2 SPR2: "sspr2" "cublasSspr2_v2" S, "dspr2" "cublasDspr2_v2" D;
    Hpr2 SPR2: "chpr2" "cublasChpr2_v2" C, "zhpr2" "cublasZhpr2_v2" Z;
    Trmv TRMV: "strmv" "cublasStrmv_v2" S, "dtrmv" "cublasDtrmv_v2" D, "ctrmv" "cublasCtrmv_v2" C, "ztrmv" "cublasZtrmv_v2" Z;
    Tbmv TBMV: "stbmv" "cublasStbmv_v2" S, "dtbmv" "cublasDtbmv_v2" D, "ctbmv" "cublasCtbmv_v2" C, "ztbmv" "cublasZtbmv_v2" Z;
    Tpmv TPMV: "stpmv" "cublasStpmv_v2" S, "dtpmv" "cublasDtpmv_v2" D, "ctpmv" "cublasCtpmv_v2" C, "ztpmv" "cublasZtpmv_v2" Z;
    Trsv TRMV: "strsv" "cublasStrsv_v2" S, "dtrsv" "cublasDtrsv_v2" D, "ctrsv" "cublasCtrsv_v2" C, "ztrsv" "cublasZtrsv_v2" Z;
    Tbsv TBMV: "stbsv" "cublasStbsv_v2" S, "dtbsv" "cublasDtbsv_v2" D, "ctbsv" "cublasCtbsv_v2" C, "ztbsv" "cublasZtbsv_v2" Z;
    Tpsv TPMV: "stpsv" "cublasStpsv_v2" S, "dtpsv" "cublasDtpsv_v2" D, "ctpsv" "cublasCtpsv_v2" C, "ztpsv" "cublasZtpsv_v2" Z;
    Gemm GEMM: "sgemm" "cublasSgemm_v2" S, "dgemm" "cublasDgemm_v2" D, "cgemm" "cublasCgemm_v2" C, "zgemm" "cublasZgemm_v2" Z,
        "cgemm3m" "cublasCgemm3m" C, "zgemm3m" "cublasZgemm3m" Z;
    GemmStridedBatched GEMM_STRIDED: "sgemmStridedBatched" "cublasSgemmStridedBatched" S,
        "dgemmStridedBatched" "cublasDgemmStridedBatched" D, "cgemmStridedBatched" "cublasCgemmStridedBatched" C,
        "zgemmStridedBatched" "cublasZgemmStridedBatched" Z, "cgemm3mStridedBatched" "cublasCgemm3mStridedBatched" C;
    GemmBatched GEMM_BATCHED: "sgemmBatched" "cublasSgemmBatched" S, "dgemmBatched" "cublasDgemmBatched" D,
        "cgemmBatched" "cublasCgemmBatched" C, "zgemmBatched" "cublasZgemmBatched" Z, "cgemm3mBatched" "cublasCgemm3mBatched" C;
    TrsmBatched TRSM_BATCHED: "strsmBatched" "cublasStrsmBatched" S, "dtrsmBatched" "cublasDtrsmBatched" D,
        "ctrsmBatched" "cublasCtrsmBatched" C, "ztrsmBatched" "cublasZtrsmBatched" Z;
    GetrfBatched GETRF: "sgetrfBatched" "cublasSgetrfBatched" S, "dgetrfBatched" "cublasDgetrfBatched" D,
        "cgetrfBatched" "cublasCgetrfBatched" C, "zgetrfBatched" "cublasZgetrfBatched" Z;
    GetrsBatched GETRS: "sgetrsBatched" "cublasSgetrsBatched" S, "dgetrsBatched" "cublasDgetrsBatched" D,
        "cgetrsBatched" "cublasCgetrsBatched" C, "zgetrsBatched" "cublasZgetrsBatched" Z;
    GetriBatched GETRI: "sgetriBatched" "cublasSgetriBatched" S, "dgetriBatched" "cublasDgetriBatched" D,
        "cgetriBatched" "cublasCgetriBatched" C, "zgetriBatched" "cublasZgetriBatched" Z;
    MatinvBatched MATINV: "smatinvBatched" "cublasSmatinvBatched" S, "dmatinvBatched" "cublasDmatinvBatched" D,
        "cmatinvBatched" "cublasCmatinvBatched" C, "zmatinvBatched" "cublasZmatinvBatched" Z;
    GeqrfBatched GEQRF: "sgeqrfBatched" "cublasSgeqrfBatched" S, "dgeqrfBatched" "cublasDgeqrfBatched" D,
        "cgeqrfBatched" "cublasCgeqrfBatched" C, "zgeqrfBatched" "cublasZgeqrfBatched" Z;
    GelsBatched GELS: "sgelsBatched" "cublasSgelsBatched" S, "dgelsBatched" "cublasDgelsBatched" D,
        "cgelsBatched" "cublasCgelsBatched" C, "zgelsBatched" "cublasZgelsBatched" Z;
    Symm SYMM: "ssymm" "cublasSsymm_v2" S, "dsymm" "cublasDsymm_v2" D, "csymm" "cublasCsymm_v2" C, "zsymm" "cublasZsymm_v2" Z;
    Hemm SYMM: "chemm" "cublasChemm_v2" C, "zhemm" "cublasZhemm_v2" Z;
    Syrk SYRK: "ssyrk" "cublasSsyrk_v2" S, "dsyrk" "cublasDsyrk_v2" D, "csyrk" "cublasCsyrk_v2" C, "zsyrk" "cublasZsyrk_v2" Z;
    Herk HERK: "cherk" "cublasCherk_v2" C, "zherk" "cublasZherk_v2" Z;
    Syr2k SYR2K: "ssyr2k" "cublasSsyr2k_v2" S, "dsyr2k" "cublasDsyr2k_v2" D, "csyr2k" "cublasCsyr2k_v2" C, "zsyr2k" "cublasZsyr2k_v2" Z;
    Her2k HER2K: "cher2k" "cublasCher2k_v2" C, "zher2k" "cublasZher2k_v2" Z;
    Syrkx SYR2K: "ssyrkx" "cublasSsyrkx" S, "dsyrkx" "cublasDsyrkx" D, "csyrkx" "cublasCsyrkx" C, "zsyrkx" "cublasZsyrkx" Z;
    Herkx HER2K: "cherkx" "cublasCherkx" C, "zherkx" "cublasZherkx" Z;
    Trmm TRMM: "strmm" "cublasStrmm_v2" S, "dtrmm" "cublasDtrmm_v2" D, "ctrmm" "cublasCtrmm_v2" C, "ztrmm" "cublasZtrmm_v2" Z;
    Trsm TRSM: "strsm" "cublasStrsm_v2" S, "dtrsm" "cublasDtrsm_v2" D, "ctrsm" "cublasCtrsm_v2" C, "ztrsm" "cublasZtrsm_v2" Z;
    Geam GEAM: "sgeam" "cublasSgeam" S, "dgeam" "cublasDgeam" D, "cgeam" "cublasCgeam" C, "zgeam" "cublasZgeam" Z;
    Dgmm DGMM: "sdgmm" "cublasSdgmm" S, "ddgmm" "cublasDdgmm" D, "cdgmm" "cublasCdgmm" C, "zdgmm" "cublasZdgmm" Z;
    Tpttr TPTTR: "stpttr" "cublasStpttr" S, "dtpttr" "cublasDtpttr" D, "ctpttr" "cublasCtpttr" C, "ztpttr" "cublasZtpttr" Z;
    Trttp TRTTP: "strttp" "cublasStrttp" S, "dtrttp" "cublasDtrttp" D, "ctrttp" "cublasCtrttp" C, "ztrttp" "cublasZtrttp" Z;
}

/// The entry point of CuPy's name `name` (`sgemv`, `zherk`…), and whether the name asks for its
/// 64-bit variant (`sgemv_64`: cuBLAS 12's `cublasSgemv_v2_64`, see [`Entry::has_64`]).
pub fn entry(name: &str) -> Result<(&'static Entry, bool)> {
    let (base, ilp64) = match name.strip_suffix("_64") {
        Some(base) => (base, true),
        None => (name, false),
    };
    let e = ENTRIES.iter().find(|e| e.name == base).ok_or_else(|| Error::type_error(format!("cuBLAS has no entry point '{name}' in this library")))?;
    if ilp64 && !e.has_64() {
        return Err(Error::type_error(format!("cuBLAS has no 64-bit variant of {base} (no {}_64): call {base}", e.symbol)));
    }
    Ok((e, ilp64))
}

/// A checked call of an entry, as the model hands it to a backend.
#[derive(Clone, Debug)]
pub struct Call {
    pub entry: &'static Entry,
    /// The value of each `Int`, `Long` and `Enum` parameter, in order.
    pub ints: Vec<i64>,
    /// Host pointer mode: each `In`/`InOut` value's numbers in order (a complex one as re, im),
    /// a value of `len` n as n of them. Empty in device pointer mode.
    pub host: Vec<f64>,
    /// The handle's pointer mode is device: values are device memory, operands after the arrays.
    pub device_values: bool,
    /// The 64-bit variant (`<symbol>_64`): every `Int` parameter an `int64_t`, amax's and amin's
    /// result too; enums stay `int`.
    pub ilp64: bool,
    /// An `Ex` entry point's types (`entry` is the typed entry computing it).
    pub ex: Option<ExCall>,
    /// The byte offset of each memory operand into its allocation: the arrays in order, then (in
    /// device pointer mode) the values.
    pub offsets: Vec<u64>,
}

impl Call {
    /// The int parameter `name`.
    pub fn int(&self, name: &str) -> i64 {
        let i = self.entry.params.iter().filter(|p| !p.is_pointer()).position(|p| p.name() == name);
        i.map_or(0, |i| self.ints[i])
    }

    /// The bytes of one element of array `name`: its `Ex` type's, or the entry's element's.
    pub fn array_size(&self, name: &str) -> u64 {
        self.ex.as_ref().and_then(|x| x.type_of(name)).map_or(self.entry.elem.size(), |t| t.size())
    }

    /// The bytes of one scalar `name` of `kind`: its `Ex` type's, or the entry's.
    pub fn value_size(&self, name: &str, kind: Kind) -> u64 {
        self.ex.as_ref().and_then(|x| x.type_of(name)).map_or(value_size(self.entry.elem, kind, self.ilp64), |t| t.size())
    }

    /// The symbol called: the `Ex` entry's, or the typed one's (its 64-bit variant's).
    pub fn symbol(&self) -> String {
        self.ex.as_ref().map_or_else(|| self.entry.symbol_for(self.ilp64), |x| x.entry.symbol.to_string())
    }

    /// Host scalar `name`'s bytes from JS numbers (an `Ex` call's in its type).
    pub fn encode_value(&self, name: &str, kind: Kind, words: &[f64]) -> Vec<u8> {
        let typed = encode(self.entry.elem, kind, self.ilp64, words);
        self.ex.as_ref().map_or(typed.clone(), |x| x.from_typed(name, self.entry.elem, kind, &typed))
    }

    /// The JS numbers of host scalar `name`'s bytes (the inverse of [`Call::encode_value`]).
    pub fn decode_value(&self, name: &str, kind: Kind, bytes: &[u8]) -> Vec<f64> {
        let typed = self.ex.as_ref().map_or(bytes.to_vec(), |x| x.to_typed(name, self.entry.elem, kind, bytes));
        decode(self.entry.elem, kind, self.ilp64, &typed)
    }

    /// A `Batched` entry's count (its header names it `batchCount` or `batchSize`).
    pub fn batch_count(&self) -> usize {
        self.int("batchCount").max(self.int("batchSize")).max(0) as usize
    }

    /// A length's value for this call.
    pub fn len_of(&self, len: Len) -> i64 {
        let side = |s: &str| self.int(s) == 0;
        match len {
            Of(n) => self.int(n),
            Plus1(k) => self.int(k) + 1,
            Band(l, u) => self.int(l) + self.int(u) + 1,
            Len::Product(a, b) => self.int(a).saturating_mul(self.int(b)),
            Len::Min(a, b) => self.int(a).min(self.int(b)),
            ByOp(t, a, b) => self.int(if self.int(t) == 0 { a } else { b }),
            BySide(s, a, b) => self.int(if side(s) { a } else { b }),
        }
    }

    /// Elements an array spans from its first (checked: leading dimensions cover the rows,
    /// increments are positive, a batch's outputs do not overlap).
    pub fn span(&self, shape: Shape, name: &str) -> Result<u64> {
        let too_large = || Error::range(format!("{name} is too large"));
        Ok(match shape {
            Shape::Vector { len, inc } => {
                // An int array (`inc` empty) is contiguous.
                let (n, inc_v) = (self.len_of(len).max(0) as u64, if inc.is_empty() { 1 } else { self.int(inc) });
                if inc_v < 1 {
                    return Err(Error::range(format!("{inc} is {inc_v}: this library takes increments of at least 1")));
                }
                if n == 0 {
                    0
                } else {
                    (n - 1).checked_mul(inc_v as u64).and_then(|v| v.checked_add(1)).ok_or_else(too_large)?
                }
            }
            Shape::Matrix { rows, cols, ld, batch } => {
                let (r, c, ld_v) = (self.len_of(rows) as u64, self.len_of(cols) as u64, self.int(ld) as u64);
                if ld_v < r.max(1) {
                    return Err(Error::range(format!("{ld} ({ld_v}) is less than {name}'s {r} rows")));
                }
                let one = if r == 0 || c == 0 { 0 } else { ld_v.checked_mul(c - 1).and_then(|v| v.checked_add(r)).ok_or_else(too_large)? };
                match batch {
                    None => one,
                    Some((stride, count)) => {
                        let (s, n) = (self.int(stride) as u64, self.int(count) as u64);
                        if one == 0 || n == 0 {
                            0
                        } else {
                            (n - 1).checked_mul(s).and_then(|v| v.checked_add(one)).ok_or_else(too_large)?
                        }
                    }
                }
            }
            Shape::Packed(n) => {
                let n = self.int(n) as u64;
                n.checked_mul(n + 1).map(|v| v / 2).ok_or_else(too_large)?
            }
        })
    }
}

impl Entry {
    /// Whether cuBLAS (12.0 and later) has the entry's 64-bit variant, `<symbol>_64`: every one
    /// but the sizeless rotg and rotmg, the packed-format conversions and the batched LU and QR
    /// calls (cublas_api.h).
    pub fn has_64(&self) -> bool {
        !matches!(
            self.routine,
            Routine::Rotg
                | Routine::Rotmg
                | Routine::Tpttr
                | Routine::Trttp
                | Routine::GetrfBatched
                | Routine::GetrsBatched
                | Routine::GetriBatched
                | Routine::MatinvBatched
                | Routine::GeqrfBatched
                | Routine::GelsBatched
        )
    }

    /// The symbol a call takes: the entry's, or its 64-bit variant's.
    pub fn symbol_for(&self, ilp64: bool) -> String {
        if ilp64 {
            format!("{}_64", self.symbol)
        } else {
            self.symbol.to_string()
        }
    }

    /// How many memory operands an array parameter is: a matrix a batch for [`Param::Batch`].
    pub fn operands(&self, p: Param, call: &Call) -> usize {
        match p {
            Param::Array(..) => 1,
            Param::Batch(..) => call.batch_count(),
            Param::Ints(..) => 1,
            _ => 0,
        }
    }
}

/// The bytes of one scalar of `kind` for `elem` (an index: an `int`, an `int64_t` in the
/// 64-bit variants).
pub fn value_size(elem: Elem, kind: Kind, ilp64: bool) -> u64 {
    match kind {
        Kind::Elem => elem.size(),
        Kind::Real => elem.real().size(),
        Kind::Index if ilp64 => 8,
        Kind::Index => 4,
    }
}

/// How many JS numbers one scalar of `kind` is (a complex one: re, im).
pub fn value_words(elem: Elem, kind: Kind) -> usize {
    if kind == Kind::Elem && elem.complex() {
        2
    } else {
        1
    }
}

/// Encodes `words` (JS numbers; a complex scalar as re, im) as `kind`'s bytes for `elem`.
pub fn encode(elem: Elem, kind: Kind, ilp64: bool, words: &[f64]) -> Vec<u8> {
    let real = match kind {
        Kind::Index if ilp64 => return words.iter().flat_map(|v| (*v as i64).to_le_bytes()).collect(),
        Kind::Index => return words.iter().flat_map(|v| (*v as i32).to_le_bytes()).collect(),
        Kind::Real => elem.real(),
        Kind::Elem => elem.real(),
    };
    match real {
        Elem::S => words.iter().flat_map(|v| (*v as f32).to_le_bytes()).collect(),
        _ => words.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

/// The JS numbers `bytes` of `kind` hold (the inverse of [`encode`]).
pub fn decode(elem: Elem, kind: Kind, ilp64: bool, bytes: &[u8]) -> Vec<f64> {
    match (kind, elem.real()) {
        (Kind::Index, _) if ilp64 => bytes.chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().unwrap()) as f64).collect(),
        (Kind::Index, _) => bytes.chunks_exact(4).map(|b| i32::from_le_bytes(b.try_into().unwrap()) as f64).collect(),
        (_, Elem::S) => bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap()) as f64).collect(),
        _ => bytes.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect(),
    }
}

/// The C signature after the handle, a letter a parameter: `i` int (or enum), `l` long long (or,
/// in a 64-bit variant, an `int64_t` size), `p` pointer.
pub fn signature(params: &[Param], ilp64: bool) -> String {
    params
        .iter()
        .map(|p| match p {
            Param::Long(_) => 'l',
            Param::Int(_) if ilp64 => 'l',
            p if p.is_pointer() => 'p',
            _ => 'i',
        })
        .collect()
}

/// The element types a [`MatMul`](crate::ops::blas::MatMul) reads and writes (`cudaDataType`'s real ones), and the `Ex`
/// entry points' operands' real parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    F16,
    Bf16,
    F32,
    F64,
}

impl DataType {
    pub fn size(self) -> u64 {
        match self {
            DataType::F16 | DataType::Bf16 => 2,
            DataType::F32 => 4,
            DataType::F64 => 8,
        }
    }

    /// `CUDA_R_16F`, `CUDA_R_16BF`, `CUDA_R_32F`, `CUDA_R_64F` (library_types.h).
    pub fn code(self) -> i32 {
        match self {
            DataType::F16 => 2,
            DataType::Bf16 => 14,
            DataType::F32 => 0,
            DataType::F64 => 1,
        }
    }

    /// Element `i` of `bytes` (little-endian) as f64.
    pub fn read(self, bytes: &[u8], i: usize) -> f64 {
        let w = self.size() as usize;
        let b = &bytes[i * w..i * w + w];
        match self {
            DataType::F16 => crate::ops::half::f16_to_f32(u16::from_le_bytes([b[0], b[1]])) as f64,
            DataType::Bf16 => crate::ops::half::bf16_to_f32(u16::from_le_bytes([b[0], b[1]])) as f64,
            DataType::F32 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
            DataType::F64 => f64::from_le_bytes(b.try_into().unwrap()),
        }
    }

    /// Writes `v`, rounded to this type (to nearest even), as element `i` of `bytes`.
    pub fn write(self, bytes: &mut [u8], i: usize, v: f64) {
        let w = self.size() as usize;
        let b = &mut bytes[i * w..i * w + w];
        match self {
            DataType::F16 => b.copy_from_slice(&crate::ops::half::f32_to_f16(v as f32).to_le_bytes()),
            DataType::Bf16 => b.copy_from_slice(&crate::ops::half::f32_to_bf16(v as f32).to_le_bytes()),
            DataType::F32 => b.copy_from_slice(&(v as f32).to_le_bytes()),
            DataType::F64 => b.copy_from_slice(&v.to_le_bytes()),
        }
    }

    /// `v` rounded to this type, as f64.
    pub fn round(self, v: f64) -> f64 {
        let mut b = [0u8; 8];
        self.write(&mut b, 0, v);
        self.read(&b, 0)
    }
}

/// An operand's type in the mixed-precision `Ex` entry points (`cudaDataType`): a real type, or
/// a complex one of two of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExType {
    pub real: DataType,
    pub complex: bool,
}

impl ExType {
    const fn r(real: DataType) -> ExType {
        ExType { real, complex: false }
    }
    const fn c(real: DataType) -> ExType {
        ExType { real, complex: true }
    }

    /// `CUDA_R_16F`, `CUDA_R_16BF`, `CUDA_R_32F`, `CUDA_R_64F`, `CUDA_C_32F` or `CUDA_C_64F`.
    pub fn from_name(name: &str) -> Option<ExType> {
        Some(match name {
            "CUDA_R_16F" => R16F,
            "CUDA_R_16BF" => R16BF,
            "CUDA_R_32F" => R32F,
            "CUDA_R_64F" => R64F,
            "CUDA_C_32F" => C32F,
            "CUDA_C_64F" => C64F,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match (self.real, self.complex) {
            (DataType::F16, false) => "CUDA_R_16F",
            (DataType::Bf16, false) => "CUDA_R_16BF",
            (DataType::F32, false) => "CUDA_R_32F",
            (DataType::F64, false) => "CUDA_R_64F",
            (DataType::F32, true) => "CUDA_C_32F",
            (DataType::F64, true) => "CUDA_C_64F",
            (DataType::F16, true) => "CUDA_C_16F",
            (DataType::Bf16, true) => "CUDA_C_16BF",
        }
    }

    /// Its `cudaDataType` value (library_types.h): a complex type's is its real one's + 4
    /// (`CUDA_C_32F` 4, `CUDA_C_64F` 5), bfloat16's 14 and 15.
    pub fn code(self) -> i32 {
        match (self.real, self.complex) {
            (DataType::Bf16, c) => 14 + c as i32,
            (r, c) => r.code() + if c { 4 } else { 0 },
        }
    }

    pub fn size(self) -> u64 {
        self.real.size() * if self.complex { 2 } else { 1 }
    }
}

const R16F: ExType = ExType::r(DataType::F16);
const R16BF: ExType = ExType::r(DataType::Bf16);
const R32F: ExType = ExType::r(DataType::F32);
const R64F: ExType = ExType::r(DataType::F64);
const C32F: ExType = ExType::c(DataType::F32);
const C64F: ExType = ExType::c(DataType::F64);

/// One mixed-precision entry point (`cublasDotEx`…): a typed entry's computation with a type
/// given for each of its operands, computed by the typed entry of the execution type's precision.
#[derive(Debug)]
pub struct ExEntry {
    /// CuPy's name (`dotEx`), the method's in JS.
    pub name: &'static str,
    pub symbol: &'static str,
    /// The typed operands: the parameter the type is of (`cs`: rot's `c` and `s`), its option's
    /// name (`xType`, `Atype`), and the parameter its C argument follows.
    pub types: &'static [(&'static str, &'static str, &'static str)],
    /// It takes an `executionType` last.
    pub exec: bool,
    /// Its execution is a `cublasComputeType_t` (the option `computeType`) and an algorithm
    /// (`CUBLAS_GEMM_DEFAULT`), as gemmBatchedEx takes them, in place of an `executionType`.
    pub compute: bool,
    /// The combinations cuBLAS computes (its table of types for the call): each operand's type in
    /// `types`' order, the execution type (the first's where `exec` is false), and the typed entry
    /// that computes it. Any other is its NOT_SUPPORTED.
    pub combos: &'static [(&'static [ExType], ExType, &'static str)],
}

/// The `Ex` entry points this library calls (cublas_api.h; their tables of types from cuBLAS's
/// documentation). The 8-bit integer types of sgemmEx and cgemmEx are not offered.
pub static EX_ENTRIES: &[ExEntry] = &[
    ExEntry {
        name: "nrm2Ex",
        symbol: "cublasNrm2Ex",
        types: &[("x", "xType", "x"), ("result", "resultType", "result")],
        exec: true,
        compute: false,
        combos: &[
            (&[R16F, R16F], R32F, "snrm2"),
            (&[R16BF, R16BF], R32F, "snrm2"),
            (&[R32F, R32F], R32F, "snrm2"),
            (&[C32F, R32F], R32F, "scnrm2"),
            (&[R64F, R64F], R64F, "dnrm2"),
            (&[C64F, R64F], R64F, "dznrm2"),
        ],
    },
    ExEntry {
        name: "dotEx",
        symbol: "cublasDotEx",
        types: &[("x", "xType", "x"), ("y", "yType", "y"), ("result", "resultType", "result")],
        exec: true,
        compute: false,
        combos: &[
            (&[R16F, R16F, R16F], R32F, "sdot"),
            (&[R16BF, R16BF, R16BF], R32F, "sdot"),
            (&[R32F, R32F, R32F], R32F, "sdot"),
            (&[R64F, R64F, R64F], R64F, "ddot"),
            (&[C32F, C32F, C32F], C32F, "cdotu"),
            (&[C64F, C64F, C64F], C64F, "zdotu"),
        ],
    },
    ExEntry {
        name: "dotcEx",
        symbol: "cublasDotcEx",
        types: &[("x", "xType", "x"), ("y", "yType", "y"), ("result", "resultType", "result")],
        exec: true,
        compute: false,
        combos: &[(&[C32F, C32F, C32F], C32F, "cdotc"), (&[C64F, C64F, C64F], C64F, "zdotc")],
    },
    ExEntry {
        name: "scalEx",
        symbol: "cublasScalEx",
        types: &[("alpha", "alphaType", "alpha"), ("x", "xType", "x")],
        exec: true,
        compute: false,
        combos: &[
            (&[R32F, R16F], R32F, "sscal"),
            (&[R32F, R16BF], R32F, "sscal"),
            (&[R32F, R32F], R32F, "sscal"),
            (&[R64F, R64F], R64F, "dscal"),
            (&[C32F, C32F], C32F, "cscal"),
            (&[C64F, C64F], C64F, "zscal"),
        ],
    },
    ExEntry {
        name: "axpyEx",
        symbol: "cublasAxpyEx",
        types: &[("alpha", "alphaType", "alpha"), ("x", "xType", "x"), ("y", "yType", "y")],
        exec: true,
        compute: false,
        combos: &[
            (&[R32F, R16F, R16F], R32F, "saxpy"),
            (&[R32F, R16BF, R16BF], R32F, "saxpy"),
            (&[R32F, R32F, R32F], R32F, "saxpy"),
            (&[R64F, R64F, R64F], R64F, "daxpy"),
            (&[C32F, C32F, C32F], C32F, "caxpy"),
            (&[C64F, C64F, C64F], C64F, "zaxpy"),
        ],
    },
    ExEntry {
        name: "rotEx",
        symbol: "cublasRotEx",
        types: &[("x", "xType", "x"), ("y", "yType", "y"), ("cs", "csType", "s")],
        exec: true,
        compute: false,
        combos: &[
            (&[R16F, R16F, R16F], R32F, "srot"),
            (&[R16BF, R16BF, R16BF], R32F, "srot"),
            (&[R32F, R32F, R32F], R32F, "srot"),
            (&[R64F, R64F, R64F], R64F, "drot"),
            (&[C32F, C32F, R32F], C32F, "csrot"),
            (&[C64F, C64F, R64F], C64F, "zdrot"),
        ],
    },
    ExEntry {
        name: "sgemmEx",
        symbol: "cublasSgemmEx",
        types: &[("A", "Atype", "A"), ("B", "Btype", "B"), ("C", "Ctype", "C")],
        exec: false,
        compute: false,
        combos: &[
            (&[R16F, R16F, R16F], R32F, "sgemm"),
            (&[R16F, R16F, R32F], R32F, "sgemm"),
            (&[R16BF, R16BF, R16BF], R32F, "sgemm"),
            (&[R16BF, R16BF, R32F], R32F, "sgemm"),
            (&[R32F, R32F, R32F], R32F, "sgemm"),
        ],
    },
    ExEntry {
        name: "cgemmEx",
        symbol: "cublasCgemmEx",
        types: &[("A", "Atype", "A"), ("B", "Btype", "B"), ("C", "Ctype", "C")],
        exec: false,
        compute: false,
        combos: &[(&[C32F, C32F, C32F], C32F, "cgemm")],
    },
    ExEntry {
        name: "gemmBatchedEx",
        symbol: "cublasGemmBatchedEx",
        types: &[("A", "Atype", "A"), ("B", "Btype", "B"), ("C", "Ctype", "C")],
        exec: true,
        compute: true,
        combos: &[
            (&[R16F, R16F, R16F], R32F, "sgemmBatched"),
            (&[R16F, R16F, R32F], R32F, "sgemmBatched"),
            (&[R16BF, R16BF, R16BF], R32F, "sgemmBatched"),
            (&[R16BF, R16BF, R32F], R32F, "sgemmBatched"),
            (&[R32F, R32F, R32F], R32F, "sgemmBatched"),
            (&[R64F, R64F, R64F], R64F, "dgemmBatched"),
            (&[C32F, C32F, C32F], R32F, "cgemmBatched"),
            (&[C64F, C64F, C64F], R64F, "zgemmBatched"),
        ],
    },
];

/// An `Ex` entry's C signature after the handle, as [`signature`] writes it: the typed entry's
/// parameters with a type (`i`) after each typed operand's, and the execution type last.
pub fn ex_signature(x: &ExEntry, typed: &Entry) -> String {
    let mut sig = String::new();
    for p in typed.params {
        sig.push_str(&signature(std::slice::from_ref(p), false));
        sig.extend(x.types.iter().filter(|t| t.2 == p.name()).map(|_| 'i'));
    }
    if x.exec {
        sig.push('i');
    }
    if x.compute {
        sig.push('i');
    }
    sig
}

/// The `Ex` entry point of CuPy's name `name`.
pub fn ex_entry(name: &str) -> Option<&'static ExEntry> {
    EX_ENTRIES.iter().find(|e| e.name == name)
}

/// A checked `Ex` call's types.
#[derive(Clone, Debug)]
pub struct ExCall {
    pub entry: &'static ExEntry,
    /// Each typed operand's type, in `entry.types`' order.
    pub types: Vec<ExType>,
    pub exec: ExType,
}

impl ExEntry {
    /// The option naming its execution: `executionType`, or gemmBatchedEx's `computeType`.
    pub fn exec_option(&self) -> &'static str {
        if self.compute {
            "computeType"
        } else {
            "executionType"
        }
    }

    /// The execution type's name as the option takes it (`CUDA_R_32F`, `CUBLAS_COMPUTE_32F`).
    pub fn exec_name(&self, t: ExType) -> &'static str {
        match (self.compute, t.real) {
            (true, DataType::F64) => "CUBLAS_COMPUTE_64F",
            (true, _) => "CUBLAS_COMPUTE_32F",
            (false, _) => t.name(),
        }
    }

    /// The execution's C arguments: the `cudaDataType`, or the `cublasComputeType_t` and the
    /// algorithm (`CUBLAS_GEMM_DEFAULT`, -1).
    pub fn exec_codes(&self, t: ExType) -> Vec<i32> {
        match (self.exec, self.compute) {
            (false, _) => vec![],
            (true, false) => vec![t.code()],
            (true, true) => vec![if t.real == DataType::F64 { 70 } else { 68 }, -1],
        }
    }

    /// The typed entry computing these types, or cuBLAS's NOT_SUPPORTED naming them.
    pub fn resolve(&'static self, types: &[&str]) -> Result<(&'static Entry, ExCall)> {
        let want = self.types.len() + self.exec as usize;
        let opts: Vec<&str> = self.types.iter().map(|t| t.1).chain(self.exec.then_some(self.exec_option())).collect();
        if types.len() != want {
            return Err(Error::range(format!("{} takes {want} types ({}), got {}", self.name, opts.join(", "), types.len())));
        }
        let mut parsed = Vec::with_capacity(want);
        for (i, (t, o)) in types.iter().zip(&opts).enumerate() {
            if self.compute && i == self.types.len() {
                parsed.push(match *t {
                    "CUBLAS_COMPUTE_32F" => R32F,
                    "CUBLAS_COMPUTE_64F" => R64F,
                    _ => {
                        return Err(Error::type_error(format!(
                            "{}: computeType must be 'CUBLAS_COMPUTE_32F' or 'CUBLAS_COMPUTE_64F' (the ones this library offers for it), got '{t}'",
                            self.name
                        )))
                    }
                });
                continue;
            }
            parsed.push(ExType::from_name(t).ok_or_else(|| {
                Error::type_error(format!(
                    "{}: {o} must be 'CUDA_R_16F', 'CUDA_R_16BF', 'CUDA_R_32F', 'CUDA_R_64F', 'CUDA_C_32F' or 'CUDA_C_64F', got '{t}'",
                    self.name
                ))
            })?);
        }
        let (ops, exec) = (&parsed[..self.types.len()], if self.exec { parsed.last().copied() } else { None });
        for &(combo, e, typed) in self.combos {
            if combo == ops && exec.is_none_or(|x| x == e) {
                let (entry, _) = entry(typed)?;
                return Ok((entry, ExCall { entry: self, types: ops.to_vec(), exec: e }));
            }
        }
        let given: Vec<String> =
            opts.iter().zip(&parsed).enumerate().map(|(i, (o, t))| format!("{o} {}", if i == self.types.len() { self.exec_name(*t) } else { t.name() })).collect();
        Err(Error::named("CUBLAS_STATUS_NOT_SUPPORTED", format!("cuBLAS has no {} of {} (see {}'s table of types)", self.name, given.join(", "), self.symbol)))
    }
}

impl ExCall {
    /// The type of the parameter `name`, where the call gives one.
    pub fn type_of(&self, name: &str) -> Option<ExType> {
        let key = |k: &str| k == name || (k == "cs" && (name == "c" || name == "s"));
        self.entry.types.iter().zip(&self.types).find(|(t, _)| key(t.0)).map(|(_, ty)| *ty)
    }

    /// `bytes` of parameter `name` (in its type) as the typed entry's `kind` of `elem` holds them.
    pub fn to_typed(&self, name: &str, elem: Elem, kind: Kind, bytes: &[u8]) -> Vec<u8> {
        match self.type_of(name) {
            None => bytes.to_vec(),
            Some(t) => convert(bytes, t.real, word_of(elem, kind)),
        }
    }

    /// The inverse of [`ExCall::to_typed`], each number rounded to the parameter's type.
    pub fn from_typed(&self, name: &str, elem: Elem, kind: Kind, bytes: &[u8]) -> Vec<u8> {
        match self.type_of(name) {
            None => bytes.to_vec(),
            Some(t) => convert(bytes, word_of(elem, kind), t.real),
        }
    }
}

fn word_of(elem: Elem, kind: Kind) -> DataType {
    let e = if kind == Kind::Real { elem.real() } else { elem };
    if e.real() == Elem::D {
        DataType::F64
    } else {
        DataType::F32
    }
}

/// Real numbers of type `from` as type `to`'s, each rounded to it.
fn convert(bytes: &[u8], from: DataType, to: DataType) -> Vec<u8> {
    if from == to {
        return bytes.to_vec();
    }
    let n = bytes.len() / from.size() as usize;
    let mut out = vec![0u8; n * to.size() as usize];
    for i in 0..n {
        to.write(&mut out, i, from.read(bytes, i));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_symbol_is_once() {
        for (i, e) in ENTRIES.iter().enumerate() {
            assert!(ENTRIES[..i].iter().all(|o| o.name != e.name && o.symbol != e.symbol), "{} twice", e.name);
            // Every name a shape refers to is one of the entry's ints.
            for p in e.params {
                if let Param::Ints(name, _, len) = p {
                    for n in lens(*len) {
                        assert!(e.params.iter().any(|p| !p.is_pointer() && p.name() == n), "{}: {name} names {n}", e.name);
                    }
                }
                if let Param::Array(name, _, shape) | Param::Batch(name, _, shape) = p {
                    let names: Vec<&str> = match *shape {
                        Shape::Vector { len, inc } => [lens(len), if inc.is_empty() { vec![] } else { vec![inc] }].concat(),
                        Shape::Matrix { rows, cols, ld, batch } => {
                            [lens(rows), lens(cols), vec![ld], batch.map_or(vec![], |(s, c)| vec![s, c])].concat()
                        }
                        Shape::Packed(n) => vec![n],
                    };
                    for n in names {
                        assert!(e.params.iter().any(|p| !p.is_pointer() && p.name() == n), "{}: {name} names {n}", e.name);
                    }
                }
            }
        }
    }

    #[test]
    fn the_64_bit_variants_are_named_by_suffix() {
        assert_eq!(ENTRIES.iter().filter(|e| e.has_64()).count(), 180);
        let (e, ilp64) = entry("dgemm_64").unwrap();
        assert_eq!((e.name, ilp64, e.symbol_for(ilp64).as_str()), ("dgemm", true, "cublasDgemm_v2_64"));
        assert!(!entry("dgemm").unwrap().1);
        assert!(entry("drotg_64").unwrap_err().to_string().contains("no 64-bit variant of drotg"));
        assert_eq!(signature(e.params, true), "iilllpplplppl");
        assert_eq!(value_size(Elem::S, Kind::Index, true), 8);
        assert_eq!(decode(Elem::S, Kind::Index, true, &encode(Elem::S, Kind::Index, true, &[3e9])), vec![3e9]);
    }

    #[test]
    fn every_ex_entry_names_its_typed_entries_parameters() {
        for x in EX_ENTRIES {
            assert!(!x.compute || x.exec, "{}: a compute type is its execution", x.name);
            for &(types, _, typed) in x.combos {
                let (e, _) = entry(typed).unwrap();
                assert_eq!(types.len(), x.types.len(), "{} {typed}", x.name);
                for &(param, _, after) in x.types {
                    let named = |n: &str| e.params.iter().any(|p| p.name() == n);
                    assert!(named(after) && (named(param) || param == "cs"), "{} {typed}: {param} after {after}", x.name);
                }
                // Each operand's type is complex where the typed entry's operand is.
                for (&(param, ..), t) in x.types.iter().zip(types) {
                    let kind = e.params.iter().find_map(|p| match *p {
                        Param::Value(n, k, ..) if n == param || (param == "cs" && n == "c") => Some(k),
                        Param::Array(n, ..) | Param::Batch(n, ..) if n == param => Some(Kind::Elem),
                        _ => None,
                    });
                    let complex = kind == Some(Kind::Elem) && e.elem.complex();
                    assert_eq!(t.complex, complex, "{} {typed}: {param}", x.name);
                }
            }
        }
        let (e, call) = ex_entry("dotEx").unwrap().resolve(&["CUDA_R_16F", "CUDA_R_16F", "CUDA_R_16F", "CUDA_R_32F"]).unwrap();
        assert_eq!((e.name, call.exec), ("sdot", R32F));
        assert_eq!(ex_signature(call.entry, e), "ipiipiipii");
        let no = ex_entry("dotEx").unwrap().resolve(&["CUDA_R_16F", "CUDA_R_16F", "CUDA_R_32F", "CUDA_R_32F"]).unwrap_err();
        assert_eq!(no.code_name().as_deref(), Some("CUBLAS_STATUS_NOT_SUPPORTED"));
        // float32 → float16 rounds to nearest (1/3 → 0.333251953125), and back exactly.
        let third = call.from_typed("result", Elem::S, Kind::Elem, &(1.0f32 / 3.0).to_le_bytes());
        assert_eq!(DataType::F16.read(&third, 0), 0.333251953125);
        assert_eq!(ExType { real: DataType::F32, complex: true }.code(), 4);
        assert_eq!((R16BF.code(), C64F.code(), R16F.size(), C64F.size()), (14, 5, 2, 16));
    }

    fn lens(l: Len) -> Vec<&'static str> {
        match l {
            Of(a) | Plus1(a) => vec![a],
            Band(a, b) | Len::Product(a, b) | Len::Min(a, b) => vec![a, b],
            ByOp(t, a, b) | BySide(t, a, b) => vec![t, a, b],
        }
    }
}
