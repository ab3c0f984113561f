//! A simulated allocation's bytes, and what its device knows of each live one.

use std::sync::{Mutex, MutexGuard};

/// The bytes of a simulated allocation, shared with the queued work that uses them.
pub struct Buffer {
    pub(super) bytes: Mutex<Vec<u8>>,
}

impl Buffer {
    pub fn lock(&self) -> MutexGuard<'_, Vec<u8>> {
        self.bytes.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What the simulator knows of a live allocation, for `cuPointerGetAttribute` and foreign
/// pointers: its size, its bytes and whether it is managed.
pub(super) struct Known {
    pub size: u64,
    pub buffer: std::sync::Weak<Buffer>,
    pub managed: bool,
}
