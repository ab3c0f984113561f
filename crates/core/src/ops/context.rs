//! Contexts at the seam, for interop: the context a device's work runs in, and a stream's, so
//! native code (another addon) can share them. The checked calls are `context.rs`'s.

use crate::error::Result;
use crate::ops::StreamOps;

/// What a backend implements for contexts.
pub trait Contexts: Send + Sync + 'static {
    /// Makes device `ordinal`'s context (its primary one, which all of this library's work on it
    /// uses) current on the calling thread, and returns it (`cuCtxGetCurrent` after the bind).
    fn current_context(&self, ordinal: usize) -> Result<u64>;
    /// The context `stream` belongs to (`cuStreamGetCtx`): its device's primary context, or an
    /// external stream's own.
    fn stream_context(&self, stream: &dyn StreamOps) -> Result<u64>;
}
