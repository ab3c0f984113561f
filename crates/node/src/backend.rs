//! Which backend runs, and why.

use crate::raw::Ret;
use cuda_node_core::runtime;
use napi::sys;

/// `{ name, reason, driverVersion?, compiledKernels, webAssembly }`.
pub struct BackendInfo(&'static cuda_node_core::BackendInfo);

impl Ret for BackendInfo {
    fn ts() -> String {
        "{ name: 'cuda' | 'sim'; reason: string; driverVersion: number | null; compiledKernels: boolean; webAssembly: boolean }".into()
    }
    fn write(self, env: sys::napi_env) -> cuda_node_core::Result<sys::napi_value> {
        let i = self.0;
        crate::raw::object(
            env,
            &[
                (c"name", i.kind.name().to_string().write(env)?),
                (c"reason", i.reason.clone().write(env)?),
                (c"driverVersion", i.driver_version.write(env)?),
                (c"compiledKernels", i.compiled_kernels().write(env)?),
                // The WebAssembly build (simulator only, no threads, no external ArrayBuffers).
                (c"webAssembly", cfg!(target_family = "wasm").write(env)?),
            ],
        )
    }
}

crate::exports! {
    /// Which backend runs and why (chosen on first call).
    c"backendInfo" => fn backend_info(_cx) -> BackendInfo {
        Ok(BackendInfo(&runtime()?.info))
    }
}
