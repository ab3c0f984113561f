use crate::args::count;
use crate::errors::guard;
use crate::stream::NativeStream;
use cuda_node_core::module::{Function, Module};
use cuda_node_core::ops::{FuncAttr, Launch};
use cuda_node_core::{nvrtc, runtime, Error};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::collections::HashMap;
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
        guard(&env, || Ok(NativeFunction { inner: Arc::new(self.inner.function(&name)?) }))
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
}

fn dims(name: &str, v: &[u32]) -> cuda_node_core::Result<[u32; 3]> {
    match v {
        [x, y, z] => Ok([*x, *y, *z]),
        _ => Err(Error::range(format!("{name} must have three dimensions"))),
    }
}

#[napi]
impl NativeFunction {
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
        self.inner.param_sizes().map(|v| v.into_iter().map(|s| s as u32).collect())
    }

    /// `args` holds each argument's bytes in turn; `sizes` says how many each has.
    #[napi]
    pub fn launch(&self, env: Env, stream: &NativeStream, grid: Vec<u32>, block: Vec<u32>, shared_mem: u32, args: Uint8ArraySlice, sizes: Vec<u32>) -> Result<()> {
        guard(&env, || {
            let bytes = args.as_ref();
            let mut parts: Vec<&[u8]> = Vec::with_capacity(sizes.len());
            let mut at = 0usize;
            for s in &sizes {
                let end = at + *s as usize;
                parts.push(bytes.get(at..end).ok_or_else(|| Error::range("argument sizes exceed the argument bytes"))?);
                at = end;
            }
            let launch = Launch { grid: dims("grid", &grid)?, block: dims("block", &block)?, shared_mem, args: &parts };
            self.inner.launch(&*stream.get()?, &launch)
        })
    }
}
