use crate::args::count;
use crate::errors::guard;
use cuda_node_core::pinned::{PinnedBlock, PinnedPool};
use cuda_node_core::{Code, Error};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

#[napi]
pub struct NativePinnedPool {
    pool: Arc<PinnedPool>,
}

#[napi]
impl NativePinnedPool {
    #[napi(constructor)]
    pub fn new() -> Self {
        NativePinnedPool { pool: PinnedPool::new() }
    }

    #[napi]
    pub fn malloc(&self, env: Env, size: f64) -> Result<NativePinned> {
        guard(&env, || Ok(NativePinned { block: Some(self.pool.malloc(count("size", size)?)?) }))
    }

    #[napi]
    pub fn n_free_blocks(&self) -> u32 {
        self.pool.n_free_blocks() as u32
    }

    #[napi]
    pub fn free_all_blocks(&self) {
        self.pool.free_all_blocks()
    }
}

/// Pinned host memory. Its `ArrayBuffer` and queued copies each hold the block, which returns
/// to its pool once all of them are gone.
#[napi]
pub struct NativePinned {
    block: Option<Arc<PinnedBlock>>,
}

impl NativePinned {
    pub(crate) fn get(&self) -> cuda_node_core::Result<&Arc<PinnedBlock>> {
        self.block
            .as_ref()
            .ok_or_else(|| Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "this pinned memory was freed: allocate a new one"))
    }
}

#[napi]
impl NativePinned {
    #[napi(getter)]
    pub fn size(&self, env: Env) -> Result<f64> {
        guard(&env, || Ok(self.get()?.size() as f64))
    }

    #[napi(getter)]
    pub fn ptr(&self, env: Env) -> Result<BigInt> {
        guard(&env, || Ok(BigInt::from(self.get()?.ptr() as u64)))
    }

    /// An ArrayBuffer over the pinned bytes themselves. Where the runtime refuses external
    /// buffers (Electron), napi would hand back a copy, which is not pinned memory: that is an
    /// error instead.
    #[napi]
    pub fn buffer<'env>(&self, env: &'env Env) -> Result<ArrayBuffer<'env>> {
        let block = guard(env, || Ok(self.get()?.clone()))?;
        let (ptr, len) = (block.ptr(), block.size() as usize);
        if len == 0 {
            return ArrayBuffer::from_data(env, Vec::<u8>::new());
        }
        // SAFETY: `ptr` is valid for `len` bytes for as long as `block` lives, and the finalizer
        // owns a reference to it until V8 releases the buffer.
        let ab = unsafe { ArrayBuffer::from_external(env, ptr, len, block, |_env, block| drop(block)) }?;
        if ab.as_ptr() != ptr as *const u8 {
            return Err(crate::errors::to_js(
                env,
                Error::cuda(
                    Code::CUDA_ERROR_NOT_SUPPORTED,
                    "this runtime refuses external ArrayBuffers (as Electron does), so PinnedMemory.buffer cannot \
                     expose pinned memory; copy through the PinnedMemory itself (its set() and get() methods) instead",
                ),
            ));
        }
        Ok(ab)
    }

    /// Drops this reference; the block returns to its pool once its buffer and copies are gone.
    #[napi]
    pub fn release(&mut self) {
        self.block = None;
    }

    /// Copies bytes between JS memory and the pinned block, for runtimes without `buffer()`.
    #[napi]
    pub fn write(&self, env: Env, offset: f64, src: Uint8ArraySlice) -> Result<()> {
        guard(&env, || {
            let b = self.get()?;
            let offset = count("offset", offset)?;
            b.check_range(offset, src.len() as u64, "write")?;
            // SAFETY: the range lies inside the block (checked); JS is not running meanwhile.
            unsafe { std::ptr::copy_nonoverlapping(src.as_ref().as_ptr(), b.ptr().add(offset as usize), src.len()) };
            Ok(())
        })
    }

    #[napi]
    pub fn read(&self, env: Env, offset: f64, mut dst: Uint8ArraySlice) -> Result<()> {
        // SAFETY: JS is not running during this call, so nothing else touches the view.
        let dst = unsafe { dst.as_mut() };
        guard(&env, || {
            let b = self.get()?;
            let offset = count("offset", offset)?;
            b.check_range(offset, dst.len() as u64, "read")?;
            // SAFETY: the range lies inside the block (checked).
            unsafe { std::ptr::copy_nonoverlapping(b.ptr().add(offset as usize), dst.as_mut_ptr(), dst.len()) };
            Ok(())
        })
    }
}

/// Detaches an ArrayBuffer (a freed PinnedMemory's), so later use of it is a TypeError.
#[napi]
pub fn detach_array_buffer(buffer: ArrayBuffer) -> Result<()> {
    buffer.detach()
}
