//! Copies between the device and pageable memory, both ways, pipelined through pinned staging
//! buffers: while the copy engine moves one chunk, host threads fill (or drain) another. The driver's own pageable path
//! copies through a single staging area in turn; overlapping the two, and filling with a few
//! threads kept for it, is what lets a plain Buffer approach pinned bandwidth.

use super::raw;
use crate::error::{Check, Result};
use cudarc::driver::sys;
use rayon::prelude::*;
use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Copies of at least this many bytes are staged; smaller ones take the driver's path.
pub const MIN: usize = 8 << 20;
const CHUNK: usize = 8 << 20;
const BUFFERS: usize = 3;
const MAX_FILL_THREADS: usize = 8;

struct Buffer {
    host: *mut u8,
    done: sys::CUevent,
    in_flight: bool,
}

pub struct Staging {
    bufs: Vec<Buffer>,
}

// SAFETY: the pinned buffers and events are used under the device's staging lock only.
unsafe impl Send for Staging {}

impl Staging {
    fn new() -> Result<Staging> {
        let mut bufs = Vec::with_capacity(BUFFERS);
        for _ in 0..BUFFERS {
            // A context is current (the caller bound it).
            let host = raw::mem_host_alloc(CHUNK).check("cuMemHostAlloc (staging)")?;
            let done = raw::event_create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).check("cuEventCreate (staging)")?;
            bufs.push(Buffer { host: host as *mut u8, done, in_flight: false });
        }
        Ok(Staging { bufs })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        for b in &self.bufs {
            // SAFETY: created in `new` and freed once; the process is shutting the device's
            // staging down, after the last copy's event.
            unsafe {
                super::dropped::record("cuEventSynchronize", raw::event_synchronize(b.done));
                super::dropped::record("cuEventDestroy", raw::event_destroy(b.done));
                super::dropped::record("cuMemFreeHost", raw::mem_free_host(b.host as *mut c_void));
            }
        }
    }
}

/// The threads that fill and drain staging buffers, made once: spawning them for each chunk
/// cost a tenth of the chunk's copy. Half the cores, 2 to 8; none where they cannot be started
/// (then the calling thread copies).
fn fillers() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(4, |n| n.get() / 2).clamp(2, MAX_FILL_THREADS);
        rayon::ThreadPoolBuilder::new().num_threads(threads).thread_name(|i| format!("cuda-node-staging-{i}")).build().ok()
    })
    .as_ref()
}

/// Fills `to` from `from`, in parts on the filler threads.
fn fill(to: *mut u8, from: &[u8]) {
    let Some(pool) = fillers() else {
        // SAFETY: `to` holds at least `from.len()` bytes that nothing else touches now (a
        // staging buffer no DMA uses, or the caller's destination).
        unsafe { std::ptr::copy_nonoverlapping(from.as_ptr(), to, from.len()) };
        return;
    };
    let part = from.len().div_ceil(pool.current_num_threads()).max(1);
    let to = to as usize;
    pool.install(|| {
        from.par_chunks(part).enumerate().for_each(|(i, piece)| {
            // SAFETY: each part writes a disjoint range of `to` (a staging buffer no DMA uses, or
            // the caller's destination), which holds at least `from.len()` bytes.
            unsafe { std::ptr::copy_nonoverlapping(piece.as_ptr(), (to as *mut u8).add(i * part), piece.len()) };
        })
    });
}

/// A device's staging buffers (its `staging` slot), made on first use, under its lock.
fn staging(buffers: &Mutex<Option<Staging>>) -> Result<MutexGuard<'_, Option<Staging>>> {
    let mut slot = buffers.lock().unwrap_or_else(|p| p.into_inner());
    if slot.is_none() {
        *slot = Some(Staging::new()?);
    }
    Ok(slot)
}

/// Waits for the DMA that last used `b`, if one may still be running.
fn settle(b: &mut Buffer) -> Result<()> {
    if b.in_flight {
        // SAFETY: the event is live; this waits for the DMA that last used this buffer.
        unsafe { raw::event_synchronize(b.done) }.check("cuEventSynchronize (staging)")?;
        b.in_flight = false;
    }
    Ok(())
}

/// Copies device address `src` into `dst` on `stream`, after the stream's earlier work, and
/// returns once `dst` holds every byte. Up to BUFFERS chunks are in flight on the copy engine
/// while host threads drain the chunk that landed.
pub fn dtoh(buffers: &Mutex<Option<Staging>>, stream: sys::CUstream, dst: &mut [u8], src: sys::CUdeviceptr) -> Result<()> {
    let mut slot = staging(buffers)?;
    let st = slot.as_mut().expect("staging was just made");
    let mut chunks: Vec<&mut [u8]> = dst.chunks_mut(CHUNK).collect();
    let issue = |st: &mut Staging, i: usize, len: usize| -> Result<()> {
        let b = &mut st.bufs[i % BUFFERS];
        settle(b)?;
        // SAFETY: the staging buffer holds CHUNK ≥ `len` pinned bytes that no DMA uses (settled);
        // the range of `src` lies inside the source allocation (checked by the caller).
        unsafe { raw::memcpy_dtoh_async(b.host as *mut c_void, src + (i * CHUNK) as u64, len, stream) }.check("cuMemcpyDtoHAsync")?;
        // SAFETY: event and stream are live.
        unsafe { raw::event_record(b.done, stream) }.check("cuEventRecord (staging)")?;
        b.in_flight = true;
        Ok(())
    };
    for (i, c) in chunks.iter().enumerate().take(BUFFERS) {
        issue(st, i, c.len())?;
    }
    let n = chunks.len();
    for i in 0..n {
        let b = &mut st.bufs[i % BUFFERS];
        settle(b)?;
        let to = &mut chunks[i];
        // SAFETY: the DMA into this buffer completed (settled), so its first `to.len()` bytes are
        // the chunk's and nothing writes them until the next issue below.
        let from = unsafe { std::slice::from_raw_parts(b.host as *const u8, to.len()) };
        fill(to.as_mut_ptr(), from);
        if i + BUFFERS < n {
            let len = chunks[i + BUFFERS].len();
            issue(st, i + BUFFERS, len)?;
        }
    }
    Ok(())
}

/// Copies `src` to device address `dst` on `stream`. Returns once `src` may be reused: every
/// byte is in a staging buffer or already on the device.
pub fn htod(buffers: &Mutex<Option<Staging>>, stream: sys::CUstream, dst: sys::CUdeviceptr, src: &[u8]) -> Result<()> {
    let mut slot = staging(buffers)?;
    let st = slot.as_mut().expect("staging was just made");
    for (i, chunk) in src.chunks(CHUNK).enumerate() {
        let b = &mut st.bufs[i % BUFFERS];
        settle(b)?;
        fill(b.host, chunk);
        // SAFETY: the staging buffer holds `chunk.len()` pinned bytes; the range of `dst` lies
        // inside the destination allocation (checked by the caller).
        unsafe { raw::memcpy_htod_async(dst + (i * CHUNK) as u64, b.host as *const c_void, chunk.len(), stream) }
            .check("cuMemcpyHtoDAsync")?;
        // SAFETY: event and stream are live.
        unsafe { raw::event_record(b.done, stream) }.check("cuEventRecord (staging)")?;
        b.in_flight = true;
    }
    Ok(())
}
