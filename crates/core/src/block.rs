//! A block of device memory handed to a user: a range of an allocation, which returns to
//! wherever it came from (its pool, or the driver) when dropped.

use crate::error::{Code, Error, Result};
use crate::memory::{DeviceMemory, Origin};
use std::sync::Arc;

/// Where a block goes back to when it is dropped.
pub trait Release: Send + Sync {
    fn release(&self, token: u64);
}

pub struct Block {
    mem: Arc<DeviceMemory>,
    offset: u64,
    size: u64,
    home: Option<(Arc<dyn Release>, u64)>,
    /// Dropped after `mem`: a stream-ordered allocation is freed on this stream.
    _stream: Option<Arc<crate::stream::Stream>>,
}

impl Block {
    /// A block that is the whole of `mem`, freed with it.
    pub fn whole(mem: DeviceMemory) -> Block {
        let size = mem.size();
        Block { mem: Arc::new(mem), offset: 0, size, home: None, _stream: None }
    }

    /// Keeps `stream` alive as long as the block.
    pub(crate) fn keeping(mut self, stream: Arc<crate::stream::Stream>) -> Block {
        self._stream = Some(stream);
        self
    }

    /// `size` bytes at `offset` of `mem` (foreign or interprocess memory), freed with it.
    pub fn view(mem: DeviceMemory, offset: u64, size: u64) -> Result<Block> {
        mem.check_range(offset, size, "a view")?;
        Ok(Block { mem: Arc::new(mem), offset, size, home: None, _stream: None })
    }

    /// The allocation this block lies in, and where in it (for IPC handles: one base handle
    /// serves every block of it).
    pub fn base(&self) -> (&DeviceMemory, u64) {
        (&self.mem, self.offset)
    }

    /// The allocation, shared, and where in it this block starts: a pool grown from this block
    /// hands out pieces of the same allocation.
    pub(crate) fn shared(&self) -> (Arc<DeviceMemory>, u64) {
        (self.mem.clone(), self.offset)
    }

    pub(crate) fn pooled(mem: Arc<DeviceMemory>, offset: u64, size: u64, home: Arc<dyn Release>, token: u64) -> Block {
        Block { mem, offset, size, home: Some((home, token)), _stream: None }
    }

    /// `size` bytes (the rest of the allocation by default) at `offset` of another process's
    /// allocation, opened from its handle (`cuIpcOpenMemHandle`); closed when dropped.
    pub fn open_ipc(device: usize, handle: &[u8; 64], offset: u64, size: Option<u64>) -> Result<Block> {
        let mem = DeviceMemory::open_ipc(device, handle)?;
        let size = match size {
            Some(s) => s,
            None => mem
                .size()
                .checked_sub(offset)
                .ok_or_else(|| Error::range(format!("offset {offset} is past the end of the {}-byte allocation", mem.size())))?,
        };
        Block::view(mem, offset, size)
    }

    /// The 64-byte IPC handle of the allocation this block lies in (`cuIpcGetMemHandle`) and the
    /// block's offset in it. Only memory allocated here on the device has one.
    pub fn ipc_handle(&self) -> Result<([u8; 64], u64)> {
        if self.mem.origin() != Origin::Own {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                "only memory cuda-node allocated on the device (not managed, foreign or opened from another process) has an IPC handle",
            ));
        }
        Ok((self.mem.ipc_handle()?, self.offset))
    }

    /// The host address of the block's first byte: only managed memory has one.
    pub fn host_view(&self) -> Result<*mut u8> {
        let Some(host) = self.mem.host_ptr() else {
            return Err(Error::type_error("only managed memory (mallocManaged) has a host view"));
        };
        // The block's range lies inside the managed allocation: in bounds.
        Ok(host.wrapping_add(self.offset as usize))
    }

    pub fn ptr(&self) -> u64 {
        if self.size == 0 {
            0
        } else {
            self.mem.ptr() + self.offset
        }
    }
    pub fn size(&self) -> u64 {
        self.size
    }
    pub fn device(&self) -> usize {
        self.mem.device()
    }

    /// As [`Block::range`], for `height` rows of `width` bytes `pitch` apart from `offset`.
    pub fn range_2d(&self, offset: u64, pitch: u64, width: u64, height: u64) -> Result<(&DeviceMemory, u64)> {
        self.range(offset, crate::copy2d::extent(pitch, width, height, "copy2D")?, "copy2D")
    }

    /// The allocation and the absolute offset of `[offset, offset + len)` of this block,
    /// checked to lie inside it.
    pub fn range(&self, offset: u64, len: u64, what: &str) -> Result<(&DeviceMemory, u64)> {
        crate::memory::check_range(self.size, offset, len, what)?;
        Ok((&self.mem, self.offset + offset))
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        if let Some((home, token)) = self.home.take() {
            home.release(token);
        }
    }
}
