//! The benchmark's in-process driver floor (feature `floor`; never in the shipped addon).

use crate::{event, stream};
use cuda_node_core::floor::{self, FloorOp};
use cuda_node_core::Error;

crate::exports! {
    /// Nanoseconds per operation over `count` bare driver calls, interleaved with ours by the
    /// bench: op 0 event record+query, op 1 idle stream synchronize, op 2 an empty kernel's launch
    /// (`count` launches, then one synchronize).
    c"driverFloor" => fn driver_floor(_cx, op: u32, stream: f64, event: f64, count: u32) -> f64 {
        let op = match op {
            0 => FloorOp::EventRecordQuery,
            1 => FloorOp::StreamSynchronize,
            2 => FloorOp::Launch,
            n => return Err(Error::range(format!("floor op must be 0, 1 or 2, got {n}"))),
        };
        stream::with(stream, |s| event::with(event, |e| floor::floor(op, s, e, count)))
    }

    /// Does nothing: the bench times it for the cost of one crossing from JS into the addon.
    c"floorCrossing" => fn floor_crossing(_cx) -> () {
        Ok(())
    }
}
