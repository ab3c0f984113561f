//! Pools shared between processes, in the simulator: it cannot share, since its device memory is
//! this process's heap. It says so, as CUDA does where a device cannot export a pool.

use super::SimBackend;
use crate::error::{Code, Error, Result};
use crate::ops::{PoolPlace, SharedPoolOps, SharedPools};
use std::os::fd::BorrowedFd;
use std::sync::Arc;

fn not_supported() -> Error {
    Error::cuda(
        Code::CUDA_ERROR_NOT_SUPPORTED,
        "the simulator cannot share memory between processes (its device memory is this process's heap): a shareable pool needs the cuda backend",
    )
}

impl SharedPools for SimBackend {
    fn create_pool(&self, _ordinal: usize, _place: PoolPlace) -> Result<Arc<dyn SharedPoolOps>> {
        Err(not_supported())
    }

    fn import_pool(&self, _ordinal: usize, _fd: BorrowedFd<'_>) -> Result<Arc<dyn SharedPoolOps>> {
        Err(not_supported())
    }
}
