//! Simulated streams, events and memory operations over the engine.

use super::engine::{Class, Completion, Queue};
use super::memory::SimAlloc;
use super::SimDevice;
use crate::error::{Code, Error, Result};
use crate::ops::{AllocOps, EventOps, HostBytes, HostFn, Pattern, StatusFn, StreamOps};
use std::any::Any;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct SimStream {
    pub(super) dev: Arc<SimDevice>,
    pub(super) queue: Arc<Queue>,
    pub(super) handle: u64,
    pub(super) priority: i32,
}

impl SimStream {
    fn enqueue(&self, extra: Vec<Arc<Completion>>, work: impl FnOnce() + Send + 'static) -> Arc<Completion> {
        self.dev.scheduler.enqueue(&self.queue, extra, Box::new(work))
    }
}

fn sim_alloc(a: &dyn AllocOps) -> &SimAlloc {
    a.as_any().downcast_ref::<SimAlloc>().expect("the simulator is given its own allocations")
}

fn sim_event(e: &dyn EventOps) -> &SimEvent {
    e.as_any().downcast_ref::<SimEvent>().expect("the simulator is given its own events")
}

impl StreamOps for SimStream {
    fn handle(&self) -> u64 {
        self.handle
    }

    fn priority(&self) -> Result<i32> {
        Ok(self.priority)
    }

    fn query(&self) -> Result<bool> {
        Ok(self.queue.tail().is_done())
    }

    fn synchronize(&self) -> Result<()> {
        self.queue.tail().wait();
        Ok(())
    }

    fn record(&self, event: &dyn EventOps) -> Result<()> {
        let event = sim_event(event);
        // The event captures the stream's contents now (E2): the marker's completion.
        let mut state = event.state.lock().unwrap_or_else(|p| p.into_inner());
        *state = Some(self.enqueue(vec![], || {}));
        Ok(())
    }

    fn wait_event(&self, event: &dyn EventOps) -> Result<()> {
        let captured = sim_event(event).state.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(c) = captured {
            self.enqueue(vec![c], || {});
        }
        Ok(())
    }

    fn launch_host_fn(&self, f: HostFn) -> Result<()> {
        self.enqueue(vec![], f);
        Ok(())
    }

    fn add_callback(&self, f: StatusFn) -> Result<()> {
        self.enqueue(vec![], move || f(Ok(())));
        Ok(())
    }

    fn sleep(&self, ns: u64) -> Result<()> {
        self.enqueue(vec![], move || std::thread::sleep(Duration::from_nanos(ns)));
        Ok(())
    }

    fn fill(&self, dst: &dyn AllocOps, offset: u64, pattern: Pattern, count: u64) -> Result<()> {
        let buf = sim_alloc(dst).buffer.clone();
        self.enqueue(vec![], move || {
            let bytes = pattern.bits.to_le_bytes();
            let w = pattern.width as usize;
            let mut data = buf.lock();
            let start = offset as usize;
            for chunk in data[start..start + w * count as usize].chunks_exact_mut(w) {
                chunk.copy_from_slice(&bytes[..w]);
            }
        });
        Ok(())
    }

    fn memset(&self, dst: &dyn AllocOps, offset: u64, value: u8, size: u64) -> Result<()> {
        let buf = sim_alloc(dst).buffer.clone();
        self.enqueue(vec![], move || buf.lock()[offset as usize..(offset + size) as usize].fill(value));
        Ok(())
    }

    fn copy_htod(&self, dst: &dyn AllocOps, offset: u64, src: &[u8]) -> Result<()> {
        // Pageable memory is staged before the call returns, as the driver does (M5).
        let staged = src.to_vec();
        let buf = sim_alloc(dst).buffer.clone();
        self.enqueue(vec![], move || {
            buf.lock()[offset as usize..offset as usize + staged.len()].copy_from_slice(&staged);
        });
        Ok(())
    }

    fn copy_dtoh(&self, dst: &mut [u8], src: &dyn AllocOps, offset: u64) -> Result<()> {
        // To pageable memory the copy is synchronous: wait for the stream's prior work (M5).
        self.enqueue(vec![], || {}).wait();
        let buf = sim_alloc(src).buffer.clone();
        let data = buf.lock();
        dst.copy_from_slice(&data[offset as usize..offset as usize + dst.len()]);
        Ok(())
    }

    fn copy_htod_async(&self, dst: &dyn AllocOps, offset: u64, src: Arc<dyn HostBytes>, src_offset: u64, len: u64) -> Result<()> {
        let buf = sim_alloc(dst).buffer.clone();
        self.enqueue(vec![], move || {
            let mut data = buf.lock();
            let to = &mut data[offset as usize..(offset + len) as usize];
            // SAFETY: `src` is alive (held by this closure) and holds `src_offset + len` bytes
            // (checked by the caller); ordering other access to it is the user's, as in CUDA.
            unsafe { std::ptr::copy_nonoverlapping(src.ptr().add(src_offset as usize), to.as_mut_ptr(), len as usize) };
        });
        Ok(())
    }

    fn copy_dtoh_async(&self, dst: Arc<dyn HostBytes>, dst_offset: u64, src: &dyn AllocOps, offset: u64, len: u64) -> Result<()> {
        let buf = sim_alloc(src).buffer.clone();
        self.enqueue(vec![], move || {
            let data = buf.lock();
            let from = &data[offset as usize..(offset + len) as usize];
            // SAFETY: as above, for writes into `dst`.
            unsafe { std::ptr::copy_nonoverlapping(from.as_ptr(), dst.ptr().add(dst_offset as usize), len as usize) };
        });
        Ok(())
    }

    fn alloc_async(&self, size: u64) -> Result<Box<dyn AllocOps>> {
        let inner = super::alloc_on(&self.dev, size)?;
        self.dev.async_used.fetch_add(size, std::sync::atomic::Ordering::Relaxed);
        Ok(Box::new(super::memory::SimAsyncAlloc { inner: Some(inner), dev: self.dev.clone(), queue: self.queue.clone() }))
    }

    fn copy_dtod(&self, dst: &dyn AllocOps, dst_offset: u64, src: &dyn AllocOps, src_offset: u64, size: u64) -> Result<()> {
        let (d, s) = (sim_alloc(dst).buffer.clone(), sim_alloc(src).buffer.clone());
        let (dof, sof, n) = (dst_offset as usize, src_offset as usize, size as usize);
        self.enqueue(vec![], move || {
            if Arc::ptr_eq(&d, &s) {
                d.lock().copy_within(sof..sof + n, dof);
            } else {
                let from = s.lock();
                d.lock()[dof..dof + n].copy_from_slice(&from[sof..sof + n]);
            }
        });
        Ok(())
    }
}

pub struct SimEvent {
    pub(super) handle: u64,
    /// What the last record captured; `None` before the first record (an empty set of work).
    pub(super) state: Mutex<Option<Arc<Completion>>>,
}

impl EventOps for SimEvent {
    fn handle(&self) -> u64 {
        self.handle
    }

    fn query(&self) -> Result<bool> {
        Ok(self.state.lock().unwrap_or_else(|p| p.into_inner()).as_ref().is_none_or(|c| c.is_done()))
    }

    fn synchronize(&self) -> Result<()> {
        let captured = self.state.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(c) = captured {
            c.wait();
        }
        Ok(())
    }

    fn elapsed_since(&self, start: &dyn EventOps) -> Result<f32> {
        let time = |e: &SimEvent| e.state.lock().unwrap_or_else(|p| p.into_inner()).as_ref().and_then(|c| c.time());
        match (time(sim_event(start)), time(self)) {
            (Some(a), Some(b)) => {
                let ms = if b >= a { b.duration_since(a).as_secs_f64() * 1e3 } else { -(a.duration_since(b).as_secs_f64() * 1e3) };
                Ok(ms as f32)
            }
            _ => Err(Error::cuda(Code::CUDA_ERROR_NOT_READY, "an event has not completed yet")),
        }
    }

    fn ipc_handle(&self) -> Result<[u8; 64]> {
        Err(ipc_unsupported())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

pub(super) fn ipc_unsupported() -> Error {
    Error::cuda(Code::CUDA_ERROR_NOT_SUPPORTED, "interprocess events need the GPU: the simulator cannot share events between processes")
}

pub(super) fn class(nonblocking: bool) -> Class {
    if nonblocking {
        Class::NonBlocking
    } else {
        Class::Blocking
    }
}
