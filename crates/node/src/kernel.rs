//! Kernels of loaded modules: attributes, and the hot `kernelLaunch`.

use crate::raw::{Bytes, Count, Words};
use crate::stream;
use cuda_node_core::module::Function;
use cuda_node_core::ops::{FuncAttr, Launch};
use cuda_node_core::Error;
use std::sync::Arc;

/// The launch `shape` describes: grid x y z, block x y z, shared memory bytes, argument count,
/// then each argument's size, the arguments' bytes in `args` in turn.
fn unpack<'a>(shape: &[u32], args: &'a [u8], parts: &'a mut Vec<&'a [u8]>) -> cuda_node_core::Result<Launch<'a>> {
    let (head, sizes) = shape.split_at_checked(8).ok_or_else(|| Error::range("the launch shape needs 8 numbers and the sizes"))?;
    let sizes = sizes.get(..head[7] as usize).ok_or_else(|| Error::range("the launch shape lists fewer sizes than arguments"))?;
    let mut at = 0usize;
    for &n in sizes {
        let end = at.checked_add(n as usize).ok_or_else(|| Error::range("argument sizes exceed the argument bytes"))?;
        parts.push(args.get(at..end).ok_or_else(|| Error::range("argument sizes exceed the argument bytes"))?);
        at = end;
    }
    Ok(Launch { grid: [head[0], head[1], head[2]], block: [head[3], head[4], head[5]], shared_mem: head[6], args: parts })
}

crate::table!(FUNCTIONS: Arc<Function>, CUDA_ERROR_INVALID_HANDLE, "this kernel's module is gone");

crate::js_object! {
    /// A kernel's attributes on its device (`cuFuncGetAttribute`).
    pub struct FunctionAttributes {
        max_threads_per_block: i32 = c"maxThreadsPerBlock",
        shared_size_bytes: i32 = c"sharedSizeBytes",
        const_size_bytes: i32 = c"constSizeBytes",
        local_size_bytes: i32 = c"localSizeBytes",
        num_regs: i32 = c"numRegs",
        ptx_version: i32 = c"ptxVersion",
        binary_version: i32 = c"binaryVersion",
        max_dynamic_shared_size_bytes: i32 = c"maxDynamicSharedSizeBytes",
    }
}

crate::exports! {
    /// The kernel's attributes.
    c"kernelAttributes" => fn kernel_attributes(_cx, kernel: f64) -> FunctionAttributes {
        with(kernel, |f| {
            let a = |x| f.attribute(x);
            Ok(FunctionAttributes {
                max_threads_per_block: a(FuncAttr::MaxThreadsPerBlock)?,
                shared_size_bytes: a(FuncAttr::SharedSizeBytes)?,
                const_size_bytes: a(FuncAttr::ConstSizeBytes)?,
                local_size_bytes: a(FuncAttr::LocalSizeBytes)?,
                num_regs: a(FuncAttr::NumRegs)?,
                ptx_version: a(FuncAttr::PtxVersion)?,
                binary_version: a(FuncAttr::BinaryVersion)?,
                max_dynamic_shared_size_bytes: a(FuncAttr::MaxDynamicSharedSizeBytes)?,
            })
        })
    }

    /// Raises (or lowers) the dynamic shared memory the kernel may use.
    c"kernelSetMaxDynamicSharedSize" => fn kernel_set_max_dynamic_shared_size(_cx, kernel: f64, bytes: Count) -> () {
        let b = i32::try_from(bytes.0).map_err(|_| Error::range("too many bytes of shared memory"))?;
        with(kernel, |f| f.set_max_dynamic_shared(b))
    }

    /// Each parameter's size, where the driver can tell; null otherwise.
    c"kernelParamSizes" => fn kernel_param_sizes(_cx, kernel: f64) -> Option<Vec<u32>> {
        with(kernel, |f| Ok(f.param_sizes().map(|v| v.iter().map(|&s| s as u32).collect())))
    }

    /// Launches `kernel` on `stream`. `shape`: grid x y z, block x y z, shared memory bytes,
    /// argument count, then each argument's size; `args`: the arguments' bytes in turn (the
    /// driver copies them at the launch).
    c"kernelLaunch" => fn kernel_launch(_cx, kernel: f64, stream: f64, shape: Words, args: Bytes) -> () {
        let mut parts: Vec<&[u8]> = Vec::new();
        let launch = unpack(shape.0, args.0, &mut parts)?;
        with(kernel, |f: &Arc<Function>| stream::with(stream, |s| f.launch(s, &launch)))
    }

    /// Checks a launch's shape against `device`'s limits, as `kernelLaunch` does (for kernels
    /// the simulator runs on the host).
    c"kernelCheckShape" => fn kernel_check_shape(_cx, device: f64, shape: Words) -> () {
        let head = shape.0.get(..7).ok_or_else(|| Error::range("the launch shape needs 8 numbers and the sizes"))?;
        let launch = Launch { grid: [head[0], head[1], head[2]], block: [head[3], head[4], head[5]], shared_mem: head[6], args: &[] };
        cuda_node_core::module::check_shape(cuda_node_core::runtime()?.ordinal(device)?, &launch)
    }
}
