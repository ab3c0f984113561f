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

    /// Launches on `stream` after checking the arguments against the kernel's parameters, where
    /// the driver reports them: a mismatch is a TypeError, before the launch.
    pub fn launch(&self, stream: &Stream, launch: &Launch) -> Result<()> {
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
