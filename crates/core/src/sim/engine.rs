//! The simulator's execution model. Each stream is a FIFO of operations run by a worker thread
//! of its own, so streams run concurrently and each in order (S1, S2). An operation waits for
//! its dependencies, runs, and completes with a host timestamp, which events read (E2, E5).
//! The legacy default stream's implicit barriers with blocking streams (S5, S7) are added as
//! dependencies at enqueue time, under one lock per device.

use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Instant;

/// The completion of one operation: unset until it has run, then the time it finished.
pub struct Completion {
    at: Mutex<Option<Instant>>,
    cv: Condvar,
}

impl Completion {
    pub fn pending() -> Arc<Self> {
        Arc::new(Completion { at: Mutex::new(None), cv: Condvar::new() })
    }

    pub fn done_now() -> Arc<Self> {
        Arc::new(Completion { at: Mutex::new(Some(Instant::now())), cv: Condvar::new() })
    }

    fn complete(&self) {
        *self.at.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        self.cv.notify_all();
    }

    pub fn is_done(&self) -> bool {
        self.time().is_some()
    }

    pub fn time(&self) -> Option<Instant> {
        *self.at.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn wait(&self) {
        let mut at = self.at.lock().unwrap_or_else(|p| p.into_inner());
        while at.is_none() {
            at = self.cv.wait(at).unwrap_or_else(|p| p.into_inner());
        }
    }
}

struct Op {
    deps: Vec<Arc<Completion>>,
    work: Box<dyn FnOnce() + Send>,
    done: Arc<Completion>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Legacy,
    /// Synchronises with the legacy stream: created blocking streams and the per-thread stream.
    Blocking,
    NonBlocking,
}

/// One stream's queue and worker. The worker drains what was enqueued, then exits when the
/// last handle to the queue is dropped: pending work is never cancelled (S13).
pub struct Queue {
    pub class: Class,
    tx: Mutex<mpsc::Sender<Op>>,
    tail: Mutex<Arc<Completion>>,
}

impl Queue {
    pub fn spawn(class: Class, name: String) -> Arc<Queue> {
        let (tx, rx) = mpsc::channel::<Op>();
        std::thread::Builder::new()
            .name(name)
            .spawn(move || {
                for op in rx {
                    for d in &op.deps {
                        d.wait();
                    }
                    (op.work)();
                    op.done.complete();
                }
            })
            .expect("the simulator could not start a stream thread");
        Arc::new(Queue { class, tx: Mutex::new(tx), tail: Mutex::new(Completion::done_now()) })
    }

    pub fn tail(&self) -> Arc<Completion> {
        self.tail.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The ordering state of one simulated device.
#[derive(Default)]
pub struct Order {
    legacy_last: Option<Arc<Completion>>,
    /// Every live queue of the device, to find blocking ones and to synchronise the device.
    queues: Vec<Weak<Queue>>,
}

pub struct Scheduler {
    order: Mutex<Order>,
}

impl Default for Scheduler {
    fn default() -> Self {
        Scheduler { order: Mutex::new(Order::default()) }
    }
}

impl Scheduler {
    pub fn register(&self, q: &Arc<Queue>) {
        let mut order = self.order.lock().unwrap_or_else(|p| p.into_inner());
        order.queues.retain(|w| w.strong_count() > 0);
        order.queues.push(Arc::downgrade(q));
    }

    /// Enqueues `work` on `q` after `extra` and the implicit legacy-stream dependencies, and
    /// returns its completion.
    pub fn enqueue(&self, q: &Arc<Queue>, extra: Vec<Arc<Completion>>, work: Box<dyn FnOnce() + Send>) -> Arc<Completion> {
        let mut order = self.order.lock().unwrap_or_else(|p| p.into_inner());
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
            let mut tail = q.tail.lock().unwrap_or_else(|p| p.into_inner());
            let tx = q.tx.lock().unwrap_or_else(|p| p.into_inner());
            // The worker lives as long as the queue, so the send cannot fail.
            let _ = tx.send(Op { deps, work, done: done.clone() });
            *tail = done.clone();
        }
        if q.class == Class::Legacy {
            order.legacy_last = Some(done.clone());
        }
        done
    }

    /// Waits for every queue of the device (`cuCtxSynchronize`).
    pub fn synchronize_all(&self) {
        let tails: Vec<_> = {
            let order = self.order.lock().unwrap_or_else(|p| p.into_inner());
            order.queues.iter().filter_map(Weak::upgrade).map(|q| q.tail()).collect()
        };
        for t in tails {
            t.wait();
        }
    }
}
