//! The benchmark's in-process floor: an operation as the bare driver does it, timed in the
//! same process and the same moment as the binding's own calls. These machines switch between
//! a fast and a slow mode (2× on the H100 host, for processes and within one), so only a
//! measurement interleaved with ours says what the binding adds. On `sim` it is the core's own
//! call, without JS.

use crate::cuda::raw;
use crate::error::{Check, Error, Result};
use crate::runtime::{runtime, BackendKind};
use crate::{Event, Stream, StreamKind};
use cudarc::driver::sys;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloorOp {
    /// `cuEventRecord` then `cuEventQuery`.
    EventRecordQuery,
    /// `cuStreamSynchronize` on an idle stream.
    StreamSynchronize,
    /// `cuLaunchKernel` of the built-in sleep kernel for 0 ns (the bench's empty kernel), `n`
    /// times, then one `cuStreamSynchronize`: per launch, as the bench's launch rows count.
    Launch,
    /// `cuLaunchHostFunc` of a function that sets a flag, this thread spinning until it is set:
    /// the driver's own round trip to a host function, with no event loop in it.
    HostFnSpin,
    /// A start event (made here) and `event` (which must time) recorded, `event` synchronized,
    /// the elapsed time between them read: the bench's event pair row, bare.
    EventPair,
    /// `cuStreamCreate`, `cuStreamQuery`, `cuStreamDestroy` (no stream or event used).
    StreamCreateQueryDestroy,
}

/// Sets the flag `user` points at (the driver's callback thread).
unsafe extern "C" fn set_flag(user: *mut std::ffi::c_void) {
    // SAFETY: `user` is the address of an AtomicBool the launching thread keeps until it is set.
    unsafe { &*(user as *const AtomicBool) }.store(true, Ordering::Release);
}

/// Spins until `flag` is set, yielding now and then (a host function cannot run while this
/// thread holds a core it needs).
fn spin_until(flag: &AtomicBool) {
    let mut spins = 0u32;
    while !flag.load(Ordering::Acquire) {
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(4096) {
            std::thread::yield_now();
        }
        std::hint::spin_loop();
    }
}

/// Nanoseconds per operation over `n` runs of `op` on `stream` (a created one) and `event`.
pub fn floor(op: FloorOp, stream: &Stream, event: &Event, n: u32) -> Result<f64> {
    if stream.kind() != StreamKind::Created {
        return Err(Error::range("the floor is measured on a created stream"));
    }
    if n == 0 {
        return Err(Error::range("the floor needs at least one run"));
    }
    stream.not_capturing("the in-process floor")?;
    if op == FloorOp::Launch {
        // Loads the built-in kernels (first use) outside the timing.
        stream.sleep(0)?;
        stream.synchronize()?;
    }
    if runtime()?.info.kind == BackendKind::Cuda {
        let (s, e) = (stream.export_handle()? as sys::CUstream, event.handle()? as sys::CUevent);
        // What an op needs besides the two handles, made outside the timing.
        let sleep = if op == FloorOp::Launch { Some(crate::cuda::sleep_function(stream.ops()?)?) } else { None };
        let start = if op == FloorOp::EventPair { raw::event_create(0).check("cuEventCreate")? } else { std::ptr::null_mut() };
        let t = Instant::now();
        let r = bare(op, s, e, start, sleep, n);
        let ns = t.elapsed().as_nanos() as f64 / n as f64;
        if !start.is_null() {
            // SAFETY: made above, destroyed once.
            let _ = unsafe { raw::event_destroy(start) };
        }
        if matches!(op, FloorOp::EventRecordQuery | FloorOp::EventPair) {
            // Recorded behind the core's back: keep its record of that true.
            event.mark_recorded(false);
        }
        return r.map(|()| ns);
    }
    let start = match op {
        FloorOp::EventPair => {
            Some(Event::create(stream.device(), crate::EventFlags { blocking: false, disable_timing: false, interprocess: false })?)
        }
        _ => None,
    };
    let t = Instant::now();
    for _ in 0..n {
        match op {
            FloorOp::EventRecordQuery => {
                stream.record(event)?;
                black_box(event.query()?);
            }
            FloorOp::StreamSynchronize => stream.synchronize()?,
            FloorOp::Launch => stream.sleep(0)?,
            FloorOp::StreamCreateQueryDestroy => {
                let t = Stream::create(stream.device(), false, None)?;
                black_box(t.query()?);
            }
            FloorOp::EventPair => {
                let start = start.as_ref().expect("made above for the event pair");
                stream.record(start)?;
                stream.record(event)?;
                event.synchronize()?;
                black_box(crate::elapsed_time(start, event)?);
            }
            FloorOp::HostFnSpin => {
                let flag = Arc::new(AtomicBool::new(false));
                let set = flag.clone();
                stream.launch_host_fn(Box::new(move || set.store(true, Ordering::Release)))?;
                spin_until(&flag);
            }
        }
    }
    if op == FloorOp::Launch {
        stream.synchronize()?;
    }
    Ok(t.elapsed().as_nanos() as f64 / n as f64)
}

/// `n` runs of `op` as bare driver calls on `s` and `e`; `start` is the event pair's first event,
/// `sleep` the launch's kernel. Every handle is live for the call (the caller holds it); a created
/// stream and an event carry their context, and the kernel's is current (`stream.sleep` made it so).
fn bare(op: FloorOp, s: sys::CUstream, e: sys::CUevent, start: sys::CUevent, sleep: Option<sys::CUfunction>, n: u32) -> Result<()> {
    match op {
        FloorOp::EventRecordQuery => {
            for _ in 0..n {
                // SAFETY: as the doc says.
                unsafe { raw::event_record(e, s) }.check("cuEventRecord")?;
                // SAFETY: as the doc says.
                let _ = black_box(unsafe { raw::event_query(e) });
            }
        }
        FloorOp::StreamSynchronize => {
            for _ in 0..n {
                // SAFETY: as the doc says.
                unsafe { raw::stream_synchronize(s) }.check("cuStreamSynchronize")?;
            }
        }
        FloorOp::Launch => {
            let f = sleep.expect("the launch's kernel is given");
            let mut ns = 0u64;
            let mut args = [&mut ns as *mut u64 as *mut std::ffi::c_void];
            for _ in 0..n {
                // SAFETY: as the doc says; the sleep kernel takes one u64, as `args` holds.
                unsafe { raw::launch_kernel(f, [1, 1, 1], [1, 1, 1], 0, s, args.as_mut_ptr()) }.check("cuLaunchKernel")?;
            }
            // SAFETY: as the doc says.
            unsafe { raw::stream_synchronize(s) }.check("cuStreamSynchronize")?;
        }
        FloorOp::HostFnSpin => {
            let flag = AtomicBool::new(false);
            for _ in 0..n {
                flag.store(false, Ordering::Relaxed);
                // SAFETY: as the doc says; `flag` outlives the call: this thread waits below until it is set.
                unsafe { raw::launch_host_func(s, set_flag, &flag as *const AtomicBool as *mut std::ffi::c_void) }
                    .check("cuLaunchHostFunc")?;
                spin_until(&flag);
            }
        }
        FloorOp::EventPair => {
            for _ in 0..n {
                // SAFETY: as the doc says; both events time.
                unsafe {
                    raw::event_record(start, s).check("cuEventRecord")?;
                    raw::event_record(e, s).check("cuEventRecord")?;
                    raw::event_synchronize(e).check("cuEventSynchronize")?;
                    black_box(raw::event_elapsed_time(start, e).check("cuEventElapsedTime")?);
                }
            }
        }
        FloorOp::StreamCreateQueryDestroy => {
            for _ in 0..n {
                let t = raw::stream_create(0, 0).check("cuStreamCreate")?;
                // SAFETY: made just above, destroyed once below.
                unsafe {
                    black_box(raw::stream_query(t).check("cuStreamQuery")?);
                    raw::stream_destroy(t).check("cuStreamDestroy")?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EventFlags;

    #[test]
    fn the_floor_times_a_created_stream_and_refuses_a_default_one() {
        let s = Stream::create(0, true, None).unwrap();
        let e = Event::create(0, EventFlags { blocking: false, disable_timing: true, interprocess: false }).unwrap();
        for op in [FloorOp::EventRecordQuery, FloorOp::StreamSynchronize, FloorOp::Launch, FloorOp::HostFnSpin] {
            let ns = floor(op, &s, &e, 100).unwrap();
            assert!(ns > 0.0 && ns.is_finite(), "{op:?}: {ns}");
        }
        let timing = Event::create(0, EventFlags { blocking: false, disable_timing: false, interprocess: false }).unwrap();
        for op in [FloorOp::EventPair, FloorOp::StreamCreateQueryDestroy] {
            let ns = floor(op, &s, &timing, 100).unwrap();
            assert!(ns > 0.0 && ns.is_finite(), "{op:?}: {ns}");
        }
        assert!(e.query().unwrap(), "the recorded event completes");
        let legacy = Stream::legacy(0).unwrap();
        assert!(floor(FloorOp::StreamSynchronize, &legacy, &e, 1).is_err());
        assert!(floor(FloorOp::StreamSynchronize, &s, &e, 0).is_err());
        s.begin_capture(crate::CaptureMode::Relaxed).unwrap();
        let err = floor(FloorOp::StreamSynchronize, &s, &e, 1).unwrap_err();
        assert_eq!(err.code_name().as_deref(), Some("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"));
        drop(s.end_capture().unwrap());
    }
}
