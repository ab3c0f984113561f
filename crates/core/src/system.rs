//! Device telemetry above the seam (cuda.core's `system`): the checked calls the binding makes.
//! What a reading is lives in `ops/system.rs`; the cuda backend reads NVML (`cuda/system.rs`),
//! the simulator its own model (`sim/system.rs`).

use crate::error::Result;

pub use crate::ops::system::{ProcessMemory, Telemetry};

/// Device `ordinal`'s state now (an ordinal the caller checked).
/// Errors: `NVML_ERROR_LIBRARY_NOT_FOUND` naming where NVML was looked for; NVML's own codes.
pub fn telemetry(ordinal: usize) -> Result<Telemetry> {
    crate::runtime()?.backend.system().telemetry(ordinal)
}

/// The display driver's version (`"570.86.15"`; the simulator's says it is simulated).
pub fn driver_version() -> Result<String> {
    crate::runtime()?.backend.system().driver_version()
}
