//! The simulator without threads (WebAssembly): every stream's operations wait in its inbox,
//! and run on the JS thread when JS synchronizes, queries or waits on an event, or when the
//! binding pumps between macrotasks. An operation runs only once its dependencies have
//! completed, and a queue runs one operation at a time in order, so the ordering rules are the
//! threaded simulator's (S1, S2, S5, S7); each completion is stamped with the host clock when
//! the operation finishes, as there.
//!
//! A timed operation (a sleep kernel) does not block the JS thread: when it starts, its queue
//! holds it until the host clock reaches its end, and it completes stamped with that time. So a
//! query made meanwhile says "not done", as natively, two streams' sleeps overlap, and the event
//! loop stays free while one runs; only a wait for it (synchronize) sleeps the thread until then.
//!
//! Timestamps follow what threads would have done, not when a pump happened to come: an
//! operation starts, as far as its completion's stamp goes, when it was enqueued, its queue's
//! previous operation completed, or its last dependency completed, whichever is latest, and its
//! stamp is that start plus the time its work took. So a sleep enqueued at once after an event
//! record ends exactly its length after it, however late JS pumps.
#![cfg(target_family = "wasm")]

use super::op::Op;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A queue's operations not yet run.
#[derive(Default)]
pub struct Inbox {
    ops: VecDeque<Op>,
    /// An operation of this queue is running (a pump inside it must not start the next one).
    busy: bool,
    /// The first operation is a timed one that started: it completes at this time.
    until: Option<Instant>,
    /// When the queue's last operation completed (its stamp).
    last: Option<Instant>,
}

impl Inbox {
    /// When the first operation starts, as threads would have started it (see the module's
    /// comment), given that its dependencies are done.
    fn start_of(&self, op: &Op) -> Instant {
        let deps = op.deps.iter().filter_map(|d| d.time());
        deps.chain(self.last).chain([op.enqueued]).max().expect("at least the enqueue time")
    }
}

impl Inbox {
    /// Same shape as the threaded worker's channel.
    pub(super) fn send(&mut self, op: Op) -> Result<(), ()> {
        self.ops.push_back(op);
        Ok(())
    }
}

/// A queue's inbox, shared by the queue (the engine's `Queue`, which enqueues) and this file's
/// list (which runs it).
type Shared = Arc<Mutex<Inbox>>;

/// The inbox of every queue with a handle or with work left: pending work is never cancelled
/// (S13), so an inbox stays here until both are gone. Its queue holds the only other reference,
/// so a count above one means the queue is alive.
static QUEUES: Mutex<Vec<Shared>> = Mutex::new(Vec::new());

pub(super) fn register(inbox: &Shared) {
    lock(&QUEUES).push(inbox.clone());
}

fn queues() -> Vec<Shared> {
    let mut all = lock(&QUEUES);
    all.retain(|q| Arc::strong_count(q) > 1 || !lock(q).ops.is_empty());
    all.clone()
}

/// Runs every operation that can run now, in each queue's order, and starts or ends timed
/// ones; whether anything changed.
pub fn pump() -> bool {
    let mut progress = false;
    for q in queues() {
        loop {
            let op = {
                let mut inbox = lock(&q);
                if inbox.busy {
                    break;
                }
                let Some(front) = inbox.ops.front() else { break };
                if let Some(until) = inbox.until {
                    if Instant::now() < until {
                        break;
                    }
                    inbox.until = None;
                    inbox.last = Some(until);
                    let op = inbox.ops.pop_front().expect("checked above");
                    op.done.complete_at(until);
                    progress = true;
                    continue;
                }
                if !front.deps.iter().all(|d| d.is_done()) {
                    break;
                }
                let start = inbox.start_of(front);
                if let Some(d) = front.delay {
                    inbox.until = Some(start + d);
                    progress = true;
                    continue;
                }
                inbox.busy = true;
                (inbox.ops.pop_front().expect("checked above"), start)
            };
            let (op, start) = op;
            let ran = Instant::now();
            let done = op.run();
            let at = start + ran.elapsed();
            done.complete_at(at);
            let mut inbox = lock(&q);
            inbox.busy = false;
            inbox.last = Some(at);
            progress = true;
        }
    }
    progress
}

/// The earliest end of a timed operation under way.
fn next_deadline() -> Option<Instant> {
    queues().iter().filter_map(|q| lock(q).until).min()
}

/// Pumps until `done` holds or nothing more can run, sleeping until a timed operation ends
/// where that is all that is left.
pub fn run_until(done: impl Fn() -> bool) {
    while !done() {
        if pump() {
            continue;
        }
        match next_deadline() {
            Some(t) => std::thread::sleep(t.saturating_duration_since(Instant::now())),
            None => return,
        }
    }
}

/// Whether any queue has work left.
pub fn pending() -> bool {
    lock(&QUEUES).iter().any(|q| !lock(q).ops.is_empty())
}

/// After a pump: how long until one should pump again (zero when something can run now), or
/// `None` when no work is left (or none can advance by itself).
pub fn next_pump() -> Option<Duration> {
    let now = Instant::now();
    let mut next: Option<Duration> = None;
    for q in queues() {
        let inbox = lock(&q);
        let wait = match (inbox.until, inbox.ops.front()) {
            (Some(t), _) => t.saturating_duration_since(now),
            (None, Some(op)) if !inbox.busy && op.deps.iter().all(|d| d.is_done()) => Duration::ZERO,
            _ => continue,
        };
        next = Some(next.map_or(wait, |n| n.min(wait)));
    }
    next
}
