//! cuRAND generators (CuPy's `cupy.cuda.curand`): made on a device, seeded and offset, writing
//! bits, uniforms, normals, log-normals or Poisson counts into device memory on a stream. Every
//! check is here, once for both backends: the count (cuRAND's pairs for normals, a quasi
//! generator's dimensions), the element type and alignment, the memory's extent and device.

use crate::block::Block;
use crate::error::{Code, Error, Result};
use crate::memory::DeviceMemory;
use crate::runtime;
use crate::stream::Stream;
use std::sync::Mutex;

// The seam's data (`ops/rand.rs`), and cuRAND's Philox on the host for tests to compare with.
use crate::ops::rand::GeneratorOps;
pub use crate::ops::rand::{modelled, philox_words, Dist, Generate, GeneratorOrdering, OutType, RngKind};

/// The most dimensions cuRAND's Sobol32 has.
pub const MAX_DIMENSIONS: u32 = 20_000;

/// A cuRAND generator of one device. Dropping it destroys cuRAND's generator.
pub struct Generator {
    kind: RngKind,
    device: usize,
    dims: Mutex<u32>,
    ops: Box<dyn GeneratorOps>,
}

fn type_error(message: String) -> Error {
    Error::named("CURAND_STATUS_TYPE_ERROR", message)
}

impl Generator {
    /// A generator of `kind` on device `device` (`curandCreateGenerator`).
    pub fn create(device: usize, kind: RngKind) -> Result<Generator> {
        let ops = runtime()?.backend.rand().create_generator(device, kind)?;
        Ok(Generator { kind, device, dims: Mutex::new(1), ops })
    }

    pub fn kind(&self) -> RngKind {
        self.kind
    }
    pub fn device(&self) -> usize {
        self.device
    }
    /// cuRAND's `curandGenerator_t`, as a number (made up on the simulator).
    pub fn handle(&self) -> u64 {
        self.ops.handle()
    }

    /// Sets the seed (pseudorandom generators only, as cuRAND has it).
    pub fn set_seed(&self, seed: u64) -> Result<()> {
        if self.kind.quasi() {
            return Err(type_error(format!("a {} generator has no seed (it is quasirandom: set its dimensions)", self.kind.name())));
        }
        self.ops.set_seed(seed)
    }

    /// Sets the position in the sequence the next call starts from.
    pub fn set_offset(&self, offset: u64) -> Result<()> {
        self.ops.set_offset(offset)
    }

    /// Sets a quasirandom generator's dimensions (1 to 20000).
    pub fn set_dimensions(&self, dims: u32) -> Result<()> {
        if !self.kind.quasi() {
            return Err(type_error(format!("a {} generator has no dimensions (it is pseudorandom)", self.kind.name())));
        }
        if !(1..=MAX_DIMENSIONS).contains(&dims) {
            return Err(Error::named("CURAND_STATUS_OUT_OF_RANGE", format!("dimensions must be 1 to {MAX_DIMENSIONS}, got {dims}")));
        }
        self.ops.set_dimensions(dims)?;
        *self.dims.lock().unwrap_or_else(|p| p.into_inner()) = dims;
        Ok(())
    }

    /// Sets the order results are written in (`curandSetGeneratorOrdering`): a pseudorandom
    /// ordering for a pseudorandom generator, `QuasiDefault` for a quasirandom one, as cuRAND
    /// takes them (it refuses others with `CURAND_STATUS_OUT_OF_RANGE`).
    pub fn set_ordering(&self, ordering: GeneratorOrdering) -> Result<()> {
        if ordering.pseudo() == self.kind.quasi() {
            let (what, takes) = if self.kind.quasi() { ("quasirandom", "'quasiDefault'") } else { ("pseudorandom", "a pseudo ordering") };
            return Err(Error::named(
                "CURAND_STATUS_OUT_OF_RANGE",
                format!("a {} generator is {what}: it takes {takes}, not {ordering:?}", self.kind.name()),
            ));
        }
        self.ops.set_ordering(ordering)
    }

    /// Checks a call: the element type fits the distribution, the count is one cuRAND takes,
    /// the parameters are in range, the output aligned; returns the bytes written.
    pub fn check(&self, g: &Generate) -> Result<u64> {
        check_call(self.kind, *self.dims.lock().unwrap_or_else(|p| p.into_inner()) as u64, g)
    }

    /// Places the output in its block (`offset` bytes into it), setting where it lies in the
    /// allocation; returns the allocation.
    pub fn place<'a>(&self, g: &mut Generate, block: &'a Block, offset: u64) -> Result<&'a DeviceMemory> {
        let bytes = g.count.checked_mul(g.dtype.size()).ok_or_else(|| Error::range("count is too large"))?;
        let (mem, off) = block.range(offset, bytes, "the output")?;
        g.off = off;
        Ok(mem)
    }

    /// Generates into `out` on `stream`.
    pub fn generate(&self, stream: &Stream, g: &Generate, out: &DeviceMemory) -> Result<()> {
        let bytes = self.check(g)?;
        for (d, what) in [(out.device(), "the output memory"), (stream.device(), "the stream")] {
            if d != self.device {
                return Err(Error::cuda(
                    Code::CUDA_ERROR_INVALID_VALUE,
                    format!("{what} is of device {d}, the generator of device {}", self.device),
                ));
            }
        }
        out.check_range(g.off, bytes, "the output")?;
        stream.legacy_ok("a cuRAND generate")?;
        self.ops.generate(stream.ops()?, g, out.ops()?)
    }
}

/// The checks of a call of a `kind` generator of `dims` dimensions ([`Generator::check`]).
fn check_call(kind: RngKind, dims: u64, g: &Generate) -> Result<u64> {
    match (g.dist, g.dtype) {
        (Dist::Bits, OutType::U32) if kind.long() => {
            return Err(type_error(format!("a {} generator writes 64-bit words: use generateLongLong", kind.name())))
        }
        (Dist::Bits, OutType::U64) if !kind.long() => {
            return Err(type_error(format!("a {} generator writes 32-bit words: generateLongLong is for Sobol64 generators", kind.name())))
        }
        (Dist::Bits, OutType::U32 | OutType::U64) | (Dist::Poisson { .. }, OutType::U32) => {}
        (Dist::Uniform | Dist::Normal { .. } | Dist::LogNormal { .. }, OutType::F32 | OutType::F64) => {}
        (d, t) => return Err(Error::type_error(format!("{d:?} is not generated as {t:?}"))),
    }
    if g.count == 0 {
        return Err(Error::range("count must be at least 1"));
    }
    if let Dist::Poisson { lambda } = g.dist {
        if !(lambda > 0.0 && lambda.is_finite()) {
            return Err(Error::named("CURAND_STATUS_OUT_OF_RANGE", format!("lambda must be a finite number above 0, got {lambda}")));
        }
    }
    if let Dist::Normal { mean, stddev } | Dist::LogNormal { mean, stddev } = g.dist {
        if !(mean.is_finite() && stddev >= 0.0 && stddev.is_finite()) {
            return Err(Error::range(format!("mean must be finite and stddev finite and at least 0, got {mean} and {stddev}")));
        }
    }
    let normal = matches!(g.dist, Dist::Normal { .. } | Dist::LogNormal { .. });
    if kind.quasi() && !g.count.is_multiple_of(dims) {
        return Err(Error::named(
            "CURAND_STATUS_LENGTH_NOT_MULTIPLE",
            format!("a {dims}-dimensional generator writes whole points: count {} is not a multiple of {dims}", g.count),
        ));
    }
    if !kind.quasi() && normal && !g.count.is_multiple_of(2) {
        return Err(Error::named(
            "CURAND_STATUS_LENGTH_NOT_MULTIPLE",
            format!("normals come in pairs (Box-Muller): count {} must be even", g.count),
        ));
    }
    // Normals are written a pair at a time.
    let align = g.dtype.size() * if normal { 2 } else { 1 };
    if !g.off.is_multiple_of(align) {
        return Err(Error::range(format!("the output must be aligned to {align} bytes; it is at byte {} of its allocation", g.off)));
    }
    g.count.checked_mul(g.dtype.size()).ok_or_else(|| Error::range("count is too large"))
}

/// What a generator of `kind` seeded `seed` at `offset` writes for `g`, computed on the host
/// (`ops::rand::host_generate`: what the simulator writes; cuRAND's numbers for Philox bits and
/// uniforms), for tests to compare a GPU's with. At most 2^24 values.
pub fn host_generate(kind: RngKind, seed: u64, offset: u64, g: &Generate) -> Result<Vec<u8>> {
    check_call(kind, 1, g)?;
    if g.count > 1 << 24 {
        return Err(Error::range(format!("at most {} values at once, got {}", 1 << 24, g.count)));
    }
    if !modelled(kind) {
        return Err(Error::named("CURAND_STATUS_TYPE_ERROR", format!("cuRAND's {} generator is not modelled on the host", kind.name())));
    }
    if kind.quasi() && !matches!(g.dist, Dist::Bits | Dist::Uniform) {
        return Err(Error::named("CURAND_STATUS_TYPE_ERROR", "Sobol's normals and Poisson counts are not modelled on the host"));
    }
    Ok(crate::ops::rand::host_generate(kind, seed, offset, g))
}
