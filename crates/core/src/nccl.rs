//! NCCL (CuPy's `cupy.cuda.nccl`): unique ids, communicators and their collectives, written
//! once over the seam's [`NcclOps`] (`ops/nccl.rs`), which each backend implements beside its
//! own code — the real library loaded at run time (`cuda/nccl.rs`), or the simulator's ranks
//! over local sockets (`sim/nccl.rs`). The checks live here.

use crate::error::{Error, Result};
use crate::memory::DeviceMemory;
use crate::runtime;
use crate::stream::Stream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub use crate::ops::nccl::{
    result_name, Buf, Call, Collective, CommConfig, CommOps, DataType, NcclOps, RedOp, Split, UniqueId, UNIQUE_ID_BYTES,
};

/// How a communicator joins: through a unique id, with `initAll`'s others, or by splitting a parent.
enum Source {
    Id(UniqueId),
    All,
    Split { parent: Arc<dyn CommOps>, color: Option<u32>, key: i32 },
}

enum State {
    /// Made, not yet joined (`init` joins off the JS thread).
    Pending,
    Live(Arc<dyn CommOps>),
    Gone(&'static str),
}

/// A communicator as JS holds it (CuPy's `NcclCommunicator`): made at once, joined later.
pub struct Communicator {
    device: usize,
    /// Known at once, except for a split's (set when it has joined).
    nranks: AtomicUsize,
    rank: AtomicUsize,
    source: Source,
    config: CommConfig,
    /// Set by `abort` (or `destroy`) while the join is under way: the join stops and fails.
    cancel: AtomicBool,
    /// Handles of `register`, each deregistered once.
    registered: Mutex<std::collections::HashSet<u64>>,
    state: Mutex<State>,
}

/// What a join stopped by `abort` fails with.
fn aborted() -> Error {
    invalid_usage("the communicator was aborted before it was ready (comm.abort() or the init's AbortSignal)")
}

/// The error NCCL gives for misuse, named as CuPy names it.
pub fn invalid_usage(message: impl Into<String>) -> Error {
    Error::named("NCCL_ERROR_INVALID_USAGE", message)
}

pub fn invalid_argument(message: impl Into<String>) -> Error {
    Error::named("NCCL_ERROR_INVALID_ARGUMENT", message)
}

/// The version, as `ncclGetVersion` gives it.
pub fn version() -> Result<i32> {
    runtime()?.backend.nccl().version()
}

/// A new unique id (`ncclGetUniqueId`).
pub fn unique_id() -> Result<UniqueId> {
    runtime()?.backend.nccl().unique_id()
}

/// `size` bytes of device memory on `device` from `ncclMemAlloc` (NCCL 2.19+), freed with
/// `ncclMemFree` when its last holder drops it; plain memory on the simulator.
pub fn mem_alloc(device: usize, size: u64) -> Result<DeviceMemory> {
    if size == 0 {
        return Err(Error::range("ncclMemAlloc needs a size above 0"));
    }
    let ops = runtime()?.backend.nccl().mem_alloc(device, size)?;
    Ok(DeviceMemory::from_ops(ops, device, size))
}

pub fn group_start() -> Result<()> {
    runtime()?.backend.nccl().group_start()
}

pub fn group_end() -> Result<()> {
    runtime()?.backend.nccl().group_end()
}

impl Communicator {
    /// A communicator for `rank` of `nranks` on `device`, to be joined with [`Communicator::join`]
    /// (an `id`) or [`Communicator::join_all`] (none).
    pub fn new(device: usize, nranks: usize, rank: usize, id: Option<&[u8]>) -> Result<Communicator> {
        Self::with_config(device, nranks, rank, id, CommConfig::default())
    }

    /// As [`Communicator::new`], with an `ncclConfig_t` (`ncclCommInitRankConfig`).
    pub fn with_config(device: usize, nranks: usize, rank: usize, id: Option<&[u8]>, config: CommConfig) -> Result<Communicator> {
        for (name, v) in [("cgaClusterSize", config.cga_cluster_size), ("minCTAs", config.min_ctas), ("maxCTAs", config.max_ctas)] {
            if let Some(v) = v {
                if v < 0 {
                    return Err(Error::range(format!("{name} must be a non-negative integer, got {v}")));
                }
            }
        }
        if let (Some(lo), Some(hi)) = (config.min_ctas, config.max_ctas) {
            if lo > hi {
                return Err(Error::range(format!("minCTAs ({lo}) must not exceed maxCTAs ({hi})")));
            }
        }
        if config.net_name.as_deref().is_some_and(|n| n.contains('\0')) {
            return Err(Error::type_error("netName must not contain NUL"));
        }
        if nranks == 0 {
            return Err(invalid_argument("a communicator needs at least one rank"));
        }
        if rank >= nranks {
            return Err(invalid_argument(format!("rank {rank} is not below nranks ({nranks})")));
        }
        let id = match id {
            None => None,
            Some(b) => Some(<UniqueId>::try_from(b).map_err(|_| {
                invalid_argument(format!("a unique id is {UNIQUE_ID_BYTES} bytes (from nccl.getUniqueId()), got {}", b.len()))
            })?),
        };
        Ok(Communicator {
            device,
            nranks: AtomicUsize::new(nranks),
            rank: AtomicUsize::new(rank),
            source: id.map_or(Source::All, Source::Id),
            config,
            cancel: AtomicBool::new(false),
            registered: Mutex::default(),
            state: Mutex::new(State::Pending),
        })
    }

    /// A communicator to be made by splitting `parent` (`ncclCommSplit`) when it joins: the
    /// ranks of one `color` (none: `NCCL_SPLIT_NOCOLOR`, this rank takes part in no child),
    /// ranked by `key`. Every rank of the parent must split, in the same order.
    pub fn split(parent: &Communicator, color: Option<u32>, key: i32, config: CommConfig) -> Result<Communicator> {
        if let Some(c) = color {
            if c > i32::MAX as u32 {
                return Err(Error::range(format!("color must be a non-negative 32-bit integer (or null for no color), got {c}")));
            }
        }
        let ops = parent.live()?;
        Ok(Communicator {
            device: parent.device,
            nranks: AtomicUsize::new(0),
            rank: AtomicUsize::new(0),
            source: Source::Split { parent: ops, color, key },
            config,
            cancel: AtomicBool::new(false),
            registered: Mutex::default(),
            state: Mutex::new(State::Pending),
        })
    }

    pub fn device(&self) -> usize {
        self.device
    }
    pub fn size(&self) -> usize {
        self.nranks.load(Ordering::Acquire)
    }
    pub fn rank(&self) -> usize {
        self.rank.load(Ordering::Acquire)
    }

    /// Whether the communicator is live (a split with no color never is).
    pub fn is_live(&self) -> bool {
        matches!(*self.state(), State::Live(_))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn live(&self) -> Result<Arc<dyn CommOps>> {
        match &*self.state() {
            State::Live(ops) => Ok(ops.clone()),
            State::Pending => Err(invalid_usage("this communicator has not joined yet: await NcclCommunicator.init(...)")),
            State::Gone(why) => Err(invalid_usage(format!("this communicator was {why}"))),
        }
    }

    /// Joins the other ranks (`ncclCommInitRank`); blocks until all have joined.
    /// A split's join is the split itself; one with no color ends up gone ("not in the split").
    pub fn join(&self) -> Result<()> {
        if !matches!(*self.state(), State::Pending) {
            return Err(invalid_usage("this communicator has already joined"));
        }
        let made = match &self.source {
            Source::All => return Err(invalid_usage("a communicator of initAll joins with the others")),
            Source::Id(id) => {
                runtime()?.backend.nccl().init_rank(self.device, self.size(), id, self.rank(), &self.config, &self.cancel).map(Some)
            }
            Source::Split { parent, color, key } => parent.split(*color, *key, &self.config, &self.cancel).map(|s| {
                s.map(|s| {
                    self.rank.store(s.rank, Ordering::Release);
                    self.nranks.store(s.nranks, Ordering::Release);
                    s.comm
                })
            }),
        };
        let mut st = self.state();
        if self.cancel.load(Ordering::Acquire) {
            // Aborted (or destroyed) while joining: what was made goes with it.
            if let Ok(Some(ops)) = made {
                let _ = ops.abort();
            }
            return Err(aborted());
        }
        match made? {
            Some(ops) => *st = State::Live(Arc::from(ops)),
            None => *st = State::Gone("left out of the split (no color)"),
        }
        Ok(())
    }

    /// Joins communicators made for `initAll`: rank `i` of `comms.len()` on its own device.
    pub fn join_all(comms: &[Arc<Communicator>]) -> Result<()> {
        // None: ncclCommInitAll(comms, 0, devlist) would still make a rendezvous id (a bootstrap
        // thread waiting for ranks that never come), over empty arrays (#20, GPU fuzz api:44:2).
        if comms.is_empty() {
            return Err(invalid_argument("initAll needs at least one communicator (one device), got none"));
        }
        for (i, c) in comms.iter().enumerate() {
            if !matches!(c.source, Source::All) || c.rank() != i || c.size() != comms.len() || !matches!(*c.state(), State::Pending) {
                return Err(invalid_usage("initAll joins fresh communicators of its own, rank i on devices[i]"));
            }
        }
        let devices: Vec<usize> = comms.iter().map(|c| c.device).collect();
        let mut seen = devices.clone();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != devices.len() {
            return Err(invalid_argument(format!("initAll needs distinct devices, got {devices:?}")));
        }
        let all = runtime()?.backend.nccl().init_all(&devices)?;
        for (c, ops) in comms.iter().zip(all) {
            *c.state() = State::Live(Arc::from(ops));
        }
        Ok(())
    }

    /// Enqueues `call` on `stream` with the given buffers (`(memory, byte offset)`).
    pub fn enqueue(
        &self,
        call: &Call,
        send: Option<(&DeviceMemory, u64)>,
        recv: Option<(&DeviceMemory, u64)>,
        stream: &Stream,
    ) -> Result<()> {
        let ops = self.live()?;
        if stream.device() != self.device {
            return Err(invalid_argument(format!(
                "this communicator is on device {}, and the stream on device {}: use a stream of the communicator's device",
                self.device,
                stream.device()
            )));
        }
        call.check_ranks(self.size())?;
        let (need_send, need_recv) = call.extents(self.rank(), self.size())?;
        let s = self.buffer(send, need_send, "send")?;
        let r = self.buffer(recv, need_recv, "receive")?;
        stream.legacy_ok("an NCCL call")?;
        ops.enqueue(call, s, r, stream.ops()?)
    }

    /// A call's buffer, checked: on this device, large enough; `None` where the call needs none.
    fn buffer<'a>(&self, b: Option<(&'a DeviceMemory, u64)>, need: Option<u64>, what: &str) -> Result<Buf<'a>> {
        let (Some(n), Some((mem, at))) = (need, b) else {
            return match need {
                Some(n) if n > 0 => Err(Error::type_error(format!("this call needs a {what} buffer of {n} bytes on rank {}", self.rank()))),
                _ => Ok(None),
            };
        };
        if mem.device() != self.device {
            return Err(invalid_argument(format!(
                "the {what} buffer is on device {}, the communicator on device {}",
                mem.device(),
                self.device
            )));
        }
        mem.check_range(at, n, &format!("the {what} buffer"))?;
        if n == 0 {
            return Ok(None);
        }
        Ok(Some((mem.ops()?, at)))
    }

    /// Frees the communicator after its queued work (`ncclCommDestroy`). Twice is nothing.
    pub fn destroy(&self) {
        self.cancel.store(true, Ordering::Release);
        let old = std::mem::replace(&mut *self.state(), State::Gone("destroyed"));
        if let State::Gone(why) = old {
            *self.state() = State::Gone(why);
        }
    }

    /// Stops the communicator's pending work and frees it (`ncclCommAbort`).
    /// A join under way stops and fails with a typed error.
    pub fn abort(&self) -> Result<()> {
        self.cancel.store(true, Ordering::Release);
        let old = std::mem::replace(&mut *self.state(), State::Gone("aborted"));
        match old {
            State::Live(ops) => ops.abort(),
            State::Gone(why) => {
                *self.state() = State::Gone(why);
                Ok(())
            }
            State::Pending => Ok(()),
        }
    }

    /// Registers `len` bytes of `mem` from `offset` with the communicator (`ncclCommRegister`):
    /// its collectives on that range may then skip NCCL's staging copies. The memory must stay
    /// allocated until it is deregistered (or the communicator destroyed).
    pub fn register(&self, mem: &DeviceMemory, offset: u64, len: u64) -> Result<u64> {
        let ops = self.live()?;
        if mem.device() != self.device {
            return Err(invalid_argument(format!("the buffer is on device {}, the communicator on device {}", mem.device(), self.device)));
        }
        if len == 0 {
            return Err(invalid_argument("register needs a range of at least 1 byte"));
        }
        mem.check_range(offset, len, "the registered range")?;
        let handle = ops.register(mem.ptr() + offset, len)?;
        self.registered.lock().unwrap_or_else(|p| p.into_inner()).insert(handle);
        Ok(handle)
    }

    /// Deregisters a handle of [`Communicator::register`] (`ncclCommDeregister`).
    pub fn deregister(&self, handle: u64) -> Result<()> {
        let ops = self.live()?;
        if !self.registered.lock().unwrap_or_else(|p| p.into_inner()).remove(&handle) {
            return Err(invalid_argument("this handle is not a registration of this communicator (or it was deregistered already)"));
        }
        ops.deregister(handle)
    }

    /// Throws the error asynchronous work met, if any (CuPy's `check_async_error`).
    pub fn check_async_error(&self) -> Result<()> {
        self.live()?.async_error()
    }
}
