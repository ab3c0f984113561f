//! The simulator's contexts: one per device, as the primary context is, named by a stable
//! fake handle (never 0) that means nothing to the driver.

use super::stream::SimStream;
use super::SimBackend;
use crate::error::Result;
use crate::ops::context::Contexts;
use crate::ops::StreamOps;

/// Device `ordinal`'s fake context handle.
fn fake(ordinal: usize) -> u64 {
    0x0c7c_0000_0000 + ((ordinal as u64 + 1) << 12)
}

impl Contexts for SimBackend {
    fn current_context(&self, ordinal: usize) -> Result<u64> {
        Ok(fake(ordinal))
    }

    fn stream_context(&self, stream: &dyn StreamOps) -> Result<u64> {
        Ok(fake(super::own::<SimStream>(stream.as_any()).dev.ordinal))
    }
}
