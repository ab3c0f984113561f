//! The registration cache's JS half (#32.7, core's `host_cache`): which ArrayBuffer a pageable
//! copy reads or writes, named by an id while it lives — a weak reference to it — and told to
//! core when it is collected (a finalizer), so that a registration is only used for the live
//! buffer it was made for and released when that buffer goes.

use crate::raw::Cx;
use cuda_node_core::host_cache;
use cuda_node_core::pinned::PinnedBlock;
use cuda_node_core::Result;
use napi::sys;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

thread_local! {
    /// Each cached buffer's id and a weak reference to its ArrayBuffer.
    static IDS: RefCell<HashMap<u64, sys::napi_ref>> = RefCell::new(HashMap::new());
    static NEXT: Cell<u64> = const { Cell::new(1) };
}

/// The registration to copy the bytes of argument `i` (a Uint8Array over `bytes`) through, and
/// where those bytes lie in it; None to copy them as before.
pub fn registered(cx: &Cx, i: usize, bytes: &[u8]) -> Result<Option<(Arc<PinnedBlock>, u64)>> {
    // emnapi hands WebAssembly a copy of JS's bytes: nothing to register in place.
    if cfg!(target_family = "wasm") || bytes.is_empty() {
        return Ok(None);
    }
    if (bytes.len() as u64) < host_cache::MIN_BYTES {
        purge(cx, i, bytes);
        return Ok(None);
    }
    let Some((buffer, start, len)) = array_buffer(cx, i) else { return Ok(None) };
    let id = match host_cache::id_at(start) {
        Some(id) if names(cx.env, id, buffer) => id,
        _ => match name(cx.env, buffer) {
            Some(id) => id,
            None => return Ok(None),
        },
    };
    Ok(host_cache::copy(start, len, id)?.map(|block| (block, bytes.as_ptr() as u64 - start)))
}

/// A pageable copy of the bytes of argument `i` that the cache does not serve (a small or a
/// pitched one): entries those bytes overlap that are not their own buffer's are stale, and go
/// before the driver sees the bytes.
pub fn purge(cx: &Cx, i: usize, bytes: &[u8]) {
    if bytes.is_empty() || host_cache::is_empty() {
        return;
    }
    let own = array_buffer(cx, i).and_then(|(buffer, start, _)| host_cache::id_at(start).filter(|&id| names(cx.env, id, buffer)));
    host_cache::forget_overlapping(bytes.as_ptr() as u64, bytes.len() as u64, own);
}

/// The ArrayBuffer under the typed array of argument `i`, its address and length.
fn array_buffer(cx: &Cx, i: usize) -> Option<(sys::napi_value, u64, u64)> {
    let value = cx.arg(i)?;
    let (mut kind, mut length, mut data, mut buffer, mut offset) =
        (sys::TypedarrayType::uint8_array, 0usize, ptr::null_mut(), ptr::null_mut(), 0usize);
    // SAFETY: `value` is an argument of this call (a Uint8Array: read as one already); the rest
    // are valid out-pointers.
    let status = unsafe { sys::napi_get_typedarray_info(cx.env, value, &mut kind, &mut length, &mut data, &mut buffer, &mut offset) };
    if status != sys::Status::napi_ok || buffer.is_null() {
        return None;
    }
    let (mut base, mut size) = (ptr::null_mut(), 0usize);
    // SAFETY: `buffer` is the view's ArrayBuffer, a value of this call.
    if unsafe { sys::napi_get_arraybuffer_info(cx.env, buffer, &mut base, &mut size) } != sys::Status::napi_ok || base.is_null() {
        return None;
    }
    Some((buffer, base as u64, size as u64))
}

/// Whether `id` still names `buffer` (its weak reference not cleared by a collection, and the
/// same object).
fn names(env: sys::napi_env, id: u64, buffer: sys::napi_value) -> bool {
    let Some(r) = IDS.with(|m| m.borrow().get(&id).copied()) else { return false };
    let mut value = ptr::null_mut();
    // SAFETY: `r` is a live reference made on this thread (deleted only by its finalizer, which
    // removes it from IDS first); `value` a valid out-pointer.
    if unsafe { sys::napi_get_reference_value(env, r, &mut value) } != sys::Status::napi_ok || value.is_null() {
        return false;
    }
    let mut same = false;
    // SAFETY: both are values of this call.
    let status = unsafe { sys::napi_strict_equals(env, value, buffer, &mut same) };
    status == sys::Status::napi_ok && same
}

/// A new id for `buffer`: a weak reference to it, and a finalizer that releases its entry.
fn name(env: sys::napi_env, buffer: sys::napi_value) -> Option<u64> {
    let id = NEXT.get();
    NEXT.set(id + 1);
    let mut r = ptr::null_mut();
    // SAFETY: `buffer` is a value of this call; a weak reference (count 0) does not keep it alive.
    if unsafe { sys::napi_create_reference(env, buffer, 0, &mut r) } != sys::Status::napi_ok {
        return None;
    }
    unsafe extern "C" fn collected(env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
        let id = data as usize as u64;
        let _ = std::panic::catch_unwind(|| {
            if let Some(r) = IDS.try_with(|m| m.borrow_mut().remove(&id)).ok().flatten() {
                // SAFETY: made on this thread by `name`, deleted once, here.
                unsafe { sys::napi_delete_reference(env, r) };
            }
            host_cache::release(id);
        });
    }
    // SAFETY: `buffer` is an object of this call; the data is the id, read back by `collected`,
    // which Node-API runs once, on this thread, when the ArrayBuffer is collected.
    let status =
        unsafe { sys::napi_add_finalizer(env, buffer, id as usize as *mut c_void, Some(collected), ptr::null_mut(), ptr::null_mut()) };
    if status != sys::Status::napi_ok {
        // SAFETY: made just above, never handed out.
        unsafe { sys::napi_delete_reference(env, r) };
        return None;
    }
    IDS.with(|m| m.borrow_mut().insert(id, r));
    Some(id)
}

crate::exports! {
    /// The registration cache of this thread: `[hits, registrations, misses, registeredBytes,
    /// entries, limit]`.
    c"hostCacheStats" => fn host_cache_stats(_cx) -> Vec<f64> {
        let s = host_cache::stats();
        Ok(vec![s.hits as f64, s.registrations as f64, s.misses as f64, s.registered_bytes as f64, s.entries as f64, s.limit as f64])
    }

    /// Sets the limit of bytes the cache keeps registered on this thread (0: none more).
    c"hostCacheSetLimit" => fn host_cache_set_limit(_cx, bytes: crate::raw::Count) -> () {
        host_cache::set_limit(bytes.0);
        Ok(())
    }
}
