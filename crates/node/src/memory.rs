use crate::args::count;
use crate::errors::guard;
use cuda_node_core::{runtime, Code, DeviceMemory, Error};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

/// A device allocation. `free()` releases it at once; the GC releases it otherwise.
#[napi]
pub struct NativeMemory {
    inner: Option<Arc<DeviceMemory>>,
}

impl NativeMemory {
    pub(crate) fn get(&self) -> cuda_node_core::Result<&Arc<DeviceMemory>> {
        self.inner
            .as_ref()
            .ok_or_else(|| Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "this memory was freed: allocate a new one"))
    }
}

#[napi]
impl NativeMemory {
    #[napi(factory)]
    pub fn alloc(env: Env, device: f64, size: f64) -> Result<NativeMemory> {
        guard(&env, || {
            let mem = DeviceMemory::alloc(runtime()?.ordinal(device)?, count("size", size)?)?;
            Ok(NativeMemory { inner: Some(Arc::new(mem)) })
        })
    }

    #[napi(getter)]
    pub fn ptr(&self, env: Env) -> Result<BigInt> {
        guard(&env, || Ok(BigInt::from(self.get()?.ptr())))
    }

    #[napi(getter)]
    pub fn size(&self, env: Env) -> Result<f64> {
        guard(&env, || Ok(self.get()?.size() as f64))
    }

    #[napi(getter)]
    pub fn device(&self, env: Env) -> Result<u32> {
        guard(&env, || Ok(self.get()?.device() as u32))
    }

    #[napi(getter)]
    pub fn freed(&self) -> bool {
        self.inner.is_none()
    }

    #[napi]
    pub fn free(&mut self, env: Env) -> Result<()> {
        guard(&env, || {
            self.get()?;
            self.inner = None;
            Ok(())
        })
    }
}
