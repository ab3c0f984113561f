//! The simulator's one way to take a lock.

use std::sync::{Mutex, MutexGuard};

/// A lock that a panicked holder leaves usable: the simulator's state stays consistent across
/// a panicking host function.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
