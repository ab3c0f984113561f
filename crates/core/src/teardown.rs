//! A JS thread's environment going away: a worker terminated (or ending), or the main thread at
//! exit. Node then runs the environment's cleanup hooks, then the finalizers of every object, then
//! frees the thread's JS heap — ArrayBuffers included, whatever references we hold — and last the
//! thread's Rust thread-locals are dropped. Work this thread queued may still be in flight on the
//! device, so [`thread_ending`], which the embedder's cleanup hook calls first, lets this thread's
//! objects go in an order that keeps that work's needs alive:
//!
//! 1. host callbacks: nothing is sent to or run on this thread any more, and simulated kernels
//!    queued for it are let go, their streams going on;
//! 2. graphs: launches already queued keep what they use (`Graph::launch`);
//! 3. streams and events: a capture left open is ended, its partial graph and what it kept let
//!    go (`Stream::abandon_capture`), and the events recorded in it with it (an event recorded in
//!    a capture holds it: the simulator's, with its nodes); queued work goes on;
//! 4. registered host memory, its JS owner still referenced or already collected: its bytes are
//!    this thread's JS heap, so teardown waits until no queued copy or launch uses them, then
//!    unregisters them (`PinnedBlock::wait_unused`);
//! 5. JS references dropped later on this thread are left to the dying environment.
//!
//! Everything else (streams, events, memory, pools) the finalizers let go as usual: each keeps
//! what its queued work needs by itself.

use crate::pinned::{self, PinnedBlock};
use crate::stream::UserStream;

/// What only the embedder knows of a JS thread: its tables of objects and its way into JS. Each
/// method takes one kind out of this thread's tables (their handles go stale) or stops one thing;
/// [`thread_ending`] calls them in the model's order.
pub trait ThreadTables {
    /// Stops host callbacks reaching this thread and lets go of the simulated kernels queued for
    /// it unrun, so that their streams go on.
    fn stop_callbacks(&self);
    /// Takes every graph out and drops it.
    fn drop_graphs(&self);
    /// Takes every stream out.
    fn take_streams(&self) -> Vec<UserStream>;
    /// Takes every event out and drops it.
    fn drop_events(&self);
    /// Takes every pinned block out and drops it.
    fn drop_pinned(&self);
    /// From now on JS references dropped on this thread are left to the dying environment.
    fn forget_js(&self);
}

/// Lets the objects of the calling JS thread go, in the order above.
pub fn thread_ending(tables: &dyn ThreadTables) {
    tables.stop_callbacks();
    tables.drop_graphs();
    // Captures this thread left open end here: work captured in them (a copy into registered
    // memory, say) never runs, yet their keep lists hold what it named.
    for s in tables.take_streams() {
        s.abandon_capture();
    }
    tables.drop_events();
    // The table's entries go; every registered block that queued work still holds (those the GC
    // took from the table too) is waited for until that work has run.
    tables.drop_pinned();
    // The registration cache's entries go too: its buffers are this thread's.
    crate::host_cache::clear();
    for block in pinned::registered_here() {
        PinnedBlock::wait_unused(&block);
    }
    tables.forget_js();
}
