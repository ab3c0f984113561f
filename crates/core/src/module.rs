//! Kernels compiled at run time or loaded from PTX or cubin (CuPy's `RawModule` / `RawKernel`).

use crate::error::{Code, Error, Result};
use crate::memory::DeviceMemory;
use crate::ops::{AllocOps, FunctionOps, HostFn, ModuleOps};
use crate::runtime;
use crate::stream::Stream;
use std::sync::Arc;

// The seam's data (`ops.rs`), re-exported here for the model's users.
pub use crate::ops::{CacheConfig, FuncAttr, Launch};

pub struct Module {
    ops: Arc<dyn ModuleOps>,
    device: usize,
}

impl Module {
    /// Loads `image` (a cubin, or PTX text with its NUL) on `device`.
    pub fn load(device: usize, image: &[u8]) -> Result<Module> {
        if image.is_empty() {
            return Err(Error::range("a module image cannot be empty"));
        }
        Ok(Module { ops: Arc::from(runtime()?.backend.modules().load(device, image)?), device })
    }

    /// The `__device__` or `__constant__` variable `name` as device memory that keeps the module
    /// loaded (CuPy's `RawModule.get_global`); freeing it leaves the variable alone.
    pub fn global(&self, name: &str) -> Result<DeviceMemory> {
        if name.is_empty() || name.contains('\0') {
            return Err(Error::type_error("a variable name must be non-empty and contain no NUL byte"));
        }
        let (ptr, size) = self.ops.global(name)?;
        Ok(DeviceMemory::from_ops(Box::new(Global { ptr, _module: self.ops.keep_alive() }), self.device, size))
    }

    /// The device the module is loaded on.
    pub fn device(&self) -> usize {
        self.device
    }

    /// The backend's module (texture references are looked up in it: `texture.rs`).
    pub(crate) fn module_ops(&self) -> &Arc<dyn ModuleOps> {
        &self.ops
    }

    pub fn function(&self, name: &str) -> Result<Function> {
        if name.is_empty() || name.contains('\0') {
            return Err(Error::type_error("a kernel name must be non-empty and contain no NUL byte"));
        }
        Ok(Function {
            ops: self.ops.function(name)?,
            module: self.ops.keep_alive(),
            device: self.device,
            name: name.to_string(),
            params: std::sync::OnceLock::new(),
        })
    }
}

/// A module's variable, seen as an allocation: its address, and its module kept loaded.
struct Global {
    ptr: u64,
    _module: Arc<dyn std::any::Any + Send + Sync>,
}

impl AllocOps for Global {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn kind(&self) -> crate::ops::AllocKind {
        crate::ops::AllocKind::ModuleGlobal
    }
    fn device(&self) -> Option<usize> {
        None
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

pub struct Function {
    ops: Box<dyn FunctionOps>,
    /// Its module, for a graph that captures a launch to keep loaded (`Stream::launch_kernel`).
    module: Arc<dyn std::any::Any + Send + Sync>,
    device: usize,
    name: String,
    /// The parameters' sizes, asked of the driver once: a kernel's parameters never change,
    /// and asking (one call per parameter, and a failing one to end) cost microseconds a launch.
    params: std::sync::OnceLock<Option<Vec<usize>>>,
}

impl Function {
    pub fn device(&self) -> usize {
        self.device
    }
    pub fn attribute(&self, a: FuncAttr) -> Result<i32> {
        self.ops.attribute(a)
    }
    pub fn set_max_dynamic_shared(&self, bytes: i32) -> Result<()> {
        self.set_attribute(FuncAttr::MaxDynamicSharedSizeBytes, bytes)
    }
    /// Sets one of the settable attributes (a TypeError names them for any other).
    pub fn set_attribute(&self, a: FuncAttr, value: i32) -> Result<()> {
        check_settable(a, value)?;
        self.ops.set_attribute(a, value)
    }
    pub fn set_cache_config(&self, c: CacheConfig) -> Result<()> {
        self.ops.set_cache_config(c)
    }
    /// Blocks of `block_threads` threads and `shared_mem` dynamic bytes that fit on one
    /// multiprocessor at once (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).
    pub fn max_active_blocks(&self, block_threads: u32, shared_mem: u32) -> Result<u32> {
        check_occupancy_args(self.device, block_threads, shared_mem)?;
        self.ops.max_active_blocks(block_threads, shared_mem)
    }
    /// `(min grid size, block size)` for the most occupancy (`cuOccupancyMaxPotentialBlockSize`);
    /// `block_limit` 0 means the kernel's own limit.
    pub fn suggested_block_size(&self, shared_mem: u32, block_limit: u32) -> Result<(u32, u32)> {
        check_occupancy_args(self.device, block_limit.max(1), shared_mem)?;
        self.ops.suggested_block_size(shared_mem, block_limit)
    }
    /// The largest cluster `launch`'s block and shared memory allow (`cuOccupancyMaxPotentialClusterSize`).
    pub fn max_potential_cluster_size(&self, launch: &Launch) -> Result<u32> {
        check_clusters_supported(self.device)?;
        check_shape(self.device, &Launch { cluster: [0; 3], ..*launch })?;
        self.ops.max_potential_cluster_size(launch)
    }
    /// Clusters of `launch`'s shape that can be resident at once (`cuOccupancyMaxActiveClusters`).
    pub fn max_active_clusters(&self, launch: &Launch) -> Result<u32> {
        if launch.cluster == [0; 3] {
            return Err(Error::type_error("maxActiveClusters needs a launch with cluster dimensions"));
        }
        check_shape(self.device, launch)?;
        self.ops.max_active_clusters(launch)
    }
    pub fn param_sizes(&self) -> Option<&[usize]> {
        self.params.get_or_init(|| self.ops.param_sizes()).as_deref()
    }

    /// Launches on `stream` after checking the shape against the device's limits and the
    /// arguments against the kernel's parameters, where the driver reports them: a mismatch is a
    /// RangeError or TypeError, before the launch.
    pub fn launch(&self, stream: &Stream, launch: &Launch) -> Result<()> {
        check_shape(self.device, launch)?;
        if launch.cooperative {
            let [bx, by, bz] = launch.block;
            check_cooperative(self.device, launch, self.ops.max_active_blocks(bx * by * bz, launch.shared_mem)?)?;
        }
        if stream.device() != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_HANDLE,
                format!("kernel {} belongs to device {}, the stream to device {}", self.name, self.device, stream.device()),
            ));
        }
        if let Some(sizes) = self.param_sizes() {
            if sizes.len() != launch.args.len() {
                return Err(Error::type_error(format!(
                    "kernel {} takes {} arguments, {} given",
                    self.name,
                    sizes.len(),
                    launch.args.len()
                )));
            }
            for (i, (want, got)) in sizes.iter().zip(launch.args).enumerate() {
                if *want != got.len() {
                    return Err(Error::type_error(format!(
                        "argument {i} of kernel {} is {want} bytes wide, but a {}-byte value was given",
                        self.name,
                        got.len()
                    )));
                }
            }
        }
        stream.launch_kernel(&*self.ops, launch, &self.module)
    }
}

/// A device's launch limits, read once.
struct Limits {
    block: [u64; 3],
    grid: [u64; 3],
    threads: u64,
    shared: u64,
    /// The dynamic shared memory a block gets without opting in.
    shared_default: u64,
    sms: u64,
    cc_major: i32,
    cooperative: bool,
    sm_threads: u64,
    sm_blocks: u64,
    sm_shared: u64,
    warp: u64,
}

fn limits(device: usize) -> Result<&'static Limits> {
    static ALL: std::sync::OnceLock<Box<[std::sync::OnceLock<Limits>]>> = std::sync::OnceLock::new();
    let backend = &runtime()?.backend;
    let all = ALL.get_or_init(|| (0..backend.devices().count()).map(|_| std::sync::OnceLock::new()).collect());
    let slot = all.get(device).ok_or_else(|| Error::cuda(Code::CUDA_ERROR_INVALID_DEVICE, format!("no device {device}")))?;
    if let Some(l) = slot.get() {
        return Ok(l);
    }
    let props = backend.devices().props(device)?;
    let get = |k: &str| props.attributes.iter().find(|(n, _)| *n == k).map_or(0, |&(_, v)| v.max(0) as u64);
    Ok(slot.get_or_init(|| Limits {
        block: [get("maxBlockDimX"), get("maxBlockDimY"), get("maxBlockDimZ")],
        grid: [get("maxGridDimX"), get("maxGridDimY"), get("maxGridDimZ")],
        threads: get("maxThreadsPerBlock"),
        shared: get("maxSharedMemoryPerBlockOptin").max(get("maxSharedMemoryPerBlock")),
        shared_default: get("maxSharedMemoryPerBlock"),
        sms: get("multiProcessorCount"),
        cc_major: props.cc_major,
        cooperative: get("cooperativeLaunch") != 0,
        sm_threads: get("maxThreadsPerMultiProcessor"),
        sm_blocks: get("maxBlocksPerMultiprocessor"),
        sm_shared: get("maxSharedMemoryPerMultiprocessor"),
        warp: get("warpSize").max(1),
    }))
}

/// Checks a launch's grid, block and shared memory against `device`'s limits (a RangeError
/// that says which limit), for both backends, before anything is launched.
pub fn check_shape(device: usize, launch: &Launch) -> Result<()> {
    let l = limits(device)?;
    for (what, dims, max) in [("grid", launch.grid, l.grid), ("block", launch.block, l.block)] {
        for (axis, (&v, &m)) in ["x", "y", "z"].iter().zip(dims.iter().zip(max.iter())) {
            if v == 0 {
                return Err(Error::range(format!("{what} {axis} must be at least 1")));
            }
            if m != 0 && v as u64 > m {
                return Err(Error::range(format!("{what} {axis} is {v}, but device {device} allows at most {m}")));
            }
        }
    }
    let [bx, by, bz] = launch.block.map(u64::from);
    let threads = bx * by * bz;
    if l.threads != 0 && threads > l.threads {
        return Err(Error::range(format!(
            "a block of {bx}×{by}×{bz} = {threads} threads is more than device {device} allows ({})",
            l.threads
        )));
    }
    if l.shared != 0 && launch.shared_mem as u64 > l.shared {
        return Err(Error::range(format!(
            "{} bytes of dynamic shared memory is more than device {device} allows a block ({})",
            launch.shared_mem, l.shared
        )));
    }
    if launch.cluster != [0; 3] {
        check_clusters_supported(device)?;
        let mut size = 1u64;
        for (axis, (&c, &g)) in ["x", "y", "z"].iter().zip(launch.cluster.iter().zip(launch.grid.iter())) {
            if c == 0 {
                return Err(Error::range(format!("cluster {axis} must be at least 1")));
            }
            if g % c != 0 {
                return Err(Error::range(format!("grid {axis} ({g}) must be a multiple of cluster {axis} ({c})")));
            }
            size *= c as u64;
        }
        if size > MAX_CLUSTER {
            return Err(Error::range(format!("a cluster of {size} blocks is more than any device allows ({MAX_CLUSTER}; 8 is portable)")));
        }
    }
    if launch.cooperative && !l.cooperative {
        return Err(Error::cuda(Code::CUDA_ERROR_NOT_SUPPORTED, format!("device {device} does not support cooperative launches")));
    }
    Ok(())
}

/// The most blocks a cluster can have (with the non-portable size allowed; 8 is portable).
const MAX_CLUSTER: u64 = 16;

fn check_clusters_supported(device: usize) -> Result<()> {
    let l = limits(device)?;
    if l.cc_major < 9 {
        return Err(Error::cuda(
            Code::CUDA_ERROR_NOT_SUPPORTED,
            format!("thread-block clusters need compute capability 9.0 or later; device {device} is {}.x", l.cc_major),
        ));
    }
    Ok(())
}

/// A cooperative launch's blocks must all be resident at once: at most `per_sm` on each of the
/// device's multiprocessors (the driver's `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`, caught first).
pub fn check_cooperative(device: usize, launch: &Launch, per_sm: u32) -> Result<()> {
    let l = limits(device)?;
    let blocks = launch.grid.iter().map(|&g| g as u64).product::<u64>();
    let most = per_sm as u64 * l.sms;
    if blocks > most {
        return Err(Error::range(format!(
            "a cooperative launch of {blocks} blocks is more than device {device} can hold at once ({per_sm} a multiprocessor × {} = {most})",
            l.sms
        )));
    }
    Ok(())
}

/// Checks a launch of a kernel the simulator runs on the host against `device`'s limits, as a
/// launch does, and a cooperative one against the simulated occupancy.
pub fn check_simulated_shape(device: usize, launch: &Launch) -> Result<()> {
    check_shape(device, launch)?;
    if launch.cooperative {
        let [bx, by, bz] = launch.block;
        check_cooperative(device, launch, simulated_max_active_blocks(device, bx * by * bz, launch.shared_mem)?)?;
    }
    Ok(())
}

fn check_occupancy_args(device: usize, block_threads: u32, shared_mem: u32) -> Result<()> {
    let l = limits(device)?;
    if block_threads == 0 || (l.threads != 0 && block_threads as u64 > l.threads) {
        return Err(Error::range(format!("blockSize must be 1 to {}, got {block_threads}", l.threads)));
    }
    if l.shared != 0 && shared_mem as u64 > l.shared {
        return Err(Error::range(format!(
            "{shared_mem} bytes of dynamic shared memory is more than device {device} allows a block ({})",
            l.shared
        )));
    }
    Ok(())
}

pub fn check_settable(a: FuncAttr, value: i32) -> Result<()> {
    if !a.settable() {
        let names: Vec<&str> = FuncAttr::ALL.iter().filter(|(a, _)| a.settable()).map(|&(_, n)| n).collect();
        return Err(Error::type_error(format!("this attribute is read-only; the settable ones are {}", names.join(", "))));
    }
    if value < 0 {
        return Err(Error::range(format!("an attribute's value must be non-negative, got {value}")));
    }
    if a == FuncAttr::PreferredSharedMemoryCarveout && value > 100 {
        return Err(Error::range(format!("preferredSharedMemoryCarveout is a percentage (0 to 100), got {value}")));
    }
    Ok(())
}

/// The simulator's occupancy, where no compiled kernel can be asked: the device's limits on
/// threads, blocks and shared memory a multiprocessor, with the block's threads rounded up to
/// whole warps and no register limit (a simulated kernel uses none).
pub fn simulated_max_active_blocks(device: usize, block_threads: u32, shared_mem: u32) -> Result<u32> {
    check_occupancy_args(device, block_threads, shared_mem)?;
    let l = limits(device)?;
    let threads = (block_threads as u64).div_ceil(l.warp) * l.warp;
    let mut n = l.sm_threads / threads;
    if l.sm_blocks != 0 {
        n = n.min(l.sm_blocks);
    }
    if shared_mem != 0 && l.sm_shared != 0 {
        n = n.min(l.sm_shared / shared_mem as u64);
    }
    Ok(n as u32)
}

/// The simulator's suggested block size: the largest whole-warp block (up to `block_limit`, or
/// the device's limit for 0) that keeps the most threads of a multiprocessor busy, and the grid
/// that fills every multiprocessor with it.
pub fn simulated_suggested_block_size(device: usize, shared_mem: u32, block_limit: u32) -> Result<(u32, u32)> {
    check_occupancy_args(device, block_limit.max(1), shared_mem)?;
    let l = limits(device)?;
    let limit = if block_limit == 0 { l.threads } else { block_limit as u64 };
    let (mut best, mut best_threads, mut best_blocks) = (0u64, 0u64, 0u64);
    let mut b = l.warp;
    while b <= limit {
        let blocks = simulated_max_active_blocks(device, b as u32, shared_mem)? as u64;
        if blocks * b >= best_threads && blocks > 0 {
            (best, best_threads, best_blocks) = (b, blocks * b, blocks);
        }
        b += l.warp;
    }
    Ok(((best_blocks * l.sms) as u32, best as u32))
}

/// The simulator's largest cluster: 8 (portable) where the block fits, as on Hopper.
pub fn simulated_max_potential_cluster_size(device: usize, launch: &Launch) -> Result<u32> {
    check_clusters_supported(device)?;
    check_shape(device, &Launch { cluster: [0; 3], ..*launch })?;
    let [bx, by, bz] = launch.block;
    Ok(if simulated_max_active_blocks(device, bx * by * bz, launch.shared_mem)? == 0 { 0 } else { 8 })
}

/// The simulator's answer to `cuOccupancyMaxActiveClusters`: the shape is checked as a launch's,
/// then there is no cluster scheduler to ask.
pub fn simulated_max_active_clusters(device: usize, launch: &Launch) -> Result<u32> {
    if launch.cluster == [0; 3] {
        return Err(Error::type_error("maxActiveClusters needs a launch with cluster dimensions"));
    }
    check_simulated_shape(device, launch)?;
    Err(Error::cuda(Code::CUDA_ERROR_NOT_SUPPORTED, "the simulator has no cluster scheduler to ask: maxActiveClusters needs a GPU"))
}

/// The simulator's answer to `cuModuleGetGlobal`: it loads no modules, so a variable has no
/// device memory there.
pub fn simulated_global(name: &str) -> Result<DeviceMemory> {
    Err(Error::cuda(
        Code::CUDA_ERROR_NOT_SUPPORTED,
        format!("the simulator loads no modules, so the variable {name} has no device memory there: getGlobal needs a GPU"),
    ))
}

/// What [`launch_simulated`] did with a simulated kernel's host implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulated {
    /// Queued in stream order: it runs once the stream reaches it.
    Queued,
    /// Due now, on the caller's thread: the stream's earlier work is done (the WebAssembly
    /// build, which has no threads to queue it on).
    RunNow,
}

/// Launches the kernel `name` the simulator runs on the host on `stream`: `launch`'s shape is
/// checked as a launch's (a cooperative one against the simulated occupancy); `host` gives the
/// host function that runs its implementation (`None`: the kernel has none, an error), queued in
/// stream order, or, where there are no threads (WebAssembly), after a synchronize, by the caller.
pub fn launch_simulated(stream: &Stream, launch: &Launch, name: &str, host: Option<impl FnOnce() -> Result<HostFn>>) -> Result<Simulated> {
    check_simulated_shape(stream.device(), launch)?;
    let Some(host) = host else {
        return Err(Error::cuda(
            Code::CUDA_ERROR_NOT_SUPPORTED,
            format!(
                "the simulator cannot run the compiled kernel {name}: give it a host implementation, new RawKernel(code, name, {{ simulate(args, grid, block) {{ ... }} }})"
            ),
        ));
    };
    // Asked as `isCapturing()` asks (the legacy stream's rule included).
    if stream.capture_status()? != crate::capture::CaptureStatus::None {
        return Err(Error::cuda(
            Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            format!("a simulated kernel ({name}) cannot be captured into a graph"),
        ));
    }
    if cfg!(target_family = "wasm") {
        drop(host);
        stream.synchronize()?;
        return Ok(Simulated::RunNow);
    }
    stream.launch_simulated(host)?;
    Ok(Simulated::Queued)
}

/// The simulator's answer to `cuFuncGetAttribute`: a kernel it runs on the host uses no
/// registers and no static, constant or local memory, and has no preferences; its two limits
/// are `device`'s (threads a block, and the dynamic shared memory a block gets).
pub fn simulated_attribute(device: usize, a: FuncAttr) -> Result<i32> {
    let l = limits(device)?;
    let clamp = |v: u64| i32::try_from(v).unwrap_or(i32::MAX);
    Ok(match a {
        FuncAttr::MaxThreadsPerBlock => clamp(l.threads),
        FuncAttr::MaxDynamicSharedSizeBytes => clamp(l.shared_default),
        FuncAttr::PreferredSharedMemoryCarveout => -1,
        _ => 0,
    })
}

/// A kernel as its attribute and occupancy queries see it: loaded on its device, or, on the
/// simulator (which loads no code), the host implementation it runs in a kernel's place on a
/// device. What the simulator answers is decided here, once for every query.
#[derive(Clone, Copy)]
pub enum Kernel<'a> {
    Loaded(&'a Function),
    Simulated(usize),
}

impl Kernel<'_> {
    /// `cuFuncGetAttribute`; see [`simulated_attribute`].
    pub fn attribute(self, a: FuncAttr) -> Result<i32> {
        match self {
            Kernel::Loaded(f) => f.attribute(a),
            Kernel::Simulated(device) => simulated_attribute(device, a),
        }
    }
    /// `cuFuncSetAttribute`, checked; the simulator keeps nothing.
    pub fn set_attribute(self, a: FuncAttr, value: i32) -> Result<()> {
        match self {
            Kernel::Loaded(f) => f.set_attribute(a, value),
            Kernel::Simulated(_) => check_settable(a, value),
        }
    }
    /// `cuFuncSetCacheConfig`; the simulator keeps nothing.
    pub fn set_cache_config(self, c: CacheConfig) -> Result<()> {
        match self {
            Kernel::Loaded(f) => f.set_cache_config(c),
            Kernel::Simulated(_) => Ok(()),
        }
    }
    /// See [`Function::max_active_blocks`] and [`simulated_max_active_blocks`].
    pub fn max_active_blocks(self, block_threads: u32, shared_mem: u32) -> Result<u32> {
        match self {
            Kernel::Loaded(f) => f.max_active_blocks(block_threads, shared_mem),
            Kernel::Simulated(device) => simulated_max_active_blocks(device, block_threads, shared_mem),
        }
    }
    /// See [`Function::suggested_block_size`] and [`simulated_suggested_block_size`].
    pub fn suggested_block_size(self, shared_mem: u32, block_limit: u32) -> Result<(u32, u32)> {
        match self {
            Kernel::Loaded(f) => f.suggested_block_size(shared_mem, block_limit),
            Kernel::Simulated(device) => simulated_suggested_block_size(device, shared_mem, block_limit),
        }
    }
    /// See [`Function::max_potential_cluster_size`] and [`simulated_max_potential_cluster_size`].
    pub fn max_potential_cluster_size(self, launch: &Launch) -> Result<u32> {
        match self {
            Kernel::Loaded(f) => f.max_potential_cluster_size(launch),
            Kernel::Simulated(device) => simulated_max_potential_cluster_size(device, launch),
        }
    }
    /// See [`Function::max_active_clusters`] and [`simulated_max_active_clusters`].
    pub fn max_active_clusters(self, launch: &Launch) -> Result<u32> {
        match self {
            Kernel::Loaded(f) => f.max_active_clusters(launch),
            Kernel::Simulated(device) => simulated_max_active_clusters(device, launch),
        }
    }
}

/// Whether a module's text declares a kernel `name`, where nothing is loaded to ask the driver
/// (the simulator): a name expression or a `__global__` function of CUDA C++ `source` (`name (`
/// after `__global__` in the same declaration), or a PTX `.entry` of `image`. A cubin or fatbin
/// image, or neither (LTO-IR, linked at load), may hold any name. Not declared is
/// `CUDA_ERROR_NOT_FOUND`, as the GPU's lookup (`cuModuleGetFunction`) answers.
pub fn check_declared(source: Option<&str>, name_expressions: &[String], image: Option<&[u8]>, name: &str) -> Result<()> {
    let declared = match (source, image) {
        (Some(code), _) => {
            name_expressions.iter().any(|e| e == name)
                || occurrences(code.as_bytes(), name.as_bytes()).any(|at| {
                    let start = code[..at].rfind([';', '{', '}']).map_or(0, |i| i + 1);
                    code[start..at].contains("__global__") && opens_call(code.as_bytes(), at + name.len())
                })
        }
        (None, Some(text)) if text.starts_with(b"\x7fELF") || text.starts_with(b"\x50\xed\x55\xba") => true,
        (None, Some(text)) => occurrences(text, name.as_bytes()).any(|at| {
            let before = &text[at.saturating_sub(32)..at];
            let trimmed = before.trim_ascii_end();
            trimmed.len() < before.len() && trimmed.ends_with(b".entry") && opens_call(text, at + name.len())
        }),
        (None, None) => true,
    };
    if declared {
        return Ok(());
    }
    Err(Error::cuda(Code::CUDA_ERROR_NOT_FOUND, format!("the module declares no kernel named {name}")))
}

/// Where `name` starts in `text` as a whole identifier (no word character just before it).
fn occurrences<'a>(text: &'a [u8], name: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    (0..(if name.is_empty() { 0 } else { text.len() + 1 }).saturating_sub(name.len()))
        .filter(move |&at| text[at..].starts_with(name) && (at == 0 || !word(text[at - 1])))
}

/// Whether a `(` follows `from` in `text`, after white space only.
fn opens_call(text: &[u8], from: usize) -> bool {
    text.get(from..).is_some_and(|rest| rest.trim_ascii_start().first() == Some(&b'('))
}

/// A module file that cannot be read: `CUDA_ERROR_FILE_NOT_FOUND`, as `cuModuleLoad` answers.
pub fn unreadable_file(file: &str, why: &str) -> Error {
    Error::cuda(Code::CUDA_ERROR_FILE_NOT_FOUND, format!("cannot read the module file {file}: {why}"))
}

#[cfg(test)]
mod declared {
    use super::check_declared;

    #[test]
    fn a_kernel_is_declared_by_global_an_expression_or_an_entry() {
        let code = "__global__ void add(float* x) {}\nvoid helper(int) {}\n__global__\nvoid\tscale (float* x);";
        assert!(check_declared(Some(code), &[], None, "add").is_ok());
        assert!(check_declared(Some(code), &[], None, "scale").is_ok());
        assert!(check_declared(Some(code), &[], None, "helper").is_err(), "not __global__");
        assert!(check_declared(Some(code), &[], None, "dd").is_err(), "not a whole identifier");
        assert!(check_declared(Some(code), &["k<int>".into()], None, "k<int>").is_ok());
        let ptx = b".visible .entry fill(\n.param .u64 p) {}\0";
        assert!(check_declared(None, &[], Some(ptx), "fill").is_ok());
        assert!(check_declared(None, &[], Some(ptx), "p").is_err());
        assert!(check_declared(None, &[], Some(b"\x7fELF..."), "any").is_ok(), "a cubin may hold any name");
        assert!(check_declared(None, &[], None, "any").is_ok(), "LTO-IR may hold any name");
        let e = check_declared(Some(code), &[], None, "absent").unwrap_err();
        assert_eq!(e.to_string(), "the module declares no kernel named absent (CUDA_ERROR_NOT_FOUND)");
        assert!(check_declared(Some(""), &[], None, "").is_err());
    }
}
