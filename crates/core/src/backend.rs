//! The seam between the CUDA model and what runs it: a backend hands out one part a concept,
//! each a trait of its own in `ops/` (`ops/device.rs`, `ops/memory.rs`, `ops/stream.rs`, …);
//! each backend implements them in files of the same names (`cuda/device.rs`, `sim/device.rs`,
//! …). Which backend runs is `runtime.rs`'s business, not this file's.
//!
//! The seam names only itself (`backend.rs`, `ops.rs` and `ops/`), `error.rs` and the driver's
//! plain types: the data a backend takes and returns lives there, so that a backend never
//! imports a model file that calls `runtime()`.

use crate::ops::blas::BlasOps;
use crate::ops::context::Contexts;
use crate::ops::device_pool::DevicePools;
use crate::ops::fft::FftOps;
use crate::ops::host::Pump;
use crate::ops::nccl::NcclOps;
use crate::ops::rand::RandOps;
use crate::ops::system::SystemOps;
use crate::ops::texture::Textures;
use crate::ops::{DeviceOps, Events, HostMemory, MemoryResource, Modules, SharedPools, Streams, VirtualMemory};

// The data types that lived here before the seam was split by concept, at their old paths.
pub use crate::ops::{Advice, DeviceProps, EventFlags, MemInfo, MemoryKind, PointerAttributes, PoolAttr, ATTRIBUTES};

/// What a backend must do, one part a concept.
pub trait Backend: Send + Sync + 'static {
    fn devices(&self) -> &dyn DeviceOps;
    /// Device memory of every kind (`ops/memory.rs`).
    fn memory(&self) -> &dyn MemoryResource;
    /// Pinned host memory (`ops/pinned.rs`).
    fn host_memory(&self) -> &dyn HostMemory;
    fn streams(&self) -> &dyn Streams;
    fn events(&self) -> &dyn Events;
    fn modules(&self) -> &dyn Modules;
    /// cuBLAS and cuSOLVER (`ops/blas.rs` holds the trait; a new library brings its own).
    fn blas(&self) -> &dyn BlasOps;
    /// NCCL (`ops/nccl.rs` owns the trait, `nccl.rs` the checked calls).
    fn nccl(&self) -> &dyn NcclOps;
    /// Virtual memory: reserved ranges and the physical memory mapped into them (`ops/vmm.rs`).
    fn vmm(&self) -> &dyn VirtualMemory;
    /// Pools other processes import (`ops/shared_pool.rs`).
    fn shared_pools(&self) -> &dyn SharedPools;
    /// A device's current stream-ordered pool (`ops/device_pool.rs`).
    fn device_pools(&self) -> &dyn DevicePools;
    /// Device telemetry: NVML, or the simulator's model (`ops/system.rs`).
    fn system(&self) -> &dyn SystemOps;
    /// CUDA arrays, texture and surface objects (`ops/texture.rs`).
    fn textures(&self) -> &dyn Textures;
    /// cuRAND generators (`ops/rand.rs`).
    fn rand(&self) -> &dyn RandOps;
    /// Contexts for interop: a device's, a stream's (`ops/context.rs`).
    fn contexts(&self) -> &dyn Contexts;
    /// cuFFT plans (`ops/fft.rs` owns the traits, `fft.rs` the checked plan).
    fn fft(&self) -> &dyn FftOps;
    /// The pump of a backend run on the JS thread (`ops/host.rs`; a no-op for the others).
    fn pump(&self) -> &dyn Pump;
}

/// A backend is whatever implements every part: each backend's concept files implement them on
/// its one backend type, and this hands them out, so a new concept is a part here and its
/// implementations, with no per-backend list to keep.
impl<B> Backend for B
where
    B: DeviceOps
        + MemoryResource
        + HostMemory
        + Streams
        + Events
        + Modules
        + BlasOps
        + NcclOps
        + VirtualMemory
        + SharedPools
        + DevicePools
        + SystemOps
        + Textures
        + RandOps
        + Contexts
        + FftOps
        + Pump
        + Send
        + Sync
        + 'static,
{
    fn devices(&self) -> &dyn DeviceOps {
        self
    }
    fn memory(&self) -> &dyn MemoryResource {
        self
    }
    fn host_memory(&self) -> &dyn HostMemory {
        self
    }
    fn streams(&self) -> &dyn Streams {
        self
    }
    fn events(&self) -> &dyn Events {
        self
    }
    fn modules(&self) -> &dyn Modules {
        self
    }
    fn blas(&self) -> &dyn BlasOps {
        self
    }
    fn nccl(&self) -> &dyn NcclOps {
        self
    }
    fn vmm(&self) -> &dyn VirtualMemory {
        self
    }
    fn shared_pools(&self) -> &dyn SharedPools {
        self
    }
    fn device_pools(&self) -> &dyn DevicePools {
        self
    }
    fn system(&self) -> &dyn SystemOps {
        self
    }
    fn textures(&self) -> &dyn Textures {
        self
    }
    fn rand(&self) -> &dyn RandOps {
        self
    }
    fn contexts(&self) -> &dyn Contexts {
        self
    }
    fn fft(&self) -> &dyn FftOps {
        self
    }
    fn pump(&self) -> &dyn Pump {
        self
    }
}
