//! Drops values on a thread of its own. A host function (run on the driver's callback thread)
//! must make no CUDA call, yet the last reference it drops may be to memory whose release is a
//! CUDA call: such values are sent here instead of being dropped in place.

#[cfg(not(target_family = "wasm"))]
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;
#[cfg(not(target_family = "wasm"))]
use std::sync::OnceLock;

#[cfg(not(target_family = "wasm"))]
type Garbage = Box<dyn Send + 'static>;

#[cfg(not(target_family = "wasm"))]
fn sender() -> &'static Mutex<Sender<Garbage>> {
    static TX: OnceLock<Mutex<Sender<Garbage>>> = OnceLock::new();
    TX.get_or_init(|| {
        let (tx, rx) = channel::<Garbage>();
        std::thread::Builder::new()
            .name("cuda-node-reaper".into())
            .spawn(move || {
                for garbage in rx {
                    drop(garbage);
                }
            })
            .expect("could not start the reaper thread");
        Mutex::new(tx)
    })
}

/// Drops `value` on the reaper thread.
#[cfg(not(target_family = "wasm"))]
pub fn defer_drop(value: impl Send + 'static) {
    let boxed: Garbage = Box::new(value);
    let _ = sender().lock().unwrap_or_else(|p| p.into_inner()).send(boxed);
}

/// WebAssembly has no threads, and no driver whose callbacks must not free: drop in place.
#[cfg(target_family = "wasm")]
pub fn defer_drop(value: impl Send + 'static) {
    drop(value);
}

/// Waits until everything sent to the reaper before this call has been dropped (the channel is
/// in order: a marker dropped after them says so). For a caller that must see the last reference
/// a finished host function released, such as unregistering host memory after a synchronize.
pub fn flush() {
    struct Marker(std::sync::Arc<(Mutex<bool>, std::sync::Condvar)>);
    impl Drop for Marker {
        fn drop(&mut self) {
            *self.0 .0.lock().unwrap_or_else(|p| p.into_inner()) = true;
            self.0 .1.notify_all();
        }
    }
    let done = std::sync::Arc::new((Mutex::new(false), std::sync::Condvar::new()));
    defer_drop(Marker(done.clone()));
    let mut dropped = done.0.lock().unwrap_or_else(|p| p.into_inner());
    while !*dropped {
        dropped = done.1.wait(dropped).unwrap_or_else(|p| p.into_inner());
    }
}
