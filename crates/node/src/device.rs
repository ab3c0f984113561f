use crate::errors::guard;
use crate::task::Blocking;
use cuda_node_core::runtime;
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi(object)]
pub struct DeviceProps {
    pub name: String,
    pub compute_capability: String,
    pub total_memory: f64,
    pub attributes: std::collections::HashMap<String, f64>,
}

#[napi(object)]
pub struct MemInfo {
    pub free: f64,
    pub total: f64,
}

#[napi]
pub fn device_count(env: Env) -> Result<u32> {
    guard(&env, || Ok(runtime()?.backend.device_count() as u32))
}

#[napi]
pub fn device_props(env: Env, id: f64) -> Result<DeviceProps> {
    guard(&env, || {
        let rt = runtime()?;
        let p = rt.backend.device_props(rt.ordinal(id)?)?;
        Ok(DeviceProps {
            name: p.name,
            compute_capability: format!("{}{}", p.cc_major, p.cc_minor),
            total_memory: p.total_memory as f64,
            attributes: p.attributes.into_iter().map(|(k, v)| (k.to_string(), v as f64)).collect(),
        })
    })
}

#[napi]
pub fn device_mem_info(env: Env, id: f64) -> Result<MemInfo> {
    guard(&env, || {
        let rt = runtime()?;
        let m = rt.backend.mem_info(rt.ordinal(id)?)?;
        Ok(MemInfo { free: m.free as f64, total: m.total as f64 })
    })
}

#[napi]
pub fn device_synchronize(env: Env, id: f64) -> Result<()> {
    guard(&env, || {
        cuda_node_core::device::synchronize(runtime()?.ordinal(id)?)
    })
}

/// `synchronize()` off the JS thread: a Promise that never blocks the event loop.
#[napi(ts_return_type = "Promise<void>")]
pub fn device_synchronize_async(env: Env, id: f64) -> Result<AsyncTask<Blocking<()>>> {
    let ordinal = guard(&env, || runtime()?.ordinal(id))?;
    Ok(Blocking::new(move || cuda_node_core::device::synchronize(ordinal)))
}
