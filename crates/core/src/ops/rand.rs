//! cuRAND at the seam: the trait a backend implements for generators and the plain data it is
//! given, and cuRAND's documented Philox4x32-10 on the host (the simulator's generator, and the
//! reference the GPU tests compare cuRAND with). The checks are `rand.rs`'s, above the seam.

use crate::error::Result;
use crate::ops::{AllocOps, StreamOps};

/// A generator kind, numbered as `curandRngType_t` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RngKind {
    Xorwow = 101,
    Mrg32k3a = 121,
    Philox = 161,
    Sobol32 = 201,
}

impl RngKind {
    /// The kind a name gives (CuPy's names, lower case, and cuRAND's numbers as text).
    pub fn parse(name: &str) -> Option<RngKind> {
        Some(match name {
            "philox" | "philox4_32_10" | "161" => RngKind::Philox,
            "xorwow" | "default" | "101" | "100" => RngKind::Xorwow,
            "mrg32k3a" | "121" => RngKind::Mrg32k3a,
            "sobol32" | "201" | "200" => RngKind::Sobol32,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            RngKind::Xorwow => "xorwow",
            RngKind::Mrg32k3a => "mrg32k3a",
            RngKind::Philox => "philox",
            RngKind::Sobol32 => "sobol32",
        }
    }

    /// A quasirandom kind: it has dimensions, no seed.
    pub fn quasi(self) -> bool {
        self == RngKind::Sobol32
    }
}

/// What a generate call writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dist {
    /// Raw 32-bit words (`curandGenerate`).
    Bits,
    /// Uniform on (0, 1].
    Uniform,
    Normal {
        mean: f64,
        stddev: f64,
    },
    LogNormal {
        mean: f64,
        stddev: f64,
    },
    /// u32 counts (`curandGeneratePoisson`).
    Poisson {
        lambda: f64,
    },
}

/// The element type written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutType {
    U32,
    F32,
    F64,
}

impl OutType {
    pub fn size(self) -> u64 {
        match self {
            OutType::U32 | OutType::F32 => 4,
            OutType::F64 => 8,
        }
    }
}

/// One generate call, checked: `count` elements of `dtype` at byte `off` of the allocation.
#[derive(Clone, Copy, Debug)]
pub struct Generate {
    pub dist: Dist,
    pub dtype: OutType,
    pub count: u64,
    pub off: u64,
}

/// What a backend implements for cuRAND.
pub trait RandOps: Send + Sync + 'static {
    /// A generator of `kind` on device `ordinal` (`curandCreateGenerator`).
    fn create_generator(&self, ordinal: usize, kind: RngKind) -> Result<Box<dyn GeneratorOps>>;
}

/// A backend's generator. Destroyed when dropped.
pub trait GeneratorOps: Send + Sync {
    fn set_seed(&self, seed: u64) -> Result<()>;
    fn set_offset(&self, offset: u64) -> Result<()>;
    fn set_dimensions(&self, dims: u32) -> Result<()>;
    /// Queues the generation on `stream`, into `out`.
    fn generate(&self, stream: &dyn StreamOps, g: &Generate, out: &dyn AllocOps) -> Result<()>;
    /// The handle as a number (`curandGenerator_t`; the simulator's is made up).
    fn handle(&self) -> u64;
}

const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;
const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;

/// Philox4x32-10 of one 128-bit counter (`x, y, z, w`) under a 64-bit key, as cuRAND's
/// `curand_Philox4x32_10` computes it (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
pub fn philox4x32_10(mut c: [u32; 4], seed: u64) -> [u32; 4] {
    let (mut k0, mut k1) = (seed as u32, (seed >> 32) as u32);
    for round in 0..10 {
        let p0 = M0 as u64 * c[0] as u64;
        let p1 = M1 as u64 * c[2] as u64;
        let (hi0, lo0, hi1, lo1) = ((p0 >> 32) as u32, p0 as u32, (p1 >> 32) as u32, p1 as u32);
        c = [hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0];
        if round < 9 {
            k0 = k0.wrapping_add(W0);
            k1 = k1.wrapping_add(W1);
        }
    }
    c
}

/// `count` 32-bit words of Philox4x32-10 under `seed`, from position `position` of subsequence
/// `subsequence`, as `curand_init(seed, subsequence, position, &s)` then `curand(&s)` would give
/// them: the counter's low 64 bits count blocks of four words, its high 64 bits the subsequence.
pub fn philox_words(seed: u64, subsequence: u64, position: u64, count: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(count);
    let (mut block, mut word) = (position / 4, (position % 4) as usize);
    while out.len() < count {
        let r = philox4x32_10([block as u32, (block >> 32) as u32, subsequence as u32, (subsequence >> 32) as u32], seed);
        let take = (4 - word).min(count - out.len());
        out.extend_from_slice(&r[word..word + take]);
        (block, word) = (block.wrapping_add(1), 0);
    }
    out
}

/// 2^-32, cuRAND's `CURAND_2POW32_INV`.
const POW32_INV: f32 = 1.0 / 4_294_967_296.0;
/// 2^-32 · 2π, cuRAND's `CURAND_2POW32_INV_2PI`.
const POW32_INV_2PI: f32 = (std::f64::consts::TAU / 4_294_967_296.0) as f32;
/// 2^-53.
const POW53_INV: f64 = 1.0 / 9_007_199_254_740_992.0;

/// cuRAND's float uniform of a word: `x · 2^-32 + 2^-33`, in (0, 1].
pub fn uniform_f32(x: u32) -> f32 {
    x as f32 * POW32_INV + POW32_INV / 2.0
}

/// cuRAND's double uniform of two words (`_curand_uniform_double_hq`): 53 bits of `x ^ (y << 21)`.
pub fn uniform_f64(x: u32, y: u32) -> f64 {
    let z = x as u64 ^ ((y as u64) << 21);
    z as f64 * POW53_INV + POW53_INV / 2.0
}

/// Box-Muller of a pair of words, as cuRAND's `_curand_box_muller` (sin first, then cos).
pub fn box_muller_f32(x: u32, y: u32) -> (f32, f32) {
    let u = uniform_f32(x);
    let v = y as f32 * POW32_INV_2PI + POW32_INV_2PI / 2.0;
    let s = (-2.0 * u.ln()).sqrt();
    (v.sin() * s, v.cos() * s)
}

/// Box-Muller of two double uniforms (four words), as `_curand_box_muller_double`: the angle is
/// `π · v` with `v` in (0, 2].
pub fn box_muller_f64(w: [u32; 4]) -> (f64, f64) {
    let u = uniform_f64(w[0], w[1]);
    let zy = w[2] as u64 ^ ((w[3] as u64) << 21);
    let v = zy as f64 * (POW53_INV * 2.0) + POW53_INV;
    let s = (-2.0 * u.ln()).sqrt();
    let a = std::f64::consts::PI * v;
    (a.sin() * s, a.cos() * s)
}

/// The 32-bit words `n` values of `g` take from a generator (what its offset advances by).
pub fn words_used(g: &Generate) -> u64 {
    match (g.dist, g.dtype) {
        (Dist::Uniform | Dist::Normal { .. } | Dist::LogNormal { .. }, OutType::F64) => 2 * g.count,
        _ => g.count,
    }
}

/// Sobol32 in one dimension (cuRAND's first dimension: direction numbers `2^(31-k)`, Gray-code
/// order): `count` words from point `position`.
pub fn sobol32_dim1(position: u64, count: usize) -> Vec<u32> {
    let gray = |n: u64| -> u32 {
        let g = n ^ (n >> 1);
        (0..32).filter(|k| g >> k & 1 == 1).fold(0u32, |acc, k| acc ^ (1u32 << (31 - k)))
    };
    (0..count as u64).map(|i| gray(position + i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_matches_random123_known_answers() {
        // Random123's kat_vectors: philox4x32 10 rounds.
        assert_eq!(philox4x32_10([0, 0, 0, 0], 0), [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
        assert_eq!(philox4x32_10([0xffffffff; 4], 0xffffffff_ffffffff), [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]);
        assert_eq!(
            philox4x32_10([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], 0x299f31d0_a4093822),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn words_continue_across_blocks_and_offsets() {
        let all = philox_words(42, 0, 0, 12);
        assert_eq!(philox_words(42, 0, 3, 6), all[3..9].to_vec());
        assert_ne!(philox_words(42, 1, 0, 4), all[..4].to_vec());
    }

    #[test]
    fn sobol_dimension_one_is_van_der_corput_in_gray_order() {
        assert_eq!(sobol32_dim1(0, 4), vec![0, 0x8000_0000, 0xC000_0000, 0x4000_0000]);
    }

    #[test]
    fn uniforms_are_in_the_half_open_unit_interval() {
        assert!(uniform_f32(0) > 0.0 && uniform_f32(u32::MAX) <= 1.0);
        assert!(uniform_f64(0, 0) > 0.0 && uniform_f64(u32::MAX, u32::MAX) <= 1.0);
    }
}
