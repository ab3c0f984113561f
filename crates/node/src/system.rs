//! Device telemetry (cuda.core's `system`): NVML's readings, or the simulator's model.

use cuda_node_core::{runtime, system};

crate::js_object! {
    /// A process on a device and the device memory it holds.
    pub struct ProcessOut {
        pid: f64 = c"pid",
        used_bytes: Option<f64> = c"usedBytes",
    }
}

crate::js_object! {
    /// A device's state now; `null` for a reading it does not support.
    pub struct TelemetryOut {
        simulated: bool = c"simulated",
        name: String = c"name",
        utilization_gpu: Option<f64> = c"utilizationGpu",
        utilization_memory: Option<f64> = c"utilizationMemory",
        memory_used: Option<f64> = c"memoryUsed",
        memory_total: Option<f64> = c"memoryTotal",
        temperature_c: Option<f64> = c"temperatureC",
        power_mw: Option<f64> = c"powerMilliwatts",
        power_limit_mw: Option<f64> = c"powerLimitMilliwatts",
        clock_sm_mhz: Option<f64> = c"clockSmMhz",
        clock_memory_mhz: Option<f64> = c"clockMemoryMhz",
        pcie_tx_kbps: Option<f64> = c"pcieTxKBps",
        pcie_rx_kbps: Option<f64> = c"pcieRxKBps",
        nvlink_tx_bytes: Option<f64> = c"nvlinkTxBytes",
        nvlink_rx_bytes: Option<f64> = c"nvlinkRxBytes",
        processes: Vec<ProcessOut> = c"processes",
    }
}

fn num<T: Into<f64>>(v: Option<T>) -> Option<f64> {
    v.map(Into::into)
}

fn bytes(v: Option<u64>) -> Option<f64> {
    v.map(|b| b as f64)
}

impl From<system::Telemetry> for TelemetryOut {
    fn from(t: system::Telemetry) -> Self {
        TelemetryOut {
            simulated: t.simulated,
            name: t.name,
            utilization_gpu: num(t.utilization_gpu),
            utilization_memory: num(t.utilization_memory),
            memory_used: bytes(t.memory_used),
            memory_total: bytes(t.memory_total),
            temperature_c: num(t.temperature_c),
            power_mw: num(t.power_mw),
            power_limit_mw: num(t.power_limit_mw),
            clock_sm_mhz: num(t.clock_sm_mhz),
            clock_memory_mhz: num(t.clock_memory_mhz),
            pcie_tx_kbps: num(t.pcie_tx_kbps),
            pcie_rx_kbps: num(t.pcie_rx_kbps),
            nvlink_tx_bytes: bytes(t.nvlink_tx_bytes),
            nvlink_rx_bytes: bytes(t.nvlink_rx_bytes),
            processes: t.processes.into_iter().map(|p| ProcessOut { pid: p.pid as f64, used_bytes: bytes(p.used_bytes) }).collect(),
        }
    }
}

crate::exports! {
    /// Device `device`'s utilization, memory, temperature, power, clocks, link traffic and processes now.
    c"systemTelemetry" => fn system_telemetry(_cx, device: f64) -> TelemetryOut {
        Ok(system::telemetry(runtime()?.ordinal(device)?)?.into())
    }

    /// The display driver's version (`nvmlSystemGetDriverVersion`; the simulator says it is simulated).
    c"systemDriverVersion" => fn system_driver_version(_cx) -> String {
        system::driver_version()
    }
}
