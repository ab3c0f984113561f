//! Streams at the seam: making them, and everything a backend's stream queues.

use super::event::EventOps;
use super::graph::{CondTest, GraphDef, GraphExec, NodeId};
use super::memory::{AllocOps, Location};
use super::module::{FunctionOps, Launch};
use super::pinned::HostBytes;
use crate::error::{Error, Result};
use std::any::Any;
use std::sync::Arc;

/// What a backend does to make streams.
pub trait Streams: Send + Sync + 'static {
    fn create(&self, ordinal: usize, nonblocking: bool, priority: i32) -> Result<Box<dyn StreamOps>>;
    fn legacy(&self, ordinal: usize) -> Result<Box<dyn StreamOps>>;
    fn per_thread(&self, ordinal: usize) -> Result<Box<dyn StreamOps>>;
    /// Wraps a foreign stream handle; also says whether it is non-blocking.
    fn external(&self, ordinal: usize, handle: u64) -> Result<(Box<dyn StreamOps>, bool)>;
    /// An empty graph definition on the device (`cuGraphCreate`), to build node by node.
    fn graph(&self, ordinal: usize) -> Result<Box<dyn GraphDef>>;
}

/// A function the stream runs in order on a host thread. It must make no CUDA call and must
/// never wait for JS (it hands its work to the JS thread and returns).
pub type HostFn = Box<dyn FnOnce() + Send + 'static>;
/// A host function captured into a graph: it runs at every launch.
pub type RepeatFn = dyn Fn() + Send + Sync + 'static;
/// Where a captured host function lives: a fixed heap address the driver can be given, kept
/// alive by every graph whose nodes point at it.
pub type RepeatSlot = Box<Arc<RepeatFn>>;

/// A `cuStreamAddCallback` callback: receives the stream's status.
pub type StatusFn = Box<dyn FnOnce(Result<()>) + Send + 'static>;

/// The element a `fill` writes: `width` bytes (1, 2, 4 or 8) of `bits`, little-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub width: u8,
    pub bits: u64,
}

// Pitched (2D) copies: the shape and the sides a backend gets, checked by `copy2d.rs`, and the
// bytes a pitched range spans.

/// The shape of a 2D copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rows {
    pub width: u64,
    pub height: u64,
    pub dst_pitch: u64,
    pub src_pitch: u64,
}

/// One side as a backend gets it: checked, with its pitch in [`Rows`].
pub enum End<'a> {
    Device(&'a dyn AllocOps, u64),
    /// Pageable host memory (synchronous, as the driver makes it): valid during the call only.
    Pageable(*mut u8),
    /// Pinned host memory from an offset.
    Pinned(Arc<dyn HostBytes>, u64),
}

/// Bytes a pitched range spans, from its first row's start to its last row's end: `pitch` at
/// least `width`, `(height - 1) * pitch + width` (0 with no rows or columns).
pub fn extent(pitch: u64, width: u64, height: u64, what: &str) -> Result<u64> {
    if width == 0 || height == 0 {
        return Ok(0);
    }
    if pitch < width {
        return Err(Error::range(format!("{what}: a pitch of {pitch} bytes is less than the {width}-byte width of a row")));
    }
    (height - 1)
        .checked_mul(pitch)
        .and_then(|n| n.checked_add(width))
        .ok_or_else(|| Error::range(format!("{what}: {height} rows of pitch {pitch} do not fit in 64 bits")))
}

/// Copies `rows.height` rows between two host byte ranges (the simulator's and tests' model
/// of the driver's copy).
///
/// # Safety
/// 1. `src` is valid for reads of `extent(rows.src_pitch, …)` bytes and `dst` for writes of
///    `extent(rows.dst_pitch, …)` bytes, and the two do not overlap unless they are one range.
pub unsafe fn copy_rows(dst: *mut u8, src: *const u8, rows: Rows) {
    for r in 0..rows.height {
        // SAFETY: (1): row `r` lies inside both extents; `copy` allows overlap within one buffer.
        unsafe { std::ptr::copy(src.add((r * rows.src_pitch) as usize), dst.add((r * rows.dst_pitch) as usize), rows.width as usize) };
    }
}

/// Offsets and sizes reaching a backend are already checked against the allocations.
pub trait StreamOps: Send + Sync + 'static {
    /// The handle, as this library's key for the stream (pool arenas, the owned-stream registry).
    fn handle(&self) -> u64;
    /// The handle, for code outside the core, which may queue work on it.
    fn export(&self) -> u64 {
        self.handle()
    }
    fn priority(&self) -> Result<i32>;
    fn query(&self) -> Result<bool>;
    fn synchronize(&self) -> Result<()>;
    fn record(&self, event: &dyn EventOps) -> Result<()>;
    fn wait_event(&self, event: &dyn EventOps) -> Result<()>;
    fn launch_host_fn(&self, f: HostFn) -> Result<()>;
    fn add_callback(&self, f: StatusFn) -> Result<()>;
    /// The built-in kernel that keeps the stream busy for `ns` nanoseconds.
    fn sleep(&self, ns: u64) -> Result<()>;
    /// The built-in kernel that writes `count` copies of `pattern` at `dst + offset`.
    fn fill(&self, dst: &dyn AllocOps, offset: u64, pattern: Pattern, count: u64) -> Result<()>;
    fn memset(&self, dst: &dyn AllocOps, offset: u64, value: u8, size: u64) -> Result<()>;
    /// Host to device. Returns once `src` may be reused (the driver stages pageable memory).
    fn copy_htod(&self, dst: &dyn AllocOps, offset: u64, src: &[u8]) -> Result<()>;
    /// Device to pageable host: returns once `dst` holds the data (as the driver does).
    fn copy_dtoh(&self, dst: &mut [u8], src: &dyn AllocOps, offset: u64) -> Result<()>;
    /// Host (pinned) to device, asynchronous. With `hold`, `src` is kept alive until the copy
    /// has run; without (during a capture), the graph keeps it.
    fn copy_htod_async(
        &self,
        dst: &dyn AllocOps,
        offset: u64,
        src: Arc<dyn HostBytes>,
        src_offset: u64,
        len: u64,
        hold: bool,
    ) -> Result<()>;
    /// Device to host (pinned), asynchronous; `hold` as above.
    fn copy_dtoh_async(
        &self,
        dst: Arc<dyn HostBytes>,
        dst_offset: u64,
        src: &dyn AllocOps,
        offset: u64,
        len: u64,
        hold: bool,
    ) -> Result<()>;
    fn copy_dtod(&self, dst: &dyn AllocOps, dst_offset: u64, src: &dyn AllocOps, src_offset: u64, size: u64) -> Result<()>;
    /// A pitched copy (`cuMemcpy2DAsync`), one side or both on the device, ranges checked.
    /// Pageable host memory is read or written before the call returns; pinned memory is kept
    /// alive until the copy has run when `hold` (during a capture the graph keeps it).
    fn copy_2d(&self, dst: End<'_>, src: End<'_>, rows: Rows, hold: bool) -> Result<()>;
    /// A stream-ordered allocation (`cuMemAllocAsync`) that is freed on this stream, in stream
    /// order, when dropped. The caller keeps the stream alive as long as the allocation.
    fn alloc_async(&self, size: u64) -> Result<Box<dyn AllocOps>>;
    /// Migrates `[offset, offset + len)` of managed memory to `to` in stream order
    /// (`cuMemPrefetchAsync` v2).
    fn prefetch(&self, mem: &dyn AllocOps, offset: u64, len: u64, to: Location) -> Result<()>;

    /// A host function that may run more than once (captured into a graph, which keeps it alive).
    fn launch_repeat_fn(&self, slot: &RepeatSlot) -> Result<()>;
    fn begin_capture(&self, mode: CaptureMode) -> Result<()>;
    /// Ends the capture begun on this stream: the graph it recorded (not yet instantiated).
    fn end_capture(&self) -> Result<Box<dyn GraphDef>>;
    /// Runs the executable graph `exec`, after earlier work here and after its own previous
    /// launch (`cuGraphLaunch`).
    fn launch_graph(&self, exec: &dyn GraphExec) -> Result<()>;
    /// Prepares `exec` here without running it (`cuGraphUpload`).
    fn upload_graph(&self, exec: &dyn GraphExec) -> Result<()>;
    fn capture_status(&self) -> Result<CaptureStatus>;
    /// Captures what is enqueued next into `graph`, after its nodes `deps`
    /// (`cuStreamBeginCaptureToGraph`); [`StreamOps::end_capture_to_graph`] ends it.
    fn begin_capture_to_graph(&self, graph: &dyn GraphDef, deps: &[NodeId], mode: CaptureMode) -> Result<()>;
    /// The nodes the capture's next node would follow: those it added last, else its `deps`
    /// (`cuStreamGetCaptureInfo`).
    fn capture_leaves(&self) -> Result<Vec<NodeId>>;
    /// Ends a capture begun with [`StreamOps::begin_capture_to_graph`]; the graph keeps its nodes.
    fn end_capture_to_graph(&self) -> Result<()>;
    /// The built-in kernel that sets `condition` from the element at `src + offset` (`test`);
    /// only a capture into the condition's graph may run it.
    fn set_condition(&self, condition: u64, src: &dyn AllocOps, offset: u64, test: CondTest) -> Result<()>;
    fn launch_kernel(&self, f: &dyn FunctionOps, launch: &Launch) -> Result<()>;
    /// The backend's own stream, for the backend's other parts given it (`blas::BlasOps`, …).
    fn as_any(&self) -> &dyn Any;
}

/// `cudaStreamCaptureMode`. CuPy's default, and ours, is `Relaxed`: pools may call the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureMode {
    Global,
    ThreadLocal,
    Relaxed,
}

/// `cudaStreamCaptureStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureStatus {
    None,
    Active,
    Invalidated,
}
