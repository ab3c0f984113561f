//! CUDA arrays, texture and surface objects on the real driver (`ops::Textures`). A copy is
//! queued on the stream it is given (`cuMemcpy3DAsync`) and waited for there, so host memory
//! is never read or written after the call returns.

use super::device::{CudaBackend, CudaDevice};
use super::module::raw_module;
use super::own::own;
use super::raw::texture as raw;
use super::stream::CudaStream;
use crate::error::{Check, Error, Result};
use crate::ops::{
    AddressMode, ArrayDesc, ArrayOps, ChannelKind, FilterMode, Format, Linear, ModuleOps, ObjectOps, ResourceRef, StreamOps, TexDesc, Textures,
};
use cudarc::driver::sys;
use std::any::Any;
use std::ffi::CString;
use std::sync::Arc;

fn format(f: &Format) -> sys::CUarray_format {
    use sys::CUarray_format as F;
    match (f.kind, f.bits) {
        (ChannelKind::Unsigned, 8) => F::CU_AD_FORMAT_UNSIGNED_INT8,
        (ChannelKind::Unsigned, 16) => F::CU_AD_FORMAT_UNSIGNED_INT16,
        (ChannelKind::Unsigned, _) => F::CU_AD_FORMAT_UNSIGNED_INT32,
        (ChannelKind::Signed, 8) => F::CU_AD_FORMAT_SIGNED_INT8,
        (ChannelKind::Signed, 16) => F::CU_AD_FORMAT_SIGNED_INT16,
        (ChannelKind::Signed, _) => F::CU_AD_FORMAT_SIGNED_INT32,
        (ChannelKind::Float, 16) => F::CU_AD_FORMAT_HALF,
        (ChannelKind::Float, _) => F::CU_AD_FORMAT_FLOAT,
    }
}

pub struct CudaArray {
    dev: Arc<CudaDevice>,
    raw: sys::CUarray,
    desc: ArrayDesc,
}

// SAFETY: a CUarray is a driver handle, usable from any thread with its context current.
unsafe impl Send for CudaArray {}
// SAFETY: as for Send; the driver synchronises its own use of the handle.
unsafe impl Sync for CudaArray {}

impl Drop for CudaArray {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: made by cuArray3DCreate and destroyed once; every texture and surface object
            // over it holds the model's array, so none is left (texture.rs).
            super::dropped::record("cuArrayDestroy", unsafe { raw::array_destroy(self.raw) });
        }
    }
}

/// A `CUDA_MEMCPY3D` of the given memory types, every other field zero ("offset 0, no pointer").
/// Not `mem::zeroed()`: its memory types start at 1, so all-zero is no valid value of it and
/// Rust aborts the process on that (seen on an H200).
fn memcpy_3d(src: sys::CUmemorytype, dst: sys::CUmemorytype) -> sys::CUDA_MEMCPY3D {
    let mut p = std::mem::MaybeUninit::<sys::CUDA_MEMCPY3D>::zeroed();
    let at = p.as_mut_ptr();
    // SAFETY: `at` points at the zeroed struct; the two enum fields are written through raw
    // pointers (no reference to the not-yet-valid struct is made), after which every field holds
    // a valid value: integers and pointers zero, the memory types set.
    unsafe {
        std::ptr::addr_of_mut!((*at).srcMemoryType).write(src);
        std::ptr::addr_of_mut!((*at).dstMemoryType).write(dst);
        p.assume_init()
    }
}

impl ArrayOps for CudaArray {
    fn handle(&self) -> u64 {
        self.raw as u64
    }

    fn copy(&self, linear: Linear<'_>, stream: &dyn StreamOps) -> Result<()> {
        self.dev.bind()?;
        let d = &self.desc;
        let (src, dst) = match linear {
            Linear::FromHost(_) => (sys::CUmemorytype::CU_MEMORYTYPE_HOST, sys::CUmemorytype::CU_MEMORYTYPE_ARRAY),
            Linear::ToHost(_) => (sys::CUmemorytype::CU_MEMORYTYPE_ARRAY, sys::CUmemorytype::CU_MEMORYTYPE_HOST),
            Linear::FromDevice(..) => (sys::CUmemorytype::CU_MEMORYTYPE_DEVICE, sys::CUmemorytype::CU_MEMORYTYPE_ARRAY),
            Linear::ToDevice(..) => (sys::CUmemorytype::CU_MEMORYTYPE_ARRAY, sys::CUmemorytype::CU_MEMORYTYPE_DEVICE),
        };
        let mut p = memcpy_3d(src, dst);
        p.WidthInBytes = d.row_bytes() as usize;
        p.Height = d.rows() as usize;
        p.Depth = d.slices() as usize;
        let packed = d.row_bytes() as usize;
        let array = |p: &mut sys::CUDA_MEMCPY3D, src: bool| {
            if src {
                p.srcMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_ARRAY;
                p.srcArray = self.raw;
            } else {
                p.dstMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_ARRAY;
                p.dstArray = self.raw;
            }
        };
        match linear {
            Linear::FromHost(src) => {
                array(&mut p, false);
                p.srcMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_HOST;
                p.srcHost = src.as_ptr().cast();
                (p.srcPitch, p.srcHeight) = (packed, p.Height);
            }
            Linear::ToHost(dst) => {
                array(&mut p, true);
                p.dstMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_HOST;
                p.dstHost = dst.as_mut_ptr().cast();
                (p.dstPitch, p.dstHeight) = (packed, p.Height);
            }
            Linear::FromDevice(mem, offset, pitch) => {
                array(&mut p, false);
                p.srcMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_DEVICE;
                p.srcDevice = mem.ptr() + offset;
                (p.srcPitch, p.srcHeight) = (pitch as usize, p.Height);
            }
            Linear::ToDevice(mem, offset, pitch) => {
                array(&mut p, true);
                p.dstMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_DEVICE;
                p.dstDevice = mem.ptr() + offset;
                (p.dstPitch, p.dstHeight) = (pitch as usize, p.Height);
            }
        }
        let s = own::<CudaStream>(stream.as_any());
        // SAFETY: the model checked that the host slice holds exactly the array's packed bytes and
        // that the device range holds every pitched row; both live through the wait below, which
        // returns only once the copy has run. The stream is live, of this device.
        unsafe { raw::memcpy_3d_async(&p, s.queue()) }.check("cuMemcpy3DAsync")?;
        stream.synchronize()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A texture or a surface object, destroyed when dropped.
struct CudaObject {
    dev: Arc<CudaDevice>,
    raw: u64,
    surface: bool,
}

impl Drop for CudaObject {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            if self.surface {
                // SAFETY: made by cuSurfObjectCreate and destroyed once.
                super::dropped::record("cuSurfObjectDestroy", unsafe { raw::surf_object_destroy(self.raw) });
            } else {
                // SAFETY: made by cuTexObjectCreate and destroyed once.
                super::dropped::record("cuTexObjectDestroy", unsafe { raw::tex_object_destroy(self.raw) });
            }
        }
    }
}

impl ObjectOps for CudaObject {
    fn handle(&self) -> u64 {
        self.raw
    }
}

fn array_resource(array: &dyn ArrayOps) -> sys::CUDA_RESOURCE_DESC {
    // SAFETY: a plain C struct whose all-zero value is a resource of type ARRAY (0) with no
    // array and no flags; the array is set below.
    let mut r: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
    r.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
    r.res.array = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 { hArray: own::<CudaArray>(array.as_any()).raw };
    r
}

fn address(a: AddressMode) -> sys::CUaddress_mode {
    match a {
        AddressMode::Wrap => sys::CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP,
        AddressMode::Clamp => sys::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP,
        AddressMode::Mirror => sys::CUaddress_mode::CU_TR_ADDRESS_MODE_MIRROR,
        AddressMode::Border => sys::CUaddress_mode::CU_TR_ADDRESS_MODE_BORDER,
    }
}

impl Textures for CudaBackend {
    fn create_array(&self, ordinal: usize, desc: &ArrayDesc) -> Result<Box<dyn ArrayOps>> {
        self.bind(ordinal)?;
        let mut flags = 0;
        if desc.layered {
            flags |= sys::CUDA_ARRAY3D_LAYERED;
        }
        if desc.surface {
            flags |= sys::CUDA_ARRAY3D_SURFACE_LDST;
        }
        let d = sys::CUDA_ARRAY3D_DESCRIPTOR {
            Width: desc.width as usize,
            Height: desc.height as usize,
            Depth: desc.depth as usize,
            Format: format(&desc.format),
            NumChannels: desc.format.channels,
            Flags: flags,
        };
        let raw = raw::array_create(&d).check("cuArray3DCreate")?;
        Ok(Box::new(CudaArray { dev: self.devices[ordinal].clone(), raw, desc: *desc }))
    }

    fn create_texture(&self, ordinal: usize, res: &ResourceRef<'_>, desc: &TexDesc) -> Result<Box<dyn ObjectOps>> {
        self.bind(ordinal)?;
        let r = match *res {
            ResourceRef::Array(a) => array_resource(a),
            ResourceRef::Linear { ptr, format: f, size } => {
                // SAFETY: as in `array_resource`; the type and the linear member are set below.
                let mut r: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
                r.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
                r.res.linear = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_3 {
                    devPtr: ptr,
                    format: format(&f),
                    numChannels: f.channels,
                    sizeInBytes: size as usize,
                };
                r
            }
            ResourceRef::Pitch2D { ptr, format: f, width, height, pitch } => {
                // SAFETY: as in `array_resource`; the type and the pitch2D member are set below.
                let mut r: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
                r.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_PITCH2D;
                r.res.pitch2D = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_4 {
                    devPtr: ptr,
                    format: format(&f),
                    numChannels: f.channels,
                    width: width as usize,
                    height: height as usize,
                    pitchInBytes: pitch as usize,
                };
                r
            }
        };
        // SAFETY: a plain C struct whose all-zero value is valid: wrap addressing, point
        // filtering (both 0), no flags, no mipmaps; the fields used are set below.
        let mut t: sys::CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
        t.addressMode = desc.address.map(address);
        t.filterMode = match desc.filter {
            FilterMode::Point => sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
            FilterMode::Linear => sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
        };
        // The driver reads integers as normalized floats unless told otherwise: the runtime's
        // cudaReadModeElementType is CU_TRSF_READ_AS_INTEGER, which only integer channels need.
        let format = match *res {
            ResourceRef::Array(a) => own::<CudaArray>(a.as_any()).desc.format,
            ResourceRef::Linear { format, .. } | ResourceRef::Pitch2D { format, .. } => format,
        };
        if !desc.normalized_float && format.kind != ChannelKind::Float {
            t.flags |= sys::CU_TRSF_READ_AS_INTEGER;
        }
        if desc.normalized_coords {
            t.flags |= sys::CU_TRSF_NORMALIZED_COORDINATES;
        }
        t.borderColor = desc.border;
        // SAFETY: the model holds the array or memory the resource names for as long as the
        // object lives (texture.rs), and checked the memory's range.
        let raw = unsafe { raw::tex_object_create(&r, &t) }.check("cuTexObjectCreate")?;
        Ok(Box::new(CudaObject { dev: self.devices[ordinal].clone(), raw, surface: false }))
    }

    fn create_surface(&self, ordinal: usize, array: &dyn ArrayOps) -> Result<Box<dyn ObjectOps>> {
        self.bind(ordinal)?;
        let r = array_resource(array);
        // SAFETY: the model holds the array for as long as the object lives and checked that it
        // was made for surface loads and stores.
        let raw = unsafe { raw::surf_object_create(&r) }.check("cuSurfObjectCreate")?;
        Ok(Box::new(CudaObject { dev: self.devices[ordinal].clone(), raw, surface: true }))
    }

    fn bind_texref(&self, ordinal: usize, module: &dyn ModuleOps, name: &str, res: &ResourceRef<'_>, desc: &TexDesc) -> Result<u64> {
        self.bind(ordinal)?;
        let kept = module.keep_alive();
        let Some(hmod) = raw_module(kept.as_ref()) else {
            return Err(Error::cuda(crate::error::Code::CUDA_ERROR_INVALID_HANDLE, "the module is not the cuda backend's"));
        };
        let cname = CString::new(name).map_err(|_| Error::type_error("a texture reference's name must not contain a NUL byte"))?;
        // SAFETY: the module is loaded (the model holds it), its device's context current.
        let texref = unsafe { raw::module_get_texref(hmod, &cname) }.check(&format!("cuModuleGetTexRef(\"{name}\")"))?;
        let (target, f) = match *res {
            ResourceRef::Array(a) => (raw::TexRefTarget::Array(a.handle() as sys::CUarray), own::<CudaArray>(a.as_any()).desc.format),
            ResourceRef::Linear { ptr, format: f, size } => {
                (raw::TexRefTarget::Linear { ptr, bytes: size as usize, format: format(&f), channels: f.channels }, f)
            }
            ResourceRef::Pitch2D { ptr, format: f, width, height, pitch } => {
                let d = sys::CUDA_ARRAY_DESCRIPTOR { Width: width as usize, Height: height as usize, Format: format(&f), NumChannels: f.channels };
                (raw::TexRefTarget::Pitch2D { desc: d, ptr, pitch: pitch as usize }, f)
            }
        };
        // As for a texture object: integers read as they are unless read as normalized floats.
        let mut flags = 0;
        if !desc.normalized_float && f.kind != ChannelKind::Float {
            flags |= sys::CU_TRSF_READ_AS_INTEGER;
        }
        if desc.normalized_coords {
            flags |= sys::CU_TRSF_NORMALIZED_COORDINATES;
        }
        let filter = match desc.filter {
            FilterMode::Point => sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
            FilterMode::Linear => sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
        };
        // SAFETY: the reference is the loaded module's; the model holds the array or memory it is
        // bound to for as long as the reference object lives, and checked the memory's range and
        // alignment (so the byte offset is 0).
        unsafe { raw::texref_bind(texref, &target, desc.address.map(address), filter, flags, desc.border) }.check("cuTexRefSet*")?;
        Ok(texref as u64)
    }
}
