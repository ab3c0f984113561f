//! Simulated streams, events, memory operations and graphs over the engine.

use super::engine::{Capture, Class, Completion, Node, Queue, Submitted, Work};
use super::memory::SimAlloc;
use super::SimDevice;
use crate::capture::{CaptureMode, CaptureStatus};
use crate::error::{Code, Error, Result};
use crate::ops::{AllocOps, EventOps, GraphOps, HostBytes, HostFn, Pattern, RepeatSlot, StatusFn, StreamOps};
use std::any::Any;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub struct SimStream {
    pub(super) dev: Arc<SimDevice>,
    pub(super) queue: Arc<Queue>,
    pub(super) handle: u64,
    pub(super) priority: i32,
}

impl SimStream {
    fn submit(&self, kind: &'static str, label: impl Into<String>, work: Work) -> Result<Submitted> {
        self.dev.scheduler.submit(&self.queue, kind, label.into(), vec![], work)
    }

    fn run(&self, kind: &'static str, label: impl Into<String>, work: impl Fn() + Send + Sync + 'static) -> Result<()> {
        self.submit(kind, label, Arc::new(work)).map(|_| ())
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
        Ok(self.queue.tail().poll())
    }

    fn synchronize(&self) -> Result<()> {
        self.queue.tail().wait();
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
        self.run("kernel", format!("sleep {ns} ns"), move || std::thread::sleep(Duration::from_nanos(ns)))
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

    fn copy_htod_async(&self, dst: &dyn AllocOps, offset: u64, src: Arc<dyn HostBytes>, src_offset: u64, len: u64, _hold: bool) -> Result<()> {
        let buf = sim_alloc(dst).buffer.clone();
        self.run("memcpy", "HtoD", move || {
            let mut data = buf.lock();
            let to = &mut data[offset as usize..(offset + len) as usize];
            // SAFETY: `src` is alive (held by this closure) and holds `src_offset + len` bytes
            // (checked by the caller); ordering other access to it is the user's, as in CUDA.
            unsafe { std::ptr::copy_nonoverlapping(src.ptr().add(src_offset as usize), to.as_mut_ptr(), len as usize) };
        })
    }

    fn copy_dtoh_async(&self, dst: Arc<dyn HostBytes>, dst_offset: u64, src: &dyn AllocOps, offset: u64, len: u64, _hold: bool) -> Result<()> {
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

    fn alloc_async(&self, size: u64) -> Result<Box<dyn AllocOps>> {
        let inner = super::alloc_on(&self.dev, size, true)?;
        self.dev.async_used.fetch_add(size, std::sync::atomic::Ordering::Relaxed);
        Ok(Box::new(super::memory::SimAsyncAlloc { inner: Some(inner), dev: self.dev.clone(), queue: self.queue.clone() }))
    }

    fn begin_capture(&self, mode: CaptureMode) -> Result<()> {
        self.dev.scheduler.begin_capture(&self.queue, mode)
    }

    fn end_capture(&self) -> Result<Box<dyn GraphOps>> {
        let nodes = self.dev.scheduler.end_capture(&self.queue)?;
        Ok(Box::new(SimGraph { id: self.dev.next_handle.fetch_add(1, std::sync::atomic::Ordering::Relaxed), nodes: Mutex::new(Arc::new(nodes)), last_launch: Mutex::new(None) }))
    }

    fn capture_status(&self) -> Result<CaptureStatus> {
        Ok(self.queue.capture_status())
    }

    fn launch_graph(&self, graph: &dyn GraphOps) -> Result<()> {
        let g = sim_graph(graph);
        let nodes = lock(&g.nodes).clone();
        let mut last = lock(&g.last_launch);
        // One operation runs every node in recording order (a topological order, PG 4.2.1),
        // after the graph's previous launch (G2: an executable never runs concurrently with itself).
        let done = self.dev.scheduler.enqueue(&self.queue, last.iter().cloned().collect(), Arc::new(move || nodes.iter().for_each(|n| (n.work)())));
        *last = Some(done);
        Ok(())
    }

    fn launch_kernel(&self, _f: &dyn crate::ops::FunctionOps, _launch: &crate::ops::Launch) -> Result<()> {
        Err(no_kernels())
    }

    fn gemm(&self, g: &crate::blas::Gemm, a: &dyn AllocOps, b: &dyn AllocOps, c: &dyn AllocOps) -> Result<()> {
        let (a, b, c, g) = (sim_alloc(a).buffer.clone(), sim_alloc(b).buffer.clone(), sim_alloc(c).buffer.clone(), *g);
        self.run("kernel", format!("gemm {}x{}x{}", g.m, g.n, g.k), move || {
            // Operands are copied out first: A, B and C may share an allocation.
            let words = |buf: &super::memory::Buffer, off: u64| buf.lock()[off as usize..].to_vec();
            let (ab, bb) = (words(&a, g.a_off), words(&b, g.b_off));
            let mut cb = c.lock();
            let cs = &mut cb[g.c_off as usize..];
            let n = (g.ldc * (g.n - 1) + g.m) as usize;
            match g.dtype {
                crate::blas::Real::F32 => {
                    let f = |v: &[u8]| v.chunks_exact(4).map(|w| f32::from_le_bytes(w.try_into().unwrap())).collect::<Vec<f32>>();
                    let mut out: Vec<f64> = f(&cs[..n * 4]).into_iter().map(f64::from).collect();
                    crate::blas::host_gemm(&g, &f(&ab), &f(&bb), &mut out);
                    for (i, v) in out.iter().enumerate() {
                        if (i as u64 % g.ldc) < g.m {
                            cs[i * 4..i * 4 + 4].copy_from_slice(&(*v as f32).to_le_bytes());
                        }
                    }
                }
                crate::blas::Real::F64 => {
                    let f = |v: &[u8]| v.chunks_exact(8).map(|w| f64::from_le_bytes(w.try_into().unwrap())).collect::<Vec<f64>>();
                    let mut out = f(&cs[..n * 8]);
                    crate::blas::host_gemm(&g, &f(&ab), &f(&bb), &mut out);
                    for (i, v) in out.iter().enumerate() {
                        if (i as u64 % g.ldc) < g.m {
                            cs[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
                        }
                    }
                }
            }
        })
    }

    fn axpy(&self, op: &crate::blas::Axpy, x: &dyn AllocOps, y: &dyn AllocOps) -> Result<()> {
        let (x, y, op) = (sim_alloc(x).buffer.clone(), sim_alloc(y).buffer.clone(), *op);
        self.run("kernel", format!("axpy {}", op.n), move || {
            let xs = x.lock()[op.x_off as usize..].to_vec();
            let mut ys = y.lock();
            let w = op.dtype.size() as usize;
            for i in 0..op.n as usize {
                let (xi, yi) = (i * op.incx as usize * w, op.y_off as usize + i * op.incy as usize * w);
                match op.dtype {
                    crate::blas::Real::F32 => {
                        let xv = f32::from_le_bytes(xs[xi..xi + 4].try_into().unwrap());
                        let yv = f32::from_le_bytes(ys[yi..yi + 4].try_into().unwrap());
                        ys[yi..yi + 4].copy_from_slice(&(op.alpha as f32 * xv + yv).to_le_bytes());
                    }
                    crate::blas::Real::F64 => {
                        let xv = f64::from_le_bytes(xs[xi..xi + 8].try_into().unwrap());
                        let yv = f64::from_le_bytes(ys[yi..yi + 8].try_into().unwrap());
                        ys[yi..yi + 8].copy_from_slice(&(op.alpha * xv + yv).to_le_bytes());
                    }
                }
            }
        })
    }

    fn upload_graph(&self, graph: &dyn GraphOps) -> Result<()> {
        let g = sim_graph(graph);
        let mut last = lock(&g.last_launch);
        let done = self.dev.scheduler.enqueue(&self.queue, last.iter().cloned().collect(), Arc::new(|| {}));
        *last = Some(done);
        Ok(())
    }
}

#[derive(Clone)]
pub(super) enum Recorded {
    /// Never recorded: an empty set of work.
    Empty,
    Ran(Arc<Completion>),
    /// Recorded in a capture: the node it follows, and the queue that recorded it.
    Captured(Arc<Capture>, usize, u64),
}

pub struct SimEvent {
    pub(super) handle: u64,
    pub(super) state: Mutex<Recorded>,
}

impl EventOps for SimEvent {
    fn handle(&self) -> u64 {
        self.handle
    }

    fn query(&self) -> Result<bool> {
        let state = lock(&self.state).clone();
        match &state {
            Recorded::Empty => Ok(true),
            Recorded::Ran(c) => Ok(c.poll()),
            Recorded::Captured(..) => Err(Error::cuda(Code::CUDA_ERROR_CAPTURED_EVENT, "the event was last recorded in a capture")),
        }
    }

    fn synchronize(&self) -> Result<()> {
        let captured = lock(&self.state).clone();
        match captured {
            Recorded::Empty => Ok(()),
            Recorded::Ran(c) => {
                c.wait();
                Ok(())
            }
            Recorded::Captured(..) => Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "the event was last recorded in a capture")),
        }
    }

    fn elapsed_since(&self, start: &dyn EventOps) -> Result<f32> {
        let time = |e: &SimEvent| match &*lock(&e.state) {
            Recorded::Ran(c) => c.time(),
            _ => None,
        };
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

pub struct SimGraph {
    id: u64,
    nodes: Mutex<Arc<Vec<Node>>>,
    last_launch: Mutex<Option<Arc<Completion>>>,
}

fn sim_graph(g: &dyn GraphOps) -> &SimGraph {
    g.as_any().downcast_ref::<SimGraph>().expect("the simulator is given its own graphs")
}

impl GraphOps for SimGraph {
    /// The shape `cuGraphDebugDotPrint` gives (G9): a cluster, a node a line, then the edges.
    fn to_dot(&self) -> Result<String> {
        let nodes = lock(&self.nodes).clone();
        let g = format!("graph_{}", self.id);
        let mut s = format!("digraph dot {{\nsubgraph cluster_{id} {{\nlabel=\"{g}\" graph[style = \"dashed\"];\n", id = self.id);
        for (i, n) in nodes.iter().enumerate() {
            let shape = match n.kind {
                "kernel" => "box",
                "memset" => "invtrapezium",
                "memcpy" => "trapezium",
                "host" => "octagon",
                _ => "ellipse",
            };
            s.push_str(&format!("\"{g}_node_{i}\"[style=\"solid\" shape=\"{shape}\" label=\"{i}\\n{}\\n{}\\n\"];\n", n.kind.to_uppercase(), n.label.replace('"', "'")));
        }
        for (i, n) in nodes.iter().enumerate() {
            for d in &n.deps {
                s.push_str(&format!("\"{g}_node_{d}\" -> \"{g}_node_{i}\";\n"));
            }
        }
        s.push_str("}\n}\n");
        Ok(s)
    }

    fn update(&self, from: &dyn GraphOps) -> Result<()> {
        let theirs = lock(&sim_graph(from).nodes).clone();
        let mut mine = lock(&self.nodes);
        let same = mine.len() == theirs.len() && mine.iter().zip(theirs.iter()).all(|(a, b)| a.kind == b.kind && a.deps == b.deps);
        if !same {
            return Err(Error::cuda(
                Code::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
                format!(
                    "the graphs differ in topology ({} nodes against {}, or other kinds or edges): capture the same sequence of operations to update",
                    mine.len(),
                    theirs.len()
                ),
            ));
        }
        *mine = theirs;
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

pub(super) fn no_kernels() -> Error {
    Error::cuda(
        Code::CUDA_ERROR_NOT_SUPPORTED,
        "the simulator cannot run compiled kernels: give the kernel a host implementation, { simulate(args, grid, block) }",
    )
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
