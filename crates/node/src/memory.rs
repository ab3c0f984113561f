//! Device memory: blocks (plain allocations and pool blocks) as handles, and the operations on
//! them — copies in every direction, memset, fill — each on a stream.

use crate::raw::{BigU64, Bytes, BytesMut, Count, Owner};
use crate::{pinned, stream};
use cuda_node_core::{runtime, Block, DeviceMemory, Error, Pattern};
use std::sync::Arc;

crate::table!(BLOCKS: Arc<Block>, CUDA_ERROR_INVALID_VALUE, "this memory was freed: allocate a new one");

/// Stores a block made by a pool or the driver; returns its handle. Its JS owner is attached
/// later (`memOwn`), and only if it outlives the current macrotask: most pointers in a hot loop
/// are freed sooner, and attaching costs more than a pool allocation.
pub fn adopt(block: Block) -> f64 {
    crate::handles::insert(&BLOCKS, Arc::new(block))
}

crate::js_object! {
    /// What a block is: its address, size and device.
    pub struct MemDesc {
        ptr: BigU64 = c"ptr",
        size: f64 = c"size",
        device: u32 = c"device",
    }
}

crate::exports! {
    /// A plain device allocation (`cuMemAlloc`); its handle.
    c"memAlloc" => fn mem_alloc(_cx, device: f64, size: Count) -> f64 {
        Ok(adopt(Block::whole(DeviceMemory::alloc(runtime()?.ordinal(device)?, size.0)?)))
    }

    /// Frees the block now: a pool block returns to its pool. Freeing twice is nothing.
    c"memFree" => fn mem_free(_cx, mem: f64) -> () {
        drop(take(mem).ok());
        Ok(())
    }

    /// Frees the block when `owner` is collected (the GC backstop); nothing for a freed block.
    c"memOwn" => fn mem_own(cx, owner: Owner, mem: f64) -> () {
        if crate::handles::with(&BLOCKS, mem, |_| ()).is_none() {
            return Ok(());
        }
        crate::handles::own(cx, &owner, &BLOCKS, mem)
    }

    /// The block's address, size (a pool rounds it up) and device.
    c"memDesc" => fn mem_desc(_cx, mem: f64) -> MemDesc {
        with(mem, |b| Ok(MemDesc { ptr: BigU64(b.ptr()), size: b.size() as f64, device: b.device() as u32 }))
    }

    /// Live blocks on this thread (for leak checks).
    c"memLive" => fn mem_live(_cx) -> f64 {
        Ok(live() as f64)
    }

    /// Host to device: `src` is staged before the call returns.
    c"memCopyHtod" => fn mem_copy_htod(_cx, stream: f64, dst: f64, offset: Count, src: Bytes) -> () {
        let block = get(dst)?;
        let (mem, at) = block.range(offset.0, src.0.len() as u64, "copy")?;
        stream::with(stream, |s| s.copy_htod(mem, at, src.0))
    }

    /// Device to host: returns once `dst` holds the data.
    c"memCopyDtoh" => fn mem_copy_dtoh(_cx, stream: f64, dst: BytesMut, src: f64, offset: Count) -> () {
        let block = get(src)?;
        let (mem, at) = block.range(offset.0, dst.0.len() as u64, "copy")?;
        stream::with(stream, |s| s.copy_dtoh(dst.0, mem, at))
    }

    /// Pinned host memory to device, asynchronous.
    c"memCopyHtodPinned" => fn mem_copy_htod_pinned(_cx, stream: f64, dst: f64, offset: Count, src: f64, src_offset: Count, size: Count) -> () {
        let block = get(dst)?;
        let (mem, at) = block.range(offset.0, size.0, "copy")?;
        let host = pinned::get(src)?;
        stream::with(stream, |s| s.copy_htod_async(mem, at, &host, src_offset.0, size.0))
    }

    /// Device to pinned host memory, asynchronous.
    c"memCopyDtohPinned" => fn mem_copy_dtoh_pinned(_cx, stream: f64, dst: f64, dst_offset: Count, src: f64, offset: Count, size: Count) -> () {
        let block = get(src)?;
        let (mem, at) = block.range(offset.0, size.0, "copy")?;
        let host = pinned::get(dst)?;
        stream::with(stream, |s| s.copy_dtoh_async(&host, dst_offset.0, mem, at, size.0))
    }

    /// Device to device.
    c"memCopyDtod" => fn mem_copy_dtod(_cx, stream: f64, dst: f64, dst_offset: Count, src: f64, src_offset: Count, size: Count) -> () {
        let (d, s) = (get(dst)?, get(src)?);
        let (dmem, dat) = d.range(dst_offset.0, size.0, "copy")?;
        let (smem, sat) = s.range(src_offset.0, size.0, "copy")?;
        stream::with(stream, |st| st.copy_dtod(dmem, dat, smem, sat, size.0))
    }

    /// Sets `size` bytes to `value`.
    c"memMemset" => fn mem_memset(_cx, stream: f64, dst: f64, offset: Count, value: u32, size: Count) -> () {
        if value > 255 {
            return Err(Error::range(format!("memset value must be a byte (0 to 255), got {value}")));
        }
        let block = get(dst)?;
        let (mem, at) = block.range(offset.0, size.0, "memset")?;
        stream::with(stream, |s| s.memset(mem, at, value as u8, size.0))
    }

    /// Writes `count` elements of `width` bytes, each the low bytes of `bits` (the built-in fill kernel).
    c"memFill" => fn mem_fill(_cx, stream: f64, dst: f64, offset: Count, width: u32, bits: BigU64, count: Count) -> () {
        let pattern = Pattern { width: width.min(255) as u8, bits: bits.0 };
        let bytes = count.0.checked_mul(pattern.width as u64).ok_or_else(|| Error::range("fill count is too large"))?;
        let block = get(dst)?;
        let (mem, at) = block.range(offset.0, bytes, "fill")?;
        stream::with(stream, |s| s.fill(mem, at, pattern, count.0))
    }
}
