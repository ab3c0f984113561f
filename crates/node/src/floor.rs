//! The benchmark's in-process driver floor (feature `floor`; never in the shipped addon).
#![cfg(feature = "floor")]

use crate::callbacks::{self, JsCallback};
use crate::{event, stream};
use cuda_node_core::floor::{self, FloorOp};
use cuda_node_core::Error;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

/// A thread of ours that runs what it is sent: the bench's stand-in for the driver's callback
/// thread, so the wake into JS is timed without the GPU.
fn waker() -> &'static Mutex<Sender<JsCallback>> {
    static WAKER: OnceLock<Mutex<Sender<JsCallback>>> = OnceLock::new();
    WAKER.get_or_init(|| {
        let (tx, rx) = channel::<JsCallback>();
        std::thread::Builder::new()
            .name("cuda-node-floor-waker".into())
            .spawn(move || {
                for cb in rx {
                    cb.run_once();
                }
            })
            .expect("the floor's waker thread starts");
        Mutex::new(tx)
    })
}

crate::exports! {
    /// Nanoseconds per operation over `count` bare driver calls, interleaved with ours by the
    /// bench: op 0 event record+query, op 1 idle stream synchronize, op 2 an empty kernel's launch
    /// (`count` launches, then one synchronize), op 3 a host function's round trip with this
    /// thread spinning (no event loop), op 4 the event pair (a start event made here, `event`
    /// timing), op 5 a stream created, queried and destroyed.
    c"driverFloor" => fn driver_floor(_cx, op: u32, stream: f64, event: f64, count: u32) -> f64 {
        let op = match op {
            0 => FloorOp::EventRecordQuery,
            1 => FloorOp::StreamSynchronize,
            2 => FloorOp::Launch,
            3 => FloorOp::HostFnSpin,
            4 => FloorOp::EventPair,
            5 => FloorOp::StreamCreateQueryDestroy,
            n => return Err(Error::range(format!("floor op must be 0 to 5, got {n}"))),
        };
        stream::with(stream, |s| event::with(event, |e| floor::floor(op, s, e, count)))
    }

    /// Runs the JS callback registered under `callback` from a thread of ours, woken by a channel:
    /// a host callback's way into JS (the threadsafe function and the dispatcher) without the
    /// driver, to set beside the driver's part (op 3) and Node's own wake.
    c"floorWake" => fn floor_wake(cx, callback: f64) -> () {
        let cb = JsCallback::new(callback, false)?;
        callbacks::owe(cx.env, 1)?;
        waker().lock().unwrap_or_else(|p| p.into_inner()).send(cb).map_err(|_| {
            callbacks::forgive(cx.env, 1);
            Error::range("the floor's waker thread is gone")
        })
    }

    /// Does nothing: the bench times it for the cost of one crossing from JS into the addon.
    c"floorCrossing" => fn floor_crossing(_cx) -> () {
        Ok(())
    }
}
