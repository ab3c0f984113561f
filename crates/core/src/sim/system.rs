//! Device telemetry on the simulator: its own model's values, marked simulated. Memory is what
//! the simulated device holds (this process is its only one); clocks are its attributes'. It has
//! no temperature, power, utilization counter or links: those are `None`.

use super::device::SimBackend;
use crate::error::Result;
use crate::ops::system::{ProcessMemory, SystemOps, Telemetry};
use crate::ops::DeviceOps;

impl SystemOps for SimBackend {
    fn telemetry(&self, ordinal: usize) -> Result<Telemetry> {
        let props = DeviceOps::props(self, ordinal)?;
        let mem = DeviceOps::mem_info(self, ordinal)?;
        let attr = |name: &str| props.attributes.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v / 1000) as u32);
        let used = mem.total - mem.free;
        Ok(Telemetry {
            simulated: true,
            name: props.name,
            memory_used: Some(used),
            memory_total: Some(mem.total),
            clock_sm_mhz: attr("clockRate"),
            clock_memory_mhz: attr("memoryClockRate"),
            processes: vec![ProcessMemory { pid: pid(), used_bytes: Some(used) }],
            ..Telemetry::default()
        })
    }

    fn driver_version(&self) -> Result<String> {
        Ok(format!("simulated (cuda-node {})", env!("CARGO_PKG_VERSION")))
    }
}

/// This process's id (WASI has none to give: 0 there).
fn pid() -> u32 {
    #[cfg(target_family = "wasm")]
    return 0;
    #[cfg(not(target_family = "wasm"))]
    std::process::id()
}
