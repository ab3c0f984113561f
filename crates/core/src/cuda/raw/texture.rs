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

// ---- texture references (deprecated by CUDA, kept by its driver) -----------------------------

/// `cuModuleGetTexRef`: the texture reference `name` of `module`, which the module owns.
///
/// # Safety
/// 1. `module` is loaded, its context current.
pub(crate) unsafe fn module_get_texref(module: sys::CUmodule, name: &std::ffi::CStr) -> Raw<sys::CUtexref> {
    let mut texref: sys::CUtexref = std::ptr::null_mut();
    // SAFETY: (1); `texref` is a valid out-pointer and `name` NUL-terminated.
    ok(unsafe { sys::cuModuleGetTexRef(&mut texref, module, name.as_ptr()) })?;
    Ok(texref)
}

/// How [`texref_bind`] binds a texture reference: to an array, or to linear or pitched memory.
pub(crate) enum TexRefTarget {
    Array(sys::CUarray),
    Linear { ptr: sys::CUdeviceptr, bytes: usize, format: sys::CUarray_format, channels: u32 },
    Pitch2D { desc: sys::CUDA_ARRAY_DESCRIPTOR, ptr: sys::CUdeviceptr, pitch: usize },
}

/// Binds `texref` to `target` and sets how it samples (`cuTexRefSetArray` or
/// `cuTexRefSetAddress`/`cuTexRefSetAddress2D` and `cuTexRefSetFormat`, then
/// `cuTexRefSetAddressMode` for each dimension, `cuTexRefSetFilterMode`, `cuTexRefSetFlags`,
/// `cuTexRefSetBorderColor`). Returns the byte offset `cuTexRefSetAddress` reports (0 for an
/// aligned address).
///
/// # Safety
/// 1. `texref` came from [`module_get_texref`] of a module still loaded, its context current.
/// 2. What `target` names is live and stays so while kernels read the reference.
pub(crate) unsafe fn texref_bind(
    texref: sys::CUtexref,
    target: &TexRefTarget,
    address: [sys::CUaddress_mode; 3],
    filter: sys::CUfilter_mode,
    flags: u32,
    mut border: [f32; 4],
) -> Raw<usize> {
    let mut offset = 0usize;
    match *target {
        // SAFETY: (1) and (2).
        TexRefTarget::Array(a) => ok(unsafe { sys::cuTexRefSetArray(texref, a, sys::CU_TRSA_OVERRIDE_FORMAT) })?,
        TexRefTarget::Linear { ptr, bytes, format, channels } => {
            // SAFETY: (1) and (2); `offset` is a valid out-pointer.
            ok(unsafe { sys::cuTexRefSetAddress_v2(&mut offset, texref, ptr, bytes) })?;
            // SAFETY: (1).
            ok(unsafe { sys::cuTexRefSetFormat(texref, format, channels as std::ffi::c_int) })?;
        }
        TexRefTarget::Pitch2D { desc, ptr, pitch } => {
            // SAFETY: (1) and (2); `desc` is a fully initialised descriptor.
            ok(unsafe { sys::cuTexRefSetAddress2D_v3(texref, &desc, ptr, pitch) })?;
            // SAFETY: (1).
            ok(unsafe { sys::cuTexRefSetFormat(texref, desc.Format, desc.NumChannels as std::ffi::c_int) })?;
        }
    }
    for (dim, mode) in address.into_iter().enumerate() {
        // SAFETY: (1); `dim` is 0, 1 or 2.
        ok(unsafe { sys::cuTexRefSetAddressMode(texref, dim as std::ffi::c_int, mode) })?;
    }
    // SAFETY: (1).
    ok(unsafe { sys::cuTexRefSetFilterMode(texref, filter) })?;
    // SAFETY: (1).
    ok(unsafe { sys::cuTexRefSetFlags(texref, flags) })?;
    // SAFETY: (1); `border` is four floats the call reads.
    ok(unsafe { sys::cuTexRefSetBorderColor(texref, border.as_mut_ptr()) })?;
    Ok(offset)
}
