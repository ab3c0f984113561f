//! The simulator's execution model. Each stream is a FIFO of operations run by a worker thread
//! of its own, so streams run concurrently and each in order (S1, S2). An operation waits for
//! its dependencies, runs, and completes with a host timestamp, which events read (E2, E5).
//! The legacy default stream's implicit barriers with blocking streams (S5, S7) are added as
//! dependencies at enqueue time, under one lock per device.
//!
//! While a stream captures, what it is given is recorded as graph nodes instead (C1–C9): a
//! node is a replayable function, so a graph runs it at every launch.

use super::op::Op;
pub use super::op::{Completion, Work};
use crate::error::{Code, Error, Result};
use crate::ops::{CaptureMode, CaptureStatus};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(not(target_family = "wasm"))]
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;
#[cfg(target_family = "wasm")]
use std::time::Instant;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// How a thread waits for a [`Completion`] (defined in `op.rs`, below both this and `coop`):
/// natively it blocks; without threads it pumps `coop`'s queues until the work has run.
impl Completion {
    /// Whether it has run, after running what can run (WebAssembly's cooperative mode, where
    /// queued work advances when JS queries, waits or yields; natively, the workers run it).
    pub fn poll(&self) -> bool {
        #[cfg(target_family = "wasm")]
        if !self.is_done() {
            super::coop::pump();
        }
        self.is_done()
    }

    /// Blocks until it has run. Without threads (WebAssembly), runs queued work until then.
    #[cfg(target_family = "wasm")]
    pub fn wait(&self) {
        super::coop::run_until(|| self.is_done());
        assert!(self.is_done(), "the simulator waited for work that cannot run: no stream can advance (cooperative mode)");
    }

    /// Blocks until it has run. On a thread with a wait pump (`ops::host::set_wait_pump`: a JS thread),
    /// runs the pump every millisecond meanwhile: the work waited for may itself wait for this
    /// thread (a simulated kernel's host implementation, run in stream order on the JS thread).
    #[cfg(not(target_family = "wasm"))]
    pub fn wait(&self) {
        let pump = crate::ops::host::wait_pump();
        let mut at = lock(&self.at);
        while at.is_none() {
            match pump {
                None => at = self.cv.wait(at).unwrap_or_else(|p| p.into_inner()),
                Some(pump) => {
                    drop(at);
                    pump();
                    at = lock(&self.at);
                    if at.is_none() {
                        at = self.cv.wait_timeout(at, Duration::from_millis(1)).unwrap_or_else(|p| p.into_inner()).0;
                    }
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Legacy,
    /// Synchronises with the legacy stream: created blocking streams and the per-thread stream.
    Blocking,
    NonBlocking,
}

/// A graph node recorded by a capture.
#[derive(Clone)]
pub struct Node {
    pub kind: &'static str,
    pub label: String,
    pub work: Work,
    pub deps: Vec<usize>,
    /// What a launch of its graph does first, at the launch (an event record node marks its
    /// event pending there, as a record in stream order does).
    pub arm: Option<Work>,
}

struct CaptureState {
    status: CaptureStatus,
    nodes: Vec<Node>,
    /// Each member queue's last node (the origin's included); the next node depends on it.
    tails: HashMap<u64, Option<usize>>,
    /// Extra dependencies for a member's next node (from waitEvent on a captured event).
    pending: HashMap<u64, Vec<usize>>,
    joined: HashSet<u64>,
}

pub struct Capture {
    pub mode: CaptureMode,
    origin: u64,
    state: Mutex<CaptureState>,
    /// The graph a capture to a graph adds its nodes to (`cuStreamBeginCaptureToGraph`).
    target: Option<Arc<Mutex<Vec<Node>>>>,
}

impl Capture {
    pub fn invalidate(&self) {
        lock(&self.state).status = CaptureStatus::Invalidated;
    }

    pub fn status(&self) -> CaptureStatus {
        lock(&self.state).status
    }

    /// Makes `queue`'s next node depend on `node`, recorded by `recorder`.
    fn depend(&self, queue: u64, node: usize, recorder: u64) {
        let mut st = lock(&self.state);
        st.pending.entry(queue).or_default().push(node);
        // A member is joined back once another waits on an event recorded after its last node.
        if recorder != queue && st.tails.get(&recorder).copied().flatten() == Some(node) {
            st.joined.insert(recorder);
        }
    }
}

/// One stream's queue and worker. The worker drains what was enqueued, then exits when the
/// last handle to the queue is dropped: pending work is never cancelled (S13).
pub struct Queue {
    pub id: u64,
    pub class: Class,
    #[cfg(not(target_family = "wasm"))]
    tx: Mutex<mpsc::Sender<Op>>,
    /// WebAssembly has no threads: the queue's operations wait here for `coop::pump`.
    #[cfg(target_family = "wasm")]
    pub(super) tx: Arc<Mutex<super::coop::Inbox>>,
    tail: Mutex<Arc<Completion>>,
    capture: Mutex<Option<Arc<Capture>>>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Queue {
    #[cfg(target_family = "wasm")]
    pub fn spawn(class: Class, _name: String) -> Arc<Queue> {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let tx = Arc::new(Mutex::new(super::coop::Inbox::default()));
        super::coop::register(&tx);
        Arc::new(Queue { id, class, tx, tail: Mutex::new(Completion::done_now()), capture: Mutex::new(None) })
    }

    #[cfg(not(target_family = "wasm"))]
    pub fn spawn(class: Class, name: String) -> Arc<Queue> {
        let (tx, rx) = mpsc::channel::<Op>();
        std::thread::Builder::new()
            .name(name)
            .spawn(move || {
                for op in rx {
                    for d in &op.deps {
                        d.wait();
                    }
                    op.run().complete();
                }
            })
            .expect("the simulator could not start a stream thread");
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        Arc::new(Queue { id, class, tx: Mutex::new(tx), tail: Mutex::new(Completion::done_now()), capture: Mutex::new(None) })
    }

    pub fn tail(&self) -> Arc<Completion> {
        lock(&self.tail).clone()
    }

    pub fn capture(&self) -> Option<Arc<Capture>> {
        lock(&self.capture).clone()
    }

    pub fn capture_status(&self) -> CaptureStatus {
        self.capture().map_or(CaptureStatus::None, |c| c.status())
    }
}

/// What an enqueue produced: an operation that will run, or a node of the capture under way.
pub enum Submitted {
    Ran(Arc<Completion>),
    Captured(Arc<Capture>, usize),
}

#[derive(Default)]
struct Order {
    legacy_last: Option<Arc<Completion>>,
    /// Every live queue of the device, to find blocking ones and to synchronise the device.
    queues: Vec<Weak<Queue>>,
    /// Captures under way on the device.
    captures: Vec<Weak<Capture>>,
}

#[derive(Default)]
pub struct Scheduler {
    order: Mutex<Order>,
}

impl Scheduler {
    pub fn register(&self, q: &Arc<Queue>) {
        let mut order = lock(&self.order);
        order.queues.retain(|w| w.strong_count() > 0);
        order.queues.push(Arc::downgrade(q));
    }

    /// Submits `work` to `q`: recorded as a node if `q` captures, else enqueued after `extra` and
    /// the implicit legacy-stream dependencies.
    pub fn submit(&self, q: &Arc<Queue>, kind: &'static str, label: String, extra: Vec<Arc<Completion>>, work: Work) -> Result<Submitted> {
        self.submit_op(q, kind, label, extra, work, None)
    }

    /// Submits a sleep of `delay` that `work` performs. Natively the stream's thread runs it;
    /// without threads (WebAssembly) the queue holds it for `delay` without blocking, unless it
    /// is captured (a graph replays `work`, which blocks).
    pub fn submit_timed(&self, q: &Arc<Queue>, kind: &'static str, label: String, work: Work, delay: Duration) -> Result<Submitted> {
        self.submit_op(q, kind, label, vec![], work, Some(delay))
    }

    fn submit_op(
        &self,
        q: &Arc<Queue>,
        kind: &'static str,
        label: String,
        extra: Vec<Arc<Completion>>,
        work: Work,
        delay: Option<Duration>,
    ) -> Result<Submitted> {
        #[cfg(not(target_family = "wasm"))]
        let _ = delay;
        if let Some(cap) = q.capture() {
            return record(&cap, q.id, kind, label, work);
        }
        let mut order = lock(&self.order);
        if q.class == Class::Legacy {
            // C6c: the legacy stream may not be used while a blocking stream captures.
            let blocking: Vec<Arc<Capture>> = order
                .queues
                .iter()
                .filter_map(Weak::upgrade)
                .filter(|o| o.class == Class::Blocking)
                .filter_map(|o| o.capture())
                .filter(|c| c.status() == CaptureStatus::Active)
                .collect();
            if !blocking.is_empty() {
                blocking.iter().for_each(|c| c.invalidate());
                return Err(Error::cuda(
                    Code::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                    "the legacy stream was used while a blocking stream captures",
                ));
            }
        }
        let mut deps = extra;
        match q.class {
            Class::Legacy => {
                for other in order.queues.iter().filter_map(Weak::upgrade) {
                    if other.class == Class::Blocking {
                        deps.push(other.tail());
                    }
                }
            }
            Class::Blocking => deps.extend(order.legacy_last.clone()),
            Class::NonBlocking => {}
        }
        deps.retain(|d| !d.is_done());
        let done = Completion::pending();
        {
            let mut tail = lock(&q.tail);
            // The worker lives as long as the queue, so the send cannot fail.
            let _ = lock(&q.tx).send(Op {
                deps,
                work,
                done: done.clone(),
                #[cfg(target_family = "wasm")]
                delay,
                #[cfg(target_family = "wasm")]
                enqueued: Instant::now(),
            });
            *tail = done.clone();
        }
        if q.class == Class::Legacy {
            order.legacy_last = Some(done.clone());
        }
        Ok(Submitted::Ran(done))
    }

    /// Enqueues work that must run now, never captured (a graph launch, a free in stream order).
    pub fn enqueue(&self, q: &Arc<Queue>, extra: Vec<Arc<Completion>>, work: Work) -> Arc<Completion> {
        let saved = lock(&q.capture).take();
        let r = self.submit(q, "op", String::new(), extra, work);
        *lock(&q.capture) = saved;
        match r {
            Ok(Submitted::Ran(c)) => c,
            _ => Completion::done_now(),
        }
    }

    /// Waits for every queue of the device (`cuCtxSynchronize`).
    pub fn synchronize_all(&self) {
        let tails: Vec<_> = lock(&self.order).queues.iter().filter_map(Weak::upgrade).map(|q| q.tail()).collect();
        for t in tails {
            t.wait();
        }
    }

    pub fn begin_capture(&self, q: &Arc<Queue>, mode: CaptureMode) -> Result<()> {
        self.begin(q, mode, None, Vec::new())
    }

    /// Begins a capture that adds to `target`'s nodes, its first node after `deps`.
    pub fn begin_capture_to(&self, q: &Arc<Queue>, mode: CaptureMode, target: Arc<Mutex<Vec<Node>>>, deps: Vec<usize>) -> Result<()> {
        self.begin(q, mode, Some(target), deps)
    }

    fn begin(&self, q: &Arc<Queue>, mode: CaptureMode, target: Option<Arc<Mutex<Vec<Node>>>>, deps: Vec<usize>) -> Result<()> {
        if q.class == Class::Legacy {
            return Err(Error::cuda(Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "the legacy stream cannot be captured"));
        }
        let mut slot = lock(&q.capture);
        if slot.is_some() {
            return Err(Error::cuda(Code::CUDA_ERROR_ILLEGAL_STATE, "the stream is already capturing"));
        }
        let nodes = target.as_ref().map(|t| lock(t).clone()).unwrap_or_default();
        let cap = Arc::new(Capture {
            mode,
            origin: q.id,
            state: Mutex::new(CaptureState {
                status: CaptureStatus::Active,
                nodes,
                tails: HashMap::from([(q.id, None)]),
                pending: HashMap::from([(q.id, deps)]),
                joined: HashSet::new(),
            }),
            target,
        });
        let mut order = lock(&self.order);
        order.captures.retain(|c| c.strong_count() > 0);
        order.captures.push(Arc::downgrade(&cap));
        *slot = Some(cap);
        Ok(())
    }

    /// The nodes the next node captured on `q` would follow.
    pub fn capture_leaves(&self, q: &Arc<Queue>) -> Result<Vec<usize>> {
        let cap = q.capture().ok_or_else(|| Error::cuda(Code::CUDA_ERROR_ILLEGAL_STATE, "the stream is not capturing"))?;
        let st = lock(&cap.state);
        let mut leaves: Vec<usize> = st.tails.get(&q.id).copied().flatten().into_iter().collect();
        leaves.extend(st.pending.get(&q.id).into_iter().flatten().copied());
        leaves.sort_unstable();
        leaves.dedup();
        Ok(leaves)
    }

    /// Ends a capture begun with [`Scheduler::begin_capture_to`]: its graph takes the nodes.
    pub fn end_capture_to(&self, q: &Arc<Queue>) -> Result<()> {
        let target = q.capture().and_then(|c| c.target.clone());
        let nodes = self.end_capture(q)?;
        match target {
            Some(t) => {
                *lock(&t) = nodes;
                Ok(())
            }
            None => Err(Error::cuda(Code::CUDA_ERROR_ILLEGAL_STATE, "the capture was not begun into a graph")),
        }
    }

    /// Ends the capture begun on `q`; every member stream leaves capture mode (C2, C7, C8).
    pub fn end_capture(&self, q: &Arc<Queue>) -> Result<Vec<Node>> {
        let cap = match lock(&q.capture).clone() {
            Some(c) if c.origin == q.id => c,
            // As the driver does: ending it on a stream forked into it invalidates the capture,
            // which its origin's end then reports (CuPy's test_stream_capture_failure2).
            Some(c) => {
                c.invalidate();
                return Err(Error::cuda(
                    Code::CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
                    "the capture was not begun on this stream (it is invalidated: end it on the stream that began it)",
                ));
            }
            None => return Err(Error::cuda(Code::CUDA_ERROR_ILLEGAL_STATE, "the stream is not capturing")),
        };
        let order = lock(&self.order);
        for member in order.queues.iter().filter_map(Weak::upgrade) {
            let mut slot = lock(&member.capture);
            if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, &cap)) {
                *slot = None;
            }
        }
        drop(order);
        let st = lock(&cap.state);
        if st.status == CaptureStatus::Invalidated {
            return Err(Error::cuda(Code::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the capture was invalidated by an earlier error"));
        }
        let unjoined = st.tails.iter().any(|(m, last)| *m != cap.origin && last.is_some() && !st.joined.contains(m));
        if unjoined {
            return Err(Error::cuda(Code::CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "a stream forked into the capture was not joined back"));
        }
        Ok(st.nodes.clone())
    }

    /// `q` waits on what an event captured in `cap` at `node` (recorded by queue `recorder`):
    /// `q` joins the capture if it is not capturing (a fork, C8).
    pub fn wait_captured(&self, q: &Arc<Queue>, cap: &Arc<Capture>, node: usize, recorder: u64) -> Result<()> {
        let mut slot = lock(&q.capture);
        match slot.as_ref() {
            Some(mine) if Arc::ptr_eq(mine, cap) => {}
            Some(mine) => {
                mine.invalidate();
                cap.invalidate();
                return Err(Error::cuda(
                    Code::CUDA_ERROR_STREAM_CAPTURE_MERGE,
                    "waiting on an event of another capture would merge two captures",
                ));
            }
            None => {
                if cap.status() != CaptureStatus::Active {
                    return Err(Error::cuda(Code::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the event's capture was invalidated"));
                }
                lock(&cap.state).tails.entry(q.id).or_insert(None);
                *slot = Some(cap.clone());
            }
        }
        cap.depend(q.id, node, recorder);
        Ok(())
    }

    /// Active captures of the device not in relaxed mode (the ones an allocation would break).
    pub fn strict_captures(&self) -> Vec<Arc<Capture>> {
        lock(&self.order)
            .captures
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|c| c.mode != CaptureMode::Relaxed && c.status() == CaptureStatus::Active)
            .collect()
    }
}

fn record(cap: &Arc<Capture>, queue: u64, kind: &'static str, label: String, work: Work) -> Result<Submitted> {
    let mut st = lock(&cap.state);
    if st.status == CaptureStatus::Invalidated {
        return Err(Error::cuda(Code::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the capture was invalidated by an earlier error"));
    }
    let mut deps: Vec<usize> = st.tails.get(&queue).copied().flatten().into_iter().collect();
    deps.extend(st.pending.remove(&queue).unwrap_or_default());
    deps.sort_unstable();
    deps.dedup();
    let index = st.nodes.len();
    st.nodes.push(Node { kind, label, work, deps, arm: None });
    st.tails.insert(queue, Some(index));
    Ok(Submitted::Captured(cap.clone(), index))
}

#[cfg(all(test, not(target_family = "wasm")))]
mod tests {
    use super::{Class, Queue, Scheduler, Submitted};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    /// What a copy's work holds (its pinned bytes), slow to let go.
    struct Hold(Arc<AtomicBool>);

    impl Drop for Hold {
        fn drop(&mut self) {
            std::thread::sleep(Duration::from_millis(30));
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn an_operation_seen_complete_has_let_go_of_what_its_work_held() {
        let scheduler = Scheduler::default();
        let q = Queue::spawn(Class::NonBlocking, "test".into());
        scheduler.register(&q);
        for _ in 0..3 {
            let released = Arc::new(AtomicBool::new(false));
            let hold = Hold(released.clone());
            let work: super::Work = Arc::new(move || {
                let _ = &hold;
            });
            let Ok(Submitted::Ran(done)) = scheduler.submit(&q, "copy", String::new(), vec![], work) else {
                panic!("the queue does not capture, so the work is enqueued");
            };
            done.wait();
            assert!(released.load(Ordering::SeqCst), "the completion was set while the work still held its bytes");
        }
    }
}
