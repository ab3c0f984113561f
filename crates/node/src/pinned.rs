//! Pinned (page-locked) host memory. A block is shared by its handle, its
//! `ArrayBuffer` and queued copies, and returns to its pool once all of them are gone.

use crate::raw::{self, ArrayBufferOut, BigU64, Bytes, BytesMut, Count, JsArrayBuffer, Owner};
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

/// Whether external ArrayBuffers may be handed to JS. Electron refuses them (its memory cage);
/// `CUDA_NODE_EXTERNAL_BUFFERS=0` (or `externalBuffers(false)`) makes the addon behave so in Node,
/// so the paths that avoid them are tested here. Without the variable the runtime is asked, once.
static EXTERNAL: std::sync::OnceLock<std::sync::atomic::AtomicBool> = std::sync::OnceLock::new();

fn external_flag(env: sys::napi_env) -> &'static std::sync::atomic::AtomicBool {
    EXTERNAL.get_or_init(|| {
        std::sync::atomic::AtomicBool::new(match std::env::var("CUDA_NODE_EXTERNAL_BUFFERS") {
            Ok(v) => v.trim() != "0",
            Err(_) => runtime_allows_external(env),
        })
    })
}

/// Makes a one-byte external ArrayBuffer and says whether the runtime allowed it (Electron
/// answers `napi_no_external_buffers_allowed`; any failure takes the path that needs none).
fn runtime_allows_external(env: sys::napi_env) -> bool {
    if cfg!(target_family = "wasm") {
        return true; // the WebAssembly build refuses these views by itself, each saying why
    }
    unsafe extern "C" fn free_probe(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
        // SAFETY: `data` is the byte boxed below, released once, by V8.
        drop(unsafe { Box::from_raw(data as *mut u8) });
    }
    let data = Box::into_raw(Box::new(0u8));
    let mut out = ptr::null_mut();
    // SAFETY: `data` is valid for one byte until the finalizer frees it.
    let status = unsafe { sys::napi_create_external_arraybuffer(env, data.cast(), 1, Some(free_probe), ptr::null_mut(), &mut out) };
    if status != sys::Status::napi_ok && !finalizer_owns(status) {
        // SAFETY: not created, and the finalizer was not called: free it here.
        drop(unsafe { Box::from_raw(data) });
    }
    status == sys::Status::napi_ok
}

/// True unless external buffers are refused: by the switch, by the runtime when asked, or by a
/// refusal seen since (`refused_now`).
pub fn external_buffers(env: sys::napi_env) -> bool {
    external_flag(env).load(std::sync::atomic::Ordering::Relaxed)
}

/// Records that the runtime refused an external buffer, so later pinned memory is a registered
/// V8 buffer (`allocPinned` asks `externalBuffers()` first).
pub fn refused_now(env: sys::napi_env) {
    external_flag(env).store(false, std::sync::atomic::Ordering::Relaxed);
}

/// After `napi_create_external_arraybuffer` failed with `status`: whether the finalizer has been
/// (or will be) called anyway. Node builds the buffer with `node::Buffer::New`, which calls it when
/// it refuses the length (`napi_generic_failure`); on any other failure the caller still owns
/// what it handed over and must release it.
pub fn finalizer_owns(status: sys::napi_status) -> bool {
    status == sys::Status::napi_generic_failure
}

/// After a failure with `status`, records a runtime that refuses external buffers (Electron).
pub fn note_refusal(env: sys::napi_env, status: sys::napi_status) {
    if status == sys::Status::napi_no_external_buffers_allowed {
        refused_now(env);
    }
}

/// The error for an external buffer the runtime refuses.
pub fn refused(what: &str, instead: &str) -> Error {
    Error::cuda(
        Code::CUDA_ERROR_NOT_SUPPORTED,
        format!("this runtime refuses external ArrayBuffers (as Electron does), so {what} cannot be one; {instead}"),
    )
}

unsafe extern "C" fn release_block(_env: sys::napi_env, _data: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` is the view `pinnedBuffer` made; V8 releases the buffer once.
    unsafe { PinnedBlock::unview(hint as *const PinnedBlock) };
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
        if !external_buffers(cx.env) {
            return Err(refused("PinnedMemory.buffer", "copy through the PinnedMemory itself (its set() and get() methods) instead"));
        }
        let hint = PinnedBlock::view(block) as *mut c_void;
        // SAFETY: `data` is valid for `len` bytes as long as the block lives, and the finalizer
        // owns a reference to it (`hint`) until V8 releases the buffer.
        let status = unsafe { sys::napi_create_external_arraybuffer(cx.env, data.cast(), len, Some(release_block), hint, &mut out) };
        if status != sys::Status::napi_ok {
            if !finalizer_owns(status) {
                // SAFETY: not created, and the finalizer was not called: release the view here.
                unsafe { PinnedBlock::unview(hint as *const PinnedBlock) };
            }
            if status != sys::Status::napi_no_external_buffers_allowed {
                return Err(Error::range(format!(
                    "PinnedMemory.buffer of {len} bytes: this runtime cannot make an ArrayBuffer that long; copy through the PinnedMemory itself (its set() and get() methods)"
                )));
            }
            refused_now(cx.env);
            return Err(refused(
                "this block's PinnedMemory.buffer",
                "copy through it with set() and get(); pinned memory allocated from now on is a page-locked V8 buffer, whose buffer works",
            ));
        }
        Ok(ArrayBufferOut(out))
    }

    /// Whether external ArrayBuffers are handed to JS; `allowed` changes it (tests use this to
    /// behave as Electron does). Returns the setting in force.
    c"externalBuffers" => fn external_buffers_export(cx, allowed: Option<bool>) -> bool {
        if let Some(a) = allowed {
            external_flag(cx.env).store(a, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(external_buffers(cx.env))
    }

    /// Page-locks the bytes of `view` (`cuMemHostRegister`, CuPy's `hostRegister`) and keeps the
    /// view alive until they are unregistered: on free or GC of `owner`, once no queued copy
    /// uses them. Registering bytes twice is `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`.
    c"pinnedRegister" => fn pinned_register(cx, owner: Owner, view: Bytes) -> f64 {
        // emnapi hands the module a copy of JS's bytes in wasm memory, not the bytes themselves:
        // nothing can be registered in place (zero bytes are still a RangeError, as natively).
        if cfg!(target_family = "wasm") && !view.0.is_empty() {
            return Err(Error::cuda(
                Code::CUDA_ERROR_NOT_SUPPORTED,
                "the WebAssembly build cannot register JS's bytes in place (its views of them are copies in wasm memory); \
                 allocPinned and copy through the PinnedMemory (its set() and get() methods) instead",
            ));
        }
        crate::handles::release_pending();
        let (ptr, len) = (view.0.as_ptr() as *mut u8, view.0.len() as u64);
        // Bytes the registration cache holds registered are let go first (#32.7).
        cuda_node_core::host_cache::let_go(ptr as u64, len);
        let keep = crate::handles::JsRef::new(cx, cx.arg(1).ok_or_else(|| Error::type_error("view is missing"))?)?;
        let block = PinnedBlock::register(ptr, len, Box::new(keep))?;
        insert(cx, &owner, block)
    }

    /// Unregisters registered memory now (CuPy's `hostUnregister`). Refused while queued copies
    /// still use it: `CUDA_ERROR_ILLEGAL_STATE`.
    c"pinnedUnregister" => fn pinned_unregister(_cx, pinned: f64) -> () {
        crate::handles::release_pending();
        with(pinned, PinnedBlock::check_unregister)?;
        drop(take(pinned)?);
        Ok(())
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
        crate::handles::release_pending();
        if let Ok(block) = take(pinned) {
            if crate::history::recording() {
                crate::history::pinned_free(pinned, block.ptr() as u64, block.size(), block.is_registered());
            }
        }
        Ok(())
    }

    /// Detaches an ArrayBuffer (a freed PinnedMemory's), so later use of it is a TypeError.
    c"arrayBufferDetach" => fn array_buffer_detach(cx, buffer: JsArrayBuffer) -> () {
        // SAFETY: `buffer` is an ArrayBuffer of this call.
        raw::ok(unsafe { sys::napi_detach_arraybuffer(cx.env, buffer.0) }, "detaching the ArrayBuffer")
    }
}
