//! Contexts on the real device: the primary context each device's work runs in, and a
//! stream's, read from the driver.

use super::device::CudaBackend;
use super::own::own;
use super::raw;
use super::stream::CudaStream;
use crate::error::{Check, Result};
use crate::ops::context::Contexts;
use crate::ops::StreamOps;
use cudarc::driver::sys;

impl Contexts for CudaBackend {
    fn current_context(&self, ordinal: usize) -> Result<u64> {
        self.devices[ordinal].bind()?;
        Ok(raw::ctx_current().check("cuCtxGetCurrent")? as u64)
    }

    fn stream_context(&self, stream: &dyn StreamOps) -> Result<u64> {
        let s = own::<CudaStream>(stream.as_any());
        // A default stream names the current context's: its device's is made current first.
        s.dev.bind()?;
        // SAFETY: the stream is live (the caller holds it) or a default stream, and the stream's
        // device's context is current.
        Ok(unsafe { raw::context::stream_ctx(stream.handle() as sys::CUstream) }.check("cuStreamGetCtx")? as u64)
    }
}
