//! Modules and kernels on the real driver.

use super::{raw, CudaDevice};
use crate::error::{Check, Error, Result};
use crate::ops::{FuncAttr, FunctionOps, ModuleOps};
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
            let _ = unsafe { raw::module_unload(self.raw) };
        }
    }
}

pub struct CudaModule(Arc<Loaded>);

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
        FuncAttr::MaxDynamicSharedSizeBytes => A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
    }
}

impl FunctionOps for CudaFunction {
    fn attribute(&self, a: FuncAttr) -> Result<i32> {
        self.module.dev.bind()?;
        // SAFETY: the function is live (its module is held).
        unsafe { raw::func_attribute(self.raw, attr(a)) }.check("cuFuncGetAttribute")
    }

    fn set_max_dynamic_shared(&self, bytes: i32) -> Result<()> {
        self.module.dev.bind()?;
        // SAFETY: the function is live; the driver validates the value.
        unsafe { raw::func_set_attribute(self.raw, attr(FuncAttr::MaxDynamicSharedSizeBytes), bytes) }.check("cuFuncSetAttribute")
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
