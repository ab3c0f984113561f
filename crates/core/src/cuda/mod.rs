//! The `cuda` backend: the real driver, loaded at run time through cudarc's `sys` layer.
//! Each part the seam asks for is implemented in the file of its concept's name (`device.rs`,
//! `memory.rs`, `pinned.rs`, `stream.rs`, `event.rs`, `graph.rs`, `module.rs`, `blas.rs`,
//! `nccl.rs`); this file loads the driver and hands the parts out. Raw driver calls live in
//! `raw/` and nowhere else; each `unsafe` block says why it holds. Errors a drop cannot return
//! are recorded in `dropped.rs`.

mod blas;
mod device;
mod dropped;
mod event;
mod graph;
mod holds;
mod kernels;
mod memory;
mod module;
mod nccl;
mod pinned;
pub(crate) mod raw;
mod recycle;
mod staging;
mod stream;
mod system;

use crate::backend::Backend;
use crate::error::{Check, Code, Error, Result};
use crate::ops::blas::BlasOps;
use crate::ops::nccl::NcclOps;
use crate::ops::system::SystemOps;
use crate::ops::{DeviceOps, Events, HostMemory, MemoryResource, Modules, Streams};
use device::CudaDevice;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
#[cfg(feature = "floor")]
pub(crate) use stream::sleep_function;

/// This backend's own object behind a seam trait object it is given back (its stream, graph
/// or kernel): the one place the backend recovers its concrete types. Only one backend runs in
/// a process, so every such object came from this one.
pub(crate) fn own<T: 'static>(any: &dyn std::any::Any) -> &T {
    any.downcast_ref::<T>().expect("the cuda backend is given back only its own objects")
}

static LOADED: AtomicBool = AtomicBool::new(false);

/// True once libcuda has been opened and initialised in this process.
pub fn driver_loaded() -> bool {
    LOADED.load(Ordering::Acquire)
}

/// The driver errors that drops (destroys, frees, unregisters, closes, unloads) recorded since
/// the last call, oldest first, at most 64 (`dropped.rs`).
pub fn take_drop_errors() -> Vec<Error> {
    dropped::take()
}

/// Whether libcuda can be opened at all. cudarc panics where it cannot, so ask first.
pub fn driver_present() -> bool {
    raw::driver_present()
}

pub struct CudaBackend {
    pub(super) devices: Vec<Arc<CudaDevice>>,
}

impl CudaBackend {
    /// Opens the driver and initialises it. Returns the backend, the driver version and a
    /// sentence for `backend().reason`.
    pub fn load() -> Result<(Self, i32, String)> {
        if !driver_present() {
            let mut names = cudarc::get_lib_name_candidates("cuda");
            names.dedup_by(|a, b| a == b);
            names.sort();
            names.dedup();
            return Err(Error::cuda(
                Code::CUDA_ERROR_NOT_INITIALIZED,
                format!("the CUDA driver library could not be loaded (looked for libcuda as {})", names.join(", ")),
            ));
        }
        // SAFETY: the library is present (checked above).
        unsafe { raw::init() }.check("cuInit")?;
        LOADED.store(true, Ordering::Release);
        crate::error::set_driver_description(raw::error_string);
        let version = raw::driver_version().check("cuDriverGetVersion")?;
        let count = raw::device_count().check("cuDeviceGetCount")?;
        if count <= 0 {
            return Err(Error::cuda(Code::CUDA_ERROR_NO_DEVICE, "the CUDA driver loaded but found no device"));
        }
        let mut handles = Vec::with_capacity(count as usize);
        for ordinal in 0..count {
            handles.push(raw::device_get(ordinal).check("cuDeviceGet")?);
        }
        let devices = CudaDevice::all(handles);
        let why = format!(
            "CUDA driver {}.{} loaded with {} device{}",
            version / 1000,
            (version % 1000) / 10,
            count,
            if count == 1 { "" } else { "s" }
        );
        Ok((CudaBackend { devices }, version, why))
    }
}

impl Backend for CudaBackend {
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
    fn system(&self) -> &dyn SystemOps {
        self
    }
}
