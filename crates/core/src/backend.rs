//! The seam between the CUDA model and what runs it. A backend implements these traits (and
//! the per-concept ones in `ops.rs`, and each library's own in `ops/`, such as `ops::blas::BlasOps`);
//! which backend runs is `runtime.rs`'s business, not this file's.
//!
//! The seam names only itself (`backend.rs`, `ops.rs` and `ops/`), `error.rs` and the driver's
//! plain types: the data a backend takes and returns lives here, so that a backend never
//! imports a model file that calls `runtime()`.

use crate::driver_sys::CUdevice_attribute as A;
use crate::error::{Error, Result};
use crate::ops::blas::BlasOps;
use crate::ops::{AllocOps, EventOps, Location, ModuleOps, PinnedOps, StreamOps};

/// What a backend must do. Each method takes device ordinals already checked against
/// `device_count()`.
pub trait Backend: Send + Sync + 'static {
    fn device_count(&self) -> usize;
    fn device_props(&self, ordinal: usize) -> Result<DeviceProps>;
    fn mem_info(&self, ordinal: usize) -> Result<MemInfo>;
    /// Waits for all work on the device (`cuCtxSynchronize`).
    fn synchronize_device(&self, ordinal: usize) -> Result<()>;
    /// `(least, greatest)`: lower numbers are higher priorities (`cuCtxGetStreamPriorityRange`).
    fn priority_range(&self, ordinal: usize) -> Result<(i32, i32)>;
    fn stream_create(&self, ordinal: usize, nonblocking: bool, priority: i32) -> Result<Box<dyn StreamOps>>;
    fn stream_legacy(&self, ordinal: usize) -> Result<Box<dyn StreamOps>>;
    fn stream_per_thread(&self, ordinal: usize) -> Result<Box<dyn StreamOps>>;
    /// Wraps a foreign stream handle; also says whether it is non-blocking.
    fn stream_external(&self, ordinal: usize, handle: u64) -> Result<(Box<dyn StreamOps>, bool)>;
    /// A new event. `reuse`: a released one may be handed back instead (the cuda backend asks
    /// each kept event's state first, a call barred while a capture is under way, so the model
    /// passes false then).
    fn event_create(&self, ordinal: usize, flags: EventFlags, reuse: bool) -> Result<Box<dyn EventOps>>;
    /// Opens an interprocess event of another process (`cuIpcOpenEventHandle`).
    fn event_from_ipc(&self, ordinal: usize, handle: &[u8; 64]) -> Result<Box<dyn EventOps>>;
    /// Pinned host memory of `size` > 0 bytes (`cuMemHostAlloc`, portable), freed when dropped.
    fn host_alloc(&self, size: u64) -> Result<Box<dyn PinnedOps>>;
    /// An attribute of the device's stream-ordered pool (`cuMemPoolGetAttribute`).
    fn async_pool_get(&self, ordinal: usize, attr: PoolAttr) -> Result<u64>;
    /// Sets one (`cuMemPoolSetAttribute`): the release threshold, or a high-water mark to 0.
    fn async_pool_set(&self, ordinal: usize, attr: PoolAttr, value: u64) -> Result<()>;
    /// Releases the stream-ordered pool's unused memory (`cuMemPoolTrimTo(pool, 0)`).
    fn async_pool_trim(&self, ordinal: usize) -> Result<()>;
    /// cuBLAS and cuSOLVER (`ops/blas.rs` holds the trait; a new library brings its own).
    fn blas(&self) -> &dyn BlasOps;
    /// `cuProfilerStart` / `cuProfilerStop` (the simulator only records it).
    fn profiler(&self, on: bool) -> Result<()>;
    /// Lets go of host memory that queued copies held, wherever those copies have run (the
    /// simulator's holds go as its copies run: nothing to do).
    fn release_finished_holds(&self) {}
    /// Loads a cubin or PTX image into the device's context (`cuModuleLoadData`).
    fn module_load(&self, ordinal: usize, image: &[u8]) -> Result<Box<dyn ModuleOps>>;
    /// A device allocation of `size` > 0 bytes (`cuMemAlloc`), freed when dropped.
    fn alloc(&self, ordinal: usize, size: u64) -> Result<Box<dyn AllocOps>>;
    /// The device's 16-byte UUID (`cuDeviceGetUuid_v2`).
    fn uuid(&self, ordinal: usize) -> Result<[u8; 16]>;
    /// The device's PCI address as `domain:bus:device.function` in hex (`cuDeviceGetPCIBusId`).
    fn pci_bus_id(&self, ordinal: usize) -> Result<String>;
    /// Whether `ordinal` can map `peer`'s memory (`cuDeviceCanAccessPeer`); `ordinal != peer`.
    fn can_access_peer(&self, ordinal: usize, peer: usize) -> Result<bool>;
    /// Lets (or stops) `ordinal`'s context reach `peer`'s memory (`cuCtxEnablePeerAccess` /
    /// `cuCtxDisablePeerAccess`). Already so is not an error; the pair is checked by the caller.
    fn set_peer_access(&self, ordinal: usize, peer: usize, on: bool) -> Result<()>;
    /// NCCL (`ops/nccl.rs` owns the trait, `nccl.rs` the checked calls).
    fn nccl(&self) -> &dyn crate::ops::nccl::NcclOps;
    /// Managed memory of `size` > 0 bytes (`cuMemAllocManaged`; `global` attaches it to every
    /// stream, else to the host), freed when dropped.
    fn alloc_managed(&self, ordinal: usize, size: u64, global: bool) -> Result<Box<dyn AllocOps>>;
    /// What the driver knows of `ptr` (`cuPointerGetAttribute`): `CUDA_ERROR_INVALID_VALUE`
    /// for an address it does not know.
    fn pointer_attributes(&self, ptr: u64) -> Result<PointerAttributes>;
    /// Memory someone else allocated: the allocation holding `ptr` (known to the driver, on
    /// `ordinal`), never freed by us. Returns it and the offset of `ptr` in it.
    fn alloc_foreign(&self, ordinal: usize, ptr: u64) -> Result<(Box<dyn AllocOps>, u64)>;
    /// Advice on how managed memory `[ptr, ptr + len)` is used (`cuMemAdvise` v2).
    fn mem_advise(&self, ptr: u64, len: u64, advice: Advice, location: Location) -> Result<()>;
    /// The handle another process opens the allocation starting at `ptr` with (`cuIpcGetMemHandle`).
    fn ipc_mem_handle(&self, ordinal: usize, ptr: u64) -> Result<[u8; 64]>;
    /// Opens another process's allocation (`cuIpcOpenMemHandle`), closed when dropped; its size.
    fn ipc_open_mem(&self, ordinal: usize, handle: &[u8; 64]) -> Result<(Box<dyn AllocOps>, u64)>;
    /// Page-locks `len` > 0 bytes of host memory at `ptr` (`cuMemHostRegister`, portable);
    /// unregistered when dropped. The caller keeps the bytes alive longer than the result.
    fn host_register(&self, ptr: *mut u8, len: u64) -> Result<Box<dyn PinnedOps>>;
}

/// What `cuPointerGetAttribute` says an address is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryKind {
    Device,
    Host,
    Managed,
}

impl MemoryKind {
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Device => "device",
            MemoryKind::Host => "host",
            MemoryKind::Managed => "managed",
        }
    }
}

/// An address's device, kind, and the allocation holding it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointerAttributes {
    pub device: usize,
    pub kind: MemoryKind,
    pub base: u64,
    pub size: u64,
}

/// `CUmem_advise`, by its driver value (1 to 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    SetReadMostly = 1,
    UnsetReadMostly = 2,
    SetPreferredLocation = 3,
    UnsetPreferredLocation = 4,
    SetAccessedBy = 5,
    UnsetAccessedBy = 6,
}

impl Advice {
    pub const NAMES: [(&'static str, Advice); 6] = [
        ("setReadMostly", Advice::SetReadMostly),
        ("unsetReadMostly", Advice::UnsetReadMostly),
        ("setPreferredLocation", Advice::SetPreferredLocation),
        ("unsetPreferredLocation", Advice::UnsetPreferredLocation),
        ("setAccessedBy", Advice::SetAccessedBy),
        ("unsetAccessedBy", Advice::UnsetAccessedBy),
    ];

    pub fn parse(name: &str) -> Result<Advice> {
        Advice::NAMES.iter().find(|(n, _)| *n == name).map(|&(_, a)| a).ok_or_else(|| {
            let all: Vec<_> = Advice::NAMES.iter().map(|(n, _)| format!("'{n}'")).collect();
            Error::range(format!("advice must be one of {}, got '{name}'", all.join(", ")))
        })
    }
}

/// The attributes of a device's stream-ordered pool that `async_pool.rs` reads and sets
/// (`CUmemPool_attribute`; the `*_HIGH` ones can only be set to 0, which resets them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolAttr {
    ReleaseThreshold,
    ReservedCurrent,
    ReservedHigh,
    UsedCurrent,
    UsedHigh,
}

/// The fixed facts about one device (CuPy's `Device` properties and `attributes`).
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceProps {
    pub name: String,
    pub cc_major: i32,
    pub cc_minor: i32,
    pub total_memory: u64,
    /// `(camelCaseName, value)` in the order of [`ATTRIBUTES`].
    pub attributes: Vec<(&'static str, i64)>,
}

/// `{ free, total }` in bytes, as `cuMemGetInfo` reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemInfo {
    pub free: u64,
    pub total: u64,
}

/// The attributes a `Device` reports, by the camelCase form of the driver's name.
pub const ATTRIBUTES: &[(&str, A)] = &[
    ("multiProcessorCount", A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
    ("maxThreadsPerBlock", A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
    ("maxBlockDimX", A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
    ("maxBlockDimY", A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
    ("maxBlockDimZ", A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z),
    ("maxGridDimX", A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
    ("maxGridDimY", A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
    ("maxGridDimZ", A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z),
    ("warpSize", A::CU_DEVICE_ATTRIBUTE_WARP_SIZE),
    ("maxSharedMemoryPerBlock", A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
    ("maxSharedMemoryPerBlockOptin", A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
    ("maxSharedMemoryPerMultiprocessor", A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
    ("maxRegistersPerBlock", A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK),
    ("maxThreadsPerMultiProcessor", A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
    ("totalConstantMemory", A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY),
    ("clockRate", A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
    ("memoryClockRate", A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
    ("globalMemoryBusWidth", A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
    ("l2CacheSize", A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
    ("computeCapabilityMajor", A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
    ("computeCapabilityMinor", A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
    ("integrated", A::CU_DEVICE_ATTRIBUTE_INTEGRATED),
    ("canMapHostMemory", A::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY),
    ("concurrentKernels", A::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS),
    ("asyncEngineCount", A::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT),
    ("unifiedAddressing", A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING),
    ("managedMemory", A::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY),
    ("concurrentManagedAccess", A::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS),
    ("pciBusId", A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
    ("pciDeviceId", A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID),
    ("pciDomainId", A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
    ("eccEnabled", A::CU_DEVICE_ATTRIBUTE_ECC_ENABLED),
    ("computeMode", A::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE),
    ("kernelExecTimeout", A::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT),
    ("streamPrioritiesSupported", A::CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED),
    ("cooperativeLaunch", A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH),
    ("maxBlocksPerMultiprocessor", A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR),
    ("clusterLaunch", A::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH),
    ("memoryPoolsSupported", A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED),
];

/// How an event is made (`cuEventCreate`'s flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventFlags {
    /// The host blocks (instead of spinning) in `synchronize` (`CU_EVENT_BLOCKING_SYNC`).
    pub blocking: bool,
    pub disable_timing: bool,
    pub interprocess: bool,
}
