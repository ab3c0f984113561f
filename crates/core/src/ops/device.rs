//! Devices at the seam: what a backend says of each device, and the data it returns.

use crate::driver_sys::CUdevice_attribute as A;
use crate::error::Result;

/// What a backend does for devices. Each method takes device ordinals already checked against
/// `count()`.
pub trait DeviceOps: Send + Sync + 'static {
    fn count(&self) -> usize;
    fn props(&self, ordinal: usize) -> Result<DeviceProps>;
    fn mem_info(&self, ordinal: usize) -> Result<MemInfo>;
    /// Waits for all work on the device (`cuCtxSynchronize`).
    fn synchronize(&self, ordinal: usize) -> Result<()>;
    /// `(least, greatest)`: lower numbers are higher priorities (`cuCtxGetStreamPriorityRange`).
    fn priority_range(&self, ordinal: usize) -> Result<(i32, i32)>;
    /// The device's 16-byte UUID (`cuDeviceGetUuid_v2`).
    fn uuid(&self, ordinal: usize) -> Result<[u8; 16]>;
    /// The device's PCI address as `domain:bus:device.function` in hex (`cuDeviceGetPCIBusId`).
    fn pci_bus_id(&self, ordinal: usize) -> Result<String>;
    /// Whether `ordinal` can map `peer`'s memory (`cuDeviceCanAccessPeer`); `ordinal != peer`.
    fn can_access_peer(&self, ordinal: usize, peer: usize) -> Result<bool>;
    /// Lets (or stops) `ordinal`'s context reach `peer`'s memory (`cuCtxEnablePeerAccess` /
    /// `cuCtxDisablePeerAccess`). Already so is not an error; the pair is checked by the caller.
    fn set_peer_access(&self, ordinal: usize, peer: usize, on: bool) -> Result<()>;
    /// `cuProfilerStart` / `cuProfilerStop` (the simulator only records it).
    fn profiler(&self, on: bool) -> Result<()>;
    /// A limit of the device's primary context (`cuCtxGetLimit`).
    fn get_limit(&self, ordinal: usize, limit: Limit) -> Result<u64>;
    /// Asks for a limit (`cuCtxSetLimit`): the device may round or clamp it, and refuses what it
    /// cannot do (`CUDA_ERROR_INVALID_VALUE`, `CUDA_ERROR_UNSUPPORTED_LIMIT`). The model has
    /// checked the documented ranges.
    fn set_limit(&self, ordinal: usize, limit: Limit, value: u64) -> Result<()>;
}

/// A context limit (`CUlimit`, by its driver value), named as CuPy's `cudaLimit*` in camelCase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    StackSize = 0,
    PrintfFifoSize = 1,
    MallocHeapSize = 2,
    DevRuntimeSyncDepth = 3,
    DevRuntimePendingLaunchCount = 4,
    MaxL2FetchGranularity = 5,
    PersistingL2CacheSize = 6,
}

impl Limit {
    pub const NAMES: [(&'static str, Limit); 7] = [
        ("stackSize", Limit::StackSize),
        ("printfFifoSize", Limit::PrintfFifoSize),
        ("mallocHeapSize", Limit::MallocHeapSize),
        ("devRuntimeSyncDepth", Limit::DevRuntimeSyncDepth),
        ("devRuntimePendingLaunchCount", Limit::DevRuntimePendingLaunchCount),
        ("maxL2FetchGranularity", Limit::MaxL2FetchGranularity),
        ("persistingL2CacheSize", Limit::PersistingL2CacheSize),
    ];

    /// The limit of a name; an unknown one is a `TypeError` naming every known one.
    pub fn parse(name: &str) -> Result<Limit> {
        Limit::NAMES.iter().find(|(n, _)| *n == name).map(|&(_, l)| l).ok_or_else(|| {
            let all: Vec<_> = Limit::NAMES.iter().map(|(n, _)| format!("'{n}'")).collect();
            crate::error::Error::type_error(format!("no device limit named '{name}': the limits are {}", all.join(", ")))
        })
    }

    pub fn name(self) -> &'static str {
        Limit::NAMES[self as usize].0
    }
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
    ("maxPersistingL2CacheSize", A::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE),
];
