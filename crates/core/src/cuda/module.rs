//! Modules and kernels on the real driver (`ops::Modules`, `ops::ModuleOps`, `ops::FunctionOps`).

use super::device::{CudaBackend, CudaDevice};
use super::raw;
use crate::error::{Check, Error, Result};
use crate::ops::{CacheConfig, FuncAttr, FunctionOps, Launch, ModuleOps, Modules};
use cudarc::driver::sys;
use std::any::Any;
use std::ffi::{c_void, CString};
use std::sync::Arc;

struct Loaded {
    dev: Arc<CudaDevice>,
    raw: sys::CUmodule,
}

// SAFETY: module handles may be used from any thread once the context is bound.
unsafe impl Send for Loaded {}
// SAFETY: as above.
unsafe impl Sync for Loaded {}

impl Drop for Loaded {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: loaded by cuModuleLoadData, unloaded once, when no function refers to it.
            super::dropped::record("cuModuleUnload", unsafe { raw::module_unload(self.raw) });
        }
    }
}

pub struct CudaModule(Arc<Loaded>);

/// The `CUmodule` of a module's `keep_alive()` value (texture references are looked up in it:
/// `texture.rs`); `None` for another backend's.
pub(super) fn raw_module(kept: &(dyn Any + Send + Sync)) -> Option<sys::CUmodule> {
    kept.downcast_ref::<Loaded>().map(|l| l.raw)
}

impl CudaModule {
    pub(super) fn load(dev: Arc<CudaDevice>, image: &[u8]) -> Result<CudaModule> {
        dev.bind()?;
        // PTX must end with a NUL; a cubin is self-describing. Keep a NUL-terminated copy either way.
        let mut owned = image.to_vec();
        if owned.last() != Some(&0) {
            owned.push(0);
        }
        // SAFETY: `owned` is a complete image that outlives the call; a context is current.
        let raw = unsafe { raw::module_load_data(owned.as_ptr() as *const c_void) }.check("cuModuleLoadData")?;
        Ok(CudaModule(Arc::new(Loaded { dev, raw })))
    }
}

impl ModuleOps for CudaModule {
    fn function(&self, name: &str) -> Result<Box<dyn FunctionOps>> {
        self.0.dev.bind()?;
        let cname = CString::new(name).map_err(|_| Error::type_error("a kernel name must not contain a NUL byte"))?;
        // SAFETY: the module is loaded.
        let f = unsafe { raw::module_get_function(self.0.raw, &cname) }.check(&format!("cuModuleGetFunction(\"{name}\")"))?;
        Ok(Box::new(CudaFunction { module: self.0.clone(), raw: f }))
    }

    fn global(&self, name: &str) -> Result<(u64, u64)> {
        self.0.dev.bind()?;
        let cname = CString::new(name).map_err(|_| Error::type_error("a variable name must not contain a NUL byte"))?;
        // SAFETY: the module is loaded.
        let (ptr, size) = unsafe { raw::module_get_global(self.0.raw, &cname) }.check(&format!("cuModuleGetGlobal(\"{name}\")"))?;
        Ok((ptr, size as u64))
    }

    fn keep_alive(&self) -> Arc<dyn Any + Send + Sync> {
        self.0.clone()
    }
}

pub struct CudaFunction {
    module: Arc<Loaded>,
    pub(super) raw: sys::CUfunction,
}

// SAFETY: function handles may be used from any thread once the context is bound.
unsafe impl Send for CudaFunction {}
// SAFETY: as above.
unsafe impl Sync for CudaFunction {}

fn attr(a: FuncAttr) -> sys::CUfunction_attribute {
    use sys::CUfunction_attribute as A;
    match a {
        FuncAttr::MaxThreadsPerBlock => A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        FuncAttr::SharedSizeBytes => A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
        FuncAttr::ConstSizeBytes => A::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
        FuncAttr::LocalSizeBytes => A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
        FuncAttr::NumRegs => A::CU_FUNC_ATTRIBUTE_NUM_REGS,
        FuncAttr::PtxVersion => A::CU_FUNC_ATTRIBUTE_PTX_VERSION,
        FuncAttr::BinaryVersion => A::CU_FUNC_ATTRIBUTE_BINARY_VERSION,
        FuncAttr::CacheModeCa => A::CU_FUNC_ATTRIBUTE_CACHE_MODE_CA,
        FuncAttr::MaxDynamicSharedSizeBytes => A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        FuncAttr::PreferredSharedMemoryCarveout => A::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
        FuncAttr::ClusterSizeMustBeSet => A::CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET,
        FuncAttr::RequiredClusterWidth => A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
        FuncAttr::RequiredClusterHeight => A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
        FuncAttr::RequiredClusterDepth => A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH,
        FuncAttr::NonPortableClusterSizeAllowed => A::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
        FuncAttr::ClusterSchedulingPolicyPreference => A::CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
    }
}

/// A launch configuration with its attributes, for `cuLaunchKernelEx` and the cluster
/// occupancy calls. `attrs` must stay where it is while `config` is used (it points into it).
pub(super) struct Config {
    pub attrs: Vec<sys::CUlaunchAttribute>,
    pub config: sys::CUlaunchConfig,
}

impl Config {
    pub(super) fn new(launch: &Launch, stream: sys::CUstream) -> Box<Config> {
        let mut attrs = Vec::new();
        // SAFETY: CUlaunchAttribute is plain data (an id and a union of integers); zero is valid.
        let zero = || -> sys::CUlaunchAttribute { unsafe { std::mem::zeroed() } };
        if launch.cooperative {
            let mut a = zero();
            a.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            a.value.cooperative = 1;
            attrs.push(a);
        }
        if launch.cluster != [0; 3] {
            let mut a = zero();
            a.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            a.value.clusterDim.x = launch.cluster[0];
            a.value.clusterDim.y = launch.cluster[1];
            a.value.clusterDim.z = launch.cluster[2];
            attrs.push(a);
        }
        if launch.programmatic {
            let mut a = zero();
            a.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            a.value.programmaticStreamSerializationAllowed = 1;
            attrs.push(a);
        }
        let [gx, gy, gz] = launch.grid;
        let [bx, by, bz] = launch.block;
        let mut c = Box::new(Config {
            attrs,
            config: sys::CUlaunchConfig {
                gridDimX: gx,
                gridDimY: gy,
                gridDimZ: gz,
                blockDimX: bx,
                blockDimY: by,
                blockDimZ: bz,
                sharedMemBytes: launch.shared_mem,
                hStream: stream,
                attrs: std::ptr::null_mut(),
                numAttrs: 0,
            },
        });
        c.config.numAttrs = c.attrs.len() as u32;
        c.config.attrs = c.attrs.as_mut_ptr();
        c
    }
}

/// Runs a driver call that cudarc may lack on an old driver (it panics where a symbol is
/// missing): the panic becomes `CUDA_ERROR_NOT_SUPPORTED`.
pub(super) fn newer<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(Error::cuda(crate::error::Code::CUDA_ERROR_NOT_SUPPORTED, format!("{what} is not in this CUDA driver: update the driver")))
    })
}

impl FunctionOps for CudaFunction {
    fn attribute(&self, a: FuncAttr) -> Result<i32> {
        self.module.dev.bind()?;
        // SAFETY: the function is live (its module is held).
        unsafe { raw::func_attribute(self.raw, attr(a)) }.check("cuFuncGetAttribute")
    }

    fn set_attribute(&self, a: FuncAttr, value: i32) -> Result<()> {
        self.module.dev.bind()?;
        // SAFETY: the function is live; the driver validates the value.
        unsafe { raw::func_set_attribute(self.raw, attr(a), value) }.check("cuFuncSetAttribute")
    }

    fn set_cache_config(&self, c: CacheConfig) -> Result<()> {
        self.module.dev.bind()?;
        use sys::CUfunc_cache as C;
        let c = match c {
            CacheConfig::PreferNone => C::CU_FUNC_CACHE_PREFER_NONE,
            CacheConfig::PreferShared => C::CU_FUNC_CACHE_PREFER_SHARED,
            CacheConfig::PreferL1 => C::CU_FUNC_CACHE_PREFER_L1,
            CacheConfig::PreferEqual => C::CU_FUNC_CACHE_PREFER_EQUAL,
        };
        // SAFETY: the function is live.
        unsafe { raw::func_set_cache_config(self.raw, c) }.check("cuFuncSetCacheConfig")
    }

    fn max_active_blocks(&self, block_threads: u32, shared_mem: u32) -> Result<u32> {
        self.module.dev.bind()?;
        // SAFETY: the function is live.
        let n = unsafe { raw::occupancy_max_active_blocks(self.raw, block_threads as i32, shared_mem as usize) }
            .check("cuOccupancyMaxActiveBlocksPerMultiprocessor")?;
        Ok(n.max(0) as u32)
    }

    fn suggested_block_size(&self, shared_mem: u32, block_limit: u32) -> Result<(u32, u32)> {
        self.module.dev.bind()?;
        // SAFETY: the function is live.
        let (grid, block) = unsafe { raw::occupancy_max_potential_block_size(self.raw, shared_mem as usize, block_limit as i32) }
            .check("cuOccupancyMaxPotentialBlockSize")?;
        Ok((grid.max(0) as u32, block.max(0) as u32))
    }

    fn max_potential_cluster_size(&self, launch: &Launch) -> Result<u32> {
        self.module.dev.bind()?;
        let c = Config::new(launch, std::ptr::null_mut());
        let n = newer("cuOccupancyMaxPotentialClusterSize", || {
            // SAFETY: the function is live; `c.config` points at `c.attrs`, alive for the call.
            unsafe { raw::occupancy_max_potential_cluster_size(self.raw, &c.config) }.check("cuOccupancyMaxPotentialClusterSize")
        })?;
        Ok(n.max(0) as u32)
    }

    fn max_active_clusters(&self, launch: &Launch) -> Result<u32> {
        self.module.dev.bind()?;
        let c = Config::new(launch, std::ptr::null_mut());
        let n = newer("cuOccupancyMaxActiveClusters", || {
            // SAFETY: as above.
            unsafe { raw::occupancy_max_active_clusters(self.raw, &c.config) }.check("cuOccupancyMaxActiveClusters")
        })?;
        Ok(n.max(0) as u32)
    }

    fn param_sizes(&self) -> Option<Vec<usize>> {
        self.module.dev.bind().ok()?;
        let f = self.raw;
        // cuFuncGetParamInfo needs a 12.4+ driver; cudarc panics where the symbol is missing.
        std::panic::catch_unwind(move || {
            let mut sizes = Vec::new();
            for i in 0.. {
                // SAFETY: the function is live.
                match unsafe { raw::func_param_info(f, i) } {
                    Ok((_, size)) => sizes.push(size),
                    Err(sys::CUresult::CUDA_ERROR_INVALID_VALUE) => return Some(sizes),
                    Err(_) => return None,
                }
            }
            None
        })
        .ok()
        .flatten()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Modules for CudaBackend {
    fn load(&self, ordinal: usize, image: &[u8]) -> Result<Box<dyn ModuleOps>> {
        Ok(Box::new(CudaModule::load(self.devices[ordinal].clone(), image)?))
    }
}
