//! Device memory at the seam: the memory resource every kind of allocation comes from, and the
//! one trait every allocation answers to, saying what it is.

use crate::error::{Error, Result};
use std::any::Any;

/// What a backend does for device memory: every kind of allocation, and what the driver knows
/// of an address. Stream-ordered allocations come from a stream (`StreamOps::alloc_async`).
pub trait MemoryResource: Send + Sync + 'static {
    /// A device allocation of `size` > 0 bytes (`cuMemAlloc`), freed when dropped.
    fn alloc(&self, ordinal: usize, size: u64) -> Result<Box<dyn AllocOps>>;
    /// Managed memory of `size` > 0 bytes (`cuMemAllocManaged`; `global` attaches it to every
    /// stream, else to the host), freed when dropped.
    fn alloc_managed(&self, ordinal: usize, size: u64, global: bool) -> Result<Box<dyn AllocOps>>;
    /// Memory someone else allocated: the allocation holding `ptr` (known to the driver, on
    /// `ordinal`), never freed by us. Returns it and the offset of `ptr` in it.
    fn alloc_foreign(&self, ordinal: usize, ptr: u64) -> Result<(Box<dyn AllocOps>, u64)>;
    /// The handle another process opens the allocation starting at `ptr` with (`cuIpcGetMemHandle`).
    fn ipc_mem_handle(&self, ordinal: usize, ptr: u64) -> Result<[u8; 64]>;
    /// Opens another process's allocation (`cuIpcOpenMemHandle`), closed when dropped; its size.
    fn ipc_open_mem(&self, ordinal: usize, handle: &[u8; 64]) -> Result<(Box<dyn AllocOps>, u64)>;
    /// What the driver knows of `ptr` (`cuPointerGetAttribute`): `CUDA_ERROR_INVALID_VALUE`
    /// for an address it does not know.
    fn pointer_attributes(&self, ptr: u64) -> Result<PointerAttributes>;
    /// Advice on how managed memory `[ptr, ptr + len)` is used (`cuMemAdvise` v2).
    fn mem_advise(&self, ptr: u64, len: u64, advice: Advice, location: Location) -> Result<()>;
    /// An attribute of the device's stream-ordered pool (`cuMemPoolGetAttribute`).
    fn async_pool_get(&self, ordinal: usize, attr: PoolAttr) -> Result<u64>;
    /// Sets one (`cuMemPoolSetAttribute`): the release threshold, or a high-water mark to 0.
    fn async_pool_set(&self, ordinal: usize, attr: PoolAttr, value: u64) -> Result<()>;
    /// Releases the stream-ordered pool's unused memory (`cuMemPoolTrimTo(pool, 0)`).
    fn async_pool_trim(&self, ordinal: usize) -> Result<()>;
}

/// Where managed memory is prefetched to, or what advice names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    Device(usize),
    Host,
}

/// Where an allocation came from: every kind of device memory answers to [`AllocOps`], and says
/// which it is, so no caller has to find out by downcasting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocKind {
    /// `cuMemAlloc`.
    Device,
    /// `cuMemAllocManaged`: the host reaches it at the same address.
    Managed,
    /// `cuMemAllocAsync`, freed in its stream's order.
    StreamOrdered,
    /// Someone else's allocation, never freed here.
    Foreign,
    /// Another process's allocation, opened with `cuIpcOpenMemHandle`.
    Ipc,
    /// A module's `__device__` or `__constant__` variable.
    ModuleGlobal,
    /// A reserved address range with physical memory mapped into it (`ops/vmm.rs`).
    Virtual,
    /// From a pool other processes can import (`ops/shared_pool.rs`), freed in stream order.
    Shareable,
    /// Another process's pool allocation, imported with `cuMemPoolImportPointer`.
    Imported,
}

/// One allocation of device memory, of any kind, freed (or closed, or let go) when dropped.
pub trait AllocOps: Send + Sync + 'static {
    /// The device address.
    fn ptr(&self) -> u64;
    fn kind(&self) -> AllocKind;
    /// The device whose context made it; `None` for memory the driver resolves by address
    /// alone (foreign memory, a module's variable).
    fn device(&self) -> Option<usize>;
    /// Where the host reaches the bytes: managed memory only.
    fn host_ptr(&self) -> Option<*mut u8> {
        None
    }
    /// The backend's own allocation, for the backend that made it (the simulator's bytes).
    fn as_any(&self) -> &dyn Any;
}

/// What `cuPointerGetAttribute` says an address is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryKind {
    Device,
    Host,
    Managed,
}

impl MemoryKind {
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Device => "device",
            MemoryKind::Host => "host",
            MemoryKind::Managed => "managed",
        }
    }
}

/// An address's device, kind, and the allocation holding it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointerAttributes {
    pub device: usize,
    pub kind: MemoryKind,
    pub base: u64,
    pub size: u64,
}

/// `CUmem_advise`, by its driver value (1 to 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    SetReadMostly = 1,
    UnsetReadMostly = 2,
    SetPreferredLocation = 3,
    UnsetPreferredLocation = 4,
    SetAccessedBy = 5,
    UnsetAccessedBy = 6,
}

impl Advice {
    pub const NAMES: [(&'static str, Advice); 6] = [
        ("setReadMostly", Advice::SetReadMostly),
        ("unsetReadMostly", Advice::UnsetReadMostly),
        ("setPreferredLocation", Advice::SetPreferredLocation),
        ("unsetPreferredLocation", Advice::UnsetPreferredLocation),
        ("setAccessedBy", Advice::SetAccessedBy),
        ("unsetAccessedBy", Advice::UnsetAccessedBy),
    ];

    pub fn parse(name: &str) -> Result<Advice> {
        Advice::NAMES.iter().find(|(n, _)| *n == name).map(|&(_, a)| a).ok_or_else(|| {
            let all: Vec<_> = Advice::NAMES.iter().map(|(n, _)| format!("'{n}'")).collect();
            Error::range(format!("advice must be one of {}, got '{name}'", all.join(", ")))
        })
    }
}

/// The attributes of a device's stream-ordered pool that `async_pool.rs` reads and sets
/// (`CUmemPool_attribute`; the `*_HIGH` ones can only be set to 0, which resets them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolAttr {
    ReleaseThreshold,
    ReservedCurrent,
    ReservedHigh,
    UsedCurrent,
    UsedHigh,
}
