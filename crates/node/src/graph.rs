use crate::errors::guard;
use crate::stream::NativeStream;
use cuda_node_core::{Code, Error, Graph};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// A captured graph. `destroy()` releases it (and the host functions it keeps); later calls throw.
#[napi]
pub struct NativeGraph {
    inner: Option<Graph>,
}

impl NativeGraph {
    pub(crate) fn wrap(g: Graph) -> NativeGraph {
        NativeGraph { inner: Some(g) }
    }

    fn get(&self) -> cuda_node_core::Result<&Graph> {
        self.inner.as_ref().ok_or_else(|| Error::cuda(Code::CUDA_ERROR_INVALID_HANDLE, "this Graph was destroyed: capture a new one"))
    }
}

#[napi]
impl NativeGraph {
    #[napi]
    pub fn launch(&self, env: Env, stream: &NativeStream) -> Result<()> {
        guard(&env, || self.get()?.launch(&*stream.get()?))
    }

    #[napi]
    pub fn upload(&self, env: Env, stream: &NativeStream) -> Result<()> {
        guard(&env, || self.get()?.upload(&*stream.get()?))
    }

    #[napi]
    pub fn to_dot(&self, env: Env) -> Result<String> {
        guard(&env, || self.get()?.to_dot())
    }

    #[napi]
    pub fn update(&mut self, env: Env, other: &NativeGraph) -> Result<()> {
        guard(&env, || {
            let from = other.get()?;
            let me = self.inner.as_mut().ok_or_else(|| Error::cuda(Code::CUDA_ERROR_INVALID_HANDLE, "this Graph was destroyed: capture a new one"))?;
            me.update(from)
        })
    }

    #[napi(getter)]
    pub fn host_fn_count(&self, env: Env) -> Result<u32> {
        guard(&env, || Ok(self.get()?.host_fn_count() as u32))
    }

    #[napi]
    pub fn destroy(&mut self) {
        self.inner = None;
    }
}
