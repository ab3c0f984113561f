//! Events: create, record (through the stream), query, synchronize, elapsed time, IPC.

use crate::raw::{BigU64, Bytes, NodeBuffer, Owner};
use crate::task::Blocking;
use cuda_node_core::{elapsed_time, runtime, Event, EventFlags, MadeEvent};
use std::sync::Arc;

crate::table!(EVENTS: Event, CUDA_ERROR_INVALID_HANDLE, "this Event was destroyed: create a new one");

impl crate::handles::Share for Event {
    /// Its backend event and state, made if it was not yet (an event is held by value).
    type Hold = cuda_node_core::Result<Arc<MadeEvent>>;
    fn share(&self) -> Self::Hold {
        self.made().cloned()
    }
}

crate::js_object! {
    /// What an event is, read once by the TS layer.
    pub struct EventInfo {
        handle: BigU64 = c"handle",
        device: u32 = c"device",
    }
}

crate::exports! {
    /// A new event on `device` with `cuEventCreate`'s `flags` (`constants.event`), made at its
    /// first use (at once for an interprocess one). It has no owner yet: `eventOwn` gives it one
    /// once it outlives a macrotask (the TS layer's `lifetime.ts`), so until then only
    /// `eventDestroy` releases it.
    c"eventCreate" => fn event_create(_cx, device: f64, flags: u32) -> f64 {
        let flags = EventFlags::from_bits(flags)?;
        insert_unowned(Event::create(runtime()?.ordinal(device)?, flags)?)
    }

    /// Releases the event when `owner` is collected (the GC backstop of `eventCreate`'s, given
    /// once the event outlives a macrotask); nothing for a destroyed one.
    c"eventOwn" => fn event_own(cx, owner: Owner, event: f64) -> () {
        own_later(cx, &owner, event)
    }

    /// Opens an interprocess event another process shared (`cuIpcOpenEventHandle`).
    c"eventFromIpc" => fn event_from_ipc(cx, owner: Owner, device: f64, handle: Bytes) -> f64 {
        insert(cx, &owner, Event::from_ipc(runtime()?.ordinal(device)?, handle.0)?)
    }

    /// The 64-byte handle another process opens the event with.
    c"eventIpcHandle" => fn event_ipc_handle(_cx, event: f64) -> NodeBuffer {
        with(event, |e| Ok(NodeBuffer(e.ipc_handle()?.to_vec())))
    }

    /// The event's raw handle and device.
    c"eventInfo" => fn event_info(_cx, event: f64) -> EventInfo {
        with(event, |e| Ok(EventInfo { handle: BigU64(e.handle()?), device: e.device() as u32 }))
    }

    /// True when the recorded work is complete, or when never recorded (`cuEventQuery`).
    c"eventQuery" => fn event_query(_cx, event: f64) -> bool {
        with(event, |e| e.query())
    }

    /// Blocks until the recorded work is complete.
    c"eventSynchronize" => fn event_synchronize(cx, event: f64) -> () {
        with(event, |e| e.synchronize())?;
        crate::callbacks::run_due(cx.env, true);
        Ok(())
    }

    /// Resolves once the recorded work is complete, off the JS thread.
    c"eventSynchronizeAsync" => fn event_synchronize_async(_cx, event: f64) -> Blocking {
        let e = get(event)??;
        let done = e.query().unwrap_or(false);
        let polled = e.clone();
        Ok(Blocking::unless_done(done, move || e.synchronize()).when(move || polled.query().unwrap_or(true)))
    }

    /// Milliseconds from `start` to `end` (`cuEventElapsedTime`).
    c"eventElapsedTime" => fn event_elapsed_time(_cx, start: f64, end: f64) -> f64 {
        with(start, |a| with(end, |b| Ok(elapsed_time(a, b)? as f64)))
    }

    /// Events on this thread whose native event is made (for leak checks; an event is made at
    /// its first use).
    c"eventLive" => fn event_live(_cx) -> f64 {
        Ok(live_where(|e| e.is_made()) as f64)
    }

    /// Releases the event (again: nothing); later calls with its handle throw.
    c"eventDestroy" => fn event_destroy(_cx, event: f64) -> () {
        drop(crate::handles::take(&EVENTS, event)?);
        Ok(())
    }
}
