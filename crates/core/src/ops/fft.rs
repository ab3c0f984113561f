//! cuFFT at the seam: the traits a backend implements for FFT plans and the plain data they are
//! given — the transform's type, shape, batch and data layouts (cufftPlanMany's), the Xt API's
//! precisions (half, bfloat16), LTO callbacks, and plans over several devices. The checked plans
//! are `fft.rs`'s and `fft_multi.rs`'s, above the seam.

use crate::error::{Error, Result};
use crate::ops::{AllocOps, StreamOps};

/// What a backend implements for cuFFT. Specs reaching it are checked ([`PlanSpec::check`]).
pub trait FftOps: Send + Sync + 'static {
    /// Plans `spec` on device `ordinal` with no work area of its own (cuFFT's auto-allocation
    /// off, as CuPy plans): the caller gives it one of [`FftPlanOps::work_size`] bytes.
    /// `callbacks` (LTO-IR, at most one load and one store) are set before the plan is made, as
    /// cuFFT requires (`cufftXtSetJITCallback`).
    fn plan(&self, ordinal: usize, spec: &PlanSpec, callbacks: &[Callback]) -> Result<Box<dyn FftPlanOps>>;
    /// Plans `spec` (one axis, c2c or z2z, checked) over `devices` (`cufftXtSetGPUs`), with no
    /// work areas of its own.
    fn plan_multi(&self, devices: &[usize], spec: &PlanSpec) -> Result<Box<dyn FftMultiOps>>;
}

/// A plan over several devices, made by a backend: destroyed when dropped.
pub trait FftMultiOps: Send + Sync {
    /// The bytes of work area each device needs, in the plan's order of devices.
    fn work_sizes(&self) -> Vec<u64>;
    /// Uses one area a device (`cufftXtSetWorkArea`), each at least its work size.
    fn set_work_areas(&self, areas: &[Part<'_>]) -> Result<()>;
    /// Transforms in place the data spread over `parts` in natural order ([`shares`] elements on
    /// each device), waiting until it is done. Returns whether the result is in `scratch` rather
    /// than `parts` (one transform spread over the devices comes back permuted, and is copied
    /// into natural order there).
    fn exec(&self, parts: &[Part<'_>], scratch: &[Part<'_>], direction: Direction) -> Result<bool>;
}

/// A range of one device's allocation.
#[derive(Clone, Copy)]
pub struct Part<'a> {
    pub mem: &'a dyn AllocOps,
    pub offset: u64,
    pub len: u64,
}

/// The elements of a multi-device transform each of `devices` devices holds, as cuFFT splits it
/// (and CuPy's `Plan1d`): whole transforms, the first devices one more where the batch does not
/// divide; one transform (`batch` 1) in equal parts.
pub fn shares(n: u64, batch: u64, devices: usize) -> Vec<u64> {
    let d = devices as u64;
    if batch == 1 {
        return vec![n / d; devices];
    }
    (0..d).map(|i| (batch / d + u64::from(i < batch % d)) * n).collect()
}

/// A load or store callback compiled to LTO-IR, for `cufftXtSetJITCallback`.
#[derive(Clone, Debug)]
pub struct Callback {
    /// A store callback (else a load one).
    pub store: bool,
    /// The `__device__` function's name in the source.
    pub name: String,
    pub ltoir: Vec<u8>,
    /// The device address given to the callback as `callerInfo` (0: none).
    pub caller_info: u64,
}

impl Callback {
    /// `cufftXtCallbackType` for a plan of `spec`: a load callback reads the input's elements,
    /// a store callback writes the output's.
    pub fn kind(&self, spec: &PlanSpec) -> i32 {
        let side = usize::from(self.store);
        let complex = spec.ty.complex(side);
        let base = if self.store { 4 } else { 0 };
        base + if complex { 0 } else { 2 } + i32::from(spec.ty.double())
    }
}

/// The precision of a plan's numbers: the classic types' single and double, and the Xt API's
/// half (`CUDA_R_16F`) and bfloat16 (`CUDA_R_16BF`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    Half,
    BFloat16,
    Single,
    Double,
}

impl Precision {
    /// Bytes of one real number.
    pub fn bytes(self) -> u64 {
        match self {
            Precision::Half | Precision::BFloat16 => 2,
            Precision::Single => 4,
            Precision::Double => 8,
        }
    }

    /// `cudaDataType`'s value (library_types.h) for a real or complex number of this precision.
    pub fn data_type(self, complex: bool) -> i32 {
        match (self, complex) {
            (Precision::Single, false) => 0,
            (Precision::Double, false) => 1,
            (Precision::Half, false) => 2,
            (Precision::Single, true) => 4,
            (Precision::Double, true) => 5,
            (Precision::Half, true) => 6,
            (Precision::BFloat16, false) => 14,
            (Precision::BFloat16, true) => 15,
        }
    }
}

/// `cudaDataType`'s names as the Xt API takes them: `(name, complex, precision)`.
pub const DATA_TYPES: [(&str, bool, Precision); 8] = [
    ("CUDA_R_16F", false, Precision::Half),
    ("CUDA_C_16F", true, Precision::Half),
    ("CUDA_R_16BF", false, Precision::BFloat16),
    ("CUDA_C_16BF", true, Precision::BFloat16),
    ("CUDA_R_32F", false, Precision::Single),
    ("CUDA_C_32F", true, Precision::Single),
    ("CUDA_R_64F", false, Precision::Double),
    ("CUDA_C_64F", true, Precision::Double),
];

/// An Xt plan's input, output and execution types (cufftXtMakePlanMany's `inputtype`,
/// `outputtype`, `executiontype`) as the transform they make: C2C is complex, complex, complex;
/// R2C real, complex, complex; C2R complex, real, complex; all of one precision. The type
/// returned is the classic one of that kind (single's for half and bfloat16).
pub fn xt_types(input: &str, output: &str, execution: &str) -> Result<(FftType, Precision)> {
    let parse = |what: &str, name: &str| -> Result<(bool, Precision)> {
        DATA_TYPES.iter().find(|t| t.0.eq_ignore_ascii_case(name)).map(|t| (t.1, t.2)).ok_or_else(|| {
            Error::named(
                "CUFFT_INVALID_TYPE",
                format!("the {what} type '{name}' is not one cuFFT's Xt API takes: use one of {}", DATA_TYPES.map(|t| t.0).join(", ")),
            )
        })
    };
    let (i, o, e) = (parse("input", input)?, parse("output", output)?, parse("execution", execution)?);
    if i.1 != o.1 || o.1 != e.1 || !e.0 {
        return Err(Error::named(
            "CUFFT_INVALID_TYPE",
            format!(
                "{input}, {output}, {execution} is not a transform cuFFT runs: input, output and execution are of one precision, \
                 and the execution type is complex"
            ),
        ));
    }
    let double = e.1 == Precision::Double;
    let ty = match (i.0, o.0, double) {
        (true, true, false) => FftType::C2C,
        (true, true, true) => FftType::Z2Z,
        (false, true, false) => FftType::R2C,
        (false, true, true) => FftType::D2Z,
        (true, false, false) => FftType::C2R,
        (true, false, true) => FftType::Z2D,
        (false, false, _) => {
            return Err(Error::named("CUFFT_INVALID_TYPE", format!("{input} to {output}: cuFFT has no real-to-real transform")))
        }
    };
    Ok((ty, e.1))
}

/// A plan made by a backend: destroyed when dropped.
pub trait FftPlanOps: Send + Sync {
    /// The bytes of work area the plan needs (`cufftMakePlanMany64`'s `workSize`).
    fn work_size(&self) -> u64;
    /// Uses `offset` bytes into `area` as the work area (`cufftSetWorkArea`).
    fn set_work_area(&self, area: &dyn AllocOps, offset: u64) -> Result<()>;
    /// Runs the transform on `stream`, from `input` to `output` (the same bytes in place).
    fn exec(&self, stream: &dyn StreamOps, x: &Exec, input: &dyn AllocOps, output: &dyn AllocOps) -> Result<()>;
}

/// cuFFT's transform types (`cufftType`), single and double precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FftType {
    C2C,
    R2C,
    C2R,
    Z2Z,
    D2Z,
    Z2D,
}

impl FftType {
    pub const NAMES: [&'static str; 6] = ["c2c", "r2c", "c2r", "z2z", "d2z", "z2d"];

    /// `'c2c'`, `'r2c'`, … (any case); `CUFFT_INVALID_TYPE` for another name.
    pub fn parse(name: &str) -> Result<FftType> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "c2c" => FftType::C2C,
            "r2c" => FftType::R2C,
            "c2r" => FftType::C2R,
            "z2z" => FftType::Z2Z,
            "d2z" => FftType::D2Z,
            "z2d" => FftType::Z2D,
            _ => {
                return Err(Error::named(
                    "CUFFT_INVALID_TYPE",
                    format!("'{name}' is not a cuFFT type: use one of {}", FftType::NAMES.map(|n| format!("'{n}'")).join(", ")),
                ))
            }
        })
    }

    pub fn name(self) -> &'static str {
        FftType::NAMES[self as usize]
    }

    /// `cufftType`'s value (cufft.h).
    pub fn code(self) -> i32 {
        match self {
            FftType::C2C => 0x29,
            FftType::R2C => 0x2a,
            FftType::C2R => 0x2c,
            FftType::Z2Z => 0x69,
            FftType::D2Z => 0x6a,
            FftType::Z2D => 0x6c,
        }
    }

    pub fn double(self) -> bool {
        matches!(self, FftType::Z2Z | FftType::D2Z | FftType::Z2D)
    }

    /// Whether the input (`side` 0) or output (1) holds complex numbers.
    pub fn complex(self, side: usize) -> bool {
        match self {
            FftType::C2C | FftType::Z2Z => true,
            FftType::R2C | FftType::D2Z => side == 1,
            FftType::C2R | FftType::Z2D => side == 0,
        }
    }

    /// The only direction a real transform runs in; `None` for a complex one (both).
    pub fn fixed_direction(self) -> Option<Direction> {
        match self {
            FftType::R2C | FftType::D2Z => Some(Direction::Forward),
            FftType::C2R | FftType::Z2D => Some(Direction::Inverse),
            _ => None,
        }
    }
}

/// `CUFFT_FORWARD` (-1) or `CUFFT_INVERSE` (1); neither scales (an inverse of a forward is `n·x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Inverse,
}

impl Direction {
    pub fn code(self) -> i32 {
        match self {
            Direction::Forward => -1,
            Direction::Inverse => 1,
        }
    }

    /// -1 or 1, as cuFFT and CuPy number them.
    pub fn from_code(code: f64) -> Result<Direction> {
        if code == -1.0 {
            Ok(Direction::Forward)
        } else if code == 1.0 {
            Ok(Direction::Inverse)
        } else {
            Err(Error::range(format!("direction must be -1 (CUFFT_FORWARD) or 1 (CUFFT_INVERSE), got {code}")))
        }
    }
}

/// One side's layout, cufftPlanMany's advanced layout: point `x` of batch `b` is element
/// `b·dist + stride·Σₖ xₖ·Πⱼ₍ⱼ₎₌ₖ₊₁ embedⱼ` (`embed[0]` is not used).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub embed: Vec<u64>,
    pub stride: u64,
    pub dist: u64,
}

impl Layout {
    /// The element holding point `x` of batch `b`.
    pub fn index(&self, b: u64, x: &[u64]) -> u64 {
        let mut at = 0;
        for (k, &xk) in x.iter().enumerate() {
            at = if k == 0 { xk } else { at * self.embed[k] + xk };
        }
        b * self.dist + at * self.stride
    }

    /// Elements spanned by `batch` transforms of logical size `n`, from the first to the last
    /// element used, plus one (`None` on overflow).
    fn extent(&self, n: &[u64], batch: u64) -> Option<u64> {
        let mut last = 0u64;
        for (k, &nk) in n.iter().enumerate() {
            last = if k == 0 { nk - 1 } else { last.checked_mul(self.embed[k])?.checked_add(nk - 1)? };
        }
        (batch - 1).checked_mul(self.dist)?.checked_add(last.checked_mul(self.stride)?)?.checked_add(1)
    }
}

/// A plan: the transform's type, its logical shape (rank 1 to 3, the last axis fastest), how
/// many transforms, and the layouts given (`None`: cuFFT's basic layout, contiguous, whose real
/// side is padded to `2·(n/2+1)` on the last axis when the transform runs in place). `xt`: an
/// Xt plan (cufftXtMakePlanMany) of that precision, `ty` its kind (single's for half and
/// bfloat16, double's for double).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanSpec {
    pub ty: FftType,
    pub shape: Vec<u64>,
    pub batch: u64,
    pub layout: Option<[Layout; 2]>,
    pub xt: Option<Precision>,
}

/// What one run of a plan is given: where its input and output start (bytes into their
/// allocations), the direction, and whether it runs in place (one address for both).
#[derive(Clone, Copy, Debug)]
pub struct Exec {
    pub in_off: u64,
    pub out_off: u64,
    pub direction: Direction,
    pub in_place: bool,
}

fn product(v: &[u64]) -> Option<u64> {
    v.iter().try_fold(1u64, |a, &b| a.checked_mul(b))
}

impl PlanSpec {
    /// A classic plan (no Xt types) in the basic layout.
    pub fn basic(ty: FftType, shape: Vec<u64>, batch: u64) -> PlanSpec {
        PlanSpec { ty, shape, batch, layout: None, xt: None }
    }

    /// The precision of the plan's numbers.
    pub fn precision(&self) -> Precision {
        self.xt.unwrap_or(if self.ty.double() { Precision::Double } else { Precision::Single })
    }

    /// Bytes of one element of the input (`side` 0) or output (1): also their alignment.
    pub fn element(&self, side: usize) -> u64 {
        self.precision().bytes() * if self.ty.complex(side) { 2 } else { 1 }
    }

    /// The logical sizes on the input (`side` 0) or output (1): a real transform's complex side
    /// holds `n/2+1` points on the last axis.
    pub fn dims(&self, side: usize) -> Vec<u64> {
        let mut d = self.shape.clone();
        if self.ty.fixed_direction().is_some() && self.ty.complex(side) {
            let last = d.len() - 1;
            d[last] = d[last] / 2 + 1;
        }
        d
    }

    /// Rank 1 to 3, sizes and batch at least 1, layouts that hold their sides, and nothing past
    /// cuFFT's 64-bit sizes.
    pub fn check(&self) -> Result<()> {
        let rank = self.shape.len();
        if !(1..=3).contains(&rank) {
            return Err(Error::named("CUFFT_INVALID_SIZE", format!("a cuFFT plan has 1 to 3 dimensions, got {rank}")));
        }
        if let Some(k) = self.shape.iter().position(|&n| n == 0) {
            return Err(Error::named("CUFFT_INVALID_SIZE", format!("dimension {k} of the transform is 0: every size must be at least 1")));
        }
        if self.batch == 0 {
            return Err(Error::named("CUFFT_INVALID_SIZE", "batch is 0: a plan runs at least one transform"));
        }
        if matches!(self.precision(), Precision::Half | Precision::BFloat16) && !self.shape.iter().all(|n| n.is_power_of_two()) {
            return Err(Error::named(
                "CUFFT_NOT_SUPPORTED",
                format!("cuFFT runs half and bfloat16 transforms of sizes that are powers of 2 only, got {:?}", self.shape),
            ));
        }
        let max = i64::MAX as u64;
        if self.shape.iter().any(|&n| n > max) || self.batch > max {
            return Err(Error::range("the transform's sizes are more than cuFFT's 64-bit sizes allow"));
        }
        if let Some(layouts) = &self.layout {
            for (side, l) in layouts.iter().enumerate() {
                let what = ["input", "output"][side];
                if l.embed.len() != rank {
                    return Err(Error::range(format!("the {what}'s embed has {} sizes, the transform {rank}", l.embed.len())));
                }
                let dims = self.dims(side);
                if let Some(k) = (1..rank).find(|&k| l.embed[k] < dims[k]) {
                    return Err(Error::range(format!(
                        "the {what}'s embed[{k}] ({}) is less than the {} points of that axis",
                        l.embed[k], dims[k]
                    )));
                }
                if l.stride == 0 {
                    return Err(Error::range(format!("the {what}'s stride is 0: it must be at least 1")));
                }
                if l.embed.iter().chain([&l.stride, &l.dist]).any(|&v| v > max) {
                    return Err(Error::range(format!("the {what}'s layout is more than cuFFT's 64-bit sizes allow")));
                }
            }
        }
        self.extents(false)?;
        self.extents(true)?;
        Ok(())
    }

    /// The layouts of input and output for a run in place or not.
    pub fn layouts(&self, in_place: bool) -> [Layout; 2] {
        if let Some(l) = &self.layout {
            return l.clone();
        }
        [0, 1].map(|side| {
            let mut embed = self.dims(side);
            if in_place && !self.ty.complex(side) {
                // The real side of an in-place real transform is padded to the complex side's size.
                let last = embed.len() - 1;
                embed[last] = 2 * (embed[last] / 2 + 1);
            }
            let dist = product(&embed).unwrap_or(u64::MAX);
            Layout { embed, stride: 1, dist }
        })
    }

    /// The bytes the input and output span from their first element, in place or not.
    pub fn extents(&self, in_place: bool) -> Result<[u64; 2]> {
        let layouts = self.layouts(in_place);
        let mut out = [0; 2];
        for side in 0..2 {
            out[side] = layouts[side]
                .extent(&self.dims(side), self.batch)
                .and_then(|e| e.checked_mul(self.element(side)))
                .filter(|&b| b <= i64::MAX as u64)
                .ok_or_else(|| Error::range("the transform's data is too large"))?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_split_the_batch_as_cupy_does_and_one_transform_evenly() {
        assert_eq!(shares(10, 5, 2), vec![30, 20]);
        assert_eq!(shares(8, 6, 4), vec![16, 16, 8, 8]);
        assert_eq!(shares(1024, 1, 4), vec![256; 4]);
    }

    #[test]
    fn xt_types_make_the_transform_of_their_kinds() {
        assert_eq!(xt_types("CUDA_C_16F", "CUDA_C_16F", "CUDA_C_16F").unwrap(), (FftType::C2C, Precision::Half));
        assert_eq!(xt_types("cuda_r_16bf", "CUDA_C_16BF", "CUDA_C_16BF").unwrap(), (FftType::R2C, Precision::BFloat16));
        assert_eq!(xt_types("CUDA_C_64F", "CUDA_R_64F", "CUDA_C_64F").unwrap(), (FftType::Z2D, Precision::Double));
        for bad in [["CUDA_C_16F", "CUDA_C_32F", "CUDA_C_32F"], ["CUDA_R_32F", "CUDA_R_32F", "CUDA_C_32F"], ["CUDA_C_32F", "CUDA_C_32F", "CUDA_R_32F"]] {
            assert_eq!(xt_types(bad[0], bad[1], bad[2]).unwrap_err().code_name().as_deref(), Some("CUFFT_INVALID_TYPE"), "{bad:?}");
        }
    }

    #[test]
    fn callback_types_are_cuffts_for_the_side_they_touch() {
        let cb = |store| Callback { store, name: "f".into(), ltoir: vec![], caller_info: 0 };
        let spec = |ty| PlanSpec::basic(ty, vec![8], 1);
        // CUFFT_CB_LD_COMPLEX 0, LD_REAL_DOUBLE 3, ST_COMPLEX_DOUBLE 5, ST_REAL 6.
        assert_eq!(cb(false).kind(&spec(FftType::C2C)), 0);
        assert_eq!(cb(false).kind(&spec(FftType::D2Z)), 3);
        assert_eq!(cb(true).kind(&spec(FftType::D2Z)), 5);
        assert_eq!(cb(true).kind(&spec(FftType::C2R)), 6);
        assert_eq!(cb(false).kind(&spec(FftType::C2R)), 0);
    }

    #[test]
    fn half_elements_are_two_bytes_and_their_sizes_powers_of_two() {
        let mut s = PlanSpec::basic(FftType::R2C, vec![16], 2);
        s.xt = Some(Precision::Half);
        assert_eq!((s.element(0), s.element(1)), (2, 4));
        assert_eq!(s.extents(false).unwrap(), [16 * 2 * 2, 9 * 4 * 2]);
        s.shape = vec![12];
        assert_eq!(s.check().unwrap_err().code_name().as_deref(), Some("CUFFT_NOT_SUPPORTED"));
    }
}
