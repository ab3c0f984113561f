//! A device's current stream-ordered pool in the simulator: it has the device's default pool
//! alone (a pool of our own is a shareable one, which it cannot make), so the default pool is
//! always current, and setting it again is nothing. Trimming it is its model's `trim`.

use super::SimBackend;
use crate::error::{Code, Error, Result};
use crate::ops::device_pool::DevicePools;
use crate::ops::{AllocOps, SharedPoolOps, StreamOps};

fn not_supported() -> Error {
    Error::cuda(Code::CUDA_ERROR_NOT_SUPPORTED, "the simulator has each device's default pool alone: a pool of our own needs the cuda backend")
}

impl DevicePools for SimBackend {
    fn set_current_pool(&self, _ordinal: usize, pool: Option<&dyn SharedPoolOps>) -> Result<()> {
        match pool {
            None => Ok(()),
            Some(_) => Err(not_supported()),
        }
    }

    fn alloc_from_default(&self, _ordinal: usize, _size: u64, _stream: &dyn StreamOps) -> Result<Box<dyn AllocOps>> {
        Err(not_supported())
    }

    fn trim_to(&self, ordinal: usize, pool: Option<&dyn SharedPoolOps>, keep: u64) -> Result<()> {
        if pool.is_some() {
            return Err(not_supported());
        }
        let dev = &self.devices[ordinal];
        super::lock(&dev.async_pool).trim(keep, dev.for_pool());
        Ok(())
    }
}
