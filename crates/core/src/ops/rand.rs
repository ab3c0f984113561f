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
    Mtgp32 = 141,
    Mt19937 = 142,
    Philox = 161,
    Sobol32 = 201,
    ScrambledSobol32 = 202,
    Sobol64 = 203,
    ScrambledSobol64 = 204,
}

impl RngKind {
    /// The kind a name gives (CuPy's names, lower case, and cuRAND's numbers as text; 100 and
    /// 200 are cuRAND's defaults, XORWOW and Sobol32).
    pub fn parse(name: &str) -> Option<RngKind> {
        Some(match name {
            "philox" | "philox4_32_10" | "161" => RngKind::Philox,
            "xorwow" | "default" | "101" | "100" => RngKind::Xorwow,
            "mrg32k3a" | "121" => RngKind::Mrg32k3a,
            "mtgp32" | "141" => RngKind::Mtgp32,
            "mt19937" | "142" => RngKind::Mt19937,
            "sobol32" | "201" | "200" => RngKind::Sobol32,
            "scrambled_sobol32" | "202" => RngKind::ScrambledSobol32,
            "sobol64" | "203" => RngKind::Sobol64,
            "scrambled_sobol64" | "204" => RngKind::ScrambledSobol64,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            RngKind::Xorwow => "xorwow",
            RngKind::Mrg32k3a => "mrg32k3a",
            RngKind::Mtgp32 => "mtgp32",
            RngKind::Mt19937 => "mt19937",
            RngKind::Philox => "philox",
            RngKind::Sobol32 => "sobol32",
            RngKind::ScrambledSobol32 => "scrambled_sobol32",
            RngKind::Sobol64 => "sobol64",
            RngKind::ScrambledSobol64 => "scrambled_sobol64",
        }
    }

    /// A quasirandom kind: it has dimensions, no seed.
    pub fn quasi(self) -> bool {
        matches!(self, RngKind::Sobol32 | RngKind::ScrambledSobol32 | RngKind::Sobol64 | RngKind::ScrambledSobol64)
    }

    /// A kind whose words are 64 bits (`curandGenerateLongLong`; `curandGenerate` is refused).
    pub fn long(self) -> bool {
        matches!(self, RngKind::Sobol64 | RngKind::ScrambledSobol64)
    }
}

/// The order results are written in, numbered as `curandOrdering_t` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneratorOrdering {
    PseudoBest = 100,
    PseudoDefault = 101,
    PseudoSeeded = 102,
    PseudoLegacy = 103,
    PseudoDynamic = 104,
    QuasiDefault = 201,
}

impl GeneratorOrdering {
    /// The ordering cuRAND numbers `n`.
    pub fn from_number(n: u32) -> Option<GeneratorOrdering> {
        Some(match n {
            100 => GeneratorOrdering::PseudoBest,
            101 => GeneratorOrdering::PseudoDefault,
            102 => GeneratorOrdering::PseudoSeeded,
            103 => GeneratorOrdering::PseudoLegacy,
            104 => GeneratorOrdering::PseudoDynamic,
            201 => GeneratorOrdering::QuasiDefault,
            _ => return None,
        })
    }

    /// An ordering of pseudorandom generators.
    pub fn pseudo(self) -> bool {
        self != GeneratorOrdering::QuasiDefault
    }
}

/// What a generate call writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dist {
    /// Raw words: 32 bits (`curandGenerate`), or 64 of a 64-bit generator (`curandGenerateLongLong`).
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
    /// 64-bit words (`curandGenerateLongLong`).
    U64,
    F32,
    F64,
}

impl OutType {
    pub fn size(self) -> u64 {
        match self {
            OutType::U32 | OutType::F32 => 4,
            OutType::U64 | OutType::F64 => 8,
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
    /// Sets the order results are written in (`curandSetGeneratorOrdering`), one the model
    /// checked fits the generator's kind.
    fn set_ordering(&self, ordering: GeneratorOrdering) -> Result<()>;
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

/// How far a call of `g` moves a generator's offset: its count, as cuRAND's does (seen on an
/// H200: after 6 words the next call starts at word 6, mid-step).
pub fn advance(g: &Generate) -> u64 {
    g.count
}

/// The subsequences cuRAND's host API interleaves Philox over: "each four values from one
/// sequence are followed by four values from next sequence", 65536 of them (its legacy
/// ordering, which `CURAND_ORDERING_PSEUDO_DEFAULT` and `_BEST` are in the current release).
pub const HOST_SUBSEQUENCES: u64 = 65536;

/// The 4-word block of step `step` (four values a step) of cuRAND's host Philox, `block` of
/// the step's blocks: subsequence `step mod 65536`, counter `(step div 65536) · blocks + block`.
fn host_block(seed: u64, step: u64, blocks: u64, block: u64) -> [u32; 4] {
    let (sub, round) = (step % HOST_SUBSEQUENCES, step / HOST_SUBSEQUENCES);
    let c = round.wrapping_mul(blocks).wrapping_add(block);
    philox4x32_10([c as u32, (c >> 32) as u32, sub as u32, (sub >> 32) as u32], seed)
}

/// The 32-bit words `curandGenerate` writes for a Philox generator at `offset`: word `p` of the
/// output stream (`p = offset + i`) is word `p mod 4` of step `p div 4`'s block.
pub fn philox_host_words(seed: u64, offset: u64, count: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(count);
    let (mut step, mut word) = (offset / 4, (offset % 4) as usize);
    while out.len() < count {
        let r = host_block(seed, step, 1, 0);
        let take = (4 - word).min(count - out.len());
        out.extend_from_slice(&r[word..word + take]);
        (step, word) = (step.wrapping_add(1), 0);
    }
    out
}

/// The blocks behind `count` doubles of cuRAND's host Philox at `offset`: a step makes four
/// doubles from two blocks of its subsequence (two doubles a block), so the block of doubles
/// `2m, 2m + 1` is block `m mod 2` of step `offset div 4 + m div 2`.
pub fn philox_host_blocks_f64(seed: u64, offset: u64, count: usize) -> Vec<[u32; 4]> {
    (0..count.div_ceil(2) as u64).map(|m| host_block(seed, offset / 4 + m / 2, 2, m % 2)).collect()
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

/// Sobol64 in one dimension (cuRAND's first dimension: direction numbers `2^(63-k)`, Gray-code
/// order): `count` words from point `position`.
pub fn sobol64_dim1(position: u64, count: usize) -> Vec<u64> {
    let gray = |n: u64| -> u64 {
        let g = n ^ (n >> 1);
        (0..64).filter(|k| g >> k & 1 == 1).fold(0u64, |acc, k| acc ^ (1u64 << (63 - k)))
    };
    (0..count as u64).map(|i| gray(position.wrapping_add(i))).collect()
}

/// cuRAND's float uniform of a 64-bit word (`_curand_uniform(unsigned long long)`): its high 32 bits.
pub fn uniform_f32_of_u64(x: u64) -> f32 {
    uniform_f32((x >> 32) as u32)
}

/// cuRAND's double uniform of a 64-bit word (`_curand_uniform_double(unsigned long long)`): its high 53 bits.
pub fn uniform_f64_of_u64(x: u64) -> f64 {
    (x >> 11) as f64 * POW53_INV + POW53_INV / 2.0
}

/// A Poisson count of mean `lambda` from its own device-API Philox subsequence (Knuth's product
/// of uniforms below 64, a rounded normal above): cuRAND's distribution, not its numbers.
fn poisson(seed: u64, index: u64, position: u64, lambda: f64) -> u32 {
    let sub = index.wrapping_add(1).wrapping_add(position << 20);
    if lambda >= 64.0 {
        let w = philox_words(seed, sub, 0, 4);
        let (z, _) = box_muller_f64([w[0], w[1], w[2], w[3]]);
        return (lambda + lambda.sqrt() * z + 0.5).max(0.0) as u32;
    }
    let limit = (-lambda).exp();
    let (mut k, mut p, mut at) = (0u32, 1.0f64, 0u64);
    loop {
        for pair in philox_words(seed, sub, at, 4).chunks_exact(2) {
            p *= uniform_f64(pair[0], pair[1]);
            if p <= limit {
                return k;
            }
            k += 1;
        }
        at += 4;
    }
}

/// What a generate call of `g` writes, little-endian, for a generator of `kind` with `seed` at
/// `offset`: cuRAND's numbers for Philox (bits and uniforms exactly; normals by cuRAND's
/// Box-Muller in the host's `sin`, `cos` and `log`), Sobol32's first dimension, and Poisson
/// counts of cuRAND's distribution (not its numbers). The simulator's generators, and the
/// reference the GPU tests compare cuRAND with.
pub fn host_generate(kind: RngKind, seed: u64, offset: u64, g: &Generate) -> Vec<u8> {
    let n = g.count as usize;
    let mut out = Vec::with_capacity(n * g.dtype.size() as usize);
    let words = |n: usize| match kind {
        RngKind::Sobol32 => sobol32_dim1(offset, n),
        _ => philox_host_words(seed, offset, n),
    };
    let finish = |v: f64, log: bool| if log { v.exp() } else { v };
    if kind.long() {
        let words = sobol64_dim1(offset, n);
        match g.dtype {
            OutType::F32 => words.iter().for_each(|x| out.extend_from_slice(&uniform_f32_of_u64(*x).to_le_bytes())),
            OutType::F64 => words.iter().for_each(|x| out.extend_from_slice(&uniform_f64_of_u64(*x).to_le_bytes())),
            _ => words.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        }
        return out;
    }
    match (g.dist, g.dtype) {
        (Dist::Bits, _) => words(n).iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        (Dist::Poisson { lambda }, _) => (0..g.count).for_each(|i| out.extend_from_slice(&poisson(seed, i, offset, lambda).to_le_bytes())),
        (Dist::Uniform, OutType::F64) if kind != RngKind::Sobol32 => {
            for b in philox_host_blocks_f64(seed, offset, n) {
                out.extend_from_slice(&uniform_f64(b[0], b[1]).to_le_bytes());
                out.extend_from_slice(&uniform_f64(b[2], b[3]).to_le_bytes());
            }
        }
        (Dist::Uniform, OutType::F64) => {
            words(n).iter().for_each(|x| out.extend_from_slice(&(*x as f64 / 4_294_967_296.0 + 0.5 / 4_294_967_296.0).to_le_bytes()))
        }
        (Dist::Uniform, _) => words(n).iter().for_each(|x| out.extend_from_slice(&uniform_f32(*x).to_le_bytes())),
        (Dist::Normal { mean, stddev } | Dist::LogNormal { mean, stddev }, OutType::F64) => {
            let log = matches!(g.dist, Dist::LogNormal { .. });
            for b in philox_host_blocks_f64(seed, offset, n) {
                let (a, c) = box_muller_f64(b);
                out.extend_from_slice(&finish(mean + stddev * a, log).to_le_bytes());
                out.extend_from_slice(&finish(mean + stddev * c, log).to_le_bytes());
            }
        }
        (Dist::Normal { mean, stddev } | Dist::LogNormal { mean, stddev }, _) => {
            let log = matches!(g.dist, Dist::LogNormal { .. });
            let (mean, stddev) = (mean as f32, stddev as f32);
            for q in words(n.div_ceil(2) * 2).chunks_exact(2) {
                let (a, c) = box_muller_f32(q[0], q[1]);
                for z in [a, c] {
                    let v = mean + stddev * z;
                    out.extend_from_slice(&(if log { v.exp() } else { v }).to_le_bytes());
                }
            }
        }
    }
    out.truncate(n * g.dtype.size() as usize);
    out
}

/// Whether the host computes a `kind` generator's numbers (`host_generate`, the simulator):
/// Philox (cuRAND's numbers), Sobol32 and Sobol64 in their first dimension. XORWOW, MRG32k3a,
/// MTGP32 and MT19937 are not, nor the scrambled Sobols (their scramble constants are cuRAND's).
pub fn modelled(kind: RngKind) -> bool {
    matches!(kind, RngKind::Philox | RngKind::Sobol32 | RngKind::Sobol64)
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
    fn host_words_interleave_65536_subsequences_four_words_each() {
        let w = philox_host_words(9, 0, 12);
        assert_eq!(w[..4], philox_words(9, 0, 0, 4)[..]);
        assert_eq!(w[4..8], philox_words(9, 1, 0, 4)[..]);
        let far = philox_host_words(9, 4 * HOST_SUBSEQUENCES + 4, 4);
        assert_eq!(far, philox_words(9, 1, 4, 4), "step 65537 is subsequence 1's second block");
        assert_eq!(philox_host_words(9, 6, 4), [w[6], w[7], w[8], w[9]]);
        let d = philox_host_blocks_f64(9, 0, 6);
        assert_eq!(d[0], philox4x32_10([0, 0, 0, 0], 9));
        assert_eq!(d[1], philox4x32_10([1, 0, 0, 0], 9), "a step's four doubles come from two blocks of its subsequence");
        assert_eq!(d[2], philox4x32_10([0, 0, 1, 0], 9));
    }

    #[test]
    fn uniform_floats_are_the_host_words_scaled() {
        let g = Generate { dist: Dist::Uniform, dtype: OutType::F32, count: 8, off: 0 };
        let bytes = host_generate(RngKind::Philox, 1234, 0, &g);
        let w = philox_host_words(1234, 0, 8);
        for (i, c) in bytes.chunks_exact(4).enumerate() {
            assert_eq!(f32::from_le_bytes(c.try_into().unwrap()), uniform_f32(w[i]));
        }
    }

    #[test]
    fn poisson_has_its_mean() {
        let g = Generate { dist: Dist::Poisson { lambda: 4.0 }, dtype: OutType::U32, count: 4000, off: 0 };
        let bytes = host_generate(RngKind::Philox, 7, 0, &g);
        let sum: u64 = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()) as u64).sum();
        let mean = sum as f64 / 4000.0;
        assert!((mean - 4.0).abs() < 0.2, "mean {mean}");
    }

    #[test]
    fn sobol_dimension_one_is_van_der_corput_in_gray_order() {
        assert_eq!(sobol32_dim1(0, 4), vec![0, 0x8000_0000, 0xC000_0000, 0x4000_0000]);
    }

    #[test]
    fn sobol64_dimension_one_is_van_der_corput_in_gray_order() {
        assert_eq!(sobol64_dim1(0, 4), vec![0, 1 << 63, 3 << 62, 1 << 62]);
        // Its high 32 bits are Sobol32's first dimension.
        let (a, b) = (sobol64_dim1(5, 40), sobol32_dim1(5, 40));
        assert!(a.iter().zip(&b).all(|(x, y)| (x >> 32) as u32 == *y));
        assert_eq!(uniform_f32_of_u64(1 << 63), uniform_f32(1 << 31));
        assert_eq!(uniform_f64_of_u64(1 << 63), 0.5 + POW53_INV / 2.0);
    }

    #[test]
    fn orderings_are_curand_numbers() {
        assert_eq!(GeneratorOrdering::from_number(101), Some(GeneratorOrdering::PseudoDefault));
        assert_eq!(GeneratorOrdering::from_number(201), Some(GeneratorOrdering::QuasiDefault));
        assert_eq!(GeneratorOrdering::from_number(105), None);
        assert!(!GeneratorOrdering::QuasiDefault.pseudo());
    }

    #[test]
    fn uniforms_are_in_the_half_open_unit_interval() {
        assert!(uniform_f32(0) > 0.0 && uniform_f32(u32::MAX) <= 1.0);
        assert!(uniform_f64(0, 0) > 0.0 && uniform_f64(u32::MAX, u32::MAX) <= 1.0);
    }
}
