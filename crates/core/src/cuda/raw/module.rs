//! Modules, kernels and launches.

use super::check::{ok, Raw};
use cudarc::driver::sys;
use std::ffi::{c_void, CStr};

// ---- modules and kernels -------------------------------------------------------------------

/// `cuModuleLoadData` into the current context.
///
/// # Safety
/// 1. `image` points at a complete cubin, or a NUL-terminated PTX image, that outlives the call.
pub(crate) unsafe fn module_load_data(image: *const c_void) -> Raw<sys::CUmodule> {
    let mut m: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: (1); `m` is a valid out-pointer.
    ok(unsafe { sys::cuModuleLoadData(&mut m, image) })?;
    Ok(m)
}

/// `cuModuleUnload`.
///
/// # Safety
/// 1. `module` was loaded by [`module_load_data`], unloaded once, when no function of it is used again.
pub(crate) unsafe fn module_unload(module: sys::CUmodule) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuModuleUnload(module) })
}

/// `cuModuleGetFunction`.
///
/// # Safety
/// 1. `module` is loaded.
pub(crate) unsafe fn module_get_function(module: sys::CUmodule, name: &CStr) -> Raw<sys::CUfunction> {
    let mut f: sys::CUfunction = std::ptr::null_mut();
    // SAFETY: (1); `name` is NUL-terminated; `f` is a valid out-pointer.
    ok(unsafe { sys::cuModuleGetFunction(&mut f, module, name.as_ptr()) })?;
    Ok(f)
}

/// `cuFuncGetAttribute`.
///
/// # Safety
/// 1. `f` is live (its module is loaded).
pub(crate) unsafe fn func_attribute(f: sys::CUfunction, attr: sys::CUfunction_attribute) -> Raw<i32> {
    let mut v = 0;
    // SAFETY: (1); `v` is a valid out-pointer.
    ok(unsafe { sys::cuFuncGetAttribute(&mut v, attr, f) })?;
    Ok(v)
}

/// `cuFuncSetAttribute`.
///
/// # Safety
/// 1. `f` is live (its module is loaded); the driver validates the value.
pub(crate) unsafe fn func_set_attribute(f: sys::CUfunction, attr: sys::CUfunction_attribute, value: i32) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuFuncSetAttribute(f, attr, value) })
}

/// `cuFuncGetParamInfo`: parameter `i`'s `(offset, size)`. Needs a 12.4+ driver: cudarc panics
/// where the symbol is missing, so the caller catches that.
///
/// # Safety
/// 1. `f` is live (its module is loaded).
pub(crate) unsafe fn func_param_info(f: sys::CUfunction, i: usize) -> Raw<(usize, usize)> {
    let (mut offset, mut size) = (0usize, 0usize);
    // SAFETY: (1); both are valid out-pointers.
    ok(unsafe { sys::cuFuncGetParamInfo(f, i, &mut offset, &mut size) })?;
    Ok((offset, size))
}

/// `cuLaunchKernel`.
///
/// # Safety
/// 1. A context owning `f` and `stream` is current; `stream` is live.
/// 2. `params` holds one pointer per kernel parameter, each to a value of the parameter's size,
///    alive for the call (the driver copies the values).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn launch_kernel(
    f: sys::CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared_mem: u32,
    stream: sys::CUstream,
    params: *mut *mut c_void,
) -> Raw<()> {
    let ([gx, gy, gz], [bx, by, bz]) = (grid, block);
    // SAFETY: (1) and (2); no `extra` parameters.
    ok(unsafe { sys::cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared_mem, stream, params, std::ptr::null_mut()) })
}

/// `cuModuleGetGlobal_v2`: the `(address, size)` of the variable `name`.
///
/// # Safety
/// 1. `module` is loaded.
pub(crate) unsafe fn module_get_global(module: sys::CUmodule, name: &CStr) -> Raw<(sys::CUdeviceptr, usize)> {
    let (mut ptr, mut size): (sys::CUdeviceptr, usize) = (0, 0);
    // SAFETY: (1); `name` is NUL-terminated; both are valid out-pointers.
    ok(unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut size, module, name.as_ptr()) })?;
    Ok((ptr, size))
}

/// `cuFuncSetCacheConfig`.
///
/// # Safety
/// 1. `f` is live (its module is loaded).
pub(crate) unsafe fn func_set_cache_config(f: sys::CUfunction, config: sys::CUfunc_cache) -> Raw<()> {
    // SAFETY: (1) is the caller's.
    ok(unsafe { sys::cuFuncSetCacheConfig(f, config) })
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
///
/// # Safety
/// 1. `f` is live (its module is loaded).
pub(crate) unsafe fn occupancy_max_active_blocks(f: sys::CUfunction, block_threads: i32, shared_mem: usize) -> Raw<i32> {
    let mut n = 0;
    // SAFETY: (1); `n` is a valid out-pointer.
    ok(unsafe { sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, block_threads, shared_mem) })?;
    Ok(n)
}

/// `cuOccupancyMaxPotentialBlockSize` with no size callback: `(min grid size, block size)`.
///
/// # Safety
/// 1. `f` is live (its module is loaded).
pub(crate) unsafe fn occupancy_max_potential_block_size(f: sys::CUfunction, shared_mem: usize, block_limit: i32) -> Raw<(i32, i32)> {
    let (mut grid, mut block) = (0, 0);
    // SAFETY: (1); both are valid out-pointers; no size callback is given.
    ok(unsafe { sys::cuOccupancyMaxPotentialBlockSize(&mut grid, &mut block, f, None, shared_mem, block_limit) })?;
    Ok((grid, block))
}

/// `cuOccupancyMaxPotentialClusterSize`. Needs a 12.0+ driver: cudarc panics where the symbol
/// is missing, so the caller catches that.
///
/// # Safety
/// 1. `f` is live (its module is loaded).
/// 2. `config.attrs` points at `config.numAttrs` attributes, alive for the call.
pub(crate) unsafe fn occupancy_max_potential_cluster_size(f: sys::CUfunction, config: &sys::CUlaunchConfig) -> Raw<i32> {
    let mut n = 0;
    // SAFETY: (1) and (2); `n` is a valid out-pointer.
    ok(unsafe { sys::cuOccupancyMaxPotentialClusterSize(&mut n, f, config) })?;
    Ok(n)
}

/// `cuOccupancyMaxActiveClusters`; as [`occupancy_max_potential_cluster_size`], a 12.0+ driver.
///
/// # Safety
/// As [`occupancy_max_potential_cluster_size`].
pub(crate) unsafe fn occupancy_max_active_clusters(f: sys::CUfunction, config: &sys::CUlaunchConfig) -> Raw<i32> {
    let mut n = 0;
    // SAFETY: as above.
    ok(unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, f, config) })?;
    Ok(n)
}

/// `cuLaunchKernelEx` (no extra): a launch with attributes. A 12.0+ driver, as above.
///
/// # Safety
/// 1. A context owning `f` and `config.hStream` is current; the stream is live.
/// 2. `config.attrs` points at `config.numAttrs` attributes, alive for the call.
/// 3. `params` holds one pointer per kernel parameter, each to a value of the parameter's size,
///    alive for the call (the driver copies the values).
#[inline]
pub(crate) unsafe fn launch_kernel_ex(config: &sys::CUlaunchConfig, f: sys::CUfunction, params: *mut *mut c_void) -> Raw<()> {
    // SAFETY: (1) to (3) are the caller's.
    ok(unsafe { sys::cuLaunchKernelEx(config, f, params, std::ptr::null_mut()) })
}
