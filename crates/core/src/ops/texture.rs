//! Texture and surface memory at the seam (`cupy.cuda.texture`): CUDA arrays
//! (`cuArray3DCreate`), copies between an array and linear memory (`cuMemcpy3DAsync`), and the
//! texture and surface objects kernels read and write through (`cuTexObjectCreate`,
//! `cuSurfObjectCreate`). The rules — channel formats, extents, sizes, which descriptor goes with
//! which resource — are the model's (`texture.rs`): a backend is called with checked values.

use crate::error::Result;
use crate::ops::{AllocOps, ModuleOps, StreamOps};
use std::any::Any;

/// How a channel's bits read: `CU_AD_FORMAT_{SIGNED,UNSIGNED}_INT*`, `_HALF`, `_FLOAT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelKind {
    Signed,
    Unsigned,
    Float,
}

/// An element's format, checked: 1, 2 or 4 channels of 8, 16 or 32 bits each (a float's 16 or 32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub kind: ChannelKind,
    pub bits: u32,
    pub channels: u32,
}

impl Format {
    /// Bytes an element takes.
    pub fn element_size(&self) -> u64 {
        u64::from(self.bits / 8 * self.channels)
    }
}

/// A CUDA array's shape, checked (`CUDA_ARRAY3D_DESCRIPTOR`): `height` 0 for one dimension,
/// `depth` 0 for one or two; `depth` counts the layers of a layered array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayDesc {
    pub width: u64,
    pub height: u64,
    pub depth: u64,
    pub format: Format,
    /// `CUDA_ARRAY3D_LAYERED`.
    pub layered: bool,
    /// `CUDA_ARRAY3D_SURFACE_LDST`: a surface object may be made over it.
    pub surface: bool,
}

impl ArrayDesc {
    /// Bytes in one row.
    pub fn row_bytes(&self) -> u64 {
        self.width * self.format.element_size()
    }
    /// Rows in one slice (or layer).
    pub fn rows(&self) -> u64 {
        self.height.max(1)
    }
    /// Slices (or layers).
    pub fn slices(&self) -> u64 {
        self.depth.max(1)
    }
    /// Bytes of the whole array, packed.
    pub fn bytes(&self) -> u64 {
        self.row_bytes() * self.rows() * self.slices()
    }
}

/// The linear side of a copy with a CUDA array; the array side is always the whole array.
pub enum Linear<'a> {
    /// Into the array from packed host bytes (exactly the array's size).
    FromHost(&'a [u8]),
    /// Out of the array into packed host bytes (exactly the array's size).
    ToHost(&'a mut [u8]),
    /// Into the array from device memory at an offset, rows `pitch` bytes apart.
    FromDevice(&'a dyn AllocOps, u64, u64),
    /// Out of the array into device memory at an offset, rows `pitch` bytes apart.
    ToDevice(&'a dyn AllocOps, u64, u64),
}

/// The address modes (`CUaddress_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    Wrap,
    Clamp,
    Mirror,
    Border,
}

/// The filter mode (`CUfilter_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterMode {
    Point,
    Linear,
}

/// How a texture is sampled (`CUDA_TEXTURE_DESC`), checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexDesc {
    pub address: [AddressMode; 3],
    pub filter: FilterMode,
    /// `cudaReadModeNormalizedFloat`: integers read as floats in [0, 1] (or [-1, 1]); else as
    /// they are (`CU_TRSF_READ_AS_INTEGER`).
    pub normalized_float: bool,
    /// `CU_TRSF_NORMALIZED_COORDINATES`.
    pub normalized_coords: bool,
    pub border: [f32; 4],
}

/// What a texture reads (`CUDA_RESOURCE_DESC`), checked: addresses inside live memory.
pub enum ResourceRef<'a> {
    Array(&'a dyn ArrayOps),
    /// `size` bytes at `ptr` of elements of `format`.
    Linear {
        ptr: u64,
        format: Format,
        size: u64,
    },
    /// `height` rows of `width` elements at `ptr`, `pitch` bytes apart.
    Pitch2D {
        ptr: u64,
        format: Format,
        width: u64,
        height: u64,
        pitch: u64,
    },
}

/// What a backend does for textures and surfaces.
pub trait Textures: Send + Sync + 'static {
    /// A CUDA array on `ordinal` (`cuArray3DCreate`), destroyed when dropped.
    fn create_array(&self, ordinal: usize, desc: &ArrayDesc) -> Result<Box<dyn ArrayOps>>;
    /// A texture object over `res` (`cuTexObjectCreate`), destroyed when dropped.
    fn create_texture(&self, ordinal: usize, res: &ResourceRef<'_>, desc: &TexDesc) -> Result<Box<dyn ObjectOps>>;
    /// A surface object over an array made with `surface` (`cuSurfObjectCreate`), destroyed when dropped.
    fn create_surface(&self, ordinal: usize, array: &dyn ArrayOps) -> Result<Box<dyn ObjectOps>>;
    /// The texture reference `name` of `module` (`cuModuleGetTexRef`), bound to `res` and set to
    /// sample as `desc` says (`cuTexRefSet*`); its `CUtexref`, which the module owns.
    fn bind_texref(&self, ordinal: usize, module: &dyn ModuleOps, name: &str, res: &ResourceRef<'_>, desc: &TexDesc) -> Result<u64>;
}

/// One CUDA array.
pub trait ArrayOps: Send + Sync + 'static {
    /// The `CUarray`.
    fn handle(&self) -> u64;
    /// Copies the whole array to or from `linear`, ordered after the work queued on `stream`;
    /// returns once the copy is complete.
    fn copy(&self, linear: Linear<'_>, stream: &dyn StreamOps) -> Result<()>;
    fn as_any(&self) -> &dyn Any;
}

/// A texture or surface object: its handle (`CUtexObject`, `CUsurfObject`), what kernels take.
pub trait ObjectOps: Send + Sync + 'static {
    fn handle(&self) -> u64;
}
