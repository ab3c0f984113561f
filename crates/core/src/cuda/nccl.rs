//! NCCL on the real devices: `libnccl.so.2` loaded at run time through the project's loader
//! (never cudarc's, which panics where a library is missing), with the few entry points this
//! module declares itself (nccl.h, NCCL 2.x).

use super::device::{CudaBackend, CudaDevice};
use super::own::own;
use super::stream::CudaStream;
use crate::dynlib;
use crate::error::{Error, Result};
use crate::ops::nccl::{result_name, Buf, Call, Collective, CommConfig, CommOps, NcclOps, Split, UniqueId, UNIQUE_ID_BYTES};
use crate::ops::{AllocKind, AllocOps, StreamOps};
use cudarc::driver::sys;
use libloading::Library;
use std::any::Any;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

type Comm = *mut c_void;
type NcclResult = c_int;

/// `ncclUniqueId`, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
struct RawId {
    internal: [c_char; UNIQUE_ID_BYTES],
}

/// `ncclConfig_t` as nccl.h declares it since 2.18 (`ncclConfig_v21700` with `splitShare`);
/// NCCL reads the fields its `version` says the caller knows.
#[repr(C)]
struct RawConfig {
    size: usize,
    magic: c_uint,
    version: c_uint,
    blocking: c_int,
    cga_cluster_size: c_int,
    min_ctas: c_int,
    max_ctas: c_int,
    net_name: *const c_char,
    split_share: c_int,
}

/// `NCCL_CONFIG_UNDEF_INT`.
const UNDEF_INT: c_int = c_int::MIN;
/// `ncclInProgress`: a non-blocking communicator's call is still under way.
const IN_PROGRESS: NcclResult = 7;
/// `NCCL_SPLIT_NOCOLOR`.
const NO_COLOR: c_int = -1;

/// The NCCL versions that brought what older libraries lack.
const CONFIG_VERSION: i32 = 21400;
const SPLIT_VERSION: i32 = 21800;
const REGISTER_VERSION: i32 = 21900;

impl RawConfig {
    /// The config for `c`, told the fields of NCCL 2.18 (or fewer, for an older library).
    fn new(c: &CommConfig, net_name: Option<&CString>, loaded: i32) -> RawConfig {
        RawConfig {
            size: std::mem::size_of::<RawConfig>(),
            magic: 0xcafe_beef,
            version: loaded.min(SPLIT_VERSION) as c_uint,
            blocking: c.blocking as c_int,
            cga_cluster_size: c.cga_cluster_size.unwrap_or(UNDEF_INT),
            min_ctas: c.min_ctas.unwrap_or(UNDEF_INT),
            max_ctas: c.max_ctas.unwrap_or(UNDEF_INT),
            net_name: net_name.map_or(std::ptr::null(), |n| n.as_ptr()),
            split_share: c.split_share.map_or(UNDEF_INT, |b| b as c_int),
        }
    }
}

/// "needs NCCL x.y": what a call the loaded library lacks fails with.
fn needs(call: &str, version: i32, loaded: i32) -> Error {
    let v = |n: i32| format!("{}.{}.{}", n / 10000, n / 100 % 100, n % 100);
    Error::named("NCCL_ERROR_INVALID_USAGE", format!("{call} needs NCCL {} or later; the loaded NCCL is {}", v(version), v(loaded)))
}

type AllToAllFn = unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, Comm, sys::CUstream) -> NcclResult;

struct Nccl {
    _lib: Library,
    /// `ncclGetVersion`'s answer, read once at load.
    version: i32,
    /// Entry points newer than NCCL 2.x's first: None where the loaded library lacks them.
    comm_init_rank_config: Option<unsafe extern "C" fn(*mut Comm, c_int, RawId, c_int, *mut RawConfig) -> NcclResult>,
    comm_split: Option<unsafe extern "C" fn(Comm, c_int, c_int, *mut Comm, *mut RawConfig) -> NcclResult>,
    all_to_all: Option<AllToAllFn>,
    comm_register: Option<unsafe extern "C" fn(Comm, *mut c_void, usize, *mut *mut c_void) -> NcclResult>,
    comm_deregister: Option<unsafe extern "C" fn(Comm, *mut c_void) -> NcclResult>,
    mem_alloc: Option<unsafe extern "C" fn(*mut *mut c_void, usize) -> NcclResult>,
    mem_free: Option<unsafe extern "C" fn(*mut c_void) -> NcclResult>,
    get_version: unsafe extern "C" fn(*mut c_int) -> NcclResult,
    get_unique_id: unsafe extern "C" fn(*mut RawId) -> NcclResult,
    comm_init_rank: unsafe extern "C" fn(*mut Comm, c_int, RawId, c_int) -> NcclResult,
    comm_init_all: unsafe extern "C" fn(*mut Comm, c_int, *const c_int) -> NcclResult,
    comm_destroy: unsafe extern "C" fn(Comm) -> NcclResult,
    comm_abort: unsafe extern "C" fn(Comm) -> NcclResult,
    comm_get_async_error: unsafe extern "C" fn(Comm, *mut NcclResult) -> NcclResult,
    comm_count: unsafe extern "C" fn(Comm, *mut c_int) -> NcclResult,
    comm_user_rank: unsafe extern "C" fn(Comm, *mut c_int) -> NcclResult,
    get_error_string: unsafe extern "C" fn(NcclResult) -> *const c_char,
    all_reduce: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, sys::CUstream) -> NcclResult,
    reduce: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, c_int, Comm, sys::CUstream) -> NcclResult,
    broadcast: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, sys::CUstream) -> NcclResult,
    all_gather: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, Comm, sys::CUstream) -> NcclResult,
    reduce_scatter: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, sys::CUstream) -> NcclResult,
    send: unsafe extern "C" fn(*const c_void, usize, c_int, c_int, Comm, sys::CUstream) -> NcclResult,
    recv: unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, Comm, sys::CUstream) -> NcclResult,
    group_start: unsafe extern "C" fn() -> NcclResult,
    group_end: unsafe extern "C" fn() -> NcclResult,
}

// SAFETY: the function pointers and the library handle may be used from any thread.
unsafe impl Send for Nccl {}
// SAFETY: as above.
unsafe impl Sync for Nccl {}

/// The variable that names the library to load instead of searching.
pub const PATH_ENV: &str = "CUDA_NODE_NCCL_PATH";

fn api() -> Result<&'static Nccl> {
    static N: OnceLock<std::result::Result<Nccl, String>> = OnceLock::new();
    N.get_or_init(|| {
        if !cfg!(target_os = "linux") {
            return Err("NCCL is Linux only".into());
        }
        let mut candidates = dynlib::candidates("nccl", PATH_ENV, &["2"], &[]);
        for dir in dynlib::wheel_dirs("nvidia/nccl/lib") {
            candidates.push(format!("{dir}/libnccl.so.2"));
        }
        let lib = match dynlib::open(&candidates) {
            Ok(lib) => lib,
            // Last, the wheel of whichever python3 is on PATH (a virtual environment not activated).
            Err(tried) => match python_wheel_dir().map(|d| format!("{d}/lib/libnccl.so.2")) {
                Some(p) => dynlib::open(std::slice::from_ref(&p)).map_err(|_| format!("looked for {tried}, {p}"))?,
                None => return Err(format!("looked for {tried}")),
            },
        };
        macro_rules! sym {
            ($n:literal) => {
                // SAFETY: NCCL's entry points, with the signatures declared in `Nccl` (nccl.h).
                *unsafe { lib.get($n) }.map_err(|e| format!("{e}"))?
            };
        }
        macro_rules! optional {
            ($n:literal) => {
                // SAFETY: as above; a library older than the entry point has no such symbol.
                unsafe { lib.get($n) }.ok().map(|f| *f)
            };
        }
        let get_version: unsafe extern "C" fn(*mut c_int) -> NcclResult = sym!(b"ncclGetVersion\0");
        let mut version: c_int = 0;
        // SAFETY: `version` is a valid out-pointer.
        unsafe { get_version(&mut version) };
        Ok(Nccl {
            version,
            comm_init_rank_config: optional!(b"ncclCommInitRankConfig\0"),
            comm_split: optional!(b"ncclCommSplit\0"),
            all_to_all: optional!(b"ncclAlltoAll\0"),
            comm_register: optional!(b"ncclCommRegister\0"),
            comm_deregister: optional!(b"ncclCommDeregister\0"),
            mem_alloc: optional!(b"ncclMemAlloc\0"),
            mem_free: optional!(b"ncclMemFree\0"),
            get_version,
            get_unique_id: sym!(b"ncclGetUniqueId\0"),
            comm_init_rank: sym!(b"ncclCommInitRank\0"),
            comm_init_all: sym!(b"ncclCommInitAll\0"),
            comm_destroy: sym!(b"ncclCommDestroy\0"),
            comm_abort: sym!(b"ncclCommAbort\0"),
            comm_get_async_error: sym!(b"ncclCommGetAsyncError\0"),
            comm_count: sym!(b"ncclCommCount\0"),
            comm_user_rank: sym!(b"ncclCommUserRank\0"),
            get_error_string: sym!(b"ncclGetErrorString\0"),
            all_reduce: sym!(b"ncclAllReduce\0"),
            reduce: sym!(b"ncclReduce\0"),
            broadcast: sym!(b"ncclBroadcast\0"),
            all_gather: sym!(b"ncclAllGather\0"),
            reduce_scatter: sym!(b"ncclReduceScatter\0"),
            send: sym!(b"ncclSend\0"),
            recv: sym!(b"ncclRecv\0"),
            group_start: sym!(b"ncclGroupStart\0"),
            group_end: sym!(b"ncclGroupEnd\0"),
            _lib: lib,
        })
    })
    .as_ref()
    .map_err(|why| {
        Error::named(
            "NCCL_ERROR_LIBRARY_NOT_FOUND",
            format!("NCCL could not be loaded ({why}). Install it (`pip install nvidia-nccl-cu12`, or your distribution's libnccl2), or set {PATH_ENV} to libnccl.so.2"),
        )
    })
}

/// The folder of the `nvidia.nccl` package of the `python3` on PATH, if it has one.
fn python_wheel_dir() -> Option<String> {
    let out = std::process::Command::new("python3")
        .args(["-c", "import nvidia.nccl as m; print(list(m.__path__)[0])"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !dir.is_empty()).then_some(dir)
}

/// An `ncclResult_t` as our error, with NCCL's own sentence.
fn check(r: NcclResult, call: &str) -> Result<()> {
    if r == 0 {
        return Ok(());
    }
    let what = api()
        .ok()
        // SAFETY: ncclGetErrorString returns a static NUL-terminated string for any code.
        .map(|a| unsafe { std::ffi::CStr::from_ptr((a.get_error_string)(r)) }.to_string_lossy().into_owned())
        .unwrap_or_default();
    Err(Error::named(result_name(r), format!("{call} failed: {what} (ncclResult {r})")))
}

struct CudaComm {
    raw: Comm,
    dev: Arc<CudaDevice>,
    aborted: AtomicBool,
    nranks: usize,
    /// Made with `blocking = 0`: its calls may return `ncclInProgress`, and are polled to the end.
    nonblocking: bool,
}

thread_local! {
    /// This thread's group depth, and the non-blocking communicators called in the open group
    /// (their `ncclGroupEnd` may return `ncclInProgress`, and each is then polled).
    static GROUP: RefCell<(usize, Vec<usize>)> = const { RefCell::new((0, Vec::new())) };
}

/// Waits for a non-blocking communicator's call under way: polls `ncclCommGetAsyncError` until
/// it is no longer `ncclInProgress`; with `cancel` set, aborts the communicator and fails.
fn settle(a: &Nccl, raw: Comm, cancel: Option<&AtomicBool>, call: &str) -> Result<()> {
    loop {
        let mut state: NcclResult = 0;
        // SAFETY: the communicator is live (made by ncclCommInit*/Split); `state` is a valid out-pointer.
        check(unsafe { (a.comm_get_async_error)(raw, &mut state) }, "ncclCommGetAsyncError")?;
        if state != IN_PROGRESS {
            return check(state, call);
        }
        if cancel.is_some_and(|c| c.load(Ordering::Acquire)) {
            // SAFETY: as above; the caller forgets `raw` after this (it is never destroyed too).
            unsafe { (a.comm_abort)(raw) };
            return Err(Error::named("NCCL_ERROR_INVALID_USAGE", format!("{call} was aborted before the communicator was ready")));
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

/// A communicator just made by `call` (result `r`, out-pointer `raw`): ready, or settled if non-blocking.
fn made(a: &Nccl, r: NcclResult, raw: Comm, config: &CommConfig, cancel: &AtomicBool, call: &str) -> Result<()> {
    // A split of a non-blocking parent is under way too, whatever the child's config says.
    let polled = !raw.is_null() && (r == IN_PROGRESS || (r == 0 && !config.blocking));
    if !polled {
        return check(r, call);
    }
    settle(a, raw, Some(cancel), call).inspect_err(|_| {
        // A non-blocking init that failed still holds resources: abort it (settle has if cancelled).
        if !cancel.load(Ordering::Acquire) {
            // SAFETY: made by `call`, never used again.
            unsafe { (a.comm_abort)(raw) };
        }
    })
}

// SAFETY: an ncclComm_t may be used from any thread, one call at a time per NCCL's rules; the
// calls here come from the JS thread, and destroy from whichever thread drops the last holder.
unsafe impl Send for CudaComm {}
// SAFETY: as above.
unsafe impl Sync for CudaComm {}

impl Drop for CudaComm {
    fn drop(&mut self) {
        if self.aborted.load(Ordering::Acquire) {
            return;
        }
        if let (Ok(a), Ok(_)) = (api(), self.dev.bind()) {
            // SAFETY: made by ncclCommInit*, destroyed once, never aborted (checked above).
            unsafe { (a.comm_destroy)(self.raw) };
        }
    }
}

fn ptr(b: Buf) -> *mut c_void {
    b.map_or(std::ptr::null_mut(), |(a, at)| (a.ptr() + at) as *mut c_void)
}

impl CudaComm {
    /// `allToAll` where NCCL has no `ncclAlltoAll` (before 2.28): a send and a receive per peer in one group.
    fn all_to_all_p2p(&self, a: &Nccl, sp: *mut c_void, rp: *mut c_void, call: &Call, st: sys::CUstream) -> Result<()> {
        let one = (call.count * call.dtype.size()) as usize;
        let (n, dt) = (call.count as usize, call.dtype as c_int);
        // SAFETY: no arguments; NCCL keeps the group per thread.
        check(unsafe { (a.group_start)() }, "ncclGroupStart")?;
        let mut first = Ok(());
        for peer in 0..self.nranks {
            // SAFETY: the buffers hold nranks × count elements (checked by the caller), so
            // each peer's part lies inside them; the stream is live and of this device.
            let (s, r) = unsafe {
                (
                    (a.send)((sp as *const u8).add(peer * one) as *const c_void, n, dt, peer as c_int, self.raw, st),
                    (a.recv)((rp as *mut u8).add(peer * one) as *mut c_void, n, dt, peer as c_int, self.raw, st),
                )
            };
            if first.is_ok() {
                first = check(s, "ncclSend").and(check(r, "ncclRecv"));
            }
        }
        // SAFETY: closes the group opened above.
        let end = unsafe { (a.group_end)() };
        first?;
        if end == IN_PROGRESS && self.nonblocking {
            return settle(a, self.raw, None, "ncclGroupEnd");
        }
        check(end, "ncclGroupEnd")
    }
}

impl CommOps for CudaComm {
    fn enqueue(&self, call: &Call, send: Buf, recv: Buf, stream: &dyn StreamOps) -> Result<()> {
        let a = api()?;
        let s = own::<CudaStream>(stream.as_any());
        self.dev.bind()?;
        let (sp, rp, n, dt, st, c) = (ptr(send), ptr(recv), call.count as usize, call.dtype as c_int, s.queue(), self.raw);
        if let (Collective::AllToAll, None) = (call.coll, a.all_to_all) {
            return self.all_to_all_p2p(a, sp, rp, call, st);
        }
        let grouped = GROUP.with(|g| {
            let mut g = g.borrow_mut();
            if g.0 > 0 && self.nonblocking {
                g.1.push(self.raw as usize);
            }
            g.0 > 0
        });
        // SAFETY: the buffers lie inside live allocations of the communicator's device, sized
        // for the call (checked by the caller); the stream is live and of that device.
        let (r, name) = unsafe {
            match call.coll {
                Collective::AllReduce { op } => ((a.all_reduce)(sp, rp, n, dt, op as c_int, c, st), "ncclAllReduce"),
                Collective::Reduce { op, root } => ((a.reduce)(sp, rp, n, dt, op as c_int, root as c_int, c, st), "ncclReduce"),
                Collective::Broadcast { root } => ((a.broadcast)(sp, rp, n, dt, root as c_int, c, st), "ncclBroadcast"),
                Collective::AllGather => ((a.all_gather)(sp, rp, n, dt, c, st), "ncclAllGather"),
                Collective::ReduceScatter { op } => ((a.reduce_scatter)(sp, rp, n, dt, op as c_int, c, st), "ncclReduceScatter"),
                Collective::Send { peer } => ((a.send)(sp, n, dt, peer as c_int, c, st), "ncclSend"),
                Collective::Recv { peer } => ((a.recv)(rp, n, dt, peer as c_int, c, st), "ncclRecv"),
                Collective::AllToAll => match a.all_to_all {
                    Some(f) => (f(sp, rp, n, dt, c, st), "ncclAlltoAll"),
                    None => (0, "ncclAlltoAll"),
                },
            }
        };
        if r == IN_PROGRESS && self.nonblocking && !grouped {
            return settle(a, self.raw, None, name);
        }
        if r == IN_PROGRESS && grouped {
            return Ok(());
        }
        check(r, name)
    }

    fn register(&self, ptr: u64, len: u64) -> Result<u64> {
        let a = api()?;
        let Some(register) = a.comm_register else { return Err(needs("ncclCommRegister", REGISTER_VERSION, a.version)) };
        self.dev.bind()?;
        let mut handle: *mut c_void = std::ptr::null_mut();
        // SAFETY: [ptr, ptr + len) lies in a live allocation of this communicator's device
        // (checked by the caller); `handle` is a valid out-pointer.
        check(unsafe { register(self.raw, ptr as *mut c_void, len as usize, &mut handle) }, "ncclCommRegister")?;
        Ok(handle as u64)
    }

    fn deregister(&self, handle: u64) -> Result<()> {
        let a = api()?;
        let Some(deregister) = a.comm_deregister else { return Err(needs("ncclCommDeregister", REGISTER_VERSION, a.version)) };
        self.dev.bind()?;
        // SAFETY: `handle` came from ncclCommRegister on this communicator and is deregistered
        // once (the model forgets it).
        check(unsafe { deregister(self.raw, handle as *mut c_void) }, "ncclCommDeregister")
    }

    fn split(&self, color: Option<u32>, key: i32, config: &CommConfig, cancel: &AtomicBool) -> Result<Option<Split>> {
        let a = api()?;
        let Some(split) = a.comm_split else { return Err(needs("ncclCommSplit", SPLIT_VERSION, a.version)) };
        self.dev.bind()?;
        let name =
            config.net_name.as_deref().map(CString::new).transpose().map_err(|_| Error::type_error("netName must not contain NUL"))?;
        let mut cfg = RawConfig::new(config, name.as_ref(), a.version);
        let mut raw: Comm = std::ptr::null_mut();
        let color = color.map_or(NO_COLOR, |c| c as c_int);
        // SAFETY: the parent is live; `raw` and `cfg` are valid pointers for the call (`cfg`
        // and the name it points to outlive it).
        let r = unsafe { split(self.raw, color, key, &mut raw, &mut cfg) };
        made(a, r, raw, config, cancel, "ncclCommSplit")?;
        if raw.is_null() {
            return Ok(None); // no color: NCCL makes no communicator
        }
        let (mut n, mut me): (c_int, c_int) = (0, 0);
        // SAFETY: `raw` is a live communicator; the out-pointers are valid.
        check(unsafe { (a.comm_count)(raw, &mut n) }, "ncclCommCount")?;
        // SAFETY: as above.
        check(unsafe { (a.comm_user_rank)(raw, &mut me) }, "ncclCommUserRank")?;
        let comm =
            CudaComm { raw, dev: self.dev.clone(), aborted: AtomicBool::new(false), nranks: n as usize, nonblocking: !config.blocking };
        Ok(Some(Split { comm: Box::new(comm), rank: me as usize, nranks: n as usize }))
    }

    fn abort(&self) -> Result<()> {
        if self.aborted.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        self.dev.bind()?;
        // SAFETY: made by ncclCommInit*, aborted once; Drop then skips the destroy.
        check(unsafe { (api()?.comm_abort)(self.raw) }, "ncclCommAbort")
    }

    fn async_error(&self) -> Result<()> {
        let mut r: NcclResult = 0;
        // SAFETY: the communicator is live; `r` is a valid out-pointer.
        check(unsafe { (api()?.comm_get_async_error)(self.raw, &mut r) }, "ncclCommGetAsyncError")?;
        check(r, "an NCCL operation")
    }
}

/// Memory from `ncclMemAlloc`, freed with `ncclMemFree`.
struct NcclAlloc {
    ptr: u64,
    dev: Arc<super::device::CudaDevice>,
}

impl Drop for NcclAlloc {
    fn drop(&mut self) {
        if let (Ok(a), Ok(_)) = (api(), self.dev.bind()) {
            if let Some(free) = a.mem_free {
                // SAFETY: allocated by ncclMemAlloc on this device and freed once. Like
                // cuMemFree, it is not stream-ordered: the caller's drop follows its uses.
                unsafe { free(self.ptr as *mut c_void) };
            }
        }
    }
}

impl AllocOps for NcclAlloc {
    fn ptr(&self) -> u64 {
        self.ptr
    }
    fn kind(&self) -> AllocKind {
        AllocKind::Device
    }
    fn device(&self) -> Option<usize> {
        Some(self.dev.ordinal)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl NcclOps for CudaBackend {
    fn mem_alloc(&self, device: usize, size: u64) -> Result<Box<dyn AllocOps>> {
        let a = api()?;
        let Some(alloc) = a.mem_alloc else { return Err(needs("ncclMemAlloc", REGISTER_VERSION, a.version)) };
        let dev = self.devices[device].clone();
        dev.bind()?;
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: `ptr` is a valid out-pointer; size > 0 (checked by the caller).
        check(unsafe { alloc(&mut ptr, size as usize) }, "ncclMemAlloc")?;
        Ok(Box::new(NcclAlloc { ptr: ptr as u64, dev }))
    }

    fn version(&self) -> Result<i32> {
        let mut v: c_int = 0;
        // SAFETY: `v` is a valid out-pointer.
        check(unsafe { (api()?.get_version)(&mut v) }, "ncclGetVersion")?;
        Ok(v)
    }

    fn unique_id(&self) -> Result<UniqueId> {
        let mut id = RawId { internal: [0; UNIQUE_ID_BYTES] };
        // SAFETY: `id` is a valid out-pointer of ncclUniqueId's size.
        check(unsafe { (api()?.get_unique_id)(&mut id) }, "ncclGetUniqueId")?;
        Ok(id.internal.map(|b| b as u8))
    }

    fn init_rank(
        &self,
        device: usize,
        nranks: usize,
        id: &UniqueId,
        rank: usize,
        config: &CommConfig,
        cancel: &AtomicBool,
    ) -> Result<Box<dyn CommOps>> {
        let a = api()?;
        let dev = self.devices[device].clone();
        // NCCL takes the device from the calling thread's current context.
        dev.bind()?;
        let mut raw: Comm = std::ptr::null_mut();
        let id = RawId { internal: id.map(|b| b as c_char) };
        if *config == CommConfig::default() {
            // SAFETY: `raw` is a valid out-pointer; rank < nranks (checked by the caller).
            check(unsafe { (a.comm_init_rank)(&mut raw, nranks as c_int, id, rank as c_int) }, "ncclCommInitRank")?;
        } else {
            let Some(init) = a.comm_init_rank_config else { return Err(needs("ncclCommInitRankConfig", CONFIG_VERSION, a.version)) };
            let name =
                config.net_name.as_deref().map(CString::new).transpose().map_err(|_| Error::type_error("netName must not contain NUL"))?;
            let mut cfg = RawConfig::new(config, name.as_ref(), a.version);
            // SAFETY: `raw` and `cfg` are valid pointers (`cfg` and its name outlive the call);
            // rank < nranks (checked by the caller).
            let r = unsafe { init(&mut raw, nranks as c_int, id, rank as c_int, &mut cfg) };
            made(a, r, raw, config, cancel, "ncclCommInitRankConfig")?;
        }
        Ok(Box::new(CudaComm { raw, dev, aborted: AtomicBool::new(false), nranks, nonblocking: !config.blocking }))
    }

    fn init_all(&self, devices: &[usize]) -> Result<Vec<Box<dyn CommOps>>> {
        let a = api()?;
        let list: Vec<c_int> = devices.iter().map(|&d| d as c_int).collect();
        let mut raw: Vec<Comm> = vec![std::ptr::null_mut(); devices.len()];
        // SAFETY: `raw` and `list` hold `devices.len()` entries; the ordinals exist (checked).
        check(unsafe { (a.comm_init_all)(raw.as_mut_ptr(), list.len() as c_int, list.as_ptr()) }, "ncclCommInitAll")?;
        Ok(raw
            .into_iter()
            .zip(devices)
            .map(|(raw, &d)| {
                Box::new(CudaComm {
                    raw,
                    dev: self.devices[d].clone(),
                    aborted: AtomicBool::new(false),
                    nranks: devices.len(),
                    nonblocking: false,
                }) as Box<dyn CommOps>
            })
            .collect())
    }

    fn group_start(&self) -> Result<()> {
        // SAFETY: no arguments; NCCL keeps the group per thread.
        check(unsafe { (api()?.group_start)() }, "ncclGroupStart")?;
        GROUP.with(|g| g.borrow_mut().0 += 1);
        Ok(())
    }

    fn group_end(&self) -> Result<()> {
        let a = api()?;
        // SAFETY: as above.
        let r = unsafe { (a.group_end)() };
        let pending = GROUP.with(|g| {
            let mut g = g.borrow_mut();
            g.0 = g.0.saturating_sub(1);
            if g.0 == 0 {
                std::mem::take(&mut g.1)
            } else {
                Vec::new()
            }
        });
        if r != IN_PROGRESS {
            return check(r, "ncclGroupEnd");
        }
        // Non-blocking communicators: the group's calls go on; wait for each to be enqueued.
        let mut seen = pending;
        seen.sort_unstable();
        seen.dedup();
        for raw in seen {
            settle(a, raw as Comm, None, "ncclGroupEnd")?;
        }
        Ok(())
    }
}
