//! Simulated streams over the engine: ordering, host functions, copies, captures.

use super::engine::{Class, Queue, Submitted, Work};
use super::event::{sim_event, Recorded};
use super::graph::{SimGraph, SimGraphExec};
use super::memory::sim_alloc;
use super::{lock, own, SimBackend, SimDevice};
use crate::error::{Code, Error, Result};
use crate::ops::{
    copy_rows, extent, AllocOps, CaptureMode, CaptureStatus, CondTest, End, EventOps, GraphDef, GraphExec, HostBytes, HostFn, NodeId,
    Pattern, RepeatSlot, Rows, StatusFn, StreamOps, Streams,
};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

pub struct SimStream {
    pub(super) dev: Arc<SimDevice>,
    pub(super) queue: Arc<Queue>,
    pub(super) handle: u64,
    pub(super) priority: i32,
}
impl SimStream {
    pub(super) fn submit(&self, kind: &'static str, label: impl Into<String>, work: Work) -> Result<Submitted> {
        self.dev.scheduler.submit(&self.queue, kind, label.into(), vec![], work)
    }

    pub(super) fn run(&self, kind: &'static str, label: impl Into<String>, work: impl Fn() + Send + Sync + 'static) -> Result<()> {
        self.submit(kind, label, Arc::new(work)).map(|_| ())
    }
}

impl StreamOps for SimStream {
    fn handle(&self) -> u64 {
        self.handle
    }

    fn priority(&self) -> Result<i32> {
        Ok(self.priority)
    }

    fn query(&self) -> Result<bool> {
        Ok(self.queue.tail().poll())
    }

    fn synchronize(&self) -> Result<()> {
        self.queue.tail().wait();
        // A synchronization is where the stream-ordered pool gives back memory past its threshold.
        lock(&self.dev.async_pool).settle(self.dev.for_pool());
        Ok(())
    }

    fn record(&self, event: &dyn EventOps) -> Result<()> {
        let event = sim_event(event);
        // The event captures the stream's contents now (E2): the marker's completion, or, in a
        // capture, the node recorded last.
        let mut state = lock(&event.state);
        *state = match self.submit("empty", "event record", Arc::new(|| {}))? {
            Submitted::Ran(c) => Recorded::Ran(c),
            Submitted::Captured(cap, node) => Recorded::Captured(cap, node, self.queue.id),
        };
        Ok(())
    }

    fn wait_event(&self, event: &dyn EventOps) -> Result<()> {
        let captured = lock(&sim_event(event).state).clone();
        match captured {
            Recorded::Empty => Ok(()),
            Recorded::Ran(c) => {
                if let Some(cap) = self.queue.capture() {
                    // C6e: a capture may not depend on work outside it.
                    cap.invalidate();
                    return Err(Error::cuda(
                        Code::CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
                        "a capturing stream cannot wait on an event recorded outside the capture",
                    ));
                }
                self.dev.scheduler.submit(&self.queue, "wait", String::new(), vec![c], Arc::new(|| {}))?;
                Ok(())
            }
            Recorded::Captured(cap, node, recorder) => self.dev.scheduler.wait_captured(&self.queue, &cap, node, recorder),
        }
    }

    fn launch_host_fn(&self, f: HostFn) -> Result<()> {
        let once = Mutex::new(Some(f));
        self.run("host", "host function", move || {
            if let Some(f) = lock(&once).take() {
                f()
            }
        })
    }

    fn launch_repeat_fn(&self, slot: &RepeatSlot) -> Result<()> {
        let f = (**slot).clone();
        self.run("host", "host function", move || f())
    }

    fn add_callback(&self, f: StatusFn) -> Result<()> {
        let once = Mutex::new(Some(f));
        self.run("host", "callback", move || {
            if let Some(f) = lock(&once).take() {
                f(Ok(()))
            }
        })
    }

    fn sleep(&self, ns: u64) -> Result<()> {
        let d = Duration::from_nanos(ns);
        self.dev
            .scheduler
            .submit_timed(&self.queue, "kernel", format!("sleep {ns} ns"), Arc::new(move || std::thread::sleep(d)), d)
            .map(|_| ())
    }

    fn fill(&self, dst: &dyn AllocOps, offset: u64, pattern: Pattern, count: u64) -> Result<()> {
        let buf = sim_alloc(dst).buffer.clone();
        let label = format!("fill {count} x {} bytes of 0x{:x}", pattern.width, pattern.bits);
        self.run("kernel", label, move || {
            let bytes = pattern.bits.to_le_bytes();
            let w = pattern.width as usize;
            let mut data = buf.lock();
            let start = offset as usize;
            for chunk in data[start..start + w * count as usize].chunks_exact_mut(w) {
                chunk.copy_from_slice(&bytes[..w]);
            }
        })
    }

    fn memset(&self, dst: &dyn AllocOps, offset: u64, value: u8, size: u64) -> Result<()> {
        let buf = sim_alloc(dst).buffer.clone();
        self.run("memset", format!("({size},{value})"), move || buf.lock()[offset as usize..(offset + size) as usize].fill(value))
    }

    fn copy_htod(&self, dst: &dyn AllocOps, offset: u64, src: &[u8]) -> Result<()> {
        // Pageable memory is staged before the call returns, as the driver does (M5).
        let staged = Arc::new(src.to_vec());
        let buf = sim_alloc(dst).buffer.clone();
        self.run("memcpy", "HtoD", move || {
            buf.lock()[offset as usize..offset as usize + staged.len()].copy_from_slice(&staged);
        })
    }

    fn copy_dtoh(&self, dst: &mut [u8], src: &dyn AllocOps, offset: u64) -> Result<()> {
        // To pageable memory the copy is synchronous: wait for the stream's prior work (M5).
        if let Submitted::Ran(c) = self.submit("empty", "", Arc::new(|| {}))? {
            c.wait();
        }
        let data = sim_alloc(src).buffer.lock();
        dst.copy_from_slice(&data[offset as usize..offset as usize + dst.len()]);
        Ok(())
    }

    fn copy_htod_async(
        &self,
        dst: &dyn AllocOps,
        offset: u64,
        src: Arc<dyn HostBytes>,
        src_offset: u64,
        len: u64,
        _hold: bool,
    ) -> Result<()> {
        let buf = sim_alloc(dst).buffer.clone();
        self.run("memcpy", "HtoD", move || {
            let mut data = buf.lock();
            let to = &mut data[offset as usize..(offset + len) as usize];
            // SAFETY: `src` is alive (held by this closure) and holds `src_offset + len` bytes
            // (checked by the caller); ordering other access to it is the user's, as in CUDA.
            unsafe { std::ptr::copy_nonoverlapping(src.ptr().add(src_offset as usize), to.as_mut_ptr(), len as usize) };
        })
    }

    fn copy_dtoh_async(
        &self,
        dst: Arc<dyn HostBytes>,
        dst_offset: u64,
        src: &dyn AllocOps,
        offset: u64,
        len: u64,
        _hold: bool,
    ) -> Result<()> {
        let buf = sim_alloc(src).buffer.clone();
        self.run("memcpy", "DtoH", move || {
            let data = buf.lock();
            let from = &data[offset as usize..(offset + len) as usize];
            // SAFETY: as above, for writes into `dst`.
            unsafe { std::ptr::copy_nonoverlapping(from.as_ptr(), dst.ptr().add(dst_offset as usize), len as usize) };
        })
    }

    fn copy_dtod(&self, dst: &dyn AllocOps, dst_offset: u64, src: &dyn AllocOps, src_offset: u64, size: u64) -> Result<()> {
        let (d, s) = (sim_alloc(dst).buffer.clone(), sim_alloc(src).buffer.clone());
        let (dof, sof, n) = (dst_offset as usize, src_offset as usize, size as usize);
        self.run("memcpy", "DtoD", move || {
            if Arc::ptr_eq(&d, &s) {
                d.lock().copy_within(sof..sof + n, dof);
            } else {
                let from = s.lock();
                d.lock()[dof..dof + n].copy_from_slice(&from[sof..sof + n]);
            }
        })
    }

    fn copy_2d(&self, dst: End<'_>, src: End<'_>, rows: Rows, _hold: bool) -> Result<()> {
        let dst_len = extent(rows.dst_pitch, rows.width, rows.height, "copy2D")? as usize;
        let src_len = extent(rows.src_pitch, rows.width, rows.height, "copy2D")? as usize;
        match (dst, src) {
            (End::Device(d, dof), End::Device(s, sof)) => {
                let (d, s) = (sim_alloc(d).buffer.clone(), sim_alloc(s).buffer.clone());
                self.run("memcpy", "2D DtoD", move || {
                    let (dof, sof) = (dof as usize, sof as usize);
                    if Arc::ptr_eq(&d, &s) {
                        let mut data = d.lock();
                        let base = data.as_mut_ptr();
                        // SAFETY: both ranges lie inside this buffer (checked by the model); rows may overlap.
                        unsafe { copy_rows(base.add(dof), base.add(sof), rows) };
                    } else {
                        let from = s.lock();
                        let mut to = d.lock();
                        // SAFETY: each range lies inside its own buffer (checked by the model).
                        unsafe { copy_rows(to[dof..dof + dst_len].as_mut_ptr(), from[sof..sof + src_len].as_ptr(), rows) };
                    }
                })
            }
            (End::Device(d, dof), End::Pageable(p)) => {
                // Pageable memory is staged before the call returns, as the driver does (M5).
                // SAFETY: `p` holds `src_len` bytes during this call (checked by the model).
                let staged = Arc::new(unsafe { std::slice::from_raw_parts(p, src_len) }.to_vec());
                let buf = sim_alloc(d).buffer.clone();
                self.run("memcpy", "2D HtoD", move || {
                    let mut to = buf.lock();
                    let dof = dof as usize;
                    // SAFETY: the staged bytes and the device range hold the extents.
                    unsafe { copy_rows(to[dof..dof + dst_len].as_mut_ptr(), staged.as_ptr(), rows) };
                })
            }
            (End::Pageable(p), End::Device(s, sof)) => {
                // To pageable memory the copy is synchronous: wait for the stream's prior work (M5).
                if let Submitted::Ran(c) = self.submit("empty", "", Arc::new(|| {}))? {
                    c.wait();
                }
                let from = sim_alloc(s).buffer.lock();
                let sof = sof as usize;
                // SAFETY: `p` holds `dst_len` bytes during this call; the device range the source extent.
                unsafe { copy_rows(p, from[sof..sof + src_len].as_ptr(), rows) };
                Ok(())
            }
            (End::Device(d, dof), End::Pinned(h, hof)) => {
                let buf = sim_alloc(d).buffer.clone();
                self.run("memcpy", "2D HtoD", move || {
                    let mut to = buf.lock();
                    let dof = dof as usize;
                    // SAFETY: `h` is alive (held by this closure) and holds `hof + src_len` bytes
                    // (checked by the model); ordering other access to it is the user's, as in CUDA.
                    unsafe { copy_rows(to[dof..dof + dst_len].as_mut_ptr(), h.ptr().add(hof as usize), rows) };
                })
            }
            (End::Pinned(h, hof), End::Device(s, sof)) => {
                let buf = sim_alloc(s).buffer.clone();
                self.run("memcpy", "2D DtoH", move || {
                    let from = buf.lock();
                    let sof = sof as usize;
                    // SAFETY: as above, for writes into `h`.
                    unsafe { copy_rows(h.ptr().add(hof as usize), from[sof..sof + src_len].as_ptr(), rows) };
                })
            }
            _ => Err(crate::error::Error::type_error("copy2D copies to or from device memory")),
        }
    }

    fn alloc_async(&self, size: u64) -> Result<Box<dyn AllocOps>> {
        lock(&self.dev.async_pool).alloc(size, self.dev.for_pool())?;
        let inner = super::alloc_on(&self.dev, size, true).inspect_err(|_| lock(&self.dev.async_pool).free(size))?;
        Ok(Box::new(super::memory::SimAsyncAlloc { inner: Some(inner), dev: self.dev.clone(), queue: self.queue.clone() }))
    }

    fn prefetch(&self, _mem: &dyn AllocOps, offset: u64, len: u64, to: crate::ops::Location) -> Result<()> {
        // One memory serves host and device alike here: a prefetch only takes its place in order.
        self.run("prefetch", format!("{len} bytes at +{offset} to {to:?}"), || {})
    }

    fn begin_capture(&self, mode: CaptureMode) -> Result<()> {
        self.dev.scheduler.begin_capture(&self.queue, mode)
    }

    fn end_capture(&self) -> Result<Box<dyn GraphDef>> {
        let nodes = self.dev.scheduler.end_capture(&self.queue)?;
        Ok(Box::new(SimGraph::new(self.dev.next_handle.fetch_add(0x10, std::sync::atomic::Ordering::Relaxed), nodes)))
    }

    fn launch_graph(&self, exec: &dyn GraphExec) -> Result<()> {
        let g = own::<SimGraphExec>(exec.as_any());
        let work = g.launch_work();
        let mut last = lock(&g.last_launch);
        // One operation runs every node that is on in recording order (a topological order, PG
        // 4.2.1), after the graph's previous launch (G2: an executable never runs concurrently
        // with itself).
        let done = self.dev.scheduler.enqueue(&self.queue, last.iter().cloned().collect(), work);
        *last = Some(done);
        Ok(())
    }

    fn upload_graph(&self, exec: &dyn GraphExec) -> Result<()> {
        let g = own::<SimGraphExec>(exec.as_any());
        let mut last = lock(&g.last_launch);
        let done = self.dev.scheduler.enqueue(&self.queue, last.iter().cloned().collect(), Arc::new(|| {}));
        *last = Some(done);
        Ok(())
    }

    fn capture_status(&self) -> Result<CaptureStatus> {
        Ok(self.queue.capture_status())
    }

    fn begin_capture_to_graph(&self, graph: &dyn GraphDef, deps: &[NodeId], mode: CaptureMode) -> Result<()> {
        let target = super::own::<SimGraph>(graph.as_any()).nodes.clone();
        self.dev.scheduler.begin_capture_to(&self.queue, mode, target, deps.iter().map(|&d| d as usize).collect())
    }

    fn capture_leaves(&self) -> Result<Vec<NodeId>> {
        Ok(self.dev.scheduler.capture_leaves(&self.queue)?.into_iter().map(|n| n as NodeId).collect())
    }

    fn end_capture_to_graph(&self) -> Result<()> {
        self.dev.scheduler.end_capture_to(&self.queue)
    }

    fn set_condition(&self, condition: u64, src: &dyn AllocOps, offset: u64, test: CondTest) -> Result<()> {
        // On the GPU a set-condition kernel outside its graph faults (an illegal address): refused here.
        if self.queue.capture_status() != CaptureStatus::Active || !super::graph::is_condition(condition) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                "a condition is set only inside its graph: add the set-condition node to the graph that made the condition",
            ));
        }
        let buf = sim_alloc(src).buffer.clone();
        let w = test.width() as usize;
        self.run("kernel", format!("set condition 0x{condition:x}"), move || {
            let value = test.eval(&buf.lock()[offset as usize..offset as usize + w]);
            super::graph::set_condition(condition, value);
        })
    }

    fn launch_kernel(&self, _f: &dyn crate::ops::FunctionOps, _launch: &crate::ops::Launch) -> Result<()> {
        Err(no_kernels())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

pub(super) fn no_kernels() -> Error {
    Error::cuda(
        Code::CUDA_ERROR_NOT_SUPPORTED,
        "the simulator cannot run compiled kernels: give the kernel a host implementation, { simulate(args, grid, block) }",
    )
}

pub(super) fn class(nonblocking: bool) -> Class {
    if nonblocking {
        Class::NonBlocking
    } else {
        Class::Blocking
    }
}

impl Streams for SimBackend {
    fn create(&self, ordinal: usize, nonblocking: bool, priority: i32) -> Result<Box<dyn StreamOps>> {
        let dev = &self.devices[ordinal];
        let handle = dev.next_handle.fetch_add(0x10, Ordering::Relaxed);
        let queue = Queue::spawn(class(nonblocking), format!("sim{ordinal}-{handle:x}"));
        dev.scheduler.register(&queue);
        let mut by_handle = dev.by_handle.lock().unwrap_or_else(|p| p.into_inner());
        by_handle.retain(|_, q| q.strong_count() > 0);
        by_handle.insert(handle, Arc::downgrade(&queue));
        Ok(Box::new(SimStream { dev: dev.clone(), queue, handle, priority }))
    }

    fn graph(&self, ordinal: usize) -> Result<Box<dyn GraphDef>> {
        Ok(Box::new(SimGraph::new(self.devices[ordinal].next_handle.fetch_add(0x10, Ordering::Relaxed), Vec::new())))
    }

    fn legacy(&self, ordinal: usize) -> Result<Box<dyn StreamOps>> {
        let dev = &self.devices[ordinal];
        Ok(Box::new(SimStream { dev: dev.clone(), queue: dev.legacy.clone(), handle: 0, priority: 0 }))
    }

    fn per_thread(&self, ordinal: usize) -> Result<Box<dyn StreamOps>> {
        let dev = &self.devices[ordinal];
        let queue = dev
            .per_thread
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(std::thread::current().id())
            .or_insert_with(|| {
                let q = Queue::spawn(Class::Blocking, format!("sim{ordinal}-ptds"));
                dev.scheduler.register(&q);
                q
            })
            .clone();
        Ok(Box::new(SimStream { dev: dev.clone(), queue, handle: 2, priority: 0 }))
    }

    fn external(&self, ordinal: usize, handle: u64) -> Result<(Box<dyn StreamOps>, bool)> {
        let dev = &self.devices[ordinal];
        let queue = dev.by_handle.lock().unwrap_or_else(|p| p.into_inner()).get(&handle).and_then(Weak::upgrade);
        let Some(queue) = queue else {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_HANDLE,
                format!("0x{handle:x} is not a live stream of simulated device {}", dev.ordinal),
            ));
        };
        let nonblocking = queue.class == Class::NonBlocking;
        Ok((Box::new(SimStream { dev: dev.clone(), queue, handle, priority: 0 }), nonblocking))
    }
}
