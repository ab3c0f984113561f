//! Texture and surface memory (CuPy's `cupy.cuda.texture`): CUDA arrays, the copies in and out
//! of them, and the texture and surface objects a kernel reads and writes through. The rules
//! live here, once for both backends: channel formats, extents within the device's limits, copy
//! sizes, which sampling goes with which format, surfaces only over arrays made for them. Lifetime
//! is the children's: a texture object holds its array or memory, a surface object its array, so
//! freeing either first is safe.

use crate::block::Block;
use crate::error::{Code, Error, Result};
use crate::ops::{ArrayDesc, ArrayOps, Linear, ObjectOps, ResourceRef};
use crate::runtime;
use crate::stream::Stream;
use std::sync::Arc;

pub use crate::ops::{AddressMode, ChannelKind, FilterMode, Format, TexDesc};

/// The alignment a linear texture's address needs (`CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT`).
pub const TEXTURE_ALIGNMENT: u64 = 512;
/// The alignment of a pitched texture's address and pitch (`..._TEXTURE_PITCH_ALIGNMENT`).
pub const PITCH_ALIGNMENT: u64 = 32;

/// A channel format (CuPy's `ChannelFormatDescriptor(x, y, z, w, f)`): the bits of each channel,
/// 0 for channels absent, and how they read: `'signed'`, `'unsigned'` or `'float'`. A CUDA array
/// or texture takes 1, 2 or 4 channels of the same width, 8, 16 or 32 bits (a float's 16 or 32).
pub fn format(bits: [u32; 4], kind: &str) -> Result<Format> {
    let kind = match kind {
        "signed" => ChannelKind::Signed,
        "unsigned" => ChannelKind::Unsigned,
        "float" => ChannelKind::Float,
        _ => return Err(Error::range(format!("a channel's kind is 'signed', 'unsigned' or 'float', got '{kind}'"))),
    };
    for (name, b) in ["x", "y", "z", "w"].iter().zip(bits) {
        if ![0, 8, 16, 32].contains(&b) {
            return Err(Error::range(format!("channel {name} has {b} bits: a channel has 8, 16 or 32 (0 where absent)")));
        }
    }
    let channels = bits.iter().take_while(|&&b| b != 0).count() as u32;
    let width = bits[0];
    if width == 0 {
        return Err(Error::range("channel x needs 8, 16 or 32 bits: a format has at least one channel"));
    }
    if bits[channels as usize..].iter().any(|&b| b != 0) {
        return Err(Error::range(format!("channels are filled in order x, y, z, w: got bits {bits:?}")));
    }
    if bits[..channels as usize].iter().any(|&b| b != width) {
        return Err(Error::range(format!("every channel of a CUDA array has the same width: got bits {bits:?}")));
    }
    if channels == 3 {
        return Err(Error::range("a CUDA array has 1, 2 or 4 channels, not 3 (pad to 4 with w)"));
    }
    if kind == ChannelKind::Float && width == 8 {
        return Err(Error::range("a float channel has 16 (half) or 32 bits, not 8"));
    }
    Ok(Format { kind, bits: width, channels })
}

/// The largest extents of a CUDA array on compute capability 9.0 (`maxTexture1D`, `2D`, `3D`,
/// `1DLayered`, `2DLayered`; a surface's 1D width is less). Older devices refuse sooner: the
/// driver's error then.
fn limits(height: u64, depth: u64, layered: bool, surface: bool) -> (&'static str, [u64; 3]) {
    match (height, depth, layered) {
        (0, _, true) => ("a 1D layered array", [32768, 0, 2048]),
        (_, _, true) => ("a 2D layered array", [32768, 32768, 2048]),
        (0, _, false) => ("a 1D array", [if surface { 32768 } else { 131072 }, 0, 0]),
        (_, 0, false) => ("a 2D array", [131072, 65536, 0]),
        _ => ("a 3D array", [16384, 16384, 16384]),
    }
}

/// A CUDA array (CuPy's `CUDAarray`): `width` × `height` × `depth` elements, `height` 0 for one
/// dimension and `depth` 0 for one or two; a layered array's `depth` is its layer count.
pub struct CudaArray {
    ops: Box<dyn ArrayOps>,
    desc: ArrayDesc,
    device: usize,
}

impl CudaArray {
    /// Makes the array (`cuArray3DCreate`), each extent checked against the device's limits;
    /// `surface` lets surface objects be made over it (`CUDA_ARRAY3D_SURFACE_LDST`).
    pub fn new(device: usize, format: Format, extent: [u64; 3], layered: bool, surface: bool) -> Result<CudaArray> {
        let [width, height, depth] = extent;
        if width == 0 {
            return Err(Error::range("a CUDA array needs a width of at least 1"));
        }
        if layered && depth == 0 {
            return Err(Error::range("a layered CUDA array needs at least 1 layer (its depth)"));
        }
        if !layered && height == 0 && depth != 0 {
            return Err(Error::range(format!("a 3D CUDA array needs a height: got {width} x 0 x {depth}")));
        }
        let (what, max) = limits(height, depth, layered, surface);
        for (name, (n, m)) in ["width", "height", if layered { "layer count" } else { "depth" }].iter().zip(extent.iter().zip(max)) {
            if *n > m {
                return Err(Error::range(format!("{what}'s {name} is at most {m}, got {n}")));
            }
        }
        let desc = ArrayDesc { width, height, depth, format, layered, surface };
        let ops = runtime()?.backend.textures().create_array(device, &desc)?;
        Ok(CudaArray { ops, desc, device })
    }

    pub fn desc(&self) -> &ArrayDesc {
        &self.desc
    }
    pub fn device(&self) -> usize {
        self.device
    }
    /// The `CUarray` handle.
    pub fn handle(&self) -> u64 {
        self.ops.handle()
    }
    /// The array's bytes, packed.
    pub fn nbytes(&self) -> u64 {
        self.desc.bytes()
    }

    fn on(&self, stream: &Stream) -> Result<()> {
        if stream.device() != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("the CUDA array is on device {}: copy on a stream of that device, not of device {}", self.device, stream.device()),
            ));
        }
        // Refuses a capturing stream (a copy that returns done cannot be captured) and waits
        // for the work queued before.
        stream.synchronize()
    }

    fn check_host(&self, len: usize, what: &str) -> Result<()> {
        let d = &self.desc;
        if len as u64 != d.bytes() {
            return Err(Error::range(format!(
                "{what} takes exactly the array's {} bytes ({} x {} x {} elements of {} bytes), got {len}",
                d.bytes(),
                d.width,
                d.rows(),
                d.slices(),
                d.format.element_size()
            )));
        }
        Ok(())
    }

    /// The device memory rows `pitch` bytes apart (packed by default) from `offset` of `mem`
    /// hold the whole array: its allocation and offset.
    fn device_range<'a>(
        &self,
        mem: &'a Block,
        offset: u64,
        pitch: Option<u64>,
        what: &str,
    ) -> Result<(&'a dyn crate::ops::AllocOps, u64, u64)> {
        if mem.device() != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("{what}: the CUDA array is on device {}, the memory on device {}", self.device, mem.device()),
            ));
        }
        let d = &self.desc;
        let pitch = pitch.unwrap_or(d.row_bytes());
        let len = crate::ops::extent(pitch, d.row_bytes(), d.rows() * d.slices(), what)?;
        let (m, at) = mem.range(offset, len, what)?;
        Ok((m.ops()?, at, pitch))
    }

    /// Copies packed host bytes (exactly the array's size) into the array, after the work
    /// queued on `stream`; returns once done.
    pub fn copy_from_host(&self, src: &[u8], stream: &Stream) -> Result<()> {
        self.check_host(src.len(), "copyFrom")?;
        self.on(stream)?;
        self.ops.copy(Linear::FromHost(src), stream.ops()?)
    }

    /// Copies the array into packed host bytes (exactly its size).
    pub fn copy_to_host(&self, dst: &mut [u8], stream: &Stream) -> Result<()> {
        self.check_host(dst.len(), "copyTo")?;
        self.on(stream)?;
        self.ops.copy(Linear::ToHost(dst), stream.ops()?)
    }

    /// Copies rows `pitch` bytes apart (packed by default) from `offset` of `src` into the array.
    pub fn copy_from_device(&self, src: &Block, offset: u64, pitch: Option<u64>, stream: &Stream) -> Result<()> {
        let (m, at, pitch) = self.device_range(src, offset, pitch, "copyFrom")?;
        self.on(stream)?;
        self.ops.copy(Linear::FromDevice(m, at, pitch), stream.ops()?)
    }

    /// Copies the array into rows `pitch` bytes apart (packed by default) from `offset` of `dst`.
    pub fn copy_to_device(&self, dst: &Block, offset: u64, pitch: Option<u64>, stream: &Stream) -> Result<()> {
        let (m, at, pitch) = self.device_range(dst, offset, pitch, "copyTo")?;
        self.on(stream)?;
        self.ops.copy(Linear::ToDevice(m, at, pitch), stream.ops()?)
    }
}

/// How a texture samples (CuPy's `TextureDescriptor`), from its names: address modes
/// `'wrap'`, `'clamp'`, `'mirror'` or `'border'` (up to three, the rest clamp), filter `'point'`
/// or `'linear'`, read mode `'element'` or `'normalizedFloat'`.
pub fn tex_desc(address: &[String], filter: &str, read: &str, normalized_coords: bool, border: [f32; 4]) -> Result<TexDesc> {
    if address.len() > 3 {
        return Err(Error::range(format!("a texture has at most 3 address modes, got {}", address.len())));
    }
    let mut modes = [AddressMode::Clamp; 3];
    for (m, name) in modes.iter_mut().zip(address) {
        *m = match name.as_str() {
            "wrap" => AddressMode::Wrap,
            "clamp" => AddressMode::Clamp,
            "mirror" => AddressMode::Mirror,
            "border" => AddressMode::Border,
            _ => return Err(Error::range(format!("an address mode is 'wrap', 'clamp', 'mirror' or 'border', got '{name}'"))),
        };
        if matches!(*m, AddressMode::Wrap | AddressMode::Mirror) && !normalized_coords {
            return Err(Error::range(format!(
                "address mode '{name}' needs normalizedCoords: true (CUDA wraps and mirrors only normalized coordinates)"
            )));
        }
    }
    let filter = match filter {
        "point" => FilterMode::Point,
        "linear" => FilterMode::Linear,
        _ => return Err(Error::range(format!("filterMode is 'point' or 'linear', got '{filter}'"))),
    };
    let normalized_float = match read {
        "element" => false,
        "normalizedFloat" => true,
        _ => return Err(Error::range(format!("readMode is 'element' or 'normalizedFloat', got '{read}'"))),
    };
    Ok(TexDesc { address: modes, filter, normalized_float, normalized_coords, border })
}

/// What a texture reads (CuPy's `ResourceDescriptor`); it holds what it names.
#[derive(Clone)]
pub enum Resource {
    Array(Arc<CudaArray>),
    /// `size` bytes from `offset` of `mem`, elements of `format` (`tex1Dfetch`).
    Linear {
        mem: Arc<Block>,
        offset: u64,
        format: Format,
        size: u64,
    },
    /// `height` rows of `width` elements of `format`, `pitch` bytes apart, from `offset` of `mem`.
    Pitch2D {
        mem: Arc<Block>,
        offset: u64,
        format: Format,
        width: u64,
        height: u64,
        pitch: u64,
    },
}

impl Resource {
    fn device(&self) -> usize {
        match self {
            Resource::Array(a) => a.device,
            Resource::Linear { mem, .. } | Resource::Pitch2D { mem, .. } => mem.device(),
        }
    }

    fn format(&self) -> Format {
        match self {
            Resource::Array(a) => a.desc.format,
            Resource::Linear { format, .. } | Resource::Pitch2D { format, .. } => *format,
        }
    }

    /// The address of `offset` of `mem`, `len` bytes inside it and aligned to `align`.
    fn address(mem: &Block, offset: u64, len: u64, align: u64, what: &str) -> Result<u64> {
        let (m, at) = mem.range(offset, len, what)?;
        let ptr = m.ops()?.ptr() + at;
        if !ptr.is_multiple_of(align) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("{what} memory starts on a multiple of {align} bytes: 0x{ptr:x} (offset {offset}) is not"),
            ));
        }
        Ok(ptr)
    }
}

/// A texture object (CuPy's `TextureObject`, `cuTexObjectCreate`): its handle is what a kernel
/// takes as `cudaTextureObject_t`. It holds its array or memory until it is dropped.
pub struct TextureObject {
    ops: Box<dyn ObjectOps>,
    resource: Resource,
}

/// Checks `resource` and `desc` together (the read mode and filter the format allows, the memory's
/// range and alignment), then calls `make` with the device and the checked resource: what a
/// texture object and a texture reference share.
fn checked<R>(resource: &Resource, desc: &TexDesc, make: impl FnOnce(usize, &ResourceRef<'_>) -> Result<R>) -> Result<R> {
    let f = resource.format();
    if desc.normalized_float && (f.kind == ChannelKind::Float || f.bits == 32) {
        return Err(Error::range("readMode 'normalizedFloat' reads 8- and 16-bit integer channels only: use 'element'"));
    }
    if desc.filter == FilterMode::Linear && f.kind != ChannelKind::Float && !desc.normalized_float {
        return Err(Error::range("filterMode 'linear' needs float channels, or readMode 'normalizedFloat' over 8- or 16-bit integers"));
    }
    let device = resource.device();
    match resource {
        Resource::Array(a) => make(device, &ResourceRef::Array(&*a.ops)),
        Resource::Linear { mem, offset, format, size } => {
            if *size == 0 || !size.is_multiple_of(format.element_size()) {
                return Err(Error::range(format!(
                    "a linear texture's size is a multiple of its {}-byte element above 0, got {size}",
                    format.element_size()
                )));
            }
            let ptr = Resource::address(mem, *offset, *size, TEXTURE_ALIGNMENT, "a linear texture's")?;
            make(device, &ResourceRef::Linear { ptr, format: *format, size: *size })
        }
        Resource::Pitch2D { mem, offset, format, width, height, pitch } => {
            let (w, h, p) = (*width, *height, *pitch);
            if w == 0 || h == 0 || w > 131072 || h > 65000 {
                return Err(Error::range(format!(
                    "a pitch2D texture is 1 to 131072 elements wide and 1 to 65000 rows high, got {w} x {h}"
                )));
            }
            if !p.is_multiple_of(PITCH_ALIGNMENT) {
                return Err(Error::range(format!("a pitch2D texture's pitch is a multiple of {PITCH_ALIGNMENT} bytes, got {p}")));
            }
            let len = crate::ops::extent(p, w * format.element_size(), h, "pitch2D")?;
            let ptr = Resource::address(mem, *offset, len, PITCH_ALIGNMENT, "a pitch2D texture's")?;
            make(device, &ResourceRef::Pitch2D { ptr, format: *format, width: w, height: h, pitch: p })
        }
    }
}

impl TextureObject {
    pub fn new(resource: Resource, desc: TexDesc) -> Result<TextureObject> {
        let textures = runtime()?.backend.textures();
        let ops = checked(&resource, &desc, |device, r| textures.create_texture(device, r, &desc))?;
        Ok(TextureObject { ops, resource })
    }

    /// The `CUtexObject`.
    pub fn handle(&self) -> u64 {
        self.ops.handle()
    }
    pub fn resource(&self) -> &Resource {
        &self.resource
    }
    pub fn device(&self) -> usize {
        self.resource.device()
    }
}

/// A surface object (CuPy's `SurfaceObject`, `cuSurfObjectCreate`) over an array made for
/// surface loads and stores; it holds the array until it is dropped.
pub struct SurfaceObject {
    ops: Box<dyn ObjectOps>,
    array: Arc<CudaArray>,
}

impl SurfaceObject {
    pub fn new(array: Arc<CudaArray>) -> Result<SurfaceObject> {
        if !array.desc.surface {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                "a SurfaceObject needs a CUDA array made for surface loads and stores: create it with surfaceLoadStore: true",
            ));
        }
        let ops = runtime()?.backend.textures().create_surface(array.device, &*array.ops)?;
        Ok(SurfaceObject { ops, array })
    }

    /// The `CUsurfObject`.
    pub fn handle(&self) -> u64 {
        self.ops.handle()
    }
    pub fn array(&self) -> &Arc<CudaArray> {
        &self.array
    }
}

/// A texture reference (CuPy's `RawModule.get_texref` and `TextureReference`; the driver's
/// deprecated `cuModuleGetTexRef` and `cuTexRefSet*`): the reference `name` a module declares
/// (`.global .texref` in PTX; CUDA C++ dropped `texture<>` in CUDA 12), bound to an array or
/// memory and set to sample as a texture descriptor says. Its handle is the `CUtexref`, which the
/// module owns; it holds the module and what it reads until it is dropped (binding the reference
/// again, through another, replaces what kernels read).
pub struct TextureReference {
    handle: u64,
    resource: Resource,
    _module: Arc<dyn std::any::Any + Send + Sync>,
}

impl TextureReference {
    pub fn new(module: &crate::module::Module, name: &str, resource: Resource, desc: TexDesc) -> Result<TextureReference> {
        if name.is_empty() || name.contains('\0') {
            return Err(Error::type_error("a texture reference's name must be non-empty and contain no NUL byte"));
        }
        let device = resource.device();
        if module.device() != device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("the module is loaded on device {}, what the reference reads is on device {device}", module.device()),
            ));
        }
        let textures = runtime()?.backend.textures();
        let ops = module.module_ops();
        let handle = checked(&resource, &desc, |device, r| textures.bind_texref(device, ops.as_ref(), name, r, &desc))?;
        Ok(TextureReference { handle, resource, _module: ops.keep_alive() })
    }

    /// The `CUtexref` (what CuPy's `get_texref` returns).
    pub fn handle(&self) -> u64 {
        self.handle
    }
    pub fn resource(&self) -> &Resource {
        &self.resource
    }
    pub fn device(&self) -> usize {
        self.resource.device()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() {
        std::env::set_var("CUDA_NODE_BACKEND", "sim");
        runtime().unwrap();
    }

    #[test]
    fn formats_are_one_two_or_four_equal_channels() {
        let f = format([32, 0, 0, 0], "float").unwrap();
        assert_eq!((f.channels, f.element_size()), (1, 4));
        assert_eq!(format([8, 8, 8, 8], "unsigned").unwrap().element_size(), 4);
        assert!(format([12, 0, 0, 0], "float").unwrap_err().message().contains("8, 16 or 32"));
        assert!(format([8, 8, 8, 0], "signed").unwrap_err().message().contains("not 3"));
        assert!(format([8, 16, 0, 0], "signed").unwrap_err().message().contains("same width"));
        assert!(format([8, 0, 0, 0], "float").unwrap_err().message().contains("not 8"));
        assert!(format([0, 8, 0, 0], "signed").is_err());
        assert!(format([8, 0, 8, 0], "signed").is_err());
        assert!(format([8, 0, 0, 0], "complex").unwrap_err().message().contains("'signed', 'unsigned' or 'float'"));
    }

    #[test]
    fn extents_are_checked_before_the_backend() {
        setup();
        let f = format([32, 0, 0, 0], "float").unwrap();
        assert!(CudaArray::new(0, f, [0, 4, 0], false, false).is_err());
        assert!(CudaArray::new(0, f, [4, 4, 0], true, false).is_err());
        assert!(CudaArray::new(0, f, [4, 0, 4], false, false).is_err());
        assert!(CudaArray::new(0, f, [1 << 20, 0, 0], false, false).err().unwrap().message().contains("at most 131072"));
        let a = CudaArray::new(0, f, [4, 3, 2], true, false).unwrap();
        assert_eq!(a.nbytes(), 4 * 3 * 2 * 4);
    }

    #[test]
    fn a_texture_holds_its_array() {
        setup();
        let f = format([32, 0, 0, 0], "float").unwrap();
        let a = Arc::new(CudaArray::new(0, f, [8, 8, 0], false, true).unwrap());
        let desc = tex_desc(&[], "point", "element", false, [0.0; 4]).unwrap();
        let t = TextureObject::new(Resource::Array(a.clone()), desc).unwrap();
        let s = SurfaceObject::new(a.clone()).unwrap();
        assert_ne!(t.handle(), s.handle());
        assert_eq!(Arc::strong_count(&a), 3);
        drop(t);
        drop(s);
        assert_eq!(Arc::strong_count(&a), 1);
        assert!(tex_desc(&["wrap".into()], "point", "element", false, [0.0; 4]).is_err());
        let bad = tex_desc(&[], "point", "normalizedFloat", false, [0.0; 4]).unwrap();
        assert!(TextureObject::new(Resource::Array(a.clone()), bad).is_err());
    }
}
