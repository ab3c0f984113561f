//! The simulator's cuRAND: Philox4x32-10 as cuRAND documents it (the same seed gives the same
//! words), its uniforms and Box-Muller normals, computed on the host in stream order; Sobol32
//! in its first dimension. XORWOW and MRG32k3a are not simulated: creating one is a
//! `CURAND_STATUS_TYPE_ERROR` saying so.

use super::memory::sim_alloc;
use super::stream::SimStream;
use super::SimBackend;
use crate::error::{Error, Result};
use crate::ops::rand::{
    box_muller_f32, box_muller_f64, philox_words, sobol32_dim1, uniform_f32, uniform_f64, words_used, Dist, Generate, GeneratorOps,
    OutType, RandOps, RngKind,
};
use crate::ops::{AllocOps, StreamOps};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// cuRAND's default seed for pseudorandom generators.
const DEFAULT_SEED: u64 = 0;

struct State {
    seed: u64,
    /// The next word's position in the sequence (the offset, advanced by each call).
    position: u64,
    dims: u32,
}

struct SimGenerator {
    kind: RngKind,
    handle: u64,
    state: Mutex<State>,
}

impl RandOps for SimBackend {
    fn create_generator(&self, _ordinal: usize, kind: RngKind) -> Result<Box<dyn GeneratorOps>> {
        if matches!(kind, RngKind::Xorwow | RngKind::Mrg32k3a) {
            return Err(Error::named(
                "CURAND_STATUS_TYPE_ERROR",
                format!(
                    "the simulator does not simulate cuRAND's {} generator: use 'philox' (the same numbers as on a GPU) or 'sobol32'",
                    kind.name()
                ),
            ));
        }
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let handle = 0x0c0a_4d00_0000 + NEXT.fetch_add(1, Ordering::Relaxed);
        Ok(Box::new(SimGenerator { kind, handle, state: Mutex::new(State { seed: DEFAULT_SEED, position: 0, dims: 1 }) }))
    }
}

impl SimGenerator {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl GeneratorOps for SimGenerator {
    fn set_seed(&self, seed: u64) -> Result<()> {
        // The offset stays where it is, as cuRAND's does (CuPy's `seed()` resets it apart).
        self.state().seed = seed;
        Ok(())
    }

    fn set_offset(&self, offset: u64) -> Result<()> {
        self.state().position = offset;
        Ok(())
    }

    fn set_dimensions(&self, dims: u32) -> Result<()> {
        if dims != 1 {
            return Err(Error::named(
                "CURAND_STATUS_TYPE_ERROR",
                format!("the simulator's Sobol32 has one dimension (its direction numbers for {dims} are not simulated)"),
            ));
        }
        self.state().dims = dims;
        Ok(())
    }

    fn generate(&self, stream: &dyn StreamOps, g: &Generate, out: &dyn AllocOps) -> Result<()> {
        let s = super::own::<SimStream>(stream.as_any());
        let (seed, position) = {
            let mut st = self.state();
            let at = (st.seed, st.position);
            st.position = st.position.wrapping_add(words_used(g));
            at
        };
        let (buf, g, kind) = (sim_alloc(out).buffer.clone(), *g, self.kind);
        s.run("kernel", format!("curand {:?} {}", g.dist, g.count), move || {
            let bytes = fill(kind, seed, position, &g);
            buf.lock()[g.off as usize..g.off as usize + bytes.len()].copy_from_slice(&bytes);
        })
    }

    fn handle(&self) -> u64 {
        self.handle
    }
}

/// `n` words of the generator from `position`.
fn words(kind: RngKind, seed: u64, position: u64, n: usize) -> Vec<u32> {
    match kind {
        RngKind::Sobol32 => sobol32_dim1(position, n),
        _ => philox_words(seed, 0, position, n),
    }
}

/// A Poisson count of mean `lambda` from its own Philox subsequence (Knuth's product of uniforms
/// below 64, a rounded normal above): cuRAND's distribution, not its numbers.
fn poisson(seed: u64, index: u64, position: u64, lambda: f64) -> u32 {
    let w = philox_words(seed, index + 1, position, 4);
    if lambda >= 64.0 {
        let (z, _) = box_muller_f64([w[0], w[1], w[2], w[3]]);
        return (lambda + lambda.sqrt() * z + 0.5).max(0.0) as u32;
    }
    let limit = (-lambda).exp();
    let mut block = position;
    let (mut k, mut p) = (0u32, 1.0f64);
    loop {
        let ws = philox_words(seed, index + 1, block, 4);
        for pair in ws.chunks_exact(2) {
            p *= uniform_f64(pair[0], pair[1]);
            if p <= limit {
                return k;
            }
            k += 1;
        }
        block += 4;
    }
}

/// The bytes a generate call writes.
fn fill(kind: RngKind, seed: u64, position: u64, g: &Generate) -> Vec<u8> {
    let n = g.count as usize;
    let mut out = Vec::with_capacity(n * g.dtype.size() as usize);
    let per = if words_used(g) == 2 * g.count { 2 } else { 1 };
    let w = match g.dist {
        Dist::Poisson { .. } => Vec::new(),
        _ => words(kind, seed, position, n * per),
    };
    match (g.dist, g.dtype) {
        (Dist::Bits, _) => w.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        (Dist::Poisson { lambda }, _) => {
            (0..g.count).for_each(|i| out.extend_from_slice(&poisson(seed, i, position, lambda).to_le_bytes()))
        }
        (Dist::Uniform, OutType::F64) => w.chunks_exact(2).for_each(|p| out.extend_from_slice(&uniform_f64(p[0], p[1]).to_le_bytes())),
        (Dist::Uniform, _) => w.iter().for_each(|x| out.extend_from_slice(&uniform_f32(*x).to_le_bytes())),
        (Dist::Normal { mean, stddev } | Dist::LogNormal { mean, stddev }, dtype) => {
            let log = matches!(g.dist, Dist::LogNormal { .. });
            if dtype == OutType::F64 {
                for q in w.chunks_exact(4) {
                    let (a, b) = box_muller_f64([q[0], q[1], q[2], q[3]]);
                    for z in [a, b] {
                        let v = mean + stddev * z;
                        out.extend_from_slice(&(if log { v.exp() } else { v }).to_le_bytes());
                    }
                }
            } else {
                let (mean, stddev) = (mean as f32, stddev as f32);
                for q in w.chunks_exact(2) {
                    let (a, b) = box_muller_f32(q[0], q[1]);
                    for z in [a, b] {
                        let v = mean + stddev * z;
                        out.extend_from_slice(&(if log { v.exp() } else { v }).to_le_bytes());
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_floats_are_the_philox_words_scaled() {
        let g = Generate { dist: Dist::Uniform, dtype: OutType::F32, count: 8, off: 0 };
        let bytes = fill(RngKind::Philox, 1234, 0, &g);
        let w = philox_words(1234, 0, 0, 8);
        for (i, c) in bytes.chunks_exact(4).enumerate() {
            assert_eq!(f32::from_le_bytes(c.try_into().unwrap()), uniform_f32(w[i]));
        }
    }

    #[test]
    fn poisson_has_its_mean() {
        let g = Generate { dist: Dist::Poisson { lambda: 4.0 }, dtype: OutType::U32, count: 4000, off: 0 };
        let bytes = fill(RngKind::Philox, 7, 0, &g);
        let sum: u64 = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()) as u64).sum();
        let mean = sum as f64 / 4000.0;
        assert!((mean - 4.0).abs() < 0.2, "mean {mean}");
    }
}
