//! cuRAND generators as handles: create, seed, offset, dimensions, generate on a stream, destroy;
//! and cuRAND's Philox computed on the host, for tests to compare a GPU's numbers with.

use crate::raw::{BigU64, Count, NodeBuffer, Owner};
use crate::{memory, stream};
use cuda_node_core::rand::{self, Dist, Generate, Generator, GeneratorOrdering, OutType, RngKind};
use cuda_node_core::{runtime, Error, Result};
use std::sync::Arc;

crate::table!(GENERATORS: Arc<Generator>, CUDA_ERROR_INVALID_HANDLE, "this generator was destroyed: create a new one");

/// The most words `randPhiloxHost` computes in one call.
const MAX_HOST_WORDS: u64 = 1 << 24;

fn dist(code: u32, a: f64, b: f64) -> Result<Dist> {
    Ok(match code {
        0 => Dist::Bits,
        1 => Dist::Uniform,
        2 => Dist::Normal { mean: a, stddev: b },
        3 => Dist::LogNormal { mean: a, stddev: b },
        4 => Dist::Poisson { lambda: a },
        other => return Err(Error::type_error(format!("unknown distribution {other}"))),
    })
}

fn out_type(dtype: &str) -> Result<OutType> {
    match dtype {
        "uint32" => Ok(OutType::U32),
        "uint64" => Ok(OutType::U64),
        "float32" => Ok(OutType::F32),
        "float64" => Ok(OutType::F64),
        other => Err(Error::type_error(format!("dtype must be 'uint32', 'uint64', 'float32' or 'float64', got '{other}'"))),
    }
}

crate::exports! {
    /// A cuRAND generator of `kind` ('philox', 'xorwow', 'mrg32k3a', 'mtgp32', 'mt19937',
    /// 'sobol32', 'scrambled_sobol32', 'sobol64', 'scrambled_sobol64' or cuRAND's number) on
    /// `device`, owned by `owner`.
    c"randCreate" => fn rand_create(cx, owner: Owner, device: f64, kind: String) -> f64 {
        let k = RngKind::parse(&kind).ok_or_else(|| {
            Error::type_error(format!("unknown generator kind '{kind}': use 'philox', 'xorwow', 'mrg32k3a', 'mtgp32', 'mt19937', 'sobol32', 'scrambled_sobol32', 'sobol64' or 'scrambled_sobol64'"))
        })?;
        insert(cx, &owner, Arc::new(Generator::create(runtime()?.ordinal(device)?, k)?))
    }

    /// The generator's kind, by name.
    c"randKind" => fn rand_kind(_cx, gen: f64) -> String {
        with(gen, |g| Ok(g.kind().name().to_string()))
    }

    /// cuRAND's handle (`curandGenerator_t`) as a bigint.
    c"randHandle" => fn rand_handle(_cx, gen: f64) -> BigU64 {
        with(gen, |g| Ok(BigU64(g.handle())))
    }

    /// Sets a pseudorandom generator's seed.
    c"randSetSeed" => fn rand_set_seed(_cx, gen: f64, seed: BigU64) -> () {
        with(gen, |g| g.set_seed(seed.0))
    }

    /// Sets where in its sequence the next call starts.
    c"randSetOffset" => fn rand_set_offset(_cx, gen: f64, offset: BigU64) -> () {
        with(gen, |g| g.set_offset(offset.0))
    }

    /// Sets a quasirandom generator's dimensions.
    c"randSetDimensions" => fn rand_set_dimensions(_cx, gen: f64, dims: u32) -> () {
        with(gen, |g| g.set_dimensions(dims))
    }

    /// Sets the order results are written in (`curandOrdering_t`'s number).
    c"randSetOrdering" => fn rand_set_ordering(_cx, gen: f64, ordering: u32) -> () {
        let o = GeneratorOrdering::from_number(ordering)
            .ok_or_else(|| Error::named("CURAND_STATUS_OUT_OF_RANGE", format!("{ordering} is not a curandOrdering_t")))?;
        with(gen, |g| g.set_ordering(o))
    }

    /// Writes `count` values of distribution `dist` (0 bits, 1 uniform, 2 normal, 3 log-normal,
    /// 4 Poisson; `a`, `b` its mean and stddev, or lambda) as `dtype` at byte `offset` of `mem`,
    /// on `stream`.
    c"randGenerate" => fn rand_generate(_cx, gen: f64, stream: f64, mem: f64, dist_code: u32, dtype: String, count: Count, offset: Count, a: f64, b: f64) -> () {
        let mut spec = Generate { dist: dist(dist_code, a, b)?, dtype: out_type(&dtype)?, count: count.0, off: 0 };
        let block = memory::get(mem)?;
        with(gen, |g| {
            g.check(&spec)?;
            let m = g.place(&mut spec, &block, offset.0)?;
            stream::with(stream, |s| g.generate(s, &spec, m))
        })
    }

    /// Destroys the generator (again: nothing). Work it queued still runs.
    c"randDestroy" => fn rand_destroy(_cx, gen: f64) -> () {
        drop(crate::handles::take(&GENERATORS, gen)?);
        Ok(())
    }

    /// Live generators on this thread (for leak checks).
    c"randLive" => fn rand_live(_cx) -> f64 {
        Ok(live() as f64)
    }

    /// `count` words of cuRAND's Philox4x32-10 under `seed` as its device API gives them
    /// (`curand_init(seed, subsequence, position)`, then `curand()`), computed on the host.
    c"randPhiloxWords" => fn rand_philox_words(_cx, seed: BigU64, subsequence: BigU64, position: BigU64, count: Count) -> Vec<u32> {
        if count.0 > MAX_HOST_WORDS {
            return Err(Error::range(format!("at most {MAX_HOST_WORDS} words at once, got {}", count.0)));
        }
        Ok(rand::philox_words(seed.0, subsequence.0, position.0, count.0 as usize))
    }

    /// What a `kind` generator seeded `seed` at `offset` writes for a `randGenerate` of the same
    /// arguments, computed on the host (the simulator's numbers), little-endian bytes.
    c"randHostGenerate" => fn rand_host_generate(_cx, kind: String, seed: BigU64, offset: BigU64, dist_code: u32, dtype: String, count: Count, a: f64, b: f64) -> NodeBuffer {
        let k = RngKind::parse(&kind).ok_or_else(|| Error::type_error(format!("unknown generator kind '{kind}'")))?;
        let g = Generate { dist: dist(dist_code, a, b)?, dtype: out_type(&dtype)?, count: count.0, off: 0 };
        Ok(NodeBuffer(rand::host_generate(k, seed.0, offset.0, &g)?))
    }
}
