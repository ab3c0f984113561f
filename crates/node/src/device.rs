//! Devices: count, properties, memory, synchronize, identity (UUID, PCI bus id) and peer access.

use crate::raw::{self, Count, Ret};
use crate::task::Blocking;
use cuda_node_core::{device, runtime};
use napi::sys;

/// A device's fixed facts: `{ name, computeCapability, totalMemory, attributes }`.
pub struct DeviceProps(cuda_node_core::DeviceProps);

impl Ret for DeviceProps {
    fn ts() -> String {
        "{ name: string; computeCapability: string; totalMemory: number; attributes: Record<string, number> }".into()
    }
    fn write(self, env: sys::napi_env) -> cuda_node_core::Result<sys::napi_value> {
        let p = self.0;
        let mut attrs = Vec::with_capacity(p.attributes.len());
        for (k, v) in &p.attributes {
            let name = std::ffi::CString::new(*k).unwrap_or_default();
            attrs.push((name, (*v as f64).write(env)?));
        }
        let fields: Vec<(&std::ffi::CStr, sys::napi_value)> = attrs.iter().map(|(k, v)| (k.as_c_str(), *v)).collect();
        let attributes = raw::object(env, &fields)?;
        raw::object(
            env,
            &[
                (c"name", p.name.write(env)?),
                (c"computeCapability", format!("{}{}", p.cc_major, p.cc_minor).write(env)?),
                (c"totalMemory", (p.total_memory as f64).write(env)?),
                (c"attributes", attributes),
            ],
        )
    }
}

crate::js_object! {
    /// `{ free, total }` bytes of device memory.
    pub struct MemInfo {
        free: f64 = c"free",
        total: f64 = c"total",
    }
}

crate::exports! {
    /// How many devices the backend presents.
    c"deviceCount" => fn device_count(_cx) -> f64 {
        Ok(device::count()? as f64)
    }

    /// A device's name, compute capability, memory and attributes.
    c"deviceProps" => fn device_props(_cx, device: f64) -> DeviceProps {
        Ok(DeviceProps(device::props(runtime()?.ordinal(device)?)?))
    }

    /// Free and total memory now (`cuMemGetInfo`).
    c"deviceMemInfo" => fn device_mem_info(_cx, device: f64) -> MemInfo {
        let m = device::mem_info(runtime()?.ordinal(device)?)?;
        Ok(MemInfo { free: m.free as f64, total: m.total as f64 })
    }

    /// Whether a stream of the device is capturing through this library (what makes
    /// `Device.synchronize()` refuse), without waiting for anything.
    c"deviceCapturing" => fn device_capturing(_cx, device: f64) -> bool {
        Ok(cuda_node_core::capture::active(runtime()?.ordinal(device)?))
    }

    /// Blocks until all work on the device is done.
    c"deviceSynchronize" => fn device_synchronize(cx, device: f64) -> () {
        device::synchronize(runtime()?.ordinal(device)?)?;
        crate::callbacks::run_due(cx.env, true);
        Ok(())
    }

    /// Resolves once all work on the device is done, off the JS thread.
    c"deviceSynchronizeAsync" => fn device_synchronize_async(_cx, device: f64) -> Blocking {
        let ordinal = runtime()?.ordinal(device)?;
        Ok(Blocking::new(move || device::synchronize(ordinal)))
    }

    /// The device's UUID, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (`cuDeviceGetUuid`).
    c"deviceUuid" => fn device_uuid(_cx, device: f64) -> String {
        device::uuid(runtime()?.ordinal(device)?)
    }

    /// The device's PCI bus id, `0000:19:00.0` (`cuDeviceGetPCIBusId`).
    c"devicePciBusId" => fn device_pci_bus_id(_cx, device: f64) -> String {
        device::pci_bus_id(runtime()?.ordinal(device)?)
    }

    /// The ordinal of the device at a PCI bus id (`cuDeviceGetByPCIBusId`).
    c"deviceByPciBusId" => fn device_by_pci_bus_id(_cx, id: String) -> f64 {
        Ok(device::from_pci_bus_id(&id)? as f64)
    }

    /// A limit of the device's context by name (`cuCtxGetLimit`).
    c"deviceGetLimit" => fn device_get_limit(_cx, device: f64, name: String) -> f64 {
        Ok(device::get_limit(runtime()?.ordinal(device)?, &name)? as f64)
    }

    /// Asks for a limit of the device's context (`cuCtxSetLimit`); the device may round it.
    c"deviceSetLimit" => fn device_set_limit(_cx, device: f64, name: String, value: Count) -> () {
        device::set_limit(runtime()?.ordinal(device)?, &name, value.0)
    }

    /// Whether `device` can reach `peer`'s memory directly (`cuDeviceCanAccessPeer`).
    c"deviceCanAccessPeer" => fn device_can_access_peer(_cx, device: f64, peer: f64) -> bool {
        let rt = runtime()?;
        device::can_access_peer(rt.ordinal(device)?, rt.ordinal(peer)?)
    }

    /// Lets `device` reach `peer`'s memory (`cuCtxEnablePeerAccess`); again is nothing.
    c"deviceEnablePeerAccess" => fn device_enable_peer_access(_cx, device: f64, peer: f64) -> () {
        let rt = runtime()?;
        device::enable_peer_access(rt.ordinal(device)?, rt.ordinal(peer)?)
    }

    /// Stops `device` reaching `peer`'s memory (`cuCtxDisablePeerAccess`); again is nothing.
    c"deviceDisablePeerAccess" => fn device_disable_peer_access(_cx, device: f64, peer: f64) -> () {
        let rt = runtime()?;
        device::disable_peer_access(rt.ordinal(device)?, rt.ordinal(peer)?)
    }
}
