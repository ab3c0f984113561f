//! Device memory: blocks (plain allocations and pool blocks) as handles, and the operations on
//! them — copies in every direction, memset, fill — each on a stream.

use crate::handles::JsRef;
use crate::raw::{self, ArrayBufferOut, BigU64, Bytes, BytesMut, Count, NodeBuffer, Owner};
use crate::{pinned, stream};
use cuda_node_core::c_allocator::CFunctions;
use cuda_node_core::copy2d::{Rows, Side};
use cuda_node_core::memory::{self, pointer_attributes, Advice, Location};
use cuda_node_core::{runtime, Block, Code, DeviceMemory, Error};
use napi::sys;
use std::ffi::c_void;
use std::sync::Arc;

crate::table!(BLOCKS: Arc<Block>, CUDA_ERROR_INVALID_VALUE, "this memory was freed: allocate a new one");

/// Stores a block made by a pool or the driver; returns its handle. Its JS owner is attached
/// later (`memOwn`), and only if it outlives the current macrotask: most pointers in a hot loop
/// are freed sooner, and attaching costs more than a pool allocation.
/// While the memory history records, the block goes into its sink (`history.rs`).
pub fn adopt(block: Block) -> cuda_node_core::Result<f64> {
    adopt_in(block, || -1.0)
}

/// [`adopt`], for a block of a pool that holds `pool_bytes()` bytes now (read only while the
/// history records, into the block's record).
pub fn adopt_in(block: Block, pool_bytes: impl FnOnce() -> f64) -> cuda_node_core::Result<f64> {
    let seen = crate::history::recording().then(|| (block.ptr(), block.size()));
    let handle = crate::handles::insert(&BLOCKS, Arc::new(block)).ok_or_else(crate::handles::held)?;
    if let Some((ptr, size)) = seen {
        crate::history::alloc(handle, ptr, size, pool_bytes());
    }
    Ok(handle)
}

/// [`adopt`], for a block of the caching pool of handle `pool`, which holds `pool_bytes` now,
/// asked for `requested` bytes on the stream of handle `stream`: the history's record carries
/// them all (one write into the sink).
pub fn adopt_pooled(block: Block, requested: u64, pool: f64, pool_bytes: u64, stream: f64) -> cuda_node_core::Result<f64> {
    let seen = crate::history::recording().then(|| (block.ptr(), block.size(), block.device()));
    let handle = crate::handles::insert(&BLOCKS, Arc::new(block)).ok_or_else(crate::handles::held)?;
    if let Some((ptr, size, device)) = seen {
        let record = crate::history::PoolAlloc { handle, ptr, size, requested: requested as f64, pool, pool_bytes: pool_bytes as f64, stream, device: device as f64 };
        crate::history::pool_alloc(&record);
    }
    Ok(handle)
}

crate::js_object! {
    /// What a block is: its address, size and device.
    pub struct MemDesc {
        ptr: BigU64 = c"ptr",
        size: f64 = c"size",
        device: u32 = c"device",
    }
}

crate::js_object! {
    /// What the driver knows of an address (`cuPointerGetAttribute`).
    pub struct PointerAttrs {
        device: u32 = c"device",
        kind: String = c"kind",
        base: BigU64 = c"base",
        size: f64 = c"size",
    }
}

crate::js_object! {
    /// An IPC handle of the allocation a block lies in, and the block's offset in it.
    pub struct IpcDesc {
        handle: NodeBuffer = c"handle",
        offset: f64 = c"offset",
    }
}

fn location(device: Option<f64>) -> cuda_node_core::Result<Location> {
    Ok(match device {
        None => Location::Host,
        Some(d) => Location::Device(runtime()?.ordinal(d)?),
    })
}

unsafe extern "C" fn release_block(_env: sys::napi_env, _data: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` is the `Arc<Block>` leaked by `memManagedBuffer`; V8 releases the buffer once.
    drop(unsafe { Arc::from_raw(hint as *const Block) });
}

crate::exports! {
    /// A plain device allocation (`cuMemAlloc`); its handle.
    c"memAlloc" => fn mem_alloc(_cx, device: f64, size: Count) -> f64 {
        adopt(Block::whole(DeviceMemory::alloc(runtime()?.ordinal(device)?, size.0)?))
    }

    /// Frees the block now: a pool block returns to its pool. Freeing twice is nothing.
    c"memFree" => fn mem_free(_cx, mem: f64) -> () {
        let block = crate::handles::take(&BLOCKS, mem)?;
        if crate::history::recording() {
            let seen = block.as_ref().map(|b| (b.ptr(), b.size(), b.device()));
            drop(block);
            crate::history::free(mem, seen);
        }
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
    c"memCopyHtod" => fn mem_copy_htod(cx, stream: f64, dst: f64, offset: Count, src: Bytes) -> () {
        let block = get(dst)?;
        let (mem, at) = block.range(offset.0, src.0.len() as u64, "copy")?;
        // A large Buffer copied again goes through the registration cache (#32.7).
        if let Some((pinned, from)) = crate::host_cache::registered(cx, 3, src.0)? {
            return stream::with(stream, |s| s.copy_htod_through(mem, at, src.0, &pinned, from));
        }
        stream::with(stream, |s| s.copy_htod(mem, at, src.0))
    }

    /// Device to host: returns once `dst` holds the data.
    c"memCopyDtoh" => fn mem_copy_dtoh(cx, stream: f64, dst: BytesMut, src: f64, offset: Count) -> () {
        let block = get(src)?;
        let (mem, at) = block.range(offset.0, dst.0.len() as u64, "copy")?;
        if let Some((pinned, from)) = crate::host_cache::registered(cx, 1, dst.0)? {
            return stream::with(stream, |s| s.copy_dtoh_through(dst.0, mem, at, &pinned, from));
        }
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

    /// A copy between devices with no stream given: on `stream` (the destination device's current
    /// stream) after the work queued so far on `after` (the source device's current stream).
    c"memCopyDtodAfter" => fn mem_copy_dtod_after(_cx, stream: f64, after: f64, dst: f64, dst_offset: Count, src: f64, src_offset: Count, size: Count) -> () {
        let (d, s) = (get(dst)?, get(src)?);
        let (dmem, dat) = d.range(dst_offset.0, size.0, "copy")?;
        let (smem, sat) = s.range(src_offset.0, size.0, "copy")?;
        let after = stream::get(after)?;
        stream::with(stream, |st| st.copy_dtod_after(&after, dmem, dat, smem, sat, size.0))
    }

    /// A pitched copy device to device (`cuMemcpy2DAsync`): `height` rows of `width` bytes.
    c"memCopy2DDtod" => fn mem_copy_2d_dtod(_cx, stream: f64, dst: f64, dst_offset: Count, dst_pitch: Count, src: f64, src_offset: Count, src_pitch: Count, width: Count, height: Count) -> () {
        let rows = Rows { width: width.0, height: height.0, dst_pitch: dst_pitch.0, src_pitch: src_pitch.0 };
        let (d, s) = (get(dst)?, get(src)?);
        let (dmem, dat) = d.range_2d(dst_offset.0, rows.dst_pitch, rows.width, rows.height)?;
        let (smem, sat) = s.range_2d(src_offset.0, rows.src_pitch, rows.width, rows.height)?;
        stream::with(stream, |st| st.copy_2d(Side::Device(dmem, dat), Side::Device(smem, sat), rows))
    }

    /// A pitched copy from pageable host memory: `src` is staged before the call returns.
    c"memCopy2DHtod" => fn mem_copy_2d_htod(cx, stream: f64, dst: f64, dst_offset: Count, dst_pitch: Count, src: Bytes, src_pitch: Count, width: Count, height: Count) -> () {
        crate::host_cache::purge(cx, 4, src.0);
        let rows = Rows { width: width.0, height: height.0, dst_pitch: dst_pitch.0, src_pitch: src_pitch.0 };
        let d = get(dst)?;
        let (dmem, dat) = d.range_2d(dst_offset.0, rows.dst_pitch, rows.width, rows.height)?;
        stream::with(stream, |st| st.copy_2d(Side::Device(dmem, dat), Side::Host(src.0), rows))
    }

    /// A pitched copy into pageable host memory: returns once `dst` holds the data.
    c"memCopy2DDtoh" => fn mem_copy_2d_dtoh(cx, stream: f64, dst: BytesMut, dst_pitch: Count, src: f64, src_offset: Count, src_pitch: Count, width: Count, height: Count) -> () {
        crate::host_cache::purge(cx, 1, dst.0);
        let rows = Rows { width: width.0, height: height.0, dst_pitch: dst_pitch.0, src_pitch: src_pitch.0 };
        let s = get(src)?;
        let (smem, sat) = s.range_2d(src_offset.0, rows.src_pitch, rows.width, rows.height)?;
        stream::with(stream, |st| st.copy_2d(Side::HostMut(dst.0), Side::Device(smem, sat), rows))
    }

    /// A pitched copy from pinned host memory, asynchronous.
    c"memCopy2DHtodPinned" => fn mem_copy_2d_htod_pinned(_cx, stream: f64, dst: f64, dst_offset: Count, dst_pitch: Count, src: f64, src_offset: Count, src_pitch: Count, width: Count, height: Count) -> () {
        let rows = Rows { width: width.0, height: height.0, dst_pitch: dst_pitch.0, src_pitch: src_pitch.0 };
        let d = get(dst)?;
        let (dmem, dat) = d.range_2d(dst_offset.0, rows.dst_pitch, rows.width, rows.height)?;
        let host = pinned::get(src)?;
        stream::with(stream, |st| st.copy_2d(Side::Device(dmem, dat), Side::Pinned(&host, src_offset.0), rows))
    }

    /// A pitched copy into pinned host memory, asynchronous.
    c"memCopy2DDtohPinned" => fn mem_copy_2d_dtoh_pinned(_cx, stream: f64, dst: f64, dst_offset: Count, dst_pitch: Count, src: f64, src_offset: Count, src_pitch: Count, width: Count, height: Count) -> () {
        let rows = Rows { width: width.0, height: height.0, dst_pitch: dst_pitch.0, src_pitch: src_pitch.0 };
        let s = get(src)?;
        let (smem, sat) = s.range_2d(src_offset.0, rows.src_pitch, rows.width, rows.height)?;
        let host = pinned::get(dst)?;
        stream::with(stream, |st| st.copy_2d(Side::Pinned(&host, dst_offset.0), Side::Device(smem, sat), rows))
    }

    /// Sets `size` bytes to `value`.
    c"memMemset" => fn mem_memset(_cx, stream: f64, dst: f64, offset: Count, value: u32, size: Count) -> () {
        let value = memory::memset_byte(value)?;
        let block = get(dst)?;
        let (mem, at) = block.range(offset.0, size.0, "memset")?;
        stream::with(stream, |s| s.memset(mem, at, value, size.0))
    }

    /// Writes `count` elements of `width` bytes, each the low bytes of `bits` (the built-in fill kernel).
    c"memFill" => fn mem_fill(_cx, stream: f64, dst: f64, offset: Count, width: u32, bits: BigU64, count: Count) -> () {
        let (pattern, bytes) = memory::fill_pattern(width, bits.0, count.0)?;
        let block = get(dst)?;
        let (mem, at) = block.range(offset.0, bytes, "fill")?;
        stream::with(stream, |s| s.fill(mem, at, pattern, count.0))
    }

    /// `size` bytes at `ptr` that another library allocated on `device` (CuPy's
    /// `UnownedMemory`), checked against the driver's pointer attributes; `owner` is kept alive
    /// until the memory is freed and the device has finished the work queued before.
    c"memFromExternal" => fn mem_from_external(cx, ptr: BigU64, size: Count, device: f64, owner: Option<Owner>) -> f64 {
        crate::handles::release_pending();
        let device = runtime()?.ordinal(device)?;
        let keep = match owner {
            Some(o) => Some(Box::new(JsRef::new(cx, o.0)?) as cuda_node_core::memory::Keep),
            None => None,
        };
        let (mem, offset) = DeviceMemory::foreign(device, ptr.0, size.0, keep)?;
        adopt(Block::view(mem, offset, size.0)?)
    }

    /// Checks a CFunctionAllocator's two function addresses (not null, in this process's code).
    c"cFunctionsCheck" => fn c_functions_check(_cx, malloc: BigU64, free: BigU64) -> () {
        CFunctions { malloc: malloc.0, free: free.0, param: 0 }.check()
    }

    /// `size` bytes from a CFunctionAllocator's `malloc(param, size, device)`, given back with its
    /// `free` once dropped and the device is done with it; `owner` kept alive until then.
    c"memFromCFunctions" => fn mem_from_c_functions(cx, malloc: BigU64, free: BigU64, param: BigU64, size: Count, device: f64, owner: Option<Owner>) -> f64 {
        crate::handles::release_pending();
        let device = runtime()?.ordinal(device)?;
        let keep = match owner {
            Some(o) => Some(Box::new(JsRef::new(cx, o.0)?) as cuda_node_core::memory::Keep),
            None => None,
        };
        let (mem, offset) = CFunctions { malloc: malloc.0, free: free.0, param: param.0 }.alloc(device, size.0, keep)?;
        adopt(Block::view(mem, offset, size.0)?)
    }

    /// What the driver knows of `ptr`: device, kind (`device`, `host`, `managed`), and the
    /// allocation holding it. `CUDA_ERROR_INVALID_VALUE` for an address it does not know.
    c"pointerGetAttributes" => fn pointer_get_attributes(_cx, ptr: BigU64) -> PointerAttrs {
        let a = pointer_attributes(ptr.0)?;
        Ok(PointerAttrs { device: a.device as u32, kind: a.kind.name().into(), base: BigU64(a.base), size: a.size as f64 })
    }

    /// Managed memory (`cuMemAllocManaged`): attached to every stream when `global`, else to the host.
    c"memAllocManaged" => fn mem_alloc_managed(_cx, device: f64, size: Count, global: bool) -> f64 {
        adopt(Block::whole(DeviceMemory::alloc_managed(runtime()?.ordinal(device)?, size.0, global)?))
    }

    /// An ArrayBuffer over managed memory's bytes; refused (`CUDA_ERROR_NOT_SUPPORTED`) where
    /// the runtime refuses external buffers.
    c"memManagedBuffer" => fn mem_managed_buffer(cx, mem: f64) -> ArrayBufferOut {
        let block = get(mem)?;
        let data = block.host_view()?;
        let len = block.size() as usize;
        let mut out = std::ptr::null_mut();
        if len == 0 {
            let mut data = std::ptr::null_mut();
            // SAFETY: an empty buffer; both are valid out-pointers.
            raw::ok(unsafe { sys::napi_create_arraybuffer(cx.env, 0, &mut data, &mut out) }, "creating an ArrayBuffer")?;
            return Ok(ArrayBufferOut(out));
        }
        // emnapi's external ArrayBuffers are copies of wasm memory, not views of it: refuse, as
        // where the runtime refuses them.
        if cfg!(target_family = "wasm") {
            return Err(Error::cuda(
                Code::CUDA_ERROR_NOT_SUPPORTED,
                "the WebAssembly build cannot expose managed memory as an ArrayBuffer (its ArrayBuffers would be copies); \
                 copy with copyToHost / copyFromHost instead",
            ));
        }
        if !pinned::external_buffers(cx.env) {
            return Err(pinned::refused("the host view of managed memory", "copy with copyToHost / copyFromHost instead"));
        }
        let hint = Arc::into_raw(block) as *mut c_void;
        // SAFETY: `data` is valid for `len` bytes while the block lives; the finalizer owns a
        // reference to it (`hint`) until V8 releases the buffer.
        let status = unsafe { sys::napi_create_external_arraybuffer(cx.env, data.cast(), len, Some(release_block), hint, &mut out) };
        if status != sys::Status::napi_ok {
            if !pinned::finalizer_owns(status) {
                // SAFETY: not created, and the finalizer was not called: release the reference here.
                drop(unsafe { Arc::from_raw(hint as *const Block) });
            }
            pinned::note_refusal(cx.env, status);
            return Err(pinned::refused("the host view of managed memory", "copy with copyToHost / copyFromHost instead"));
        }
        Ok(ArrayBufferOut(out))
    }

    /// Migrates `[offset, offset + size)` of managed memory to `device` (null: the host) on
    /// `stream` (`cuMemPrefetchAsync`).
    c"memPrefetch" => fn mem_prefetch(_cx, stream: f64, mem: f64, offset: Count, size: Count, device: Option<f64>) -> () {
        let block = get(mem)?;
        let (m, at) = block.range(offset.0, size.0, "prefetch")?;
        let to = location(device)?;
        stream::with(stream, |s| s.prefetch(m, at, size.0, to))
    }

    /// Advice on how `[offset, offset + size)` of managed memory is used (`cuMemAdvise`);
    /// `device` null names the host.
    c"memAdvise" => fn mem_advise(_cx, mem: f64, offset: Count, size: Count, advice: String, device: Option<f64>) -> () {
        let advice = Advice::parse(&advice)?;
        let block = get(mem)?;
        let (m, at) = block.range(offset.0, size.0, "advise")?;
        m.advise(at, size.0, advice, location(device)?)
    }

    /// The 64-byte IPC handle of the allocation the block lies in (`cuIpcGetMemHandle`) and the
    /// block's offset in it: a pool block is found by its offset in the pool's allocation.
    c"memIpcHandle" => fn mem_ipc_handle(_cx, mem: f64) -> IpcDesc {
        let (handle, offset) = get(mem)?.ipc_handle()?;
        Ok(IpcDesc { handle: NodeBuffer(handle.to_vec()), offset: offset as f64 })
    }

    /// Opens another process's allocation from its handle (`cuIpcOpenMemHandle`): `size` bytes
    /// (the rest of it by default) at `offset`; closed when freed.
    c"memFromIpcHandle" => fn mem_from_ipc_handle(_cx, device: f64, handle: Bytes, offset: Count, size: Option<Count>) -> f64 {
        let handle = memory::ipc_handle_bytes(handle.0)?;
        adopt(Block::open_ipc(runtime()?.ordinal(device)?, handle, offset.0, size.map(|s| s.0))?)
    }
}
