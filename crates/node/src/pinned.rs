//! Pinned (page-locked) host memory. A block is shared by its handle, its
//! `ArrayBuffer` and queued copies, and returns to its pool once all of them are gone.

use crate::raw::{self, ArrayBufferOut, BigU64, Bytes, BytesMut, Count, JsArrayBuffer};
use cuda_node_core::pinned::PinnedBlock;
use cuda_node_core::{Code, Error};
use napi::sys;
use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

crate::table!(PINNED: Arc<PinnedBlock>, CUDA_ERROR_INVALID_VALUE, "this pinned memory was freed: allocate a new one");

crate::js_object! {
    /// A pinned block's host address and size.
    pub struct PinnedInfo {
        ptr: BigU64 = c"ptr",
        size: f64 = c"size",
    }
}

unsafe extern "C" fn release_block(_env: sys::napi_env, _data: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` is the `Arc<PinnedBlock>` leaked by `pinnedBuffer`; V8 releases the buffer once.
    drop(unsafe { Arc::from_raw(hint as *const PinnedBlock) });
}

crate::exports! {
    /// The block's host address and size.
    c"pinnedInfo" => fn pinned_info(_cx, pinned: f64) -> PinnedInfo {
        with(pinned, |b| Ok(PinnedInfo { ptr: BigU64(b.ptr() as u64), size: b.size() as f64 }))
    }

    /// An ArrayBuffer over the pinned bytes themselves. Where the runtime refuses external
    /// buffers (Electron), that is an error rather than a copy that is not pinned.
    c"pinnedBuffer" => fn pinned_buffer(cx, pinned: f64) -> ArrayBufferOut {
        let block = get(pinned)?;
        let (data, len) = (block.ptr(), block.size() as usize);
        let mut out = ptr::null_mut();
        if len == 0 {
            let mut data = ptr::null_mut();
            // SAFETY: an empty buffer; both are valid out-pointers.
            raw::ok(unsafe { sys::napi_create_arraybuffer(cx.env, 0, &mut data, &mut out) }, "creating an ArrayBuffer")?;
            return Ok(ArrayBufferOut(out));
        }
        // emnapi's external ArrayBuffers are copies of wasm memory, not views of it: refuse, as
        // where the runtime refuses them.
        #[cfg(target_family = "wasm")]
        if len > 0 {
            return Err(Error::cuda(
                Code::CUDA_ERROR_NOT_SUPPORTED,
                "the WebAssembly build cannot expose pinned memory as an ArrayBuffer (its ArrayBuffers would be copies); \
                 copy through the PinnedMemory itself (its set() and get() methods) instead",
            ));
        }
        let hint = Arc::into_raw(block) as *mut c_void;
        // SAFETY: `data` is valid for `len` bytes as long as the block lives, and the finalizer
        // owns a reference to it (`hint`) until V8 releases the buffer.
        let status = unsafe { sys::napi_create_external_arraybuffer(cx.env, data.cast(), len, Some(release_block), hint, &mut out) };
        if status != sys::Status::napi_ok {
            // SAFETY: not created, so the finalizer never runs: release the reference here.
            drop(unsafe { Arc::from_raw(hint as *const PinnedBlock) });
            return Err(Error::cuda(
                Code::CUDA_ERROR_NOT_SUPPORTED,
                "this runtime refuses external ArrayBuffers (as Electron does), so PinnedMemory.buffer cannot expose pinned memory; \
                 copy through the PinnedMemory itself (its set() and get() methods) instead",
            ));
        }
        Ok(ArrayBufferOut(out))
    }

    /// Copies `src` into the block at `offset`.
    c"pinnedWrite" => fn pinned_write(_cx, pinned: f64, offset: Count, src: Bytes) -> () {
        with(pinned, |b| b.write(offset.0, src.0))
    }

    /// Copies from the block at `offset` into `dst`.
    c"pinnedRead" => fn pinned_read(_cx, pinned: f64, offset: Count, dst: BytesMut) -> () {
        with(pinned, |b| b.read(offset.0, dst.0))
    }

    /// Drops this handle; the block returns to its pool once its buffer and copies are gone.
    /// Freeing twice is nothing.
    c"pinnedFree" => fn pinned_free(_cx, pinned: f64) -> () {
        drop(take(pinned).ok());
        Ok(())
    }

    /// Detaches an ArrayBuffer (a freed PinnedMemory's), so later use of it is a TypeError.
    c"arrayBufferDetach" => fn array_buffer_detach(cx, buffer: JsArrayBuffer) -> () {
        // SAFETY: `buffer` is an ArrayBuffer of this call.
        raw::ok(unsafe { sys::napi_detach_arraybuffer(cx.env, buffer.0) }, "detaching the ArrayBuffer")
    }
}
