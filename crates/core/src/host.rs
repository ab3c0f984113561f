//! The model reaching its embedder's JS threads, and the embedder driving the simulator, through
//! this file only. Work that must run on a JS thread (a simulated kernel's host implementation,
//! queued in stream order) gets there through a [`HostSink`], which the embedder (the Node
//! binding) implements and registers once; the embedder lets WebAssembly's cooperative simulator
//! run through [`pump`], [`next_pump`] and [`pending`]. Neither side names the other's internals.

use std::sync::OnceLock;
use std::time::Duration;

/// What the embedder gives the model: the way into its JS threads.
pub trait HostSink: Sync {
    /// Runs, on the calling JS thread, the work due there (simulated kernels whose streams
    /// reached them). A wait that blocks a JS thread [`serve_this_thread`] marked calls it
    /// every millisecond meanwhile: the work waited for may itself wait for this thread.
    fn pump(&self);
}

static SINK: OnceLock<&'static dyn HostSink> = OnceLock::new();

/// Registers the embedder's sink; the first one registered stays.
pub fn set_host_sink(sink: &'static dyn HostSink) {
    let _ = SINK.set(sink);
}

/// Marks the calling thread as a JS thread the sink serves: the simulator's blocking waits here
/// run the sink's [`HostSink::pump`] meanwhile. (WebAssembly has one thread and no blocking wait.)
pub fn serve_this_thread() {
    #[cfg(not(target_family = "wasm"))]
    crate::ops::host::set_wait_pump(Some(pump_sink));
}

#[cfg(not(target_family = "wasm"))]
fn pump_sink() {
    if let Some(sink) = SINK.get() {
        sink.pump();
    }
}

/// WebAssembly's cooperative simulator: runs the queued work that can run now (natively the
/// simulator's streams have threads of their own, and this does nothing).
pub fn pump() {
    if let Ok(rt) = crate::runtime() {
        rt.backend.pump().pump();
    }
}

/// WebAssembly: how long until queued simulated work should be pumped (zero when some can run
/// now), or `None` when none is left. Natively always `None`.
pub fn next_pump() -> Option<Duration> {
    crate::runtime().ok()?.backend.pump().next_pump()
}

/// WebAssembly: whether any simulated work is queued. Natively always false.
pub fn pending() -> bool {
    crate::runtime().is_ok_and(|rt| rt.backend.pump().pending())
}
