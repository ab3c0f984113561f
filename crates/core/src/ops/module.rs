//! Loaded modules and their kernels at the seam, and the launch a backend is given.

use crate::error::Result;
use std::any::Any;
use std::sync::Arc;

/// What a backend does to load code.
pub trait Modules: Send + Sync + 'static {
    /// Loads a cubin or PTX image into the device's context (`cuModuleLoadData`).
    fn load(&self, ordinal: usize, image: &[u8]) -> Result<Box<dyn ModuleOps>>;
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
