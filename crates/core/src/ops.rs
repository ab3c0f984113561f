//! What each backend implements for streams, events and memory. The owning types in
//! `stream.rs`, `event.rs` and `memory.rs` check arguments and state once, for both backends,
//! then call these. A library's own trait and data live in `ops/` (`ops/blas.rs`).

pub mod blas;
pub mod nccl;

use crate::error::{Error, Result};
use std::any::Any;
use std::sync::Arc;

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

/// Host memory that queued work may read or write after the call returns (pinned memory).
pub trait HostBytes: Send + Sync + 'static {
    fn ptr(&self) -> *mut u8;
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a backend returns for a pinned allocation; freed when dropped.
pub trait PinnedOps: Send + Sync + 'static {
    fn ptr(&self) -> *mut u8;
}

/// Where managed memory is prefetched to, or what advice names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    Device(usize),
    Host,
}

pub trait AllocOps: Send + Sync + 'static {
    /// The device address.
    fn ptr(&self) -> u64;
    fn as_any(&self) -> &dyn Any;
    /// Where the host reaches the bytes: managed memory only.
    fn host_ptr(&self) -> Option<*mut u8> {
        None
    }
}

pub trait EventOps: Send + Sync + 'static {
    fn handle(&self) -> u64;
    /// `Ok(true)` when all recorded work is complete (`cuEventQuery`); `NOT_READY` is `Ok(false)`.
    fn query(&self) -> Result<bool>;
    fn synchronize(&self) -> Result<()>;
    /// Milliseconds from `start` to `self` (`cuEventElapsedTime(start, self)`).
    fn elapsed_since(&self, start: &dyn EventOps) -> Result<f32>;
    /// The 64-byte handle another process opens the event with (`cuIpcGetEventHandle`).
    fn ipc_handle(&self) -> Result<[u8; 64]>;
    fn as_any(&self) -> &dyn Any;
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
    /// Ends the capture begun on this stream and instantiates what it recorded.
    fn end_capture(&self) -> Result<Box<dyn GraphOps>>;
    fn capture_status(&self) -> Result<CaptureStatus>;
    fn launch_graph(&self, graph: &dyn GraphOps) -> Result<()>;
    fn launch_kernel(&self, f: &dyn FunctionOps, launch: &Launch) -> Result<()>;
    fn upload_graph(&self, graph: &dyn GraphOps) -> Result<()>;
    /// The backend's own stream, for its libraries' traits (`blas::BlasOps`, …).
    fn as_any(&self) -> &dyn Any;
}

/// A loaded module (`CUmodule`), unloaded when dropped.
pub trait ModuleOps: Send + Sync + 'static {
    fn function(&self, name: &str) -> Result<Box<dyn FunctionOps>>;
    /// The device address and size of the `__device__` or `__constant__` variable `name`
    /// (`cuModuleGetGlobal`); valid while the module stays loaded.
    fn global(&self, name: &str) -> Result<(u64, u64)>;
    /// Keeps the module loaded for as long as the returned value lives.
    fn keep_alive(&self) -> Arc<dyn Any + Send + Sync>;
}

/// A kernel of a module (`CUfunction`). It keeps its module loaded.
pub trait FunctionOps: Send + Sync + 'static {
    fn attribute(&self, attr: FuncAttr) -> Result<i32>;
    /// `cuFuncSetAttribute`; `attr` is one of the settable ones (checked above the seam).
    fn set_attribute(&self, attr: FuncAttr, value: i32) -> Result<()>;
    /// `cuFuncSetCacheConfig`.
    fn set_cache_config(&self, config: CacheConfig) -> Result<()>;
    /// Each parameter's size in bytes, where the driver can tell (`cuFuncGetParamInfo`, 12.4+).
    fn param_sizes(&self) -> Option<Vec<usize>>;
    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
    fn max_active_blocks(&self, block_threads: u32, shared_mem: u32) -> Result<u32>;
    /// `cuOccupancyMaxPotentialBlockSize`: `(min grid size, block size)`.
    fn suggested_block_size(&self, shared_mem: u32, block_limit: u32) -> Result<(u32, u32)>;
    /// `cuOccupancyMaxPotentialClusterSize` for `launch`'s block and shared memory.
    fn max_potential_cluster_size(&self, launch: &Launch) -> Result<u32>;
    /// `cuOccupancyMaxActiveClusters` for `launch`'s shape and cluster.
    fn max_active_clusters(&self, launch: &Launch) -> Result<u32>;
    fn as_any(&self) -> &dyn Any;
}

/// A kernel's attributes (`CUfunction_attribute`), by the names cuda.core gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncAttr {
    MaxThreadsPerBlock,
    SharedSizeBytes,
    ConstSizeBytes,
    LocalSizeBytes,
    NumRegs,
    PtxVersion,
    BinaryVersion,
    CacheModeCa,
    MaxDynamicSharedSizeBytes,
    PreferredSharedMemoryCarveout,
    ClusterSizeMustBeSet,
    RequiredClusterWidth,
    RequiredClusterHeight,
    RequiredClusterDepth,
    NonPortableClusterSizeAllowed,
    ClusterSchedulingPolicyPreference,
}

impl FuncAttr {
    /// Every attribute with its JS name, in the driver's order.
    pub const ALL: [(FuncAttr, &'static str); 16] = [
        (FuncAttr::MaxThreadsPerBlock, "maxThreadsPerBlock"),
        (FuncAttr::SharedSizeBytes, "sharedSizeBytes"),
        (FuncAttr::ConstSizeBytes, "constSizeBytes"),
        (FuncAttr::LocalSizeBytes, "localSizeBytes"),
        (FuncAttr::NumRegs, "numRegs"),
        (FuncAttr::PtxVersion, "ptxVersion"),
        (FuncAttr::BinaryVersion, "binaryVersion"),
        (FuncAttr::CacheModeCa, "cacheModeCa"),
        (FuncAttr::MaxDynamicSharedSizeBytes, "maxDynamicSharedSizeBytes"),
        (FuncAttr::PreferredSharedMemoryCarveout, "preferredSharedMemoryCarveout"),
        (FuncAttr::ClusterSizeMustBeSet, "clusterSizeMustBeSet"),
        (FuncAttr::RequiredClusterWidth, "requiredClusterWidth"),
        (FuncAttr::RequiredClusterHeight, "requiredClusterHeight"),
        (FuncAttr::RequiredClusterDepth, "requiredClusterDepth"),
        (FuncAttr::NonPortableClusterSizeAllowed, "nonPortableClusterSizeAllowed"),
        (FuncAttr::ClusterSchedulingPolicyPreference, "clusterSchedulingPolicyPreference"),
    ];

    /// The attribute named `name` (its JS name).
    pub fn by_name(name: &str) -> Option<FuncAttr> {
        FuncAttr::ALL.iter().find(|(_, n)| *n == name).map(|&(a, _)| a)
    }

    /// Whether `cuFuncSetAttribute` accepts it.
    pub fn settable(self) -> bool {
        matches!(
            self,
            FuncAttr::MaxDynamicSharedSizeBytes
                | FuncAttr::PreferredSharedMemoryCarveout
                | FuncAttr::RequiredClusterWidth
                | FuncAttr::RequiredClusterHeight
                | FuncAttr::RequiredClusterDepth
                | FuncAttr::NonPortableClusterSizeAllowed
                | FuncAttr::ClusterSchedulingPolicyPreference
        )
    }
}

/// A kernel's preferred split of on-chip memory between L1 and shared memory (`CUfunc_cache`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheConfig {
    PreferNone,
    PreferShared,
    PreferL1,
    PreferEqual,
}

impl CacheConfig {
    pub const ALL: [(CacheConfig, &'static str); 4] = [
        (CacheConfig::PreferNone, "preferNone"),
        (CacheConfig::PreferShared, "preferShared"),
        (CacheConfig::PreferL1, "preferL1"),
        (CacheConfig::PreferEqual, "preferEqual"),
    ];
}

/// A kernel launch: grid and block dimensions, dynamic shared memory, each argument's bytes,
/// and the launch attributes (cuda.core's `LaunchConfig`).
pub struct Launch<'a> {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_mem: u32,
    pub args: &'a [&'a [u8]],
    /// All blocks resident at once, so grid-wide sync works (`CU_LAUNCH_ATTRIBUTE_COOPERATIVE`).
    pub cooperative: bool,
    /// Thread-block cluster dimensions (sm_90+); `[0, 0, 0]` for none.
    pub cluster: [u32; 3],
    /// Programmatic dependent launch: this kernel may start before the previous one on the
    /// stream ends (`CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`).
    pub programmatic: bool,
}

impl<'a> Launch<'a> {
    /// A plain launch: no attributes.
    pub fn plain(grid: [u32; 3], block: [u32; 3], shared_mem: u32, args: &'a [&'a [u8]]) -> Launch<'a> {
        Launch { grid, block, shared_mem, args, cooperative: false, cluster: [0; 3], programmatic: false }
    }
    /// Whether the launch needs `cuLaunchKernelEx` (it has attributes).
    pub fn has_attributes(&self) -> bool {
        self.cooperative || self.programmatic || self.cluster != [0; 3]
    }
}

/// An instantiated graph (`CUgraphExec`, with the `CUgraph` it came from).
pub trait GraphOps: Send + Sync + 'static {
    fn to_dot(&self) -> Result<String>;
    /// `cuGraphExecUpdate` from another capture of the same topology.
    fn update(&self, from: &dyn GraphOps) -> Result<()>;
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
