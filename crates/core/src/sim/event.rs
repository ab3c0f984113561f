//! Simulated events: what a record captured, and when it completed.

use super::engine::{Capture, Completion};
use super::{lock, SimBackend};
use crate::error::{Code, Error, Result};
use crate::ops::{EventFlags, EventOps, Events};
use std::any::Any;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

pub(super) fn sim_event(e: &dyn EventOps) -> &SimEvent {
    super::own::<SimEvent>(e.as_any())
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
    /// Shared with the graph nodes that record or wait for it.
    pub(super) state: Arc<Mutex<Recorded>>,
}

impl EventOps for SimEvent {
    fn handle(&self) -> u64 {
        self.handle
    }

    fn query(&self) -> Result<bool> {
        // Cloned out of the lock: on WebAssembly a poll runs queued work, which may record events.
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
pub(super) fn ipc_unsupported() -> Error {
    Error::cuda(Code::CUDA_ERROR_NOT_SUPPORTED, "interprocess events need the GPU: the simulator cannot share events between processes")
}

impl Events for SimBackend {
    fn create(&self, ordinal: usize, _flags: EventFlags, _reuse: bool) -> Result<Box<dyn EventOps>> {
        let handle = self.devices[ordinal].next_handle.fetch_add(0x10, Ordering::Relaxed);
        Ok(Box::new(SimEvent { handle, state: Arc::new(Mutex::new(Recorded::Empty)) }))
    }

    fn open_ipc(&self, _ordinal: usize, _handle: &[u8; 64]) -> Result<Box<dyn EventOps>> {
        Err(ipc_unsupported())
    }
}
