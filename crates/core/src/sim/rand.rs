//! The simulator's cuRAND: Philox4x32-10 in cuRAND's host-API layout (`ops::rand::host_generate`:
//! the same seed gives the same words), its uniforms and Box-Muller normals, computed on the host
//! in stream order; Sobol32 and Sobol64 in their first dimension, bits and uniforms. XORWOW,
//! MRG32k3a, MTGP32, MT19937 and the scrambled Sobols are not simulated: creating one is a
//! `CURAND_STATUS_TYPE_ERROR` saying so. Orderings: Philox's default, best and legacy are one
//! layout, cuRAND's; its dynamic ordering (a layout per GPU model) is written in that layout too.

use super::memory::sim_alloc;
use super::stream::SimStream;
use super::SimBackend;
use crate::error::{Error, Result};
use crate::ops::rand::{advance, host_generate, Dist, Generate, GeneratorOps, GeneratorOrdering, RandOps, RngKind};
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
        if !crate::ops::rand::modelled(kind) {
            return Err(Error::named(
                "CURAND_STATUS_TYPE_ERROR",
                format!(
                    "the simulator does not simulate cuRAND's {} generator: use 'philox' (the same numbers as on a GPU), 'sobol32' or 'sobol64'",
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
                format!("the simulator's Sobol has one dimension (its direction numbers for {dims} are not simulated)"),
            ));
        }
        self.state().dims = dims;
        Ok(())
    }

    fn set_ordering(&self, ordering: GeneratorOrdering) -> Result<()> {
        // cuRAND's Philox writes the same layout in its default, best and legacy orderings; its
        // dynamic ordering's layout depends on the GPU, so the legacy one (the same distribution)
        // stands for it. The seeded ordering is XORWOW's, which is not simulated.
        match ordering {
            GeneratorOrdering::PseudoSeeded => Err(Error::named(
                "CURAND_STATUS_TYPE_ERROR",
                "the simulator does not simulate cuRAND's seeded ordering (it is XORWOW's, which is not simulated)",
            )),
            _ => Ok(()),
        }
    }

    fn generate(&self, stream: &dyn StreamOps, g: &Generate, out: &dyn AllocOps) -> Result<()> {
        if self.kind.quasi() && matches!(g.dist, Dist::Normal { .. } | Dist::LogNormal { .. } | Dist::Poisson { .. }) {
            return Err(Error::named(
                "CURAND_STATUS_TYPE_ERROR",
                "the simulator's Sobol makes bits and uniforms only (cuRAND's inverse-CDF normals and Poisson counts of a quasirandom generator are not simulated)",
            ));
        }
        let s = super::own::<SimStream>(stream.as_any());
        let (seed, position) = {
            let mut st = self.state();
            let at = (st.seed, st.position);
            st.position = st.position.wrapping_add(advance(g));
            at
        };
        let (buf, g, kind) = (sim_alloc(out).buffer.clone(), *g, self.kind);
        s.run("kernel", format!("curand {:?} {}", g.dist, g.count), move || {
            let bytes = host_generate(kind, seed, position, &g);
            buf.lock()[g.off as usize..g.off as usize + bytes.len()].copy_from_slice(&bytes);
        })
    }

    fn handle(&self) -> u64 {
        self.handle
    }
}
