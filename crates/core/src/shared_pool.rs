//! Stream-ordered pools shared between processes (cuda.core's shareable `DeviceMemoryResource`):
//! a pool of our own made with a POSIX file descriptor as its handle type, which
//! [`SharedPool::share`] serves on a private Unix socket (`pool_socket.rs`), and
//! [`SharedPool::connect`] imports in another process of the same user. An allocation crosses as
//! its export data ([`export_pointer`]), behind a header naming the pool, so that a malformed or
//! foreign one is refused before the driver sees it.
//!
//! Lifetime across processes, as CUDA states it (`cuMemPoolImportPointer`): an import is valid
//! until the importer frees it, the exporter's process exiting included (the import holds the
//! physical memory); the exporter must free an allocation only after every importer has freed
//! its import — freeing it first returns the bytes to the exporter's pool, which may hand them
//! out again while the importer still reads them (an export pool never gives memory back to
//! the device, so nothing faults). Nothing here can see another process's frees: the two
//! processes order them (a message, as the tests do).

use crate::block::Block;
use crate::error::{Code, Error, Result};
use crate::memory::DeviceMemory;
use crate::ops::{AllocKind, AllocOps, PoolAttr, PoolPlace, SharedPoolOps};
use crate::runtime;
use crate::stream::Stream;
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// What an exported pointer starts with, then its version.
const POINTER_MAGIC: &[u8; 4] = b"CNPX";
const POINTER_VERSION: u32 = 1;
/// The exported pointer's length: magic, version, the pool's id, the size, CUDA's 64 bytes.
pub const EXPORTED_POINTER_BYTES: usize = 4 + 4 + 16 + 8 + 64;

/// The allocations of this process's shareable pools that are alive, by address: their pool's
/// id, size and pool (which the allocation holds anyway), for [`export_pointer`].
type Live = HashMap<u64, ([u8; 16], u64, Arc<dyn SharedPoolOps>)>;

fn exportable() -> &'static Mutex<Live> {
    static LIVE: OnceLock<Mutex<Live>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
}

fn live() -> std::sync::MutexGuard<'static, Live> {
    exportable().lock().unwrap_or_else(|p| p.into_inner())
}

/// A shareable pool's allocation, listed as exportable while it lives.
struct Listed(Box<dyn AllocOps>);

impl Drop for Listed {
    fn drop(&mut self) {
        live().remove(&self.0.ptr());
    }
}

impl AllocOps for Listed {
    fn ptr(&self) -> u64 {
        self.0.ptr()
    }
    fn kind(&self) -> AllocKind {
        self.0.kind()
    }
    fn device(&self) -> Option<usize> {
        self.0.device()
    }
    fn as_any(&self) -> &dyn Any {
        // The backend's own allocation: a backend recovers only its own types.
        self.0.as_any()
    }
}

/// What an imported pool holds of its imports: the driver reads no attribute of an imported pool
/// (`cuMemPoolGetAttribute` is `CUDA_ERROR_INVALID_VALUE` there, seen on an H200), so its
/// `usedBytes()` and peaks are counted here.
#[derive(Default)]
struct Imports {
    now: std::sync::atomic::AtomicU64,
    high: std::sync::atomic::AtomicU64,
}

/// An import, counted in its pool's [`Imports`] while it lives.
struct Counted {
    ops: Box<dyn AllocOps>,
    size: u64,
    imports: Arc<Imports>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.imports.now.fetch_sub(self.size, std::sync::atomic::Ordering::AcqRel);
    }
}

impl AllocOps for Counted {
    fn ptr(&self) -> u64 {
        self.ops.ptr()
    }
    fn kind(&self) -> AllocKind {
        self.ops.kind()
    }
    fn device(&self) -> Option<usize> {
        self.ops.device()
    }
    fn as_any(&self) -> &dyn Any {
        self.ops.as_any()
    }
}

/// One shareable pool: made here (it allocates and can be shared) or imported (it imports).
pub struct SharedPool {
    device: usize,
    imports: Arc<Imports>,
    /// Where an imported pool is shared; `None` for one made here.
    path: Option<String>,
    /// Set when made, or for an imported pool once [`SharedPool::join`] has received it.
    pool: OnceLock<Joined>,
    #[cfg(not(target_family = "wasm"))]
    server: Mutex<Option<crate::pool_socket::Server>>,
}

/// The driver's pool and what names it.
struct Joined {
    /// Told to importers in the hello (WebAssembly shares nothing).
    #[cfg_attr(target_family = "wasm", allow(dead_code))]
    place: PoolPlace,
    ops: Arc<dyn SharedPoolOps>,
    id: [u8; 16],
}

fn invalid(message: impl Into<String>) -> Error {
    Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, message)
}

impl SharedPool {
    fn new(device: usize, path: Option<String>) -> SharedPool {
        #[cfg(not(target_family = "wasm"))]
        return SharedPool { device, imports: Arc::default(), path, pool: OnceLock::new(), server: Mutex::new(None) };
        #[cfg(target_family = "wasm")]
        SharedPool { device, imports: Arc::default(), path, pool: OnceLock::new() }
    }

    /// A new shareable pool on `device` (its memory there, or pinned on the host).
    /// `CUDA_ERROR_NOT_SUPPORTED` on the simulator.
    pub fn create(device: usize, place: PoolPlace) -> Result<SharedPool> {
        let ops = runtime()?.backend.shared_pools().create_pool(device, place)?;
        #[cfg(not(target_family = "wasm"))]
        let id = crate::pool_socket::pool_id();
        #[cfg(target_family = "wasm")]
        let id = [0; 16];
        let made = SharedPool::new(device, None);
        let _ = made.pool.set(Joined { place, ops, id });
        Ok(made)
    }

    /// The pool shared at `path` by another process of this user, to be imported for `device`
    /// by [`SharedPool::join`] (which blocks: the binding runs it off the JS thread).
    pub fn connect(device: usize, path: &str) -> SharedPool {
        SharedPool::new(device, Some(path.to_string()))
    }

    pub fn device(&self) -> usize {
        self.device
    }

    pub fn is_imported(&self) -> bool {
        self.path.is_some()
    }

    /// The backend's pool and where its memory lives, for making it a device's current pool
    /// (`device_pool.rs`).
    pub(crate) fn ops(&self) -> Result<(&Arc<dyn SharedPoolOps>, PoolPlace)> {
        let j = self.joined()?;
        Ok((&j.ops, j.place))
    }

    fn joined(&self) -> Result<&Joined> {
        self.pool.get().ok_or_else(|| invalid("this pool is not imported yet: await AsyncMemoryPool.connect(path)"))
    }

    /// Receives the pool from its socket and imports it; once (again is nothing).
    #[cfg(not(target_family = "wasm"))]
    pub fn join(&self) -> Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        if self.pool.get().is_some() {
            return Ok(());
        }
        let (hello, fd) = crate::pool_socket::connect(std::path::Path::new(path))?;
        if hello.len() != 17 || hello[0] > 1 {
            return Err(invalid(format!("{path} answered with a hello of another version of cuda-node")));
        }
        let place = if hello[0] == PoolPlace::Host as u8 { PoolPlace::Host } else { PoolPlace::Device };
        let id: [u8; 16] = hello[1..].try_into().expect("16 bytes");
        let ops = runtime()?.backend.shared_pools().import_pool(self.device, std::os::fd::AsFd::as_fd(&fd))?;
        let _ = self.pool.set(Joined { place, ops, id });
        Ok(())
    }

    /// Serves the pool on a private Unix socket (once; again gives the same path) and returns its path.
    #[cfg(not(target_family = "wasm"))]
    pub fn share(&self) -> Result<String> {
        if self.is_imported() {
            return Err(invalid("an imported pool cannot be shared again: share the pool it was imported from"));
        }
        let pool = self.joined()?;
        let mut server = self.server.lock().unwrap_or_else(|p| p.into_inner());
        if server.is_none() {
            let mut hello = vec![pool.place as u8];
            hello.extend_from_slice(&pool.id);
            *server = Some(crate::pool_socket::Server::start(hello, pool.ops.export()?)?);
        }
        Ok(server.as_ref().expect("started above").path().to_string_lossy().into_owned())
    }

    /// Stops serving the pool and removes its socket; imports already made stay valid.
    #[cfg(not(target_family = "wasm"))]
    pub fn unshare(&self) {
        let server = self.server.lock().unwrap_or_else(|p| p.into_inner()).take();
        drop(server);
    }

    #[cfg(target_family = "wasm")]
    pub fn join(&self) -> Result<()> {
        Err(Error::cuda(Code::CUDA_ERROR_NOT_SUPPORTED, "WebAssembly has no Unix sockets to import a pool from"))
    }

    #[cfg(target_family = "wasm")]
    pub fn share(&self) -> Result<String> {
        Err(Error::cuda(Code::CUDA_ERROR_NOT_SUPPORTED, "WebAssembly has no Unix sockets to share a pool on"))
    }

    #[cfg(target_family = "wasm")]
    pub fn unshare(&self) {}

    /// `size` > 0 bytes in `stream`'s order (`cuMemAllocFromPoolAsync`).
    pub(crate) fn alloc(&self, size: u64, stream: &Arc<Stream>) -> Result<DeviceMemory> {
        if self.is_imported() {
            return Err(invalid("an imported pool makes no allocations (CUDA's rule): import the exporter's with importPointer"));
        }
        if stream.device() != self.device {
            return Err(invalid(format!(
                "the shareable pool of device {} cannot allocate on a stream of device {}",
                self.device,
                stream.device()
            )));
        }
        stream.legacy_ok("a shareable pool's allocation")?;
        if stream.is_capturing()? {
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                "a graph cannot allocate from a shareable pool: allocate before the capture",
            ));
        }
        let pool = self.joined()?;
        let ops = pool.ops.clone().alloc(size, stream.ops()?)?;
        live().insert(ops.ptr(), (pool.id, size, pool.ops.clone()));
        Ok(DeviceMemory::from_ops(Box::new(Listed(ops)), self.device, size))
    }

    /// The allocation another process exported as `data` (from [`export_pointer`]), imported
    /// into this pool, which must be the one shared as its pool.
    pub fn import_pointer(&self, data: &[u8]) -> Result<Block> {
        let pool = self.joined()?;
        let (size, cuda) = decode(data, &pool.id)?;
        if !self.is_imported() {
            return Err(invalid("import pointers into the pool AsyncMemoryPool.connect() returned, in another process"));
        }
        let ops = pool.ops.clone().import_pointer(&cuda)?;
        use std::sync::atomic::Ordering::AcqRel;
        let now = self.imports.now.fetch_add(size, AcqRel) + size;
        self.imports.high.fetch_max(now, AcqRel);
        let ops = Box::new(Counted { ops, size, imports: self.imports.clone() });
        Ok(Block::whole(DeviceMemory::from_ops(ops, self.device, size)))
    }

    pub(crate) fn get(&self, attr: PoolAttr) -> Result<u64> {
        let pool = self.joined()?;
        if !self.is_imported() {
            return pool.ops.get(attr);
        }
        use std::sync::atomic::Ordering::Acquire;
        Ok(match attr {
            PoolAttr::UsedCurrent | PoolAttr::ReservedCurrent => self.imports.now.load(Acquire),
            PoolAttr::UsedHigh | PoolAttr::ReservedHigh => self.imports.high.load(Acquire),
            PoolAttr::ReleaseThreshold => 0,
        })
    }

    pub(crate) fn set(&self, attr: PoolAttr, value: u64) -> Result<()> {
        let pool = self.joined()?;
        if !self.is_imported() {
            return pool.ops.set(attr, value);
        }
        match attr {
            PoolAttr::UsedHigh | PoolAttr::ReservedHigh => {
                use std::sync::atomic::Ordering::{Acquire, Release};
                self.imports.high.store(self.imports.now.load(Acquire), Release);
                Ok(())
            }
            _ => Err(Error::cuda(
                Code::CUDA_ERROR_NOT_SUPPORTED,
                "an imported pool has no limit of its own: set it in the process that shares it",
            )),
        }
    }

    pub(crate) fn trim(&self) -> Result<()> {
        let pool = self.joined()?;
        if self.is_imported() {
            // Nothing of an imported pool is cached here: its imports are freed with cuMemFree.
            return Ok(());
        }
        pool.ops.trim()
    }
}

/// The data another process imports `block` with ([`SharedPool::import_pointer`]): a header
/// naming its pool and size, then CUDA's 64 bytes (`cuMemPoolExportPointer`). Only the whole of
/// an allocation of a shareable pool can be exported.
pub fn export_pointer(block: &Block) -> Result<Vec<u8>> {
    let (mem, offset) = block.base();
    let found = if mem.size() == 0 { None } else { live().get(&mem.ptr()).cloned() };
    let Some((id, size, pool)) = found else {
        return Err(invalid(
            "only memory from a shareable pool (new AsyncMemoryPool({ shareable: true })) can be exported to another process",
        ));
    };
    if offset != 0 || block.size() != size {
        return Err(invalid("only a whole allocation of a shareable pool can be exported, not a part of one"));
    }
    exported_once(&id, &*pool)?;
    Ok(encode(&id, size, &pool.export_pointer(mem.ptr())?))
}

/// CUDA exports an allocation only "from an already shared memory pool" (`cuMemPoolExportPointer`:
/// `CUDA_ERROR_INVALID_VALUE` otherwise, seen on an H200): the pool is exported once first, its
/// descriptor closed, where `share()` has not done it.
fn exported_once(id: &[u8; 16], pool: &dyn SharedPoolOps) -> Result<()> {
    static EXPORTED: OnceLock<Mutex<std::collections::HashSet<[u8; 16]>>> = OnceLock::new();
    let mut done = EXPORTED.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    if !done.contains(id) {
        drop(pool.export()?);
        done.insert(*id);
    }
    Ok(())
}

/// An exported pointer: the header naming the pool `id` and the allocation's `size`, then CUDA's data.
fn encode(id: &[u8; 16], size: u64, cuda: &[u8; 64]) -> Vec<u8> {
    let mut data = Vec::with_capacity(EXPORTED_POINTER_BYTES);
    data.extend_from_slice(POINTER_MAGIC);
    data.extend_from_slice(&POINTER_VERSION.to_le_bytes());
    data.extend_from_slice(id);
    data.extend_from_slice(&size.to_le_bytes());
    data.extend_from_slice(cuda);
    data
}

/// The size and CUDA's data of an exported pointer of the pool `id`; `CUDA_ERROR_INVALID_VALUE`
/// for anything [`encode`] did not make, or made for another pool.
fn decode(data: &[u8], id: &[u8; 16]) -> Result<(u64, [u8; 64])> {
    let malformed = |why: &str| invalid(format!("malformed exported pointer: {why}"));
    if data.len() != EXPORTED_POINTER_BYTES {
        return Err(malformed(&format!("{} bytes, where exportPointer() gives {EXPORTED_POINTER_BYTES}", data.len())));
    }
    if &data[..4] != POINTER_MAGIC {
        return Err(malformed("it does not start as exportPointer()'s data does"));
    }
    let version = u32::from_le_bytes(data[4..8].try_into().expect("4 bytes"));
    if version != POINTER_VERSION {
        return Err(malformed(&format!("version {version}, where this cuda-node reads {POINTER_VERSION}")));
    }
    if data[8..24] != id[..] {
        return Err(invalid("this pointer was exported from another pool than the one this pool was imported from"));
    }
    let size = u64::from_le_bytes(data[24..32].try_into().expect("8 bytes"));
    if size == 0 {
        return Err(malformed("a size of 0"));
    }
    Ok((size, data[32..].try_into().expect("64 bytes")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: [u8; 16] = [7; 16];

    #[test]
    fn an_exported_pointer_reads_back() {
        let cuda = [0xab; 64];
        let data = encode(&ID, 4096, &cuda);
        assert_eq!(data.len(), EXPORTED_POINTER_BYTES);
        assert_eq!(decode(&data, &ID).unwrap(), (4096, cuda));
    }

    #[test]
    fn a_malformed_or_foreign_pointer_is_refused() {
        let good = encode(&ID, 4096, &[1; 64]);
        let refused = |data: &[u8], id: &[u8; 16], why: &str| {
            let e = decode(data, id).unwrap_err();
            assert!(e.is_code(Code::CUDA_ERROR_INVALID_VALUE), "{e:?}");
            assert!(e.message().contains(why), "{} lacks {why}", e.message());
        };
        refused(&good[..64], &ID, "bytes");
        refused(&[0; EXPORTED_POINTER_BYTES], &ID, "does not start");
        let mut v = good.clone();
        v[4] = 2;
        refused(&v, &ID, "version 2");
        refused(&good, &[8; 16], "another pool");
        refused(&encode(&ID, 0, &[1; 64]), &ID, "size of 0");
    }
}
