//! The host side as a backend sees it: a JS thread's wait pump, and the pump of a backend that
//! runs its queues on the JS thread (WebAssembly's cooperative simulator). The model's `host.rs`
//! sets the one and calls the other; a backend never names `host.rs`.

#[cfg(not(target_family = "wasm"))]
use std::cell::Cell;
use std::time::Duration;

#[cfg(not(target_family = "wasm"))]
thread_local! {
    static WAIT_PUMP: Cell<Option<fn()>> = const { Cell::new(None) };
}

/// Installs (or removes) this thread's wait pump: what a backend's blocking wait runs meanwhile
/// (the simulator's `Completion::wait`, every millisecond). `host.rs` installs one on each JS
/// thread, which runs the work due there, so a JS thread blocked on work that waits for it
/// cannot deadlock.
#[cfg(not(target_family = "wasm"))]
pub fn set_wait_pump(pump: Option<fn()>) {
    WAIT_PUMP.with(|p| p.set(pump));
}

/// This thread's wait pump, if it is a JS thread `host.rs` serves.
#[cfg(not(target_family = "wasm"))]
pub fn wait_pump() -> Option<fn()> {
    WAIT_PUMP.with(Cell::get)
}

/// A backend whose queued work runs only when pumped, on the JS thread (WebAssembly's
/// simulator); every other backend's work runs by itself, as these defaults say.
pub trait Pump {
    /// Runs the queued work that can run now.
    fn pump(&self) {}
    /// How long until queued work should be pumped (zero when some can run now), or `None`
    /// when none is left.
    fn next_pump(&self) -> Option<Duration> {
        None
    }
    /// Whether any queued work is left.
    fn pending(&self) -> bool {
        false
    }
}
