//! CUDA arrays, texture and surface objects (CuPy's `cupy.cuda.texture`): `cuArray3DCreate`,
//! `cuArrayDestroy`, `cuMemcpy3DAsync`, `cuTexObjectCreate`/`Destroy`,
//! `cuSurfObjectCreate`/`Destroy`.

use super::check::{ok, Raw};
use cudarc::driver::sys;

/// `cuArray3DCreate` (a 1D, 2D, 3D or layered array as `desc` says).
pub(crate) fn array_create(desc: &sys::CUDA_ARRAY3D_DESCRIPTOR) -> Raw<sys::CUarray> {
    let mut array: sys::CUarray = std::ptr::null_mut();
    // SAFETY: `array` is a valid out-pointer and `desc` a fully initialised descriptor.
    ok(unsafe { sys::cuArray3DCreate_v2(&mut array, desc) })?;
    Ok(array)
}

/// `cuArrayDestroy`.
///
/// # Safety
/// 1. `array` came from [`array_create`] and is destroyed once, with no texture or surface object
///    over it left and no queued work using it.
pub(crate) unsafe fn array_destroy(array: sys::CUarray) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuArrayDestroy(array) })
}

/// `cuMemcpy3DAsync` on `stream`.
///
/// # Safety
/// 1. Every array, host range and device range `copy` names is live and holds the extent it
///    describes until the copy has run; host memory is written only by the copy meanwhile.
/// 2. `stream` is a live stream of the current context.
pub(crate) unsafe fn memcpy_3d_async(copy: &sys::CUDA_MEMCPY3D, stream: sys::CUstream) -> Raw<()> {
    // SAFETY: (1) and (2).
    ok(unsafe { sys::cuMemcpy3DAsync_v2(copy, stream) })
}

/// `cuTexObjectCreate` with no resource view.
///
/// # Safety
/// 1. The array or memory `res` names is live, and outlives the object.
pub(crate) unsafe fn tex_object_create(res: &sys::CUDA_RESOURCE_DESC, tex: &sys::CUDA_TEXTURE_DESC) -> Raw<sys::CUtexObject> {
    let mut obj: sys::CUtexObject = 0;
    // SAFETY: (1); `obj` is a valid out-pointer, both descriptors are initialised, no view.
    ok(unsafe { sys::cuTexObjectCreate(&mut obj, res, tex, std::ptr::null()) })?;
    Ok(obj)
}

/// `cuTexObjectDestroy`.
///
/// # Safety
/// 1. `obj` came from [`tex_object_create`] and is destroyed once, no queued work using it.
pub(crate) unsafe fn tex_object_destroy(obj: sys::CUtexObject) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuTexObjectDestroy(obj) })
}

/// `cuSurfObjectCreate`.
///
/// # Safety
/// 1. The array `res` names is live, made with `CUDA_ARRAY3D_SURFACE_LDST`, and outlives the object.
pub(crate) unsafe fn surf_object_create(res: &sys::CUDA_RESOURCE_DESC) -> Raw<sys::CUsurfObject> {
    let mut obj: sys::CUsurfObject = 0;
    // SAFETY: (1); `obj` is a valid out-pointer and `res` initialised.
    ok(unsafe { sys::cuSurfObjectCreate(&mut obj, res) })?;
    Ok(obj)
}

/// `cuSurfObjectDestroy`.
///
/// # Safety
/// 1. `obj` came from [`surf_object_create`] and is destroyed once, no queued work using it.
pub(crate) unsafe fn surf_object_destroy(obj: sys::CUsurfObject) -> Raw<()> {
    // SAFETY: (1).
    ok(unsafe { sys::cuSurfObjectDestroy(obj) })
}
