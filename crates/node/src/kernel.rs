//! Kernels of loaded modules: attributes, occupancy, and the hot `kernelLaunch`.

use crate::raw::{Bytes, Count, Func, Words};
use crate::stream;
use cuda_node_core::module::{self, CacheConfig, FuncAttr, Function, Kernel, Launch, Simulated};
use cuda_node_core::{runtime, Error};
use std::sync::Arc;

// The head of a launch shape, as the TS layer packs it (written once, in constants.rs).
use crate::constants::launch::{ARGS, BLOCK, CLUSTER, COOPERATIVE, FLAGS, GRID, HEAD, PROGRAMMATIC, SHARED_MEM};

/// The launch `shape` describes (the head above, then each argument's size), the arguments'
/// bytes in `args` in turn.
fn unpack<'a>(shape: &[u32], args: &'a [u8], parts: &'a mut [&'a [u8]]) -> cuda_node_core::Result<Launch<'a>> {
    let (head, sizes) = shape.split_at_checked(HEAD).ok_or_else(|| Error::range("the launch shape needs 12 numbers and the sizes"))?;
    let sizes = sizes.get(..head[ARGS] as usize).ok_or_else(|| Error::range("the launch shape lists fewer sizes than arguments"))?;
    let parts = &mut parts[..sizes.len()];
    let mut at = 0usize;
    for (&n, part) in sizes.iter().zip(parts.iter_mut()) {
        let end = at.checked_add(n as usize).ok_or_else(|| Error::range("argument sizes exceed the argument bytes"))?;
        *part = args.get(at..end).ok_or_else(|| Error::range("argument sizes exceed the argument bytes"))?;
        at = end;
    }
    Ok(with_head(head, parts))
}

fn with_head<'a>(head: &[u32], args: &'a [&'a [u8]]) -> Launch<'a> {
    Launch {
        grid: [head[GRID], head[GRID + 1], head[GRID + 2]],
        block: [head[BLOCK], head[BLOCK + 1], head[BLOCK + 2]],
        shared_mem: head[SHARED_MEM],
        args,
        cooperative: head[FLAGS] & COOPERATIVE != 0,
        programmatic: head[FLAGS] & PROGRAMMATIC != 0,
        cluster: [head[CLUSTER], head[CLUSTER + 1], head[CLUSTER + 2]],
    }
}

fn head(shape: &[u32]) -> cuda_node_core::Result<&[u32]> {
    shape.get(..HEAD).ok_or_else(|| Error::range("the launch shape needs 12 numbers and the sizes"))
}

crate::table!(FUNCTIONS: Arc<Function>, CUDA_ERROR_INVALID_HANDLE, "this kernel's module is gone");

crate::js_object! {
    /// A kernel's attributes on its device (`cuFuncGetAttribute`), every one the driver has.
    pub struct FunctionAttributes {
        max_threads_per_block: i32 = c"maxThreadsPerBlock",
        shared_size_bytes: i32 = c"sharedSizeBytes",
        const_size_bytes: i32 = c"constSizeBytes",
        local_size_bytes: i32 = c"localSizeBytes",
        num_regs: i32 = c"numRegs",
        ptx_version: i32 = c"ptxVersion",
        binary_version: i32 = c"binaryVersion",
        cache_mode_ca: i32 = c"cacheModeCa",
        max_dynamic_shared_size_bytes: i32 = c"maxDynamicSharedSizeBytes",
        preferred_shared_memory_carveout: i32 = c"preferredSharedMemoryCarveout",
        cluster_size_must_be_set: i32 = c"clusterSizeMustBeSet",
        required_cluster_width: i32 = c"requiredClusterWidth",
        required_cluster_height: i32 = c"requiredClusterHeight",
        required_cluster_depth: i32 = c"requiredClusterDepth",
        non_portable_cluster_size_allowed: i32 = c"nonPortableClusterSizeAllowed",
        cluster_scheduling_policy_preference: i32 = c"clusterSchedulingPolicyPreference",
    }
}

fn attr_named(name: &str) -> cuda_node_core::Result<FuncAttr> {
    FuncAttr::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = FuncAttr::ALL.iter().map(|&(_, n)| n).collect();
        Error::type_error(format!("no kernel attribute '{name}': the attributes are {}", names.join(", ")))
    })
}

crate::exports! {
    /// The kernel's attributes (`kernel` null: the simulator's kernel on `device`, as below).
    c"kernelAttributes" => fn kernel_attributes(_cx, kernel: Option<f64>, device: f64) -> FunctionAttributes {
        kernel_on(kernel, device, |k| attributes(|x| k.attribute(x)))
    }

    /// Raises (or lowers) the dynamic shared memory the kernel may use.
    c"kernelSetMaxDynamicSharedSize" => fn kernel_set_max_dynamic_shared_size(_cx, kernel: Option<f64>, device: f64, bytes: Count) -> () {
        let b = i32::try_from(bytes.0).map_err(|_| Error::range("too many bytes of shared memory"))?;
        kernel_on(kernel, device, |k| k.set_attribute(FuncAttr::MaxDynamicSharedSizeBytes, b))
    }

    /// Checks that `name` is a settable attribute and `value` fits it; throws otherwise.
    c"kernelCheckAttribute" => fn kernel_check_attribute(_cx, name: String, value: f64) -> () {
        let a = attr_named(&name)?;
        let v = attr_value(value)?;
        module::check_settable(a, v)
    }

    /// Sets a settable attribute (`cuFuncSetAttribute`) by its name.
    c"kernelSetAttribute" => fn kernel_set_attribute(_cx, kernel: Option<f64>, device: f64, name: String, value: f64) -> () {
        let a = attr_named(&name)?;
        let v = attr_value(value)?;
        kernel_on(kernel, device, |k| k.set_attribute(a, v))
    }

    /// Checks a cache preference's name; throws for any other.
    c"kernelCheckCacheConfig" => fn kernel_check_cache_config(_cx, config: String) -> () {
        cache_config(&config).map(|_| ())
    }

    /// Sets the kernel's cache preference (`cuFuncSetCacheConfig`).
    c"kernelSetCacheConfig" => fn kernel_set_cache_config(_cx, kernel: Option<f64>, device: f64, config: String) -> () {
        let c = cache_config(&config)?;
        kernel_on(kernel, device, |k| k.set_cache_config(c))
    }

    /// Each parameter's size, where the driver can tell; null otherwise.
    c"kernelParamSizes" => fn kernel_param_sizes(_cx, kernel: f64) -> Option<Vec<u32>> {
        with(kernel, |f| Ok(f.param_sizes().map(|v| v.iter().map(|&s| s as u32).collect())))
    }

    /// Blocks of `block_size` threads that fit on one multiprocessor at once.
    c"kernelMaxActiveBlocks" => fn kernel_max_active_blocks(_cx, kernel: Option<f64>, device: f64, block_size: u32, shared_mem: u32) -> u32 {
        kernel_on(kernel, device, |k| k.max_active_blocks(block_size, shared_mem))
    }

    /// `[minGridSize, blockSize]` for the most occupancy; `block_limit` 0: the kernel's limit.
    c"kernelSuggestedBlockSize" => fn kernel_suggested_block_size(_cx, kernel: Option<f64>, device: f64, shared_mem: u32, block_limit: u32) -> Vec<u32> {
        let (g, b) = kernel_on(kernel, device, |k| k.suggested_block_size(shared_mem, block_limit))?;
        Ok(vec![g, b])
    }

    /// The largest cluster the launch `shape`'s block and shared memory allow.
    c"kernelMaxPotentialClusterSize" => fn kernel_max_potential_cluster_size(_cx, kernel: Option<f64>, device: f64, shape: Words) -> u32 {
        let launch = with_head(head(shape.0)?, &[]);
        kernel_on(kernel, device, |k| k.max_potential_cluster_size(&launch))
    }

    /// Clusters of the launch `shape` that can be resident at once.
    c"kernelMaxActiveClusters" => fn kernel_max_active_clusters(_cx, kernel: Option<f64>, device: f64, shape: Words) -> u32 {
        let launch = with_head(head(shape.0)?, &[]);
        kernel_on(kernel, device, |k| k.max_active_clusters(&launch))
    }

    /// Launches `kernel` on `stream`. `shape`: the 12-number head (see `HEAD`), then each
    /// argument's size; `args`: the arguments' bytes in turn (the driver copies them at the launch).
    c"kernelLaunch" => fn kernel_launch(_cx, kernel: f64, stream: f64, shape: Words, args: Bytes) -> () {
        // The arguments' slices: on the stack for the usual launch (a launch allocates nothing).
        let count = shape.0.get(7).map_or(0, |&n| n as usize);
        let mut stack: [&[u8]; 16] = [&[]; 16];
        let mut heap: Vec<&[u8]> = Vec::new();
        let parts: &mut [&[u8]] = if count <= stack.len() {
            &mut stack
        } else {
            heap.resize(count.min(shape.0.len()), &[]);
            &mut heap
        };
        let launch = unpack(shape.0, args.0, parts)?;
        with(kernel, |f: &Arc<Function>| stream::with(stream, |s| f.launch(s, &launch)))
    }

    /// Launches the kernel `name` the simulator runs on the host on `stream` (see
    /// `module::launch_simulated`): `func` runs its host implementation (null: it has none).
    /// True where the caller runs `func` now (WebAssembly, after a synchronize done here).
    c"kernelLaunchSimulated" => fn kernel_launch_simulated(cx, stream: f64, shape: Words, name: String, func: Option<Func>) -> bool {
        let launch = with_head(head(shape.0)?, &[]);
        let done = stream::with(stream, |s| simulated(cx.env, s, &launch, &name, func))?;
        Ok(done == Simulated::RunNow)
    }
}

/// Runs `f` on the kernel `kernel` names, or, for null (the simulator, which loads no code), on
/// the kernel it simulates on `device`; a loaded kernel's own device is the one that counts.
fn kernel_on<R>(kernel: Option<f64>, device: f64, f: impl FnOnce(Kernel) -> cuda_node_core::Result<R>) -> cuda_node_core::Result<R> {
    match kernel {
        Some(k) => with(k, |func: &Arc<Function>| f(Kernel::Loaded(func))),
        None => f(Kernel::Simulated(runtime()?.ordinal(device)?)),
    }
}

#[cfg(not(target_family = "wasm"))]
fn simulated(
    env: napi::sys::napi_env,
    s: &cuda_node_core::Stream,
    launch: &Launch,
    name: &str,
    func: Option<Func>,
) -> cuda_node_core::Result<Simulated> {
    match func {
        Some(f) => crate::callbacks::launch_simulated(env, f.0, |make| module::launch_simulated(s, launch, name, Some(make))),
        None => module::launch_simulated(s, launch, name, None::<fn() -> cuda_node_core::Result<cuda_node_core::HostFn>>),
    }
}

// No threads: nothing is queued, the caller runs the implementation (`Simulated::RunNow`).
#[cfg(target_family = "wasm")]
fn simulated(
    _env: napi::sys::napi_env,
    s: &cuda_node_core::Stream,
    launch: &Launch,
    name: &str,
    func: Option<Func>,
) -> cuda_node_core::Result<Simulated> {
    let queue = || -> cuda_node_core::Result<cuda_node_core::HostFn> {
        Err(Error::cuda(cuda_node_core::Code::CUDA_ERROR_NOT_SUPPORTED, "the WebAssembly build queues no simulated kernel"))
    };
    module::launch_simulated(s, launch, name, func.map(|_| queue))
}

/// Every attribute, by `a`; the cluster ones are 0 where the driver has none.
fn attributes(a: impl Fn(FuncAttr) -> cuda_node_core::Result<i32>) -> cuda_node_core::Result<FunctionAttributes> {
    Ok(FunctionAttributes {
        max_threads_per_block: a(FuncAttr::MaxThreadsPerBlock)?,
        shared_size_bytes: a(FuncAttr::SharedSizeBytes)?,
        const_size_bytes: a(FuncAttr::ConstSizeBytes)?,
        local_size_bytes: a(FuncAttr::LocalSizeBytes)?,
        num_regs: a(FuncAttr::NumRegs)?,
        ptx_version: a(FuncAttr::PtxVersion)?,
        binary_version: a(FuncAttr::BinaryVersion)?,
        cache_mode_ca: a(FuncAttr::CacheModeCa)?,
        max_dynamic_shared_size_bytes: a(FuncAttr::MaxDynamicSharedSizeBytes)?,
        preferred_shared_memory_carveout: a(FuncAttr::PreferredSharedMemoryCarveout)?,
        cluster_size_must_be_set: a(FuncAttr::ClusterSizeMustBeSet).unwrap_or(0),
        required_cluster_width: a(FuncAttr::RequiredClusterWidth).unwrap_or(0),
        required_cluster_height: a(FuncAttr::RequiredClusterHeight).unwrap_or(0),
        required_cluster_depth: a(FuncAttr::RequiredClusterDepth).unwrap_or(0),
        non_portable_cluster_size_allowed: a(FuncAttr::NonPortableClusterSizeAllowed).unwrap_or(0),
        cluster_scheduling_policy_preference: a(FuncAttr::ClusterSchedulingPolicyPreference).unwrap_or(0),
    })
}

fn attr_value(v: f64) -> cuda_node_core::Result<i32> {
    if !v.is_finite() || v.fract() != 0.0 || v < 0.0 || v > i32::MAX as f64 {
        return Err(Error::range(format!("an attribute's value must be a non-negative integer, got {v}")));
    }
    Ok(v as i32)
}

fn cache_config(name: &str) -> cuda_node_core::Result<CacheConfig> {
    CacheConfig::ALL.iter().find(|(_, n)| *n == name).map(|&(c, _)| c).ok_or_else(|| {
        let names: Vec<&str> = CacheConfig::ALL.iter().map(|&(_, n)| n).collect();
        Error::type_error(format!("cacheConfig must be one of {}, got '{name}'", names.join(", ")))
    })
}
