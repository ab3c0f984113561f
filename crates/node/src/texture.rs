//! Texture and surface memory (CuPy's `cupy.cuda.texture`): CUDA arrays and the copies in and
//! out of them, texture objects over an array or device memory, surface objects over an array.
//! Each object is held by its table; a texture or surface holds what it reads in core.

use crate::raw::{BigU64, Bytes, BytesMut, Count, Numbers, Owner, Strings};
use crate::{memory, stream};
use cuda_node_core::texture::{self, Format, Resource, TextureReference};
use cuda_node_core::{runtime, CudaArray, Error, Result, SurfaceObject, TextureObject};
use std::sync::Arc;

/// The CUDA arrays of this thread.
mod arrays {
    crate::table!(ARRAYS: std::sync::Arc<cuda_node_core::CudaArray>, CUDA_ERROR_INVALID_HANDLE, "this CUDAArray was freed: create a new one");
}

/// The texture objects of this thread.
mod textures {
    crate::table!(TEXTURES: std::sync::Arc<cuda_node_core::TextureObject>, CUDA_ERROR_INVALID_HANDLE, "this TextureObject was destroyed: create a new one");
}

/// The texture references of this thread.
mod texrefs {
    crate::table!(TEXREFS: std::sync::Arc<cuda_node_core::texture::TextureReference>, CUDA_ERROR_INVALID_HANDLE, "this TextureReference was destroyed: make a new one");
}

/// The surface objects of this thread.
mod surfaces {
    crate::table!(SURFACES: std::sync::Arc<cuda_node_core::SurfaceObject>, CUDA_ERROR_INVALID_HANDLE, "this SurfaceObject was destroyed: create a new one");
}

/// `n` whole numbers from 0 to `u32::MAX`, named `what` in errors.
fn whole<const N: usize>(n: &[f64], what: &str) -> Result<[u64; N]> {
    if n.len() != N {
        return Err(Error::range(format!("{what} takes {N} numbers, got {}", n.len())));
    }
    let mut out = [0u64; N];
    for (o, &v) in out.iter_mut().zip(n) {
        if !(v.fract() == 0.0 && (0.0..=9007199254740991.0).contains(&v)) {
            return Err(Error::range(format!("{what} takes whole numbers from 0, got {v}")));
        }
        *o = v as u64;
    }
    Ok(out)
}

fn format(bits: &[f64], kind: &str) -> Result<Format> {
    let b = whole::<4>(bits, "a channel format")?;
    let bits = b.map(|v| u32::try_from(v).unwrap_or(u32::MAX));
    texture::format(bits, kind)
}

/// A texture's resource and descriptor from `textureCreate`'s arguments (`texrefCreate`'s too).
#[allow(clippy::too_many_arguments)]
fn described(kind: &str, target: f64, geometry: &[f64], bits: &[f64], channel: &str, modes: &[String], normalized: bool, border: &[f64]) -> Result<(Resource, texture::TexDesc)> {
        let m = modes;
        if m.len() < 2 {
            return Err(Error::range("modes is [filterMode, readMode, ...addressModes]"));
        }
        let b: [f32; 4] = match border {
            [x, y, z, w] => [*x as f32, *y as f32, *z as f32, *w as f32],
            _ => return Err(Error::range("borderColor takes 4 numbers")),
        };
        let desc = texture::tex_desc(&m[2..], &m[0], &m[1], normalized, b)?;
        let resource = match kind {
            "array" => Resource::Array(arrays::get(target)?),
            "linear" => {
                let [offset, size] = whole::<2>(geometry, "a linear resource")?;
                Resource::Linear { mem: memory::get(target)?, offset, format: format(bits, channel)?, size }
            }
            "pitch2D" => {
                let [offset, width, height, pitch] = whole::<4>(geometry, "a pitch2D resource")?;
                Resource::Pitch2D { mem: memory::get(target)?, offset, format: format(bits, channel)?, width, height, pitch }
            }
            _ => return Err(Error::range(format!("a resource is 'array', 'linear' or 'pitch2D', got '{kind}'"))),
        };
    Ok((resource, desc))
}

crate::exports! {
    /// Checks a channel format (`[x, y, z, w]` bits, `'signed'`, `'unsigned'` or `'float'`); the
    /// bytes of one element.
    c"textureFormat" => fn texture_format(_cx, bits: Numbers, kind: String) -> f64 {
        Ok(format(bits.0, &kind)?.element_size() as f64)
    }

    /// A CUDA array of `device`: `width` × `height` × `depth` elements of the format (`height` 0
    /// for 1D, `depth` 0 for 1D and 2D; a layered array's depth is its layer count).
    c"cudaArrayCreate" => fn cuda_array_create(cx, owner: Owner, device: f64, bits: Numbers, kind: String, width: Count, height: Count, depth: Count, layered: bool, surface: bool) -> f64 {
        let device = runtime()?.ordinal(device)?;
        let f = format(bits.0, &kind)?;
        let array = CudaArray::new(device, f, [width.0, height.0, depth.0], layered, surface)?;
        arrays::insert(cx, &owner, Arc::new(array))
    }

    /// The `CUarray`.
    c"cudaArrayHandle" => fn cuda_array_handle(_cx, array: f64) -> BigU64 {
        arrays::with(array, |a| Ok(BigU64(a.handle())))
    }

    /// The array's bytes, packed.
    c"cudaArrayNbytes" => fn cuda_array_nbytes(_cx, array: f64) -> f64 {
        arrays::with(array, |a| Ok(a.nbytes() as f64))
    }

    /// Copies packed host bytes into the array after the stream's work; returns once done.
    c"cudaArrayCopyFromHost" => fn cuda_array_copy_from_host(cx, array: f64, stream: f64, src: Bytes) -> () {
        crate::host_cache::purge(cx, 2, src.0);
        let a = arrays::get(array)?;
        stream::with(stream, |s| a.copy_from_host(src.0, s))
    }

    /// Copies the array into packed host bytes after the stream's work; returns once done.
    c"cudaArrayCopyToHost" => fn cuda_array_copy_to_host(cx, array: f64, stream: f64, dst: BytesMut) -> () {
        crate::host_cache::purge(cx, 2, dst.0);
        let a = arrays::get(array)?;
        stream::with(stream, |s| a.copy_to_host(dst.0, s))
    }

    /// Copies device memory (rows `pitch` bytes apart, packed when absent) into the array.
    c"cudaArrayCopyFromDevice" => fn cuda_array_copy_from_device(_cx, array: f64, stream: f64, mem: f64, offset: Count, pitch: Option<Count>) -> () {
        let (a, m) = (arrays::get(array)?, memory::get(mem)?);
        stream::with(stream, |s| a.copy_from_device(&m, offset.0, pitch.map(|p| p.0), s))
    }

    /// Copies the array into device memory (rows `pitch` bytes apart, packed when absent).
    c"cudaArrayCopyToDevice" => fn cuda_array_copy_to_device(_cx, array: f64, stream: f64, mem: f64, offset: Count, pitch: Option<Count>) -> () {
        let (a, m) = (arrays::get(array)?, memory::get(mem)?);
        stream::with(stream, |s| a.copy_to_device(&m, offset.0, pitch.map(|p| p.0), s))
    }

    /// Lets the array go (again: nothing); textures and surfaces over it keep it until they go.
    c"cudaArrayFree" => fn cuda_array_free(_cx, array: f64) -> () {
        drop(arrays::take(array));
        Ok(())
    }

    /// A texture object over `kind` `'array'` (`target` an array) or `'linear'` / `'pitch2D'`
    /// (`target` a memory handle; `geometry` `[offset, size]` or `[offset, width, height,
    /// pitch]`, `bits` and `channel` its format); `modes` `[filter, read, ...addressModes]`.
    c"textureCreate" => fn texture_create(cx, owner: Owner, kind: String, target: f64, geometry: Numbers, bits: Numbers, channel: String, modes: Strings, normalized: bool, border: Numbers) -> f64 {
        let (resource, desc) = described(&kind, target, geometry.0, bits.0, &channel, &modes.0, normalized, border.0)?;
        textures::insert(cx, &owner, Arc::new(TextureObject::new(resource, desc)?))
    }

    /// The `CUtexObject`.
    c"textureHandle" => fn texture_handle(_cx, tex: f64) -> BigU64 {
        textures::with(tex, |t| Ok(BigU64(t.handle())))
    }

    /// Destroys the texture object (again: nothing); what it read goes once nothing else holds it.
    c"textureDestroy" => fn texture_destroy(_cx, tex: f64) -> () {
        drop(textures::take(tex));
        Ok(())
    }

    /// A surface object over an array made with `surface`.
    c"surfaceCreate" => fn surface_create(cx, owner: Owner, array: f64) -> f64 {
        let a = arrays::get(array)?;
        surfaces::insert(cx, &owner, Arc::new(SurfaceObject::new(a)?))
    }

    /// The `CUsurfObject`.
    c"surfaceHandle" => fn surface_handle(_cx, surf: f64) -> BigU64 {
        surfaces::with(surf, |s| Ok(BigU64(s.handle())))
    }

    /// Destroys the surface object (again: nothing).
    c"surfaceDestroy" => fn surface_destroy(_cx, surf: f64) -> () {
        drop(surfaces::take(surf));
        Ok(())
    }

    /// The texture reference `name` of `module` (CuPy's `get_texref`), bound to a resource and
    /// set to sample as `textureCreate`'s arguments say; owned by `owner`.
    c"texrefCreate" => fn texref_create(cx, owner: Owner, module: f64, name: String, kind: String, target: f64, geometry: Numbers, bits: Numbers, channel: String, modes: Strings, normalized: bool, border: Numbers) -> f64 {
        let (resource, desc) = described(&kind, target, geometry.0, bits.0, &channel, &modes.0, normalized, border.0)?;
        let m = crate::module::get(module)?;
        texrefs::insert(cx, &owner, Arc::new(TextureReference::new(&m, &name, resource, desc)?))
    }

    /// The `CUtexref`.
    c"texrefHandle" => fn texref_handle(_cx, texref: f64) -> BigU64 {
        texrefs::with(texref, |t| Ok(BigU64(t.handle())))
    }

    /// Lets go of the reference (again: nothing): what it reads and its module go once nothing else holds them.
    c"texrefDestroy" => fn texref_destroy(_cx, texref: f64) -> () {
        drop(texrefs::take(texref));
        Ok(())
    }
}
