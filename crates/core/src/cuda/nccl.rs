//! NCCL on the real devices: `libnccl.so.2` loaded at run time through the project's loader
//! (never cudarc's, which panics where a library is missing), with the few entry points this
//! module declares itself (nccl.h, NCCL 2.x).

use super::device::{CudaBackend, CudaDevice};
use super::own::own;
use super::stream::CudaStream;
use crate::dynlib;
use crate::error::{Error, Result};
use crate::ops::nccl::{result_name, Buf, Call, Collective, CommOps, NcclOps, UniqueId, UNIQUE_ID_BYTES};
use crate::ops::StreamOps;
use cudarc::driver::sys;
use libloading::Library;
use std::ffi::{c_char, c_int, c_void};
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

struct Nccl {
    _lib: Library,
    get_version: unsafe extern "C" fn(*mut c_int) -> NcclResult,
    get_unique_id: unsafe extern "C" fn(*mut RawId) -> NcclResult,
    comm_init_rank: unsafe extern "C" fn(*mut Comm, c_int, RawId, c_int) -> NcclResult,
    comm_init_all: unsafe extern "C" fn(*mut Comm, c_int, *const c_int) -> NcclResult,
    comm_destroy: unsafe extern "C" fn(Comm) -> NcclResult,
    comm_abort: unsafe extern "C" fn(Comm) -> NcclResult,
    comm_get_async_error: unsafe extern "C" fn(Comm, *mut NcclResult) -> NcclResult,
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
        Ok(Nccl {
            get_version: sym!(b"ncclGetVersion\0"),
            get_unique_id: sym!(b"ncclGetUniqueId\0"),
            comm_init_rank: sym!(b"ncclCommInitRank\0"),
            comm_init_all: sym!(b"ncclCommInitAll\0"),
            comm_destroy: sym!(b"ncclCommDestroy\0"),
            comm_abort: sym!(b"ncclCommAbort\0"),
            comm_get_async_error: sym!(b"ncclCommGetAsyncError\0"),
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

impl CommOps for CudaComm {
    fn enqueue(&self, call: &Call, send: Buf, recv: Buf, stream: &dyn StreamOps) -> Result<()> {
        let a = api()?;
        let s = own::<CudaStream>(stream.as_any());
        self.dev.bind()?;
        let (sp, rp, n, dt, st, c) = (ptr(send), ptr(recv), call.count as usize, call.dtype as c_int, s.queue(), self.raw);
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
            }
        };
        check(r, name)
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

impl NcclOps for CudaBackend {
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

    fn init_rank(&self, device: usize, nranks: usize, id: &UniqueId, rank: usize) -> Result<Box<dyn CommOps>> {
        let a = api()?;
        let dev = self.devices[device].clone();
        // NCCL takes the device from the calling thread's current context.
        dev.bind()?;
        let mut raw: Comm = std::ptr::null_mut();
        let id = RawId { internal: id.map(|b| b as c_char) };
        // SAFETY: `raw` is a valid out-pointer; rank < nranks (checked by the caller).
        check(unsafe { (a.comm_init_rank)(&mut raw, nranks as c_int, id, rank as c_int) }, "ncclCommInitRank")?;
        Ok(Box::new(CudaComm { raw, dev, aborted: AtomicBool::new(false) }))
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
            .map(|(raw, &d)| Box::new(CudaComm { raw, dev: self.devices[d].clone(), aborted: AtomicBool::new(false) }) as Box<dyn CommOps>)
            .collect())
    }

    fn group_start(&self) -> Result<()> {
        // SAFETY: no arguments; NCCL keeps the group per thread.
        check(unsafe { (api()?.group_start)() }, "ncclGroupStart")
    }

    fn group_end(&self) -> Result<()> {
        // SAFETY: as above.
        check(unsafe { (api()?.group_end)() }, "ncclGroupEnd")
    }
}
