//! Kernels compiled at run time or loaded from PTX or cubin (CuPy's `RawModule` / `RawKernel`).

use crate::error::{Code, Error, Result};
use crate::ops::{FuncAttr, FunctionOps, Launch, ModuleOps};
use crate::runtime;
use crate::stream::Stream;
use std::sync::Arc;

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
        Ok(Module { ops: Arc::from(runtime()?.backend.module_load(device, image)?), device })
    }

    pub fn function(&self, name: &str) -> Result<Function> {
        if name.is_empty() || name.contains('\0') {
            return Err(Error::type_error("a kernel name must be non-empty and contain no NUL byte"));
        }
        Ok(Function { ops: self.ops.function(name)?, device: self.device, name: name.to_string(), params: std::sync::OnceLock::new() })
    }
}

pub struct Function {
    ops: Box<dyn FunctionOps>,
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
        self.ops.set_max_dynamic_shared(bytes)
    }
    pub fn param_sizes(&self) -> Option<&[usize]> {
        self.params.get_or_init(|| self.ops.param_sizes()).as_deref()
    }

    /// Launches on `stream` after checking the shape against the device's limits and the
    /// arguments against the kernel's parameters, where the driver reports them: a mismatch is a
    /// RangeError or TypeError, before the launch.
    pub fn launch(&self, stream: &Stream, launch: &Launch) -> Result<()> {
        check_shape(self.device, launch)?;
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
        stream.launch_kernel(&*self.ops, launch)
    }
}

/// A device's launch limits, read once.
struct Limits {
    block: [u64; 3],
    grid: [u64; 3],
    threads: u64,
    shared: u64,
}

fn limits(device: usize) -> Result<&'static Limits> {
    static ALL: std::sync::OnceLock<Box<[std::sync::OnceLock<Limits>]>> = std::sync::OnceLock::new();
    let backend = &runtime()?.backend;
    let all = ALL.get_or_init(|| (0..backend.device_count()).map(|_| std::sync::OnceLock::new()).collect());
    let slot = all.get(device).ok_or_else(|| Error::cuda(Code::CUDA_ERROR_INVALID_DEVICE, format!("no device {device}")))?;
    if let Some(l) = slot.get() {
        return Ok(l);
    }
    let props = backend.device_props(device)?;
    let get = |k: &str| props.attributes.iter().find(|(n, _)| *n == k).map_or(0, |&(_, v)| v.max(0) as u64);
    Ok(slot.get_or_init(|| Limits {
        block: [get("maxBlockDimX"), get("maxBlockDimY"), get("maxBlockDimZ")],
        grid: [get("maxGridDimX"), get("maxGridDimY"), get("maxGridDimZ")],
        threads: get("maxThreadsPerBlock"),
        shared: get("maxSharedMemoryPerBlockOptin").max(get("maxSharedMemoryPerBlock")),
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
    Ok(())
}
