//! The simulator without threads (WebAssembly): every stream's operations wait in its inbox,
//! and run on the JS thread when JS synchronizes, queries or waits on an event, or when the
//! binding pumps between macrotasks. An operation runs only once its dependencies have
//! completed, and a queue runs one operation at a time in order, so the ordering rules are the
//! threaded simulator's (S1, S2, S5, S7); each completion is stamped with the host clock when
//! the operation finishes, as there.

use super::engine::{Op, Queue};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A queue's operations not yet run.
#[derive(Default)]
pub struct Inbox {
    ops: VecDeque<Op>,
    /// An operation of this queue is running (a pump inside it must not start the next one).
    busy: bool,
}

impl Inbox {
    /// Same shape as the threaded worker's channel.
    pub(super) fn send(&mut self, op: Op) -> Result<(), ()> {
        self.ops.push_back(op);
        Ok(())
    }
}

/// Every queue with a handle or with work left: pending work is never cancelled (S13), so a
/// queue stays here until both are gone.
static QUEUES: Mutex<Vec<Arc<Queue>>> = Mutex::new(Vec::new());

pub(super) fn register(q: &Arc<Queue>) {
    lock(&QUEUES).push(q.clone());
}

/// Runs every operation that can run now, in each queue's order; whether any ran.
pub fn pump() -> bool {
    let queues: Vec<Arc<Queue>> = {
        let mut all = lock(&QUEUES);
        all.retain(|q| Arc::strong_count(q) > 1 || !lock(&q.tx).ops.is_empty());
        all.clone()
    };
    let mut progress = false;
    for q in queues {
        loop {
            let op = {
                let mut inbox = lock(&q.tx);
                let ready = !inbox.busy && inbox.ops.front().is_some_and(|op| op.deps.iter().all(|d| d.is_done()));
                if !ready {
                    break;
                }
                inbox.busy = true;
                inbox.ops.pop_front().expect("checked above")
            };
            (op.work)();
            op.done.complete();
            lock(&q.tx).busy = false;
            progress = true;
        }
    }
    progress
}

/// Pumps until `done` holds or nothing more can run.
pub fn run_until(done: impl Fn() -> bool) {
    while !done() {
        if !pump() {
            return;
        }
    }
}

/// Whether any queue has work left.
pub fn pending() -> bool {
    lock(&QUEUES).iter().any(|q| !lock(&q.tx).ops.is_empty())
}
