//! Streams on the real driver (`ops::Streams`, `ops::StreamOps`): making them, ordering, host
//! functions, copies, captures and launches.

use super::device::{CudaBackend, CudaDevice};
use super::event::raw_event;
use super::graph::{CudaGraph, CudaGraphExec};
use super::host_watch;
use super::kernels::{self, Kernels};
use super::memory::{alloc_ptr, CudaAsyncAlloc};
use super::own::own;
use super::raw;
use crate::error::{Check, Code, Error, Result};
use crate::ops::{
    AllocOps, CaptureMode, CaptureStatus, CondTest, End, EventOps, GraphDef, GraphExec, HostBytes, HostFn, NodeId, Pattern, RepeatFn,
    RepeatSlot, Rows, StatusFn, StreamOps, Streams,
};
use cudarc::driver::sys;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub struct CudaStream {
    pub(super) dev: Arc<CudaDevice>,
    /// Read through [`CudaStream::queue`] for anything that may queue work, so `used` is true.
    raw: sys::CUstream,
    /// Created here (with these flags and priority), so released here; None for the default
    /// streams and external ones.
    owned: Option<(u32, i32)>,
    /// Host memory its queued copies use, until they have run.
    holds: super::holds::Holds,
    /// Whether work may have been queued on it (or a capture begun) since it was made or taken
    /// idle from the bin: its handle went to a call that queues, or left the core. A stream never
    /// used goes back to the bin, and out again, with no driver call (`recycle.rs`).
    used: AtomicBool,
}

// SAFETY: a CUstream may be used from any thread: a created one carries its context, and the
// default streams (which name the current context's) are bound first (`bind_implicit`).
unsafe impl Send for CudaStream {}
// SAFETY: as above; the handle is never mutated.
unsafe impl Sync for CudaStream {}

impl Drop for CudaStream {
    fn drop(&mut self) {
        self.holds.orphan(&self.dev);
        let Some((flags, priority)) = self.owned else { return };
        if self.dev.recycled.keep_stream(self.raw, flags, priority, self.used.load(Ordering::Relaxed)) {
            return;
        }
        if self.dev.bind().is_ok() {
            // SAFETY: the stream was created by us and is destroyed once. Pending work still
            // completes (S13). An error is recorded (`dropped.rs`).
            super::dropped::record("cuStreamDestroy", unsafe { raw::stream_destroy(self.raw) });
        }
    }
}

impl CudaStream {
    pub(super) fn new(dev: &Arc<CudaDevice>, raw: sys::CUstream, owned: Option<(u32, i32)>) -> CudaStream {
        CudaStream { dev: dev.clone(), raw, owned, holds: super::holds::Holds::new(dev), used: AtomicBool::new(false) }
    }

    /// The handle, for a call that queues work on the stream (or may: a capture, a library that
    /// is given the stream, the handle leaving the core): the stream counts as used from now on.
    pub(super) fn queue(&self) -> sys::CUstream {
        self.used.store(true, Ordering::Relaxed);
        self.raw
    }

    /// Makes the device's context current where the handle needs one: the legacy stream (0) and
    /// the per-thread stream name the *current* context's stream. A created or external stream
    /// carries its context, so synchronize, query, record and wait need none (checked on the
    /// H100 from a thread with no current context: all succeed), and skip the ~13 ns of
    /// cuCtxGetCurrent on the hot path.
    fn bind_implicit(&self) -> Result<()> {
        if (self.raw as usize) <= CU_STREAM_PER_THREAD as usize {
            self.dev.bind()?;
        }
        Ok(())
    }
}

/// The built-in sleep kernel of `stream`'s device, for the bench's floor (`floor.rs`), which
/// launches it bare. The kernels are loaded once the stream has launched one.
#[cfg(feature = "floor")]
pub(crate) fn sleep_function(stream: &dyn StreamOps) -> Result<sys::CUfunction> {
    let s = own::<CudaStream>(stream.as_any());
    s.queue();
    Ok(s.kernels()?.sleep)
}

/// Runs a host function on the driver's callback thread, unless the watch ran it first
/// (`host_watch.rs`). It must make no CUDA call (ours only hand work to the JS thread), and a
/// panic must not unwind into the driver (the race catches it).
unsafe extern "C" fn host_fn_trampoline(user: *mut c_void) {
    // SAFETY: `user` is an Arc::into_raw of a Race, handed to exactly one call.
    let race = unsafe { Arc::from_raw(user as *const host_watch::Race) };
    race.run();
}

/// Runs a host function captured into a graph, at every launch: it borrows, never consumes.
unsafe extern "C" fn repeat_trampoline(user: *mut c_void) {
    // SAFETY: `user` points at the Arc inside a RepeatSlot that every graph using this node
    // keeps alive.
    let f = unsafe { &*(user as *const Arc<RepeatFn>) };
    let _ = catch_unwind(AssertUnwindSafe(|| f()));
}

unsafe extern "C" fn callback_trampoline(_stream: sys::CUstream, status: sys::CUresult, user: *mut c_void) {
    // SAFETY: `user` is the Box::into_raw of a StatusFn, handed to exactly one call.
    let f = unsafe { Box::from_raw(user as *mut StatusFn) };
    let result = status.check("the stream");
    let _ = catch_unwind(AssertUnwindSafe(move || f(result)));
}

impl CudaStream {
    /// Holds `host` until the stream reaches this point (an event, not a host function: see
    /// `holds.rs`). Never during a capture: the graph keeps what its copies use.
    fn keep_until_done(&self, host: Arc<dyn HostBytes>) -> Result<()> {
        self.holds.add(&self.dev, self.queue(), host)
    }

    fn kernels(&self) -> Result<&Kernels> {
        self.dev.kernels.get_or_init(Kernels::load).as_ref().map_err(Clone::clone)
    }
}

impl StreamOps for CudaStream {
    fn handle(&self) -> u64 {
        self.raw as u64
    }

    fn export(&self) -> u64 {
        self.queue() as u64
    }

    fn priority(&self) -> Result<i32> {
        self.dev.bind()?;
        // SAFETY: the stream belongs to the bound context.
        unsafe { raw::stream_priority(self.raw) }.check("cuStreamGetPriority")
    }

    fn query(&self) -> Result<bool> {
        self.bind_implicit()?;
        // SAFETY: the stream is live (the owning type outlives every call).
        let idle = unsafe { raw::stream_query(self.raw) }.check("cuStreamQuery")?;
        if idle {
            self.holds.reap(&self.dev);
        }
        Ok(idle)
    }

    fn synchronize(&self) -> Result<()> {
        self.bind_implicit()?;
        // SAFETY: the stream is live.
        unsafe { raw::stream_synchronize(self.raw) }.check("cuStreamSynchronize")?;
        self.holds.reap(&self.dev);
        Ok(())
    }

    fn record(&self, event: &dyn EventOps) -> Result<()> {
        self.bind_implicit()?;
        // SAFETY: event and stream are live and of this device (checked by the caller).
        unsafe { raw::event_record(raw_event(event), self.queue()) }.check("cuEventRecord")
    }

    fn wait_event(&self, event: &dyn EventOps) -> Result<()> {
        self.bind_implicit()?;
        // SAFETY: event and stream are live; the event may belong to any device (S17).
        unsafe { raw::stream_wait_event(self.queue(), raw_event(event)) }.check("cuStreamWaitEvent")
    }

    fn launch_host_fn(&self, f: HostFn) -> Result<()> {
        self.dev.bind()?;
        // Run by whichever comes first: the watch of an event recorded just before, or the
        // driver's callback (`host_watch.rs`).
        let mark = host_watch::mark(&self.dev, self.queue());
        let race = Arc::new(host_watch::Race::new(f));
        let user = Arc::into_raw(race.clone()) as *mut c_void;
        // SAFETY: the trampoline takes over this reference to the race when it runs.
        let r = unsafe { raw::launch_host_func(self.queue(), host_fn_trampoline, user) };
        match (r.is_ok(), mark) {
            (true, Some(event)) => host_watch::start(&self.dev, self.raw, event, race),
            (true, None) => {}
            (false, mark) => {
                // SAFETY: the launch failed, so the driver will never call the trampoline: reclaim it.
                drop(unsafe { Arc::from_raw(user as *const host_watch::Race) });
                if let Some(event) = mark {
                    host_watch::unmark(&self.dev, event);
                }
            }
        }
        r.check("cuLaunchHostFunc")
    }

    fn add_callback(&self, f: StatusFn) -> Result<()> {
        self.dev.bind()?;
        let user = Box::into_raw(Box::new(f)) as *mut c_void;
        // SAFETY: the trampoline takes ownership of `user` when it runs; flags must be 0.
        let r = unsafe { raw::stream_add_callback(self.queue(), callback_trampoline, user) };
        if r.is_err() {
            // SAFETY: the callback was not enqueued and will never run: reclaim it.
            drop(unsafe { Box::from_raw(user as *mut StatusFn) });
        }
        r.check("cuStreamAddCallback")
    }

    fn sleep(&self, ns: u64) -> Result<()> {
        self.dev.bind()?;
        let k = self.kernels()?;
        let mut ns = ns;
        // SAFETY: the module belongs to the bound context; one u64 argument, as declared.
        unsafe { kernels::launch(k.sleep, 1, 1, self.queue(), &mut [&mut ns as *mut u64 as *mut c_void]) }
    }

    fn fill(&self, dst: &dyn AllocOps, offset: u64, pattern: Pattern, count: u64) -> Result<()> {
        self.dev.bind()?;
        let k = self.kernels()?;
        let f = k.fill[pattern.width.trailing_zeros() as usize];
        let (mut ptr, mut bits, mut n) = (alloc_ptr(dst, offset), pattern.bits, count);
        let block = 256u32;
        let grid = count.div_ceil(block as u64).clamp(1, 65_535 * 4) as u32;
        let mut args = [&mut ptr as *mut u64 as *mut c_void, &mut bits as *mut u64 as *mut c_void, &mut n as *mut u64 as *mut c_void];
        // SAFETY: three u64 arguments, as the PTX declares; the range was checked by the caller.
        unsafe { kernels::launch(f, grid, block, self.queue(), &mut args) }
    }

    fn memset(&self, dst: &dyn AllocOps, offset: u64, value: u8, size: u64) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: the range lies inside a live allocation of this device (checked by the caller).
        unsafe { raw::memset_d8_async(alloc_ptr(dst, offset), value, size as usize, self.queue()) }.check("cuMemsetD8Async")
    }

    fn copy_htod(&self, dst: &dyn AllocOps, offset: u64, src: &[u8]) -> Result<()> {
        self.dev.bind()?;
        if src.len() >= super::staging::MIN {
            return super::staging::htod(&self.dev.staging, self.queue(), alloc_ptr(dst, offset), src);
        }
        // SAFETY: `src` is valid for its length during the call; from pageable memory the driver
        // stages the bytes before returning (M5), so `src` may be reused once this returns.
        unsafe { raw::memcpy_htod_async(alloc_ptr(dst, offset), src.as_ptr() as *const c_void, src.len(), self.queue()) }
            .check("cuMemcpyHtoDAsync")
    }

    fn copy_dtoh(&self, dst: &mut [u8], src: &dyn AllocOps, offset: u64) -> Result<()> {
        self.dev.bind()?;
        if dst.len() >= super::staging::MIN {
            return super::staging::dtoh(&self.dev.staging, self.queue(), dst, alloc_ptr(src, offset));
        }
        // SAFETY: `dst` is valid for writes of its length until the stream synchronize below
        // returns, after which the copy is complete.
        unsafe { raw::memcpy_dtoh_async(dst.as_mut_ptr() as *mut c_void, alloc_ptr(src, offset), dst.len(), self.queue()) }
            .check("cuMemcpyDtoHAsync")?;
        // SAFETY: the stream is live.
        unsafe { raw::stream_synchronize(self.raw) }.check("cuStreamSynchronize")
    }

    fn copy_htod_async(
        &self,
        dst: &dyn AllocOps,
        offset: u64,
        src: Arc<dyn HostBytes>,
        src_offset: u64,
        len: u64,
        hold: bool,
    ) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: `src` holds `src_offset + len` bytes (checked by the caller) and stays alive
        // until the stream has passed the copy: the hold below (an event, `holds.rs`) or the graph keeps it.
        unsafe {
            raw::memcpy_htod_async(alloc_ptr(dst, offset), src.ptr().add(src_offset as usize) as *const c_void, len as usize, self.queue())
        }
        .check("cuMemcpyHtoDAsync")?;
        if hold {
            self.keep_until_done(src)?;
        }
        Ok(())
    }

    fn copy_dtoh_async(
        &self,
        dst: Arc<dyn HostBytes>,
        dst_offset: u64,
        src: &dyn AllocOps,
        offset: u64,
        len: u64,
        hold: bool,
    ) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: as above, for writes into `dst`.
        unsafe {
            raw::memcpy_dtoh_async(dst.ptr().add(dst_offset as usize) as *mut c_void, alloc_ptr(src, offset), len as usize, self.queue())
        }
        .check("cuMemcpyDtoHAsync")?;
        if hold {
            self.keep_until_done(dst)?;
        }
        Ok(())
    }

    fn launch_repeat_fn(&self, slot: &RepeatSlot) -> Result<()> {
        self.dev.bind()?;
        let user = &**slot as *const Arc<RepeatFn> as *mut c_void;
        // SAFETY: the slot's address is stable (boxed) and outlives every launch (the graph holds it).
        unsafe { raw::launch_host_func(self.queue(), repeat_trampoline, user) }.check("cuLaunchHostFunc")
    }

    fn begin_capture(&self, mode: CaptureMode) -> Result<()> {
        self.dev.bind()?;
        let mode = match mode {
            CaptureMode::Global => sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL,
            CaptureMode::ThreadLocal => sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            CaptureMode::Relaxed => sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
        };
        // SAFETY: the stream is live.
        unsafe { raw::stream_begin_capture(self.queue(), mode) }.check("cuStreamBeginCapture")
    }

    fn end_capture(&self) -> Result<Box<dyn GraphDef>> {
        self.dev.bind()?;
        // SAFETY: the stream is live.
        let graph = unsafe { raw::stream_end_capture(self.raw) }.check("cuStreamEndCapture")?;
        Ok(Box::new(CudaGraph { dev: self.dev.clone(), graph, owned: true }))
    }

    fn launch_graph(&self, exec: &dyn GraphExec) -> Result<()> {
        let exec = own::<CudaGraphExec>(exec.as_any()).exec;
        self.dev.bind()?;
        // SAFETY: the exec and stream are live.
        unsafe { raw::graph_launch(exec, self.queue()) }.check("cuGraphLaunch")
    }

    fn upload_graph(&self, exec: &dyn GraphExec) -> Result<()> {
        let exec = own::<CudaGraphExec>(exec.as_any()).exec;
        self.dev.bind()?;
        // SAFETY: the exec and stream are live.
        unsafe { raw::graph_upload(exec, self.queue()) }.check("cuGraphUpload")
    }

    fn begin_capture_to_graph(&self, graph: &dyn GraphDef, deps: &[NodeId], mode: CaptureMode) -> Result<()> {
        self.dev.bind()?;
        super::graph::needs("cuStreamBeginCaptureToGraph", "12.3", "graphs built node by node")?;
        let mode = match mode {
            CaptureMode::Global => sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL,
            CaptureMode::ThreadLocal => sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            CaptureMode::Relaxed => sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
        };
        let graph = own::<super::graph::CudaGraph>(graph.as_any()).graph;
        let deps: Vec<sys::CUgraphNode> = deps.iter().map(|&d| d as sys::CUgraphNode).collect();
        // SAFETY: the stream and graph are live, `deps` the graph's nodes (the model checks
        // whose); the entry point exists.
        unsafe { raw::stream_begin_capture_to_graph(self.queue(), graph, &deps, mode) }.check("cuStreamBeginCaptureToGraph")
    }

    fn capture_leaves(&self) -> Result<Vec<NodeId>> {
        self.dev.bind()?;
        // SAFETY: the stream is live.
        let leaves = unsafe { raw::stream_capture_leaves(self.queue()) }.check("cuStreamGetCaptureInfo")?;
        Ok(leaves.into_iter().map(|n| n as NodeId).collect())
    }

    fn end_capture_to_graph(&self) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: the stream is live; the graph stays its owner's.
        unsafe { raw::stream_end_capture_to_graph(self.queue()) }.check("cuStreamEndCapture")
    }

    fn set_condition(&self, condition: u64, src: &dyn AllocOps, offset: u64, test: CondTest) -> Result<()> {
        self.dev.bind()?;
        super::graph::needs("cuGraphConditionalHandleCreate", "12.3", "conditional nodes")?;
        let f = kernels::set_condition(self.dev.ordinal)?;
        let (mut h, mut ptr, mut value, mut dtype, mut op) = (condition, alloc_ptr(src, offset), test.value, test.dtype, test.op);
        let mut args = [
            &mut h as *mut u64 as *mut c_void,
            &mut ptr as *mut sys::CUdeviceptr as *mut c_void,
            &mut value as *mut u64 as *mut c_void,
            &mut dtype as *mut u32 as *mut c_void,
            &mut op as *mut u32 as *mut c_void,
        ];
        // SAFETY: the module belongs to the bound context; five arguments, as the PTX declares.
        unsafe { kernels::launch(f, 1, 1, self.queue(), &mut args) }
    }

    fn capture_status(&self) -> Result<CaptureStatus> {
        self.dev.bind()?;
        // SAFETY: the stream is live.
        let status = unsafe { raw::stream_is_capturing(self.raw) }.check("cuStreamIsCapturing")?;
        Ok(match status {
            sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE => CaptureStatus::Active,
            sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_INVALIDATED => CaptureStatus::Invalidated,
            _ => CaptureStatus::None,
        })
    }

    fn launch_kernel(&self, f: &dyn crate::ops::FunctionOps, launch: &crate::ops::Launch) -> Result<()> {
        self.dev.bind()?;
        let f = own::<super::module::CudaFunction>(f.as_any());
        // Each argument's bytes, 8-byte aligned, in one buffer; the driver copies them at the
        // call (kernelParams). On the stack for the usual launch, so a launch allocates nothing.
        const WORDS: usize = 64;
        const ARGS: usize = 16;
        let words: usize = launch.args.iter().map(|a| a.len().div_ceil(8).max(1)).sum();
        let (mut stack_words, mut stack_params) = ([0u64; WORDS], [std::ptr::null_mut::<c_void>(); ARGS]);
        let (mut heap_words, mut heap_params) = (Vec::new(), Vec::new());
        let (store, params): (&mut [u64], &mut [*mut c_void]) = if words <= WORDS && launch.args.len() <= ARGS {
            (&mut stack_words[..words], &mut stack_params[..launch.args.len()])
        } else {
            heap_words.resize(words, 0u64);
            heap_params.resize(launch.args.len(), std::ptr::null_mut());
            (&mut heap_words[..], &mut heap_params[..])
        };
        let mut at = 0;
        for (a, p) in launch.args.iter().zip(params.iter_mut()) {
            let slot = &mut store[at..at + a.len().div_ceil(8).max(1)];
            // SAFETY: `slot` holds at least `a.len()` bytes; the regions do not overlap.
            unsafe { std::ptr::copy_nonoverlapping(a.as_ptr(), slot.as_mut_ptr() as *mut u8, a.len()) };
            *p = slot.as_mut_ptr() as *mut c_void;
            at += slot.len();
        }
        if launch.has_attributes() {
            let c = super::module::Config::new(launch, self.queue());
            let func = f.raw;
            return super::module::newer("cuLaunchKernelEx", || {
                // SAFETY: as below; `c.config` points at `c.attrs`, alive for the call.
                unsafe { raw::launch_kernel_ex(&c.config, func, params.as_mut_ptr()) }.check("cuLaunchKernelEx")
            });
        }
        // SAFETY: the function belongs to the bound context (checked by the caller); `params`
        // points at one value per parameter, sized as the driver reported (checked by the caller
        // where the driver can tell), alive for the duration of the call.
        unsafe { raw::launch_kernel(f.raw, launch.grid, launch.block, launch.shared_mem, self.queue(), params.as_mut_ptr()) }
            .check("cuLaunchKernel")
    }

    fn prefetch(&self, mem: &dyn AllocOps, offset: u64, len: u64, to: crate::ops::Location) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: the range lies in live managed memory (checked in stream.rs); the stream is live.
        unsafe { raw::mem_prefetch_async(alloc_ptr(mem, offset), len as usize, super::memory::mem_location(to), self.queue()) }
            .check("cuMemPrefetchAsync")
    }

    fn alloc_async(&self, size: u64) -> Result<Box<dyn AllocOps>> {
        self.dev.bind()?;
        // SAFETY: the stream is live; size > 0.
        let ptr = unsafe { raw::mem_alloc_async(size as usize, self.queue()) }.check("cuMemAllocAsync")?;
        Ok(Box::new(CudaAsyncAlloc { dev: self.dev.clone(), ptr, stream: self.queue() }))
    }

    fn copy_2d(&self, dst: End<'_>, src: End<'_>, rows: Rows, hold: bool) -> Result<()> {
        self.dev.bind()?;
        let mut held: Option<Arc<dyn HostBytes>> = None;
        let mut side = |end: End<'_>| -> (sys::CUmemorytype, *mut c_void, sys::CUdeviceptr) {
            match end {
                End::Device(a, offset) => (sys::CUmemorytype::CU_MEMORYTYPE_DEVICE, std::ptr::null_mut(), alloc_ptr(a, offset)),
                End::Pageable(p) => (sys::CUmemorytype::CU_MEMORYTYPE_HOST, p.cast(), 0),
                End::Pinned(h, offset) => {
                    // SAFETY: `offset` lies inside `h` (checked by the model).
                    let p = unsafe { h.ptr().add(offset as usize) };
                    held = Some(h);
                    (sys::CUmemorytype::CU_MEMORYTYPE_HOST, p.cast(), 0)
                }
            }
        };
        let dst_pageable = matches!(dst, End::Pageable(_));
        let (dst_type, dst_host, dst_device) = side(dst);
        let (src_type, src_host, src_device) = side(src);
        let copy = sys::CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: src_type,
            srcHost: src_host as *const c_void,
            srcDevice: src_device,
            srcArray: std::ptr::null_mut(),
            srcPitch: rows.src_pitch as usize,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: dst_type,
            dstHost: dst_host,
            dstDevice: dst_device,
            dstArray: std::ptr::null_mut(),
            dstPitch: rows.dst_pitch as usize,
            WidthInBytes: rows.width as usize,
            Height: rows.height as usize,
        };
        // SAFETY: each side's pitched range lies inside its live allocation or host bytes
        // (checked by the model); pageable bytes are valid during the call, and the driver stages
        // a pageable source before returning (M5); a pinned side is kept alive below.
        unsafe { raw::memcpy_2d_async(&copy, self.queue()) }.check("cuMemcpy2DAsync")?;
        if dst_pageable {
            // SAFETY: the stream is live. Into pageable memory the copy has completed when this returns.
            unsafe { raw::stream_synchronize(self.raw) }.check("cuStreamSynchronize")?;
        }
        match held {
            Some(h) if hold => self.keep_until_done(h),
            _ => Ok(()),
        }
    }

    fn copy_dtod(&self, dst: &dyn AllocOps, dst_offset: u64, src: &dyn AllocOps, src_offset: u64, size: u64) -> Result<()> {
        if let (Some(d), Some(s)) = (dst.device(), src.device()) {
            if let (true, Some(dd), Some(sd)) = (d != s, self.dev.sibling(d), self.dev.sibling(s)) {
                // Between devices: the driver copies peer to peer where it can, else stages
                // through the host; either way in this stream's order only (the other device's
                // streams are ordered with events, as cudaMemcpyPeerAsync documents).
                let (dctx, sctx) = (dd.bind()?, sd.bind()?);
                self.dev.bind()?;
                // SAFETY: both ranges lie inside live allocations (checked by the caller); the
                // contexts are the two devices' retained primary contexts.
                return unsafe {
                    raw::memcpy_peer_async(alloc_ptr(dst, dst_offset), dctx, alloc_ptr(src, src_offset), sctx, size as usize, self.queue())
                }
                .check("cuMemcpyPeerAsync");
            }
        }
        self.dev.bind()?;
        // SAFETY: both ranges lie inside live allocations (checked by the caller); unified
        // addressing resolves memory the backend cannot place, on either device.
        unsafe { raw::memcpy_dtod_async(alloc_ptr(dst, dst_offset), alloc_ptr(src, src_offset), size as usize, self.queue()) }
            .check("cuMemcpyDtoDAsync")
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
/// Maps "no such stream" style failures of foreign handles to a clear message.
/// Whether `[addr, addr + 8)` lies in readable memory of this process. The driver dereferences a
/// stream handle as it is given, so an address that nothing is mapped at would end the process
/// (the fuzzer found 0x10000 on a second device doing so): ask the kernel's map first. Linux only;
/// elsewhere every address passes, as before.
pub(super) fn readable(addr: u64) -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else { return true };
    maps.lines().any(|line| {
        let mut parts = line.split_whitespace();
        let (Some(range), Some(perms)) = (parts.next(), parts.next()) else { return false };
        let Some((lo, hi)) = range.split_once('-') else { return false };
        let (Ok(lo), Ok(hi)) = (u64::from_str_radix(lo, 16), u64::from_str_radix(hi, 16)) else { return false };
        perms.starts_with('r') && lo <= addr && addr.saturating_add(8) <= hi
    })
}

pub(super) fn external_error(handle: u64, e: Error) -> Error {
    match e {
        Error::Cuda { code, message } => Error::cuda(code, format!("ExternalStream 0x{handle:x}: {message}")),
        other => other,
    }
}

pub(super) const CU_STREAM_PER_THREAD: sys::CUstream = 2 as sys::CUstream;

impl Streams for CudaBackend {
    fn create(&self, ordinal: usize, nonblocking: bool, priority: i32) -> Result<Box<dyn StreamOps>> {
        self.bind(ordinal)?;
        let flags = if nonblocking { sys::CUstream_flags::CU_STREAM_NON_BLOCKING } else { sys::CUstream_flags::CU_STREAM_DEFAULT } as u32;
        let dev = &self.devices[ordinal];
        // A kept stream that was used is checked with a query, which a capture under way may bar.
        let raw = match dev.recycled.take_stream(flags, priority, !crate::capture::any_active()) {
            Some(raw) => raw,
            None => raw::stream_create(flags, priority).check("cuStreamCreateWithPriority")?,
        };
        Ok(Box::new(CudaStream::new(dev, raw, Some((flags, priority)))))
    }

    fn graph(&self, ordinal: usize) -> Result<Box<dyn GraphDef>> {
        self.bind(ordinal)?;
        let graph = raw::graph_create().check("cuGraphCreate")?;
        Ok(Box::new(super::graph::CudaGraph { dev: self.devices[ordinal].clone(), graph, owned: true }))
    }

    fn legacy(&self, ordinal: usize) -> Result<Box<dyn StreamOps>> {
        // Handle 0 is the legacy stream of the current context (S3); every call binds first.
        Ok(Box::new(CudaStream::new(&self.devices[ordinal], std::ptr::null_mut(), None)))
    }

    fn per_thread(&self, ordinal: usize) -> Result<Box<dyn StreamOps>> {
        Ok(Box::new(CudaStream::new(&self.devices[ordinal], CU_STREAM_PER_THREAD, None)))
    }

    fn external(&self, ordinal: usize, handle: u64) -> Result<(Box<dyn StreamOps>, bool)> {
        let ctx = self.bind(ordinal)?;
        let stream = handle as sys::CUstream;
        if !readable(handle) {
            return Err(Error::range(format!(
                "0x{handle:x} is no stream handle: nothing is mapped at that address in this process (a CUstream is the address of a driver object)"
            )));
        }
        // SAFETY: the handle is trusted to be a live stream, as CuPy's ExternalStream trusts it,
        // once it is known to point at readable memory; the driver rejects many invalid handles
        // with an error.
        let owner = unsafe { raw::stream_ctx(stream) }.check("cuStreamGetCtx").map_err(|e| external_error(handle, e))?;
        if owner != ctx {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_CONTEXT,
                format!("ExternalStream 0x{handle:x} does not belong to device {ordinal}'s primary context"),
            ));
        }
        // SAFETY: as above.
        let flags = unsafe { raw::stream_flags(stream) }.check("cuStreamGetFlags").map_err(|e| external_error(handle, e))?;
        let nonblocking = flags & sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32 != 0;
        Ok((Box::new(CudaStream::new(&self.devices[ordinal], stream, None)), nonblocking))
    }
}
