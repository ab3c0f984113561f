//! Contexts for interop (CuPy's `driver.ctxGetCurrent`, `cuStreamGetCtx`): the handle of the
//! context a device's work runs in, and of a stream's, for native code to share.

use crate::error::Result;
use crate::runtime;
use crate::stream::Stream;

/// Device `device`'s context, made current on the calling thread (as every call of this library
/// on the device makes it), so native code called next from this thread finds it current.
pub fn current(device: usize) -> Result<u64> {
    runtime()?.backend.contexts().current_context(device)
}

/// The context `stream` belongs to (its driver stream is made if this is its first use).
pub fn of_stream(stream: &Stream) -> Result<u64> {
    runtime()?.backend.contexts().stream_context(stream.ops()?)
}
