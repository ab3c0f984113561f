use crate::args::count;
use crate::errors::guard;
use cuda_node_core::module::{Function, Module};
use cuda_node_core::ops::FuncAttr;
use cuda_node_core::{nvrtc, runtime, Error};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::collections::HashMap;
use crate::handles::{self, Owned, Table};
use std::cell::RefCell;
use std::sync::Arc;

/// NVRTC's `[major, minor]`; `NVRTC_ERROR_NOT_FOUND` (naming what was looked for) without it.
#[napi]
pub fn nvrtc_version(env: Env) -> Result<Vec<i32>> {
    guard(&env, || {
        let (a, b) = nvrtc::version()?;
        Ok(vec![a, b])
    })
}

#[napi(object)]
pub struct CompileOutput {
    pub image: Buffer,
    pub is_cubin: bool,
    pub log: String,
    pub lowered: HashMap<String, String>,
}

/// Compiles CUDA C++ for `arch` (`sm_90`: a cubin; `compute_90`: PTX).
#[napi]
pub fn nvrtc_compile(env: Env, code: String, file_name: String, options: Vec<String>, name_expressions: Vec<String>, arch: String) -> Result<CompileOutput> {
    guard(&env, || {
        let c = nvrtc::compile(&code, &file_name, &options, &name_expressions, &arch)?;
        Ok(CompileOutput { image: c.image.into(), is_cubin: c.is_cubin, log: c.log, lowered: c.lowered.into_iter().collect() })
    })
}

#[napi]
pub struct NativeModule {
    inner: Module,
}

#[napi]
impl NativeModule {
    /// Loads a cubin or PTX image on `device`.
    #[napi(factory)]
    pub fn load(env: Env, device: f64, image: Uint8ArraySlice) -> Result<NativeModule> {
        guard(&env, || Ok(NativeModule { inner: Module::load(runtime()?.ordinal(device)?, image.as_ref())? }))
    }

    #[napi]
    pub fn get_function(&self, env: Env, name: String) -> Result<NativeFunction> {
        guard(&env, || {
            let inner = Arc::new(self.inner.function(&name)?);
            Ok(NativeFunction { handle: Owned::new(&FUNCTIONS, inner.clone()), inner })
        })
    }
}

#[napi(object)]
pub struct FunctionAttributes {
    pub max_threads_per_block: i32,
    pub shared_size_bytes: i32,
    pub const_size_bytes: i32,
    pub local_size_bytes: i32,
    pub num_regs: i32,
    pub ptx_version: i32,
    pub binary_version: i32,
    pub max_dynamic_shared_size_bytes: i32,
}

#[napi]
pub struct NativeFunction {
    inner: Arc<Function>,
    handle: Owned<Arc<Function>>,
}

thread_local! {
    static FUNCTIONS: RefCell<Table<Arc<Function>>> = RefCell::new(Table::default());
}

/// Runs `f` on the kernel behind a handle (`NativeFunction.id`), for `fast.rs`'s `kernelLaunch`.
pub(crate) fn with_function<R>(id: f64, f: impl FnOnce(&Function) -> cuda_node_core::Result<R>) -> cuda_node_core::Result<R> {
    handles::with(&FUNCTIONS, id, |k| f(k)).unwrap_or_else(|| Err(Error::cuda(cuda_node_core::Code::CUDA_ERROR_INVALID_HANDLE, "this kernel's module is gone")))
}


#[napi]
impl NativeFunction {
    /// The handle `kernelLaunch` takes (`fast.rs`).
    #[napi(getter)]
    pub fn id(&self) -> f64 {
        self.handle.id()
    }

    #[napi]
    pub fn attributes(&self, env: Env) -> Result<FunctionAttributes> {
        guard(&env, || {
            let a = |x| self.inner.attribute(x);
            Ok(FunctionAttributes {
                max_threads_per_block: a(FuncAttr::MaxThreadsPerBlock)?,
                shared_size_bytes: a(FuncAttr::SharedSizeBytes)?,
                const_size_bytes: a(FuncAttr::ConstSizeBytes)?,
                local_size_bytes: a(FuncAttr::LocalSizeBytes)?,
                num_regs: a(FuncAttr::NumRegs)?,
                ptx_version: a(FuncAttr::PtxVersion)?,
                binary_version: a(FuncAttr::BinaryVersion)?,
                max_dynamic_shared_size_bytes: a(FuncAttr::MaxDynamicSharedSizeBytes)?,
            })
        })
    }

    #[napi]
    pub fn set_max_dynamic_shared_size(&self, env: Env, bytes: f64) -> Result<()> {
        guard(&env, || {
            let b = count("bytes", bytes)?;
            self.inner.set_max_dynamic_shared(i32::try_from(b).map_err(|_| Error::range("too many bytes of shared memory"))?)
        })
    }

    /// Each parameter's size, where the driver can tell; null otherwise.
    #[napi]
    pub fn param_sizes(&self) -> Option<Vec<u32>> {
        self.inner.param_sizes().map(|v| v.iter().map(|&s| s as u32).collect())
    }
}
