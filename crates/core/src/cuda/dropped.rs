//! Driver errors that a drop could not return — a destroy, free, unregister, close, unload, or
//! the wait before one, that failed — recorded instead of discarded, as cudarc's `record_err`
//! does, for a test (or a caller) to read with [`take`] (`cuda_node_core::take_drop_errors`).

use super::raw::Raw;
use crate::error::{Check, Error};
use std::collections::VecDeque;
use std::sync::Mutex;

/// The most kept between two takes: past it, the oldest go.
const KEEP: usize = 64;

static DROPPED: Mutex<VecDeque<Error>> = Mutex::new(VecDeque::new());

/// Records `r`'s error, if any, under the call's name `api`. A success costs a match: no lock,
/// no allocation (drops are on the free path).
#[inline]
pub(crate) fn record<T>(api: &str, r: Raw<T>) {
    if let Err(e) = r.check(api) {
        push(e);
    }
}

/// Records an error a library's destroy returned (cuRAND's), as [`record`] does a driver's.
pub(crate) fn record_error(e: Error) {
    push(e);
}

#[cold]
fn push(e: Error) {
    let mut all = DROPPED.lock().unwrap_or_else(|p| p.into_inner());
    if all.len() == KEEP {
        all.pop_front();
    }
    all.push_back(e);
}

/// The driver errors drops recorded since the last take, oldest first.
pub fn take() -> Vec<Error> {
    DROPPED.lock().unwrap_or_else(|p| p.into_inner()).drain(..).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::driver::sys::CUresult;

    /// This test's own records, by a name no drop uses (other tests may record at the same time).
    fn mine(all: Vec<Error>, api: &str) -> Vec<String> {
        all.iter().map(|e| e.to_string()).filter(|m| m.starts_with(api)).collect()
    }

    /// One test: a take drains every record, so two tests taking at once would race.
    #[test]
    fn a_failed_drop_is_recorded_once_a_success_not_at_all_and_past_the_limit_the_oldest_go() {
        record("cuTestDestroy", Ok(()));
        record::<()>("cuTestDestroy", Err(CUresult::CUDA_ERROR_INVALID_HANDLE));
        let got = mine(take(), "cuTestDestroy");
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].starts_with("cuTestDestroy failed") && got[0].ends_with("(CUDA_ERROR_INVALID_HANDLE)"), "{got:?}");
        assert!(mine(take(), "cuTestDestroy").is_empty());

        for _ in 0..KEEP + 3 {
            record::<()>("cuTestFree", Err(CUresult::CUDA_ERROR_INVALID_VALUE));
        }
        assert_eq!(mine(take(), "cuTestFree").len(), KEEP);
    }
}
