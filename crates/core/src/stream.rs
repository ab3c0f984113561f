//! Streams (CuPy's `cupy.cuda.Stream`): the owning type, with the checks both backends share.

use crate::capture::{self, CaptureMode, CaptureStatus};
use crate::copy2d::{extent, End, Rows, Side};
use crate::error::{Code, Error, Result};
use crate::event::Event;
use crate::graph::Graph;
use crate::memory::DeviceMemory;
use crate::ops::{HostFn, Pattern, StatusFn, StreamOps};
use crate::ops::{RepeatFn, RepeatSlot};
use crate::pinned::PinnedBlock;
use crate::runtime;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::{Mutex, MutexGuard, OnceLock, Weak};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamKind {
    /// The legacy default stream (`Stream.null`, handle 0).
    Legacy,
    /// The per-thread default stream (`Stream.ptds`, `CU_STREAM_PER_THREAD`).
    PerThread,
    /// A stream this library created and owns.
    Created,
    /// A stream created elsewhere, wrapped without owning it.
    External,
}

/// Where the default streams lie among a JS thread's streams: device `d`'s legacy stream is entry
/// `d * PER_DEVICE + LEGACY`, its per-thread stream `d * PER_DEVICE + PER_THREAD`
/// ([`Stream::default_at`]). The binding's stream table holds them as its fixed entries, under
/// these numbers as handles, for as long as the thread lives; the TS layer reads the layout as
/// `constants.stream` (`Stream.null` and `Stream.ptds` carry `LEGACY` and `PER_THREAD`, which
/// resolve to the current device's).
pub mod defaults {
    /// The legacy default stream (`Stream.null`, `CUstream` 0).
    pub const LEGACY: usize = 0;
    /// The per-thread default stream (`Stream.ptds`, `CU_STREAM_PER_THREAD`).
    pub const PER_THREAD: usize = 1;
    /// How many default streams a device has.
    pub const PER_DEVICE: usize = 2;
}

pub struct Stream {
    /// The backend's stream, made at the first call that needs it ([`Stream::ops`]): a stream
    /// never used costs no driver call (on the simulator, no thread), and its user holds a real
    /// handle from the start. Made at once where creating checks something (a priority).
    made: OnceLock<Box<dyn StreamOps>>,
    device: usize,
    kind: StreamKind,
    nonblocking: bool,
    /// Read from the driver on first ask where the stream was made without one (a driver call
    /// that creating a stream need not pay).
    priority: OnceLock<i32>,
    /// The keep list of the capture begun on this stream, while it is under way.
    capture: Mutex<Option<capture::Keep>>,
    /// For an external stream over a stream made here: that stream, kept while this one lives,
    /// so the handle names a live stream for as long as the wrapper can use it.
    _owner: Option<Arc<Stream>>,
    /// Its handle was given out ([`UserStream::export_handle`]), so it is in the registry (`owned`).
    exported: AtomicBool,
}

/// The streams made here whose handle was given out, by handle: where an external stream wraps
/// one of them, it keeps it (`Stream::external`). Weak: the entry never keeps a stream.
fn owned() -> MutexGuard<'static, HashMap<u64, Weak<Stream>>> {
    static OWNED: OnceLock<Mutex<HashMap<u64, Weak<Stream>>>> = OnceLock::new();
    OWNED.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner())
}

impl Drop for Stream {
    /// A capture begun here and never ended — the stream destroyed or collected while an async
    /// capture body awaited, or its worker thread terminated meanwhile — is ended now and its
    /// graph let go. Left counted, it kept the device "capturing" for every thread of the
    /// process: the legacy stream refused (C6c), synchronize refused, and every free deferred
    /// until a capture end that would never come (#20, the fuzzer's worker termination).
    fn drop(&mut self) {
        self.abandon_capture();
        if let (true, Some(ops)) = (*self.exported.get_mut(), self.made.get()) {
            // Unless a newer stream has the (recycled) handle now.
            let mut owned = owned();
            if owned.get(&ops.handle()).is_some_and(|w| std::ptr::eq(w.as_ptr(), self)) {
                owned.remove(&ops.handle());
            }
        }
    }
}

/// A stream as its user holds it (the JS object): letting it go — `destroy()`, or the GC — ends a
/// capture left open on it, as destroying a capturing stream does, even where other holders (a
/// pool's arena, which keeps the streams its blocks were used on) keep the stream itself. One
/// allocation and no other reference count: making and dropping one is the cost of a stream
/// never used (each atomic count step showed in a create-and-destroy loop).
pub struct UserStream(Arc<Stream>);

impl UserStream {
    #[inline]
    pub fn new(stream: Stream) -> UserStream {
        UserStream(Arc::new(stream))
    }

    /// The handle, for code outside the core (the JS `handle`, another library): work it queues
    /// there is unknown to the core, so the stream is no longer taken as unused; and a stream
    /// made here is registered, so that an external stream wrapping the handle keeps it.
    pub fn export_handle(&self) -> Result<u64> {
        let handle = self.0.export_handle()?;
        if self.0.kind == StreamKind::Created && !self.0.exported.swap(true, Ordering::AcqRel) {
            owned().insert(handle, Arc::downgrade(&self.0));
        }
        Ok(handle)
    }
}

impl std::ops::Deref for UserStream {
    type Target = Arc<Stream>;
    fn deref(&self) -> &Arc<Stream> {
        &self.0
    }
}

impl Drop for UserStream {
    fn drop(&mut self) {
        self.0.abandon_capture();
    }
}

impl Stream {
    /// A new stream on `device`. `priority` must lie in the device's range
    /// ([`priority_range`]); lower numbers are higher priorities.
    #[inline]
    pub fn create(device: usize, nonblocking: bool, priority: Option<i32>) -> Result<Stream> {
        let asked = match priority {
            None => None,
            Some(p) => {
                let (least, greatest) = runtime()?.backend.devices().priority_range(device)?;
                if p < greatest || p > least {
                    return Err(Error::range(format!(
                        "priority {p} is outside the device's range: {greatest} (highest) to {least} (lowest)"
                    )));
                }
                Some(p)
            }
        };
        let priority = asked.map_or_else(OnceLock::new, OnceLock::from);
        let s = Stream::with(OnceLock::new(), device, StreamKind::Created, nonblocking, priority, None);
        if asked.is_some() {
            // Made now: the device has just checked the priority, as the user expects of creating.
            s.ops()?;
        }
        Ok(s)
    }

    #[inline]
    fn with(
        made: OnceLock<Box<dyn StreamOps>>,
        device: usize,
        kind: StreamKind,
        nonblocking: bool,
        priority: OnceLock<i32>,
        owner: Option<Arc<Stream>>,
    ) -> Stream {
        Stream { made, device, kind, nonblocking, priority, capture: Mutex::new(None), _owner: owner, exported: AtomicBool::new(false) }
    }

    /// How many default streams there are: [`defaults::PER_DEVICE`] a device.
    pub fn default_count() -> Result<usize> {
        Ok(runtime()?.devices * defaults::PER_DEVICE)
    }

    /// The default stream at `entry` of the layout [`defaults`] gives: device
    /// `entry / PER_DEVICE`'s legacy or per-thread stream. Made on the calling thread, whose
    /// per-thread stream it is, so made at once (the entry itself is made at its first use).
    pub fn default_at(entry: usize) -> Result<Stream> {
        let device = entry / defaults::PER_DEVICE;
        match entry % defaults::PER_DEVICE {
            defaults::LEGACY => Stream::legacy(device),
            _ => Stream::per_thread(device),
        }
    }

    pub fn legacy(device: usize) -> Result<Stream> {
        let ops = runtime()?.backend.streams().legacy(device)?;
        Ok(Stream::with(OnceLock::from(ops), device, StreamKind::Legacy, false, OnceLock::from(0), None))
    }

    pub fn per_thread(device: usize) -> Result<Stream> {
        let ops = runtime()?.backend.streams().per_thread(device)?;
        Ok(Stream::with(OnceLock::from(ops), device, StreamKind::PerThread, false, OnceLock::from(0), None))
    }

    /// Wraps a stream created by other code (`ExternalStream`). It is never destroyed here.
    pub fn external(device: usize, handle: u64) -> Result<Stream> {
        if handle == 0 || handle == 1 || handle == 2 {
            return Err(Error::range("handles 0, 1 and 2 are the default streams: use Stream.null or Stream.ptds".to_string()));
        }
        // A CUstream is the address of the driver's stream object: the driver dereferences
        // whatever it is given, so a value no such address can have is refused here (#20: 2^63
        // crashed the driver). Below the lowest mappable page (Linux's vm.mmap_min_addr), past
        // 57-bit user space (5-level paging), or not 8-byte aligned (a heap object) is no stream.
        if !(0x1_0000..1u64 << 57).contains(&handle) || !handle.is_multiple_of(8) {
            return Err(Error::range(format!(
                "0x{handle:x} cannot be a stream handle: a CUstream is the address of a driver object (8-byte aligned, in user space); pass the handle another library gave you, as a bigint"
            )));
        }
        // One of ours: kept while the wrapper lives, so destroying it cannot leave the wrapper
        // naming a freed driver stream (capturing on it, then ending that capture, crashed).
        let owner = owned().get(&handle).and_then(Weak::upgrade);
        let (ops, nonblocking) = runtime()?.backend.streams().external(device, handle)?;
        // Read now: it also checks the handle with the driver.
        let priority = OnceLock::from(ops.priority()?);
        Ok(Stream::with(OnceLock::from(ops), device, StreamKind::External, nonblocking, priority, owner))
    }

    /// Ends a capture begun on this stream that nobody will end — the stream is going, or the
    /// thread that began it is — dropping the partial graph (never launched) and what it kept.
    pub fn abandon_capture(&self) {
        // A stream never made never captured.
        let Some(ops) = self.made.get() else { return };
        let keep = self.capture.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(keep) = keep {
            // The partial graph (or the error of an invalidated capture) is dropped.
            drop(ops.end_capture());
            capture::ended(self.device, !self.nonblocking, &keep);
        }
    }

    pub fn handle(&self) -> Result<u64> {
        Ok(self.ops()?.handle())
    }
    /// The handle, for code outside the core: work it queues there is unknown to the core, so
    /// the stream is no longer taken as unused ([`UserStream::export_handle`] for its user's).
    pub(crate) fn export_handle(&self) -> Result<u64> {
        Ok(self.ops()?.export())
    }
    /// Whether the backend's stream is made (a stream is made at its first use).
    pub fn is_made(&self) -> bool {
        self.made.get().is_some()
    }
    pub fn device(&self) -> usize {
        self.device
    }
    pub fn kind(&self) -> StreamKind {
        self.kind
    }
    pub fn is_nonblocking(&self) -> bool {
        self.nonblocking
    }
    pub fn priority(&self) -> Result<i32> {
        if let Some(&p) = self.priority.get() {
            return Ok(p);
        }
        let p = self.ops()?.priority()?;
        Ok(*self.priority.get_or_init(|| p))
    }

    /// The backend's stream, made here at the first call that needs one.
    pub(crate) fn ops(&self) -> Result<&dyn StreamOps> {
        match self.made.get() {
            Some(ops) => Ok(&**ops),
            None => self.make(),
        }
    }

    #[cold]
    fn make(&self) -> Result<&dyn StreamOps> {
        let priority = self.priority.get().copied().unwrap_or(0);
        let ops = runtime()?.backend.streams().create(self.device, self.nonblocking, priority)?;
        // Two threads making it at once: the one made second is dropped (back to the bin).
        Ok(&**self.made.get_or_init(|| ops))
    }

    /// True when all work on the stream is complete (`cuStreamQuery`).
    pub fn query(&self) -> Result<bool> {
        self.not_capturing("done (a stream query)")?;
        self.ops()?.query()
    }

    pub fn synchronize(&self) -> Result<()> {
        self.not_capturing("synchronize()")?;
        self.ops()?.synchronize()
    }

    /// The capture status (`cuStreamIsCapturing`). Asking the legacy stream while a blocking stream
    /// captures is itself a use of it (C6c): a CudaError, as the driver gives.
    pub fn capture_status(&self) -> Result<CaptureStatus> {
        self.legacy_ok("isCapturing()")?;
        self.ops()?.capture_status()
    }

    /// Whether the stream captures. Every capture goes through this library, so while none is
    /// under way on the device the answer needs no driver call.
    pub fn is_capturing(&self) -> Result<bool> {
        if !capture::active(self.device) {
            return Ok(false);
        }
        Ok(self.ops()?.capture_status()? != CaptureStatus::None)
    }

    /// Starts capturing the work enqueued on this stream into a graph (`cuStreamBeginCapture`).
    pub fn begin_capture(&self, mode: CaptureMode) -> Result<()> {
        if self.kind == StreamKind::Legacy {
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                "the legacy default stream (Stream.null) cannot be captured: capture on a stream you created, or on Stream.ptds",
            ));
        }
        let mut cap = self.capture.lock().unwrap_or_else(|p| p.into_inner());
        self.ops()?.begin_capture(mode)?;
        let keep = capture::Keep::default();
        capture::began(self.device, !self.nonblocking, &keep);
        *cap = Some(keep);
        Ok(())
    }

    /// Ends the capture begun on this stream and instantiates the graph. After an invalidated
    /// capture this is `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`, and the stream is usable again.
    pub fn end_capture(&self) -> Result<Graph> {
        let mut cap = self.capture.lock().unwrap_or_else(|p| p.into_inner());
        let ended = self.ops()?.end_capture();
        let kept = cap.take().map(|keep| {
            capture::ended(self.device, !self.nonblocking, &keep);
            std::mem::take(&mut *keep.lock().unwrap_or_else(|p| p.into_inner()))
        });
        Graph::new(ended?, self.device, kept.unwrap_or_default())
    }

    /// Captures what is enqueued next into `def`, after its nodes `deps`: a graph built node by
    /// node (`GraphBuilder`). Host functions and pinned memory captured are kept, as
    /// `begin_capture`'s are, and handed over by [`Stream::end_capture_to`].
    pub(crate) fn begin_capture_to(&self, def: &dyn crate::ops::GraphDef, deps: &[crate::ops::NodeId]) -> Result<()> {
        if self.kind == StreamKind::Legacy {
            return Err(Error::cuda(Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "the legacy default stream cannot capture into a graph"));
        }
        let mut cap = self.capture.lock().unwrap_or_else(|p| p.into_inner());
        if cap.is_some() {
            return Err(Error::cuda(Code::CUDA_ERROR_ILLEGAL_STATE, "the stream is already capturing: end that capture first"));
        }
        self.ops()?.begin_capture_to_graph(def, deps, CaptureMode::Relaxed)?;
        let keep = capture::Keep::default();
        capture::began(self.device, !self.nonblocking, &keep);
        *cap = Some(keep);
        Ok(())
    }

    /// Ends a capture begun with [`Stream::begin_capture_to`]: the nodes it added last (or its
    /// `deps` where it added none) and what its graph must keep.
    pub(crate) fn end_capture_to(&self) -> Result<(Vec<crate::ops::NodeId>, crate::graph::Captured)> {
        let mut cap = self.capture.lock().unwrap_or_else(|p| p.into_inner());
        let ops = self.ops()?;
        let leaves = ops.capture_leaves();
        let ended = ops.end_capture_to_graph();
        let kept = cap.take().map(|keep| {
            capture::ended(self.device, !self.nonblocking, &keep);
            std::mem::take(&mut *keep.lock().unwrap_or_else(|p| p.into_inner()))
        });
        ended?;
        Ok((leaves?, kept.unwrap_or_default()))
    }

    /// A blocking call on a capturing stream would invalidate the capture (C6): refuse it here,
    /// naming the call, before the driver sees it. Legacy-stream use while a blocking stream
    /// captures would too (C6c).
    pub(crate) fn not_capturing(&self, what: &str) -> Result<()> {
        if self.is_capturing()? {
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                format!("{what} cannot run on a stream that is capturing: it would wait for work that is being recorded, not run, and invalidate the capture"),
            ));
        }
        self.legacy_ok(what)
    }

    pub(crate) fn legacy_ok(&self, what: &str) -> Result<()> {
        if self.kind == StreamKind::Legacy && capture::blocking_active(self.device) {
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                format!(
                    "{what} on the legacy default stream (Stream.null) cannot run while a blocking stream of device {} captures: \
                     it would make the capture depend on the legacy stream. Make the capturing stream current (stream.capture(fn) does), \
                     or capture on a non-blocking stream",
                    self.device
                ),
            ));
        }
        Ok(())
    }

    pub fn record(&self, event: &Event) -> Result<()> {
        if event.device() != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_HANDLE,
                format!("an event of device {} cannot be recorded on a stream of device {}", event.device(), self.device),
            ));
        }
        self.legacy_ok("record()")?;
        self.ops()?.record(event.ops()?)?;
        event.mark_recorded(self.is_capturing()?);
        Ok(())
    }

    /// Makes all later work on this stream wait for the work `event` captured (any device).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.legacy_ok("waitEvent()")?;
        // A never-recorded event waits for nothing (E3). Its driver event may be a recycled one
        // recorded in an earlier life, which a capture would take as a dependency on outside work.
        if !event.was_recorded() && !event.flags().interprocess {
            return Ok(());
        }
        self.ops()?.wait_event(event.ops()?)
    }

    /// A host function that runs once. Refused during a capture, where a graph would run it at
    /// every launch: use [`Stream::launch_repeat_fn`] there.
    pub fn launch_host_fn(&self, f: HostFn) -> Result<()> {
        if self.is_capturing()? {
            return Err(Error::cuda(Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "a run-once host function cannot be captured"));
        }
        self.legacy_ok("launchHostFunc()")?;
        self.ops()?.launch_host_fn(f)
    }

    /// A host function that, when this stream is capturing, becomes part of the graph and runs
    /// at every launch (the graph keeps it alive); otherwise it runs once.
    pub fn launch_repeat_fn(&self, f: Arc<RepeatFn>) -> Result<()> {
        self.legacy_ok("launchHostFunc()")?;
        let cap = self.capture.lock().unwrap_or_else(|p| p.into_inner());
        let slot = || -> Arc<RepeatSlot> { Arc::new(Box::new(f.clone())) };
        match cap.as_ref() {
            Some(kept) => {
                let slot = slot();
                self.ops()?.launch_repeat_fn(&slot)?;
                kept.lock().unwrap_or_else(|p| p.into_inner()).host_fns.push(slot);
                Ok(())
            }
            None if self.is_capturing()? => {
                let slot = slot();
                self.ops()?.launch_repeat_fn(&slot)?;
                if capture::keep_in_joined(self.device, |c| c.host_fns.push(slot.clone())) {
                    Ok(())
                } else {
                    Err(Error::cuda(
                        Code::CUDA_ERROR_NOT_SUPPORTED,
                        "this stream captures into a capture cuda-node did not begin: launch host functions on a stream whose capture began here",
                    ))
                }
            }
            None => self.ops()?.launch_host_fn(Box::new(move || f())),
        }
    }

    /// Queues a host callback made for how it will run: on a capturing stream it belongs to the
    /// graph and runs at every launch (`repeat`), otherwise once (`once`). True when captured.
    pub fn launch_callback(&self, repeat: impl FnOnce() -> Result<Arc<RepeatFn>>, once: impl FnOnce() -> Result<HostFn>) -> Result<bool> {
        if self.is_capturing()? {
            self.launch_repeat_fn(repeat()?)?;
            return Ok(true);
        }
        self.launch_host_fn(once()?)?;
        Ok(false)
    }

    /// Queues a simulated kernel's host implementation in stream order (the simulator only: on
    /// the GPU a kernel runs its compiled code). `make` gives the host function, which the
    /// stream runs once its earlier work is done and which returns only once the implementation
    /// has run on its JS thread (the embedder's [`crate::host::HostSink`] runs it there), so the
    /// stream's later work waits for it.
    pub fn launch_simulated(&self, make: impl FnOnce() -> Result<HostFn>) -> Result<()> {
        crate::runtime::require_simulator("a simulated kernel's host implementation")?;
        self.launch_host_fn(make()?)
    }

    /// Refuses to make this stream current while `current` is the current device: a stream
    /// is used only with its own device current.
    pub fn check_current(&self, current: usize) -> Result<()> {
        if self.device() != current {
            let device = self.device();
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_CONTEXT,
                format!("this stream belongs to device {device}, but device {current} is current: make it current first (new Device({device}).run(...))"),
            ));
        }
        Ok(())
    }

    /// Refuses to destroy a default stream (legacy or per-thread): it is the device's.
    #[inline]
    pub fn check_destroy(&self) -> Result<()> {
        if matches!(self.kind, StreamKind::Legacy | StreamKind::PerThread) {
            return Err(Error::cuda(Code::CUDA_ERROR_INVALID_HANDLE, "the default streams cannot be destroyed"));
        }
        Ok(())
    }

    pub fn add_callback(&self, f: StatusFn) -> Result<()> {
        if self.is_capturing()? {
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                "addCallback() cannot be captured (cuStreamAddCallback is not capturable): use launchHostFunc()",
            ));
        }
        self.legacy_ok("addCallback()")?;
        self.ops()?.add_callback(f)
    }

    pub fn sleep(&self, ns: u64) -> Result<()> {
        self.legacy_ok("kernels.sleep()")?;
        self.ops()?.sleep(ns)
    }

    pub fn fill(&self, dst: &DeviceMemory, offset: u64, pattern: Pattern, count: u64) -> Result<()> {
        if !matches!(pattern.width, 1 | 2 | 4 | 8) {
            return Err(Error::range(format!("fill elements are 1, 2, 4 or 8 bytes wide, not {}", pattern.width)));
        }
        let bytes = count.checked_mul(pattern.width as u64).ok_or_else(|| Error::range("fill count is too large"))?;
        if bytes == 0 {
            return Ok(());
        }
        if !offset.is_multiple_of(pattern.width as u64) {
            return Err(Error::range(format!("a fill of {}-byte elements must start at a multiple of {}", pattern.width, pattern.width)));
        }
        self.same_device(dst, "fill")?;
        dst.check_range(offset, bytes, "fill")?;
        self.legacy_ok("kernels.fill()")?;
        self.ops()?.fill(dst.ops()?, offset, pattern, count)
    }

    pub fn memset(&self, dst: &DeviceMemory, offset: u64, value: u8, size: u64) -> Result<()> {
        if size == 0 {
            return Ok(());
        }
        self.same_device(dst, "memset")?;
        dst.check_range(offset, size, "memset")?;
        self.legacy_ok("memset")?;
        self.ops()?.memset(dst.ops()?, offset, value, size)
    }

    pub fn copy_htod(&self, dst: &DeviceMemory, offset: u64, src: &[u8]) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        self.same_device(dst, "copy")?;
        dst.check_range(offset, src.len() as u64, "copy")?;
        self.pageable_ok("copyFromHost()", "from")?;
        self.ops()?.copy_htod(dst.ops()?, offset, src)
    }

    pub fn copy_dtoh(&self, dst: &mut [u8], src: &DeviceMemory, offset: u64) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        self.same_device(src, "copy")?;
        src.check_range(offset, dst.len() as u64, "copy")?;
        self.pageable_ok("copyToHost()", "into")?;
        self.ops()?.copy_dtoh(dst, src.ops()?, offset)
    }

    /// Pinned host memory to device, returning before the copy completes.
    pub fn copy_htod_async(&self, dst: &DeviceMemory, offset: u64, src: &Arc<PinnedBlock>, src_offset: u64, len: u64) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        self.same_device(dst, "copy")?;
        dst.check_range(offset, len, "copy")?;
        src.check_range(src_offset, len, "copy")?;
        self.legacy_ok("copy")?;
        let hold = self.keep_in_capture(src)?;
        self.ops()?.copy_htod_async(dst.ops()?, offset, src.clone(), src_offset, len, hold)
    }

    /// A pageable copy (`src`) through the registration the cache holds for its bytes
    /// (`host_cache`; `pinned` at `pinned_offset`): at pinned speed, and, like a pageable copy,
    /// done with `src` when this returns. During a capture it is the pageable copy.
    pub fn copy_htod_through(
        &self,
        dst: &DeviceMemory,
        offset: u64,
        src: &[u8],
        pinned: &Arc<PinnedBlock>,
        pinned_offset: u64,
    ) -> Result<()> {
        if self.is_capturing()? {
            return self.copy_htod(dst, offset, src);
        }
        self.copy_htod_async(dst, offset, pinned, pinned_offset, src.len() as u64)?;
        self.wait_here()
    }

    /// [`Stream::copy_htod_through`]'s other way: into `dst`, whose bytes `pinned` registers.
    pub fn copy_dtoh_through(
        &self,
        dst: &mut [u8],
        src: &DeviceMemory,
        offset: u64,
        pinned: &Arc<PinnedBlock>,
        pinned_offset: u64,
    ) -> Result<()> {
        if self.is_capturing()? {
            return self.copy_dtoh(dst, src, offset);
        }
        self.copy_dtoh_async(pinned, pinned_offset, src, offset, dst.len() as u64)?;
        self.wait_here()
    }

    /// Waits for the work queued on this stream so far (an event recorded now, synchronized).
    fn wait_here(&self) -> Result<()> {
        let flags = crate::event::EventFlags { blocking: false, disable_timing: true, interprocess: false };
        let event = Event::create(self.device, flags)?;
        self.record(&event)?;
        event.synchronize()
    }

    /// Device to pinned host memory, returning before the copy completes.
    pub fn copy_dtoh_async(&self, dst: &Arc<PinnedBlock>, dst_offset: u64, src: &DeviceMemory, offset: u64, len: u64) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        self.same_device(src, "copy")?;
        src.check_range(offset, len, "copy")?;
        dst.check_range(dst_offset, len, "copy")?;
        self.legacy_ok("copy")?;
        let hold = self.keep_in_capture(dst)?;
        self.ops()?.copy_dtoh_async(dst.clone(), dst_offset, src.ops()?, offset, len, hold)
    }

    /// Migrates `[offset, offset + len)` of managed memory to `to` in stream order
    /// (`cuMemPrefetchAsync`; CuPy: `cupy.cuda.runtime.memPrefetchAsync`).
    pub fn prefetch(&self, mem: &DeviceMemory, offset: u64, len: u64, to: crate::memory::Location) -> Result<()> {
        mem.check_managed("prefetch")?;
        mem.check_range(offset, len, "prefetch")?;
        crate::memory::check_location(to)?;
        if len == 0 {
            return Ok(());
        }
        self.legacy_ok("prefetch")?;
        self.ops()?.prefetch(mem.ops()?, offset, len, to)
    }

    /// A pitched copy (`cuMemcpy2DAsync`) between device memory and device, pinned or pageable
    /// host memory: pinned memory is kept alive until the copy has run; pageable memory is
    /// staged (source) or written (destination) before this returns, as the driver does.
    pub fn copy_2d(&self, dst: Side<'_>, src: Side<'_>, rows: Rows) -> Result<()> {
        const WHAT: &str = "copy2D";
        let dst_len = extent(rows.dst_pitch, rows.width, rows.height, WHAT)?;
        let src_len = extent(rows.src_pitch, rows.width, rows.height, WHAT)?;
        let device_side = matches!(dst, Side::Device(..)) || matches!(src, Side::Device(..));
        if !device_side || matches!(dst, Side::Host(_)) || matches!(src, Side::HostMut(_)) {
            return Err(Error::type_error("copy2D copies to or from device memory: one side must be a MemoryPointer"));
        }
        if dst_len == 0 {
            return Ok(());
        }
        let mut hold = true;
        let dst = self.end_2d(dst, dst_len, "to", &mut hold)?;
        let src = self.end_2d(src, src_len, "from", &mut hold)?;
        self.legacy_ok(WHAT)?;
        self.ops()?.copy_2d(dst, src, rows, hold)
    }

    /// One side of a 2D copy, checked: its device, its range, and what a capture allows.
    fn end_2d<'a>(&self, side: Side<'a>, len: u64, direction: &str, hold: &mut bool) -> Result<End<'a>> {
        const WHAT: &str = "copy2D";
        Ok(match side {
            Side::Device(mem, offset) => {
                self.same_device(mem, WHAT)?;
                mem.check_range(offset, len, WHAT)?;
                End::Device(mem.ops()?, offset)
            }
            Side::Pinned(host, offset) => {
                host.check_range(offset, len, WHAT)?;
                *hold = self.keep_in_capture(host)?;
                End::Pinned(host.clone(), offset)
            }
            Side::Host(bytes) => {
                crate::memory::check_range(bytes.len() as u64, 0, len, WHAT)?;
                self.pageable_ok("copy2D()", direction)?;
                End::Pageable(bytes.as_ptr() as *mut u8)
            }
            Side::HostMut(bytes) => {
                crate::memory::check_range(bytes.len() as u64, 0, len, WHAT)?;
                self.pageable_ok("copy2D()", direction)?;
                End::Pageable(bytes.as_mut_ptr())
            }
        })
    }

    pub fn copy_dtod(&self, dst: &DeviceMemory, dst_offset: u64, src: &DeviceMemory, src_offset: u64, size: u64) -> Result<()> {
        if size == 0 {
            return Ok(());
        }
        // Between devices (cuMemcpyPeerAsync) the stream may be either device's: the copy is
        // ordered on it alone, and work on the other device is ordered with events.
        if dst.device() != self.device && src.device() != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!(
                    "copy: memory of devices {} and {} copied on a stream of device {}: use a stream of either device",
                    src.device(),
                    dst.device(),
                    self.device
                ),
            ));
        }
        dst.check_range(dst_offset, size, "copy")?;
        src.check_range(src_offset, size, "copy")?;
        self.legacy_ok("copy")?;
        self.ops()?.copy_dtod(dst.ops()?, dst_offset, src.ops()?, src_offset, size)
    }

    /// Makes later work on this stream wait for what `other` (of any device) has queued so far:
    /// an event recorded on `other` and waited on here, as PyTorch orders a copy between devices.
    pub fn wait_stream(&self, other: &Stream) -> Result<()> {
        if std::ptr::eq(self, other) {
            return Ok(());
        }
        let flags = crate::event::EventFlags { blocking: false, disable_timing: true, interprocess: false };
        let event = Event::create(other.device, flags)?;
        other.record(&event)?;
        self.wait_event(&event)
    }

    /// [`Stream::copy_dtod`] on this stream (the destination device's) ordered after `src_stream`,
    /// the source device's current stream: a copy between devices with no stream given.
    pub fn copy_dtod_after(
        &self,
        src_stream: &Stream,
        dst: &DeviceMemory,
        dst_offset: u64,
        src: &DeviceMemory,
        src_offset: u64,
        size: u64,
    ) -> Result<()> {
        if size != 0 && src_stream.device != self.device {
            if src_stream.device != src.device() {
                return Err(Error::cuda(
                    Code::CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "copy: the stream to order after is of device {}, the source memory of device {}",
                        src_stream.device,
                        src.device()
                    ),
                ));
            }
            self.wait_stream(src_stream)?;
        }
        self.copy_dtod(dst, dst_offset, src, src_offset, size)
    }

    /// Launches `f`; during a capture, the graph keeps `module` (`f`'s) loaded as long as it
    /// holds the kernel's node.
    pub(crate) fn launch_kernel(
        &self,
        f: &dyn crate::ops::FunctionOps,
        launch: &crate::ops::Launch,
        module: &crate::graph::Kept,
    ) -> Result<()> {
        self.legacy_ok("a kernel launch")?;
        self.ops()?.launch_kernel(f, launch)?;
        // One atomic load on an ordinary launch.
        if capture::active(self.device) {
            self.keep_module_in_capture(module);
        }
        Ok(())
    }

    /// During a capture begun here, or one this stream joined, the graph keeps `module` (once
    /// however many of its kernels the capture launched).
    fn keep_module_in_capture(&self, module: &crate::graph::Kept) {
        let add = |c: &mut crate::graph::Captured| {
            if !c.modules.iter().any(|m| Arc::ptr_eq(m, module)) {
                c.modules.push(module.clone());
            }
        };
        if let Some(kept) = self.capture.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            add(&mut kept.lock().unwrap_or_else(|p| p.into_inner()));
            return;
        }
        // A capture cuda-node did not begin keeps nothing: its graph is not one of ours.
        if self.is_capturing().unwrap_or(false) {
            capture::keep_in_joined(self.device, add);
        }
    }

    /// A stream-ordered allocation on this stream (`cuMemAllocAsync`).
    pub(crate) fn alloc_async(&self, device: usize, size: u64) -> Result<DeviceMemory> {
        if device != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("the stream-ordered pool of device {device} cannot allocate on a stream of device {}", self.device),
            ));
        }
        self.legacy_ok("an AsyncMemoryPool allocation")?;
        let capturing = self.is_capturing()?;
        Ok(DeviceMemory::from_ops(self.ops()?.alloc_async(size)?, device, size).made_in_capture(capturing))
    }

    /// During a capture begun here, the graph keeps `host` alive (returns false); otherwise the
    /// copy holds it until it has run (returns true).
    fn keep_in_capture(&self, host: &Arc<PinnedBlock>) -> Result<bool> {
        let cap = self.capture.lock().unwrap_or_else(|p| p.into_inner());
        match cap.as_ref() {
            Some(kept) => {
                kept.lock().unwrap_or_else(|p| p.into_inner()).keep.push(host.clone());
                Ok(false)
            }
            // A stream that joined another stream's capture: the graph that capture makes keeps it.
            None if self.is_capturing()? => {
                if capture::keep_in_joined(self.device, |c| c.keep.push(host.clone())) {
                    Ok(false)
                } else {
                    Err(Error::cuda(
                        Code::CUDA_ERROR_NOT_SUPPORTED,
                        "this stream captures into a capture cuda-node did not begin: copy through pinned memory on a stream whose capture began here",
                    ))
                }
            }
            None => Ok(true),
        }
    }

    /// Pageable memory cannot be captured: the graph would read or write the JS buffer at each
    /// launch, long after this call returned and the buffer may be gone.
    /// A synchronous copy with pageable host memory (`call`, the JS method that makes it, copies
    /// `direction` the buffer) cannot be captured.
    fn pageable_ok(&self, call: &str, direction: &str) -> Result<()> {
        if self.is_capturing()? {
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                format!(
                    "{call} copies {direction} pageable host memory and cannot be captured: the graph would touch the buffer at every launch, \
                     after it may be gone. Copy through PinnedMemory (allocPinned) inside a capture"
                ),
            ));
        }
        self.legacy_ok(call)
    }

    pub(crate) fn same_device(&self, mem: &DeviceMemory, what: &str) -> Result<()> {
        if mem.device() != self.device {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("{what}: memory of device {} used with a stream of device {}", mem.device(), self.device),
            ));
        }
        Ok(())
    }
}

/// Running a graph is stream work, so it is here: `graph.rs` names no stream.
impl Graph {
    fn check_stream(&self, stream: &Stream, what: &str) -> Result<()> {
        if stream.device() != self.device() {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_VALUE,
                format!("{what}: a graph of device {} cannot run on a stream of device {}", self.device(), stream.device()),
            ));
        }
        if stream.is_capturing()? {
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                format!("{what}: a graph cannot be launched into a stream that is capturing"),
            ));
        }
        Ok(())
    }

    /// Runs the graph on `stream`, after earlier work there and after its own previous launch.
    /// The launch keeps what its nodes use — captured host functions, pinned memory — until it
    /// has run, so the graph may be destroyed (or its thread end) while the launch is queued:
    /// the driver calls a host node through a pointer into the graph's slot, and freeing that
    /// slot first was a use-after-free on the GPU (#20).
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        self.check_stream(stream, "launch")?;
        stream.ops()?.launch_graph(self.exec())?;
        if let Some(release) = self.launch_holds() {
            if stream.ops()?.launch_host_fn(release).is_err() {
                // Not queued (the graph itself still holds them): wait for the launch instead.
                let _ = stream.ops()?.synchronize();
            }
        }
        Ok(())
    }

    /// Prepares the graph on `stream` without running it.
    pub fn upload(&self, stream: &Stream) -> Result<()> {
        self.check_stream(stream, "upload")?;
        stream.ops()?.upload_graph(self.exec())
    }
}

/// `(least, greatest)` stream priorities of the device: lower numbers are higher priorities.
pub fn priority_range(device: usize) -> Result<(i32, i32)> {
    runtime()?.backend.devices().priority_range(device)
}

/// What graphs keep (`graph.rs`), tested here: `graph.rs` calls no `runtime()` (the backends reach it).
#[cfg(test)]
mod graph_holds {
    use crate::graph::{Captured, Graph, Kept};
    use crate::ops::RepeatSlot;
    use crate::runtime::runtime;
    use std::sync::Arc;

    fn graph(captured: Captured) -> Graph {
        std::env::set_var("CUDA_NODE_BACKEND", "sim");
        let def = runtime().unwrap().backend.streams().graph(0).unwrap();
        Graph::new(def, 0, captured).unwrap()
    }

    /// The graph keeps its kernels' modules and its events while it lives (a child node's graph too).
    #[test]
    fn a_graph_keeps_its_kernels_modules_and_its_events() {
        let (module, event): (Kept, Kept) = (Arc::new("module"), Arc::new("event"));
        let (m, e) = (Arc::downgrade(&module), Arc::downgrade(&event));
        let g = graph(Captured { modules: vec![module], events: vec![event], ..Captured::default() });
        let (_, parts) = g.parts();
        assert_eq!((parts.modules.len(), parts.events.len()), (1, 1), "a child node takes them too");
        drop(parts);
        assert!(m.upgrade().is_some() && e.upgrade().is_some());
        assert!(g.launch_holds().is_none(), "kernels and events alone queue no host function at each launch");
        drop(g);
        assert!(m.upgrade().is_none() && e.upgrade().is_none());
    }

    /// A graph of kernels and events alone (no release queued at its launches) destroyed while a
    /// launch of it runs: the executable's share keeps its modules and events until the launch
    /// has run — on the GPU a CUDA user object the driver releases, here the launch itself — and
    /// after an update, the modules of the graph it was updated from too.
    #[test]
    fn a_graph_destroyed_while_its_launch_runs_keeps_its_nodes_modules_until_the_launch_has_run() {
        let (module, event, theirs): (Kept, Kept, Kept) = (Arc::new("module"), Arc::new("event"), Arc::new("their module"));
        let weak = [Arc::downgrade(&module), Arc::downgrade(&event), Arc::downgrade(&theirs)];
        let mut g = graph(Captured { modules: vec![module], events: vec![event], ..Captured::default() });
        let other = graph(Captured { modules: vec![theirs], ..Captured::default() });
        g.update(&other).unwrap();
        drop(other);
        assert!(g.launch_holds().is_none(), "no host function queued at the launch");
        let s = runtime().unwrap().backend.streams().create(0, true, 0).unwrap();
        // The stream runs the launch only once `go` is sent.
        let (go, wait) = std::sync::mpsc::channel::<()>();
        s.launch_host_fn(Box::new(move || {
            let _ = wait.recv();
        }))
        .unwrap();
        s.launch_graph(g.exec()).unwrap();
        drop(g);
        assert!(weak.iter().all(|w| w.upgrade().is_some()), "the pending launch keeps its modules and events");
        go.send(()).unwrap();
        s.synchronize().unwrap();
        crate::reaper::flush();
        assert!(weak.iter().all(|w| w.upgrade().is_none()), "let go once the launch has run");
    }

    /// A graph destroyed while a launch that queued its release is pending: the launch keeps the
    /// modules and events of its nodes until it has run, then lets them go (off the host
    /// function's thread).
    #[test]
    fn a_launch_with_a_release_keeps_its_nodes_modules_and_events_until_it_has_run() {
        let (module, event): (Kept, Kept) = (Arc::new("module"), Arc::new("event"));
        let (m, e) = (Arc::downgrade(&module), Arc::downgrade(&event));
        let host: Arc<crate::ops::RepeatFn> = Arc::new(|| {});
        let host_fns = vec![Arc::new(Box::new(host) as RepeatSlot)];
        let g = graph(Captured { host_fns, modules: vec![module], events: vec![event], ..Captured::default() });
        let release = g.launch_holds().expect("a graph with a host node holds what it uses at each launch");
        drop(g);
        assert!(m.upgrade().is_some() && e.upgrade().is_some(), "the queued launch holds them");
        release();
        crate::reaper::flush();
        assert!(m.upgrade().is_none() && e.upgrade().is_none(), "let go once the launch has run");
    }
}
