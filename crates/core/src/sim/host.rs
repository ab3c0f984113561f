//! The host side: natively each simulated stream has a thread and nothing is pumped; on
//! WebAssembly the queues run when pumped, on the JS thread (`coop.rs`).

use super::device::SimBackend;
use crate::ops::host::Pump;

#[cfg(not(target_family = "wasm"))]
impl Pump for SimBackend {}

#[cfg(target_family = "wasm")]
impl Pump for SimBackend {
    fn pump(&self) {
        super::coop::pump();
    }
    fn next_pump(&self) -> Option<std::time::Duration> {
        super::coop::next_pump()
    }
    fn pending(&self) -> bool {
        super::coop::pending()
    }
}
