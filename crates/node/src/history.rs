//! The memory history's sink (lib/memory/history.ts): while the history records, the calls that
//! make and free blocks write what it records of each — the handle, the address, the size, the
//! clock and the pool's bytes — into an ArrayBuffer it registered once, so recording a block costs
//! no call of its own. Off (nothing registered, the usual case), each of those calls reads one
//! global counter. The buffer is JS's (Electron refuses external ones); the history never hands it
//! out, and the binding keeps it alive while registered. With no stack recorded (`stacks:
//! 'none'`), a caching pool's allocations and every free are appended whole to a log in the same
//! buffer, which the history reads in batches: JS then does a comparison or two at each call.
//!
//! The WebAssembly build registers nothing: emnapi hands native code a copy of a JS buffer, valid
//! during one call, so the history asks for each block instead (`memHistoryInfo`). The TS side
//! tells the two apart by the handle a record carries, never by the backend.

use crate::handles::JsRef;
use crate::raw::{self, JsArrayBuffer};
use napi::sys;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Where each record lies in the sink, in f64 words (`constants.historySink`): an allocation's is
/// its handle, address, size, the clock in ms and the pool's bytes (-1: none); a free's its handle
/// and the clock. Device blocks and pinned blocks (another table of handles) have their own.
pub mod layout {
    /// A device block made: handle, address, size, clock, pool bytes.
    pub const ALLOC: usize = 0;
    /// A device block freed: handle, clock.
    pub const FREE: usize = 5;
    /// A pinned block made: handle, address, size, clock, -1.
    pub const PINNED_ALLOC: usize = 8;
    /// A pinned block freed: handle, clock.
    pub const PINNED_FREE: usize = 13;
    /// 1 while the history has the calls log their records (below) in place of the slots above
    /// (it sets it: `stacks: 'none'`, where nothing is recorded in JS at the call).
    pub const LOG_ON: usize = 16;
    /// The records logged since the history last read them (it sets it back to 0).
    pub const LOG_N: usize = 17;
    /// Records the log had no room for (the history reads its log long before it is full).
    pub const LOG_LOST: usize = 18;
    /// Where the log's records begin, `RECORD` words each: a caching pool's block made
    /// (`LOG_ALLOC`, handle, address, size, clock, bytes asked, the pool's bytes, the pool's
    /// handle, the stream's handle, device), a device block freed (`LOG_FREE`, handle, address
    /// and size (NaN: gone before), clock, device), a pinned pool's block made
    /// (`LOG_PINNED_ALLOC`, handle, address, size, clock, bytes asked, -1, the pool's handle), or
    /// a pinned block freed (`LOG_PINNED_FREE`, handle, address, size, clock, 1 for registered
    /// memory, else 0).
    pub const LOG: usize = 20;
    /// Words a record of the log takes.
    pub const RECORD: usize = 10;
    /// Records the log holds.
    pub const LOG_CAP: usize = 512;
    /// A record's first word: a caching pool's block made.
    pub const LOG_ALLOC: f64 = 1.0;
    /// A record's first word: a device block freed.
    pub const LOG_FREE: f64 = 2.0;
    /// A record's first word: a pinned pool's block made.
    pub const LOG_PINNED_ALLOC: f64 = 3.0;
    /// A record's first word: a pinned block freed.
    pub const LOG_PINNED_FREE: f64 = 4.0;
    /// The words the sink has.
    pub const WORDS: usize = LOG + RECORD * LOG_CAP;
}

thread_local! {
    /// This thread's sink: its words (null: the history is not recording here) and its clock.
    static SINK: Sink = const { Sink { words: Cell::new(std::ptr::null_mut()), clock: Clock::new() } };
    /// What keeps the registered buffer alive.
    static KEEP: RefCell<Option<JsRef>> = const { RefCell::new(None) };
}

/// Threads with a sink registered: off everywhere (the usual case), a call reads this one number.
static RECORDING: AtomicUsize = AtomicUsize::new(0);

struct Sink {
    words: Cell<*mut f64>,
    clock: Clock,
}

/// Milliseconds on the monotonic clock since its first reading in this process (the clock
/// `performance.now()` reads, from another origin).
pub fn monotonic_ms() -> f64 {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    ORIGIN.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// The history's clock: [`monotonic_ms`], read from the CPU's time-stamp counter where it runs at
/// one rate on every core (x86-64, [`tsc_serves`]): reading the counter costs a third of
/// reading the clock, which is most of what a recorded allocation costs the addon. As PyTorch's
/// approximate clock, the counter's ticks become milliseconds by a rate measured against the clock,
/// which is read again (and the rate with it) once a millisecond has passed since it last was: so
/// a time is off by at most the clock's own jitter (tens of ns), and never goes back.
struct Clock {
    /// The counter at the last reading of the clock.
    base_ticks: Cell<i64>,
    /// The clock then, in ms.
    base_ms: Cell<f64>,
    /// Milliseconds a tick (NaN until measured: the clock is read at each call until then).
    ms_per_tick: Cell<f64>,
    /// The last time given: times never go back.
    last: Cell<f64>,
}

/// How long the counter runs on one reading of the clock, in ms.
const RECALIBRATE_MS: f64 = 1.0;

impl Clock {
    const fn new() -> Clock {
        Clock { base_ticks: Cell::new(0), base_ms: Cell::new(f64::NEG_INFINITY), ms_per_tick: Cell::new(f64::NAN), last: Cell::new(f64::NEG_INFINITY) }
    }

    /// Now, in [`monotonic_ms`]'s terms.
    #[inline]
    fn now(&self) -> f64 {
        let Some(ticks) = ticks() else {
            return monotonic_ms();
        };
        let since = (ticks - self.base_ticks.get()) as f64 * self.ms_per_tick.get();
        // NaN (no rate yet) and a counter behind the base (another core's) fail this too.
        let t = if (0.0..RECALIBRATE_MS).contains(&since) { self.base_ms.get() + since } else { self.calibrate(ticks) };
        let t = t.max(self.last.get());
        self.last.set(t);
        t
    }

    /// Reads the clock; a millisecond or more since the last reading, measures the counter's rate
    /// over it and starts the next interval here.
    #[cold]
    fn calibrate(&self, ticks: i64) -> f64 {
        let ms = monotonic_ms();
        let (base_ticks, base_ms) = (self.base_ticks.get(), self.base_ms.get());
        let first = base_ms == f64::NEG_INFINITY;
        if !first && ms - base_ms >= RECALIBRATE_MS && ticks > base_ticks {
            self.ms_per_tick.set((ms - base_ms) / (ticks - base_ticks) as f64);
        }
        if first || ms - base_ms >= RECALIBRATE_MS && ticks > base_ticks {
            self.base_ticks.set(ticks);
            self.base_ms.set(ms);
        }
        ms
    }
}

/// The time-stamp counter, where it serves as a clock ([`tsc_serves`]); `None` elsewhere.
#[inline]
fn ticks() -> Option<i64> {
    #[cfg(target_arch = "x86_64")]
    {
        static TSC: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if *TSC.get_or_init(tsc_serves) {
            // SAFETY: `rdtsc` is on every x86-64 CPU and reads a counter; it touches no memory.
            return Some(unsafe { std::arch::x86_64::_rdtsc() } as i64);
        }
    }
    None
}

/// Whether the time-stamp counter runs at one rate on every core and reading it costs less than
/// reading the clock. It runs so where the kernel keeps time by it (the `tsc` clock source), or
/// where the CPU says it does (`constant_tsc` and `nonstop_tsc`): a virtual machine's kernel may
/// keep time by its hypervisor's clock (`kvm-clock`) over such a counter, and reading that clock
/// costs about 30 ns where the counter costs a third of it, twice per allocation and free. A
/// hypervisor may trap the counter instead (each read then costs far more): the two are timed.
#[cfg(target_arch = "x86_64")]
fn tsc_serves() -> bool {
    let source = std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource").is_ok_and(|s| s.trim() == "tsc");
    let invariant = || {
        std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|s| {
            s.lines().find(|l| l.starts_with("flags")).is_some_and(|l| {
                let flags: Vec<&str> = l.split_whitespace().collect();
                flags.contains(&"constant_tsc") && flags.contains(&"nonstop_tsc")
            })
        })
    };
    (source || invariant()) && tsc_cheaper()
}

/// Whether reading the counter costs less than reading the clock (the fastest of a few runs each).
#[cfg(target_arch = "x86_64")]
fn tsc_cheaper() -> bool {
    use std::hint::black_box;
    use std::time::Instant;
    const READS: u32 = 64;
    let (mut tsc, mut clock) = (std::time::Duration::MAX, std::time::Duration::MAX);
    for _ in 0..8 {
        let t0 = Instant::now();
        for _ in 0..READS {
            // SAFETY: as in `ticks`.
            black_box(unsafe { std::arch::x86_64::_rdtsc() });
        }
        tsc = tsc.min(t0.elapsed());
        let t0 = Instant::now();
        for _ in 0..READS {
            black_box(monotonic_ms());
        }
        clock = clock.min(t0.elapsed());
    }
    tsc < clock
}

/// Whether the history records into a sink on some thread: one load, no thread-local. A call
/// that makes a block reads what its record needs when this says so, and the write (one lookup of
/// this thread's sink) drops it where this thread has none.
#[inline(always)]
pub fn recording() -> bool {
    RECORDING.load(Ordering::Relaxed) != 0
}

/// Writes the words `words(now)` gives at `at` of the sink, if one is registered, `now` being the
/// history's clock (read only then: off, no clock is read).
fn write_here<const N: usize>(at: usize, words: impl FnOnce(&dyn Fn() -> f64) -> [f64; N]) {
    SINK.with(|s| {
        let base = s.words.get();
        if base.is_null() {
            return;
        }
        const { assert!(N <= layout::WORDS) };
        assert!(at + N <= layout::WORDS);
        let w = words(&|| s.clock.now());
        // SAFETY: `base` is the registered buffer's data, at least `layout::WORDS` f64s (checked
        // when it was registered; `at + N` is within them), kept alive by `KEEP` and never detached
        // (the history keeps it to itself); only this thread writes it, and no JS runs during a
        // call. Unaligned, whatever V8's alignment.
        unsafe { base.add(at).cast::<[f64; N]>().write_unaligned(w) };
    })
}

// The calls that make and free blocks read what a record needs, and call the writers below, only
// while `recording()` says so: off, what they add is that one load and a branch.

/// A device block of `handle` was made: its address and size, and the bytes its pool holds now
/// (-1: not a pool's).
#[inline(never)]
pub fn alloc(handle: f64, ptr: u64, size: u64, pool_bytes: f64) {
    // Addresses are below 2^53 (48-bit virtual addresses): exact as numbers.
    write_here(layout::ALLOC, |now| [handle, ptr as f64, size as f64, now(), pool_bytes]);
}

/// What a caching pool's allocation tells the history: the block (`alloc`'s), the bytes asked,
/// the pool's handle and bytes held, the stream's handle and the device.
pub struct PoolAlloc {
    pub handle: f64,
    pub ptr: u64,
    pub size: u64,
    pub requested: f64,
    pub pool: f64,
    pub pool_bytes: f64,
    pub stream: f64,
    pub device: f64,
}

/// A caching pool's block was made: logged where the history logs (the whole record, so that
/// nothing of it is asked for in JS at the call), else as [`alloc`].
#[inline(never)]
pub fn pool_alloc(a: &PoolAlloc) {
    let logged = log_here(|now| [layout::LOG_ALLOC, a.handle, a.ptr as f64, a.size as f64, now, a.requested, a.pool_bytes, a.pool, a.stream, a.device]);
    if !logged {
        write_here(layout::ALLOC, |now| [a.handle, a.ptr as f64, a.size as f64, now(), a.pool_bytes]);
    }
}

/// Appends `record(now)` to this thread's log if the history logs; false where it does not (the
/// caller writes its slot). Nothing registered: true, nothing to write.
fn log_here(record: impl FnOnce(f64) -> [f64; layout::RECORD]) -> bool {
    SINK.with(|s| {
        let base = s.words.get();
        if base.is_null() {
            return true;
        }
        // SAFETY: as in `write_here`: `base` is the registered buffer, `layout::WORDS` f64s, and
        // every word read or written here lies within them (`LOG_N` is below `LOG_CAP` where a
        // record is written).
        unsafe {
            if base.add(layout::LOG_ON).read_unaligned() != 1.0 {
                return false;
            }
            let n = base.add(layout::LOG_N).read_unaligned();
            // The history keeps the count in range; anything else (NaN included) is no room.
            if !(0.0..layout::LOG_CAP as f64).contains(&n) {
                let lost = base.add(layout::LOG_LOST);
                lost.write_unaligned(lost.read_unaligned() + 1.0);
                return true;
            }
            let at = layout::LOG + n as usize * layout::RECORD;
            base.add(at).cast::<[f64; layout::RECORD]>().write_unaligned(record(s.clock.now()));
            base.add(layout::LOG_N).write_unaligned(n + 1.0);
        }
        true
    })
}

/// The device block of `handle` was freed: its address, size and device where it was still there
/// (a block a pool took from its allocator was not).
#[inline(never)]
pub fn free(handle: f64, block: Option<(u64, u64, usize)>) {
    let (ptr, size, device) = block.map_or((f64::NAN, f64::NAN, -1.0), |(p, s, d)| (p as f64, s as f64, d as f64));
    if !log_here(|now| [layout::LOG_FREE, handle, ptr, size, now, device, 0.0, 0.0, 0.0, 0.0]) {
        write_here(layout::FREE, |now| [handle, now()]);
    }
}

/// A pinned pool's block of `handle` was made, `requested` bytes asked of the pool of handle
/// `pool`: logged where the history logs, else into its slot.
#[inline(never)]
pub fn pinned_alloc(handle: f64, ptr: u64, size: u64, requested: u64, pool: f64) {
    let (ptr, size) = (ptr as f64, size as f64);
    if !log_here(|now| [layout::LOG_PINNED_ALLOC, handle, ptr, size, now, requested as f64, -1.0, pool, -1.0, -1.0]) {
        write_here(layout::PINNED_ALLOC, |now| [handle, ptr, size, now(), -1.0]);
    }
}

/// The pinned block of `handle` was freed: its address and size, and whether it was registered
/// memory (`registerHost`'s).
#[inline(never)]
pub fn pinned_free(handle: f64, ptr: u64, size: u64, registered: bool) {
    let registered = if registered { 1.0 } else { 0.0 };
    if !log_here(|now| [layout::LOG_PINNED_FREE, handle, ptr as f64, size as f64, now, registered, 0.0, 0.0, 0.0, 0.0]) {
        write_here(layout::PINNED_FREE, |now| [handle, now()]);
    }
}

/// Stops writing (the thread's environment is going away: its buffer with it).
pub fn forget() {
    let _ = SINK.try_with(|s| {
        if !s.words.replace(std::ptr::null_mut()).is_null() {
            RECORDING.fetch_sub(1, Ordering::Relaxed);
        }
    });
    let _ = KEEP.try_with(|k| k.borrow_mut().take());
}

crate::exports! {
    /// Registers `buffer` (at least `constants.historySink.words` f64s) as the memory history's
    /// sink: from now on the calls that make and free blocks write their records into it
    /// (`constants.historySink`); without one, stops. Returns whether it will be written: false
    /// on WebAssembly, where the history asks `memHistoryInfo` instead.
    /// @throws {RangeError} for a buffer too short.
    c"memHistorySink" => fn mem_history_sink(cx, buffer: Option<JsArrayBuffer>) -> bool {
        forget();
        let Some(buffer) = buffer else {
            return Ok(false);
        };
        if cfg!(target_family = "wasm") {
            return Ok(false);
        }
        let (mut data, mut len) = (std::ptr::null_mut(), 0usize);
        // SAFETY: `buffer` is an ArrayBuffer of this call; both out-pointers are valid.
        raw::ok(unsafe { sys::napi_get_arraybuffer_info(cx.env, buffer.0, &mut data, &mut len) }, "reading the history's buffer")?;
        if data.is_null() || len < layout::WORDS * 8 {
            return Err(cuda_node_core::Error::range(format!("the history's sink takes at least {} bytes, got {len}", layout::WORDS * 8)));
        }
        let keep = JsRef::new(cx, buffer.0)?;
        KEEP.with(|k| *k.borrow_mut() = Some(keep));
        SINK.with(|s| s.words.set(data.cast()));
        RECORDING.fetch_add(1, Ordering::Relaxed);
        Ok(true)
    }
}
