//! Streams: create, the hot calls (synchronize, query, record, wait, sleep, host functions),
//! capture, and destroy.

use crate::callbacks::{self, JsCallback};
use crate::event;
use crate::raw::{BigU64, Count, Func, Owner};
use crate::task::Blocking;
use cuda_node_core::{runtime, CaptureMode, CaptureStatus, Error, Stream, UserStream};
use std::sync::Arc;

crate::table!(STREAMS: UserStream, CUDA_ERROR_INVALID_HANDLE, "this Stream was destroyed: create a new one", fixed: DEFAULTS);

/// The default streams, the table's fixed entries: handle `d * PER_DEVICE + LEGACY` is device
/// `d`'s legacy stream, `d * PER_DEVICE + PER_THREAD` its per-thread one
/// (`cuda_node_core::stream::defaults`, `constants.stream`), made at first use and never destroyed.
/// Neither fails but where the backend did not load, which a lookup's error then says.
const DEFAULTS: crate::handles::Fixed<UserStream> = crate::handles::Fixed {
    count: || Stream::default_count().unwrap_or(0),
    make: |entry| Stream::default_at(entry).ok().map(UserStream::new),
};

impl crate::handles::Share for UserStream {
    /// The stream (its user's hold stays the table's).
    type Hold = Arc<Stream>;
    fn share(&self) -> Arc<Stream> {
        Arc::clone(self)
    }
}

fn ordinal(device: f64) -> cuda_node_core::Result<usize> {
    runtime()?.ordinal(device)
}

crate::js_object! {
    /// What a stream is, read once by the TS layer.
    pub struct StreamInfo {
        handle: BigU64 = c"handle",
        device: u32 = c"device",
        priority: i32 = c"priority",
        non_blocking: bool = c"nonBlocking",
    }
}

crate::exports! {
    /// A new stream on `device` (`cuStreamCreateWithPriority` at its first use; at once with a
    /// priority, which the device checks). It has no owner yet: `streamOwn` gives it one once it
    /// outlives a macrotask (the TS layer's `lifetime.ts`), so until then only `streamDestroy`
    /// releases the stream.
    c"streamCreate" => fn stream_create(_cx, device: f64, non_blocking: bool, priority: Option<i32>) -> f64 {
        insert_unowned(UserStream::new(Stream::create(ordinal(device)?, non_blocking, priority)?))
    }

    /// Releases the stream when `owner` is collected (the GC backstop of `streamCreate`'s, given
    /// once the stream outlives a macrotask); nothing for a destroyed one.
    c"streamOwn" => fn stream_own(cx, owner: Owner, stream: f64) -> () {
        own_later(cx, &owner, stream)
    }

    /// Wraps a stream created by other code, without owning it.
    c"streamExternal" => fn stream_external(cx, owner: Owner, device: f64, handle: BigU64) -> f64 {
        insert(cx, &owner, UserStream::new(Stream::external(ordinal(device)?, handle.0)?))
    }

    /// Streams on this thread whose native stream is made, the default ones included (for leak
    /// checks; a stream is made at its first use).
    c"streamLive" => fn stream_live(_cx) -> f64 {
        Ok(live_where(|s| s.is_made()) as f64)
    }

    /// The stream's raw handle, device, priority and flags.
    c"streamInfo" => fn stream_info(_cx, stream: f64) -> StreamInfo {
        with(stream, |s| Ok(StreamInfo { handle: BigU64(s.export_handle()?), device: s.device() as u32, priority: s.priority()?, non_blocking: s.is_nonblocking() }))
    }

    /// Blocks until all work on the stream is complete.
    c"streamSynchronize" => fn stream_synchronize(cx, stream: f64) -> () {
        with(stream, |s| s.synchronize())?;
        // The stream's host functions have run: their JS too, before this returns.
        crate::callbacks::run_due(cx.env, true);
        Ok(())
    }

    /// Checks that the stream may be made current while device `current` is: it must be its own.
    c"streamCheckCurrent" => fn stream_check_current(_cx, stream: f64, current: f64) -> () {
        let current = ordinal(current)?;
        with(stream, |s| s.check_current(current))
    }

    /// True when all work on the stream is complete (`cuStreamQuery`).
    c"streamQuery" => fn stream_query(_cx, stream: f64) -> bool {
        with(stream, |s| s.query())
    }

    /// Records `event` on the stream.
    c"streamRecord" => fn stream_record(_cx, stream: f64, event: f64) -> () {
        with(stream, |s| event::with(event, |e| s.record(e)))
    }

    /// Makes later work on the stream wait for what `event` recorded.
    c"streamWaitEvent" => fn stream_wait_event(_cx, stream: f64, event: f64) -> () {
        with(stream, |s| event::with(event, |e| s.wait_event(e)))
    }

    /// The built-in kernel that keeps the stream busy for `ns` nanoseconds.
    c"streamSleep" => fn stream_sleep(_cx, stream: f64, ns: Count) -> () {
        with(stream, |s| s.sleep(ns.0))
    }

    /// Queues the JS callback held under `callback` (`cuLaunchHostFunc`). Returns true when the
    /// stream is capturing: the callback then belongs to the graph and runs at every launch.
    c"streamLaunchHostFn" => fn stream_launch_host_fn(cx, stream: f64, callback: f64) -> bool {
        // The run owed for a one-shot callback is taken back if it fails to queue.
        let owed = std::cell::Cell::new(false);
        with(stream, |s| {
            s.launch_callback(
                || {
                    let cb = JsCallback::new(callback, true)?;
                    Ok(Arc::new(move || cb.run()))
                },
                || {
                    let cb = JsCallback::new(callback, false)?;
                    callbacks::owe(cx.env, 1)?;
                    owed.set(true);
                    Ok(Box::new(move || cb.run_once()))
                },
            )
            .inspect_err(|_| if owed.get() { callbacks::forgive(cx.env, 1) })
        })
    }

    /// Queues `func`, a simulated kernel's host implementation, in stream order: it runs on this
    /// thread once the stream's earlier work is done, and the stream's later work waits for it
    /// (the simulator; not on WebAssembly, where the TS layer runs it after a synchronize).
    c"streamLaunchSimulated" => fn stream_launch_simulated(cx, stream: f64, func: Func) -> () {
        #[cfg(not(target_family = "wasm"))]
        return with(stream, |s| callbacks::launch_simulated(cx.env, func.0, |make| s.launch_simulated(make)));
        #[cfg(target_family = "wasm")]
        {
            let _ = (cx, stream, func);
            Err(Error::cuda(cuda_node_core::Code::CUDA_ERROR_NOT_SUPPORTED, "the WebAssembly build runs a simulated kernel after a synchronize"))
        }
    }

    /// Like `streamLaunchHostFn`, through `cuStreamAddCallback` (not capturable).
    c"streamAddCallback" => fn stream_add_callback(cx, stream: f64, callback: f64) -> () {
        with(stream, |s| {
            let cb = JsCallback::new(callback, false)?;
            callbacks::owe(cx.env, 1)?;
            s.add_callback(Box::new(move |_status| cb.run_once())).inspect_err(|_| callbacks::forgive(cx.env, 1))
        })
    }

    /// Resolves once all work on the stream is complete, off the JS thread.
    c"streamSynchronizeAsync" => fn stream_synchronize_async(_cx, stream: f64) -> Blocking {
        let s = get(stream)?;
        // An idle stream resolves at once; a capturing one rejects, as synchronize() does.
        let idle = s.query().unwrap_or(false);
        let polled = s.clone();
        Ok(Blocking::unless_done(idle, move || s.synchronize()).when(move || polled.query().unwrap_or(true)))
    }

    /// Starts capturing: `'global' | 'threadLocal' | 'relaxed'`.
    c"streamBeginCapture" => fn stream_begin_capture(_cx, stream: f64, mode: String) -> () {
        let mode = match mode.as_str() {
            "global" => CaptureMode::Global,
            "threadLocal" => CaptureMode::ThreadLocal,
            "relaxed" => CaptureMode::Relaxed,
            other => return Err(Error::range(format!("capture mode must be 'global', 'threadLocal' or 'relaxed', got '{other}'"))),
        };
        with(stream, |s| s.begin_capture(mode))
    }

    /// `'none' | 'active' | 'invalidated'`.
    c"streamCaptureStatus" => fn stream_capture_status(_cx, stream: f64) -> String {
        with(stream, |s| {
            Ok(match s.capture_status()? {
                CaptureStatus::None => "none",
                CaptureStatus::Active => "active",
                CaptureStatus::Invalidated => "invalidated",
            }
            .to_string())
        })
    }

    /// Releases the stream; work already queued still completes. The default streams cannot be
    /// destroyed; an external stream is released without being destroyed (it is not ours).
    c"streamDestroy" => fn stream_destroy(_cx, stream: f64) -> () {
        // Destroying twice is nothing, as `using` needs.
        drop(crate::handles::take_checked(&STREAMS, stream, |s| s.check_destroy())?);
        Ok(())
    }

    /// `[least, greatest]` priorities of the device's streams.
    c"streamPriorityRange" => fn stream_priority_range(_cx, device: f64) -> Vec<i32> {
        let (least, greatest) = cuda_node_core::priority_range(ordinal(device)?)?;
        Ok(vec![least, greatest])
    }
}
