//! Device telemetry on the real device: NVML, loaded at run time (`raw/system.rs`), the device
//! found by its UUID, else its PCI address (CUDA's ordinals and NVML's indices differ under
//! `CUDA_VISIBLE_DEVICES`).
//! A reading the device does not support is `None`; NVML missing is an error naming where it
//! was looked for.

use super::device::CudaBackend;
use super::raw::system as raw;
use crate::error::{Error, Result};
use crate::ops::system::{ProcessMemory, SystemOps, Telemetry};
use crate::ops::DeviceOps;
use std::ffi::c_int;

/// NVML, or the error saying where it was looked for.
fn nvml() -> Result<&'static raw::Nvml> {
    raw::nvml().map_err(|tried| {
        Error::named(
            "NVML_ERROR_LIBRARY_NOT_FOUND",
            format!("NVML (libnvidia-ml, installed with the NVIDIA driver) could not be loaded and initialised; looked for {tried}. Set CUDA_NODE_NVML_PATH to its path"),
        )
    })
}

fn fail(n: &raw::Nvml, call: &str, code: c_int) -> Error {
    let name = match code {
        1 => "NVML_ERROR_UNINITIALIZED",
        2 => "NVML_ERROR_INVALID_ARGUMENT",
        3 => "NVML_ERROR_NOT_SUPPORTED",
        4 => "NVML_ERROR_NO_PERMISSION",
        6 => "NVML_ERROR_NOT_FOUND",
        9 => "NVML_ERROR_DRIVER_NOT_LOADED",
        15 => "NVML_ERROR_GPU_IS_LOST",
        _ => "NVML_ERROR_UNKNOWN",
    };
    Error::named(name, format!("{call} failed: {}", n.error_string(code)))
}

/// A reading, `None` where the device does not support it (or will not say: no permission).
fn optional<T>(r: raw::NvRaw<T>) -> Option<T> {
    r.ok()
}

impl SystemOps for CudaBackend {
    fn telemetry(&self, ordinal: usize) -> Result<Telemetry> {
        let n = nvml()?;
        let u = DeviceOps::uuid(self, ordinal)?;
        let hex: String = u.iter().map(|x| format!("{x:02x}")).collect();
        let uuid = format!("GPU-{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]);
        // Under MIG, CUDA's UUID is the instance's, which NVML does not take here: the PCI address then.
        let d = match n.device_by_uuid(&uuid) {
            Ok(d) => d,
            Err(_) => {
                let bus = DeviceOps::pci_bus_id(self, ordinal)?;
                n.device_by_pci(&bus).map_err(|c| fail(n, "nvmlDeviceGetHandleByPciBusId_v2", c))?
            }
        };
        // SAFETY: `d` is the handle NVML just returned; NVML's handles live as long as NVML,
        // which is never unloaded.
        unsafe {
            let name = n.name(d).map_err(|c| fail(n, "nvmlDeviceGetName", c))?;
            let util = optional(n.utilization(d));
            let mem = optional(n.memory(d));
            let (power, limit) = n.power(d);
            let processes = optional(n.processes(d))
                .unwrap_or_default()
                .into_iter()
                .map(|(pid, used)| ProcessMemory { pid, used_bytes: (used != raw::VALUE_NOT_AVAILABLE).then_some(used) })
                .collect();
            Ok(Telemetry {
                simulated: false,
                name,
                utilization_gpu: util.map(|u| u.0),
                utilization_memory: util.map(|u| u.1),
                memory_used: mem.map(|m| m.0),
                memory_total: mem.map(|m| m.1),
                temperature_c: optional(n.temperature(d)),
                power_mw: optional(power),
                power_limit_mw: optional(limit),
                clock_sm_mhz: optional(n.clock(d, raw::CLOCK_SM)),
                clock_memory_mhz: optional(n.clock(d, raw::CLOCK_MEM)),
                pcie_tx_kbps: optional(n.pcie(d, raw::PCIE_TX)),
                pcie_rx_kbps: optional(n.pcie(d, raw::PCIE_RX)),
                nvlink_tx_bytes: optional(n.field_u64(d, raw::FI_NVLINK_TX)).map(|k| k * 1024),
                nvlink_rx_bytes: optional(n.field_u64(d, raw::FI_NVLINK_RX)).map(|k| k * 1024),
                processes,
            })
        }
    }

    fn driver_version(&self) -> Result<String> {
        let n = nvml()?;
        n.driver_version().map_err(|c| fail(n, "nvmlSystemGetDriverVersion", c))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_missing_nvml_is_a_typed_error_naming_where_it_was_looked_for() {
        if super::raw::nvml().is_ok() {
            return; // NVML is here: nothing to show
        }
        let e = super::nvml().err().expect("no NVML here");
        assert_eq!(e.code_name().as_deref(), Some("NVML_ERROR_LIBRARY_NOT_FOUND"));
        assert!(e.message().contains("libnvidia-ml.so.1"), "{}", e.message());
        assert!(e.message().contains("CUDA_NODE_NVML_PATH"), "{}", e.message());
    }
}
