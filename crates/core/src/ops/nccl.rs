//! NCCL at the seam: the traits a backend implements and the plain data it is given. The
//! communicator and its checked calls are `nccl.rs`'s, above the seam.

use crate::error::{Error, Result};
use crate::ops::{AllocOps, StreamOps};
use std::sync::atomic::AtomicBool;

/// Bytes of an `ncclUniqueId`.
pub const UNIQUE_ID_BYTES: usize = 128;
pub type UniqueId = [u8; UNIQUE_ID_BYTES];

/// `ncclDataType_t`, by NCCL's own numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DataType {
    I8 = 0,
    U8 = 1,
    I32 = 2,
    U32 = 3,
    I64 = 4,
    U64 = 5,
    F16 = 6,
    F32 = 7,
    F64 = 8,
    BF16 = 9,
}

impl DataType {
    /// Each type's name (CuPy's dtype name), by its code: what the TS layer accepts for it.
    pub const NAMES: [&'static str; 10] =
        ["int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64", "bfloat16"];

    pub fn from_code(code: u32) -> Result<DataType> {
        use DataType::*;
        Ok(match code {
            0 => I8,
            1 => U8,
            2 => I32,
            3 => U32,
            4 => I64,
            5 => U64,
            6 => F16,
            7 => F32,
            8 => F64,
            9 => BF16,
            _ => return Err(Error::range(format!("{code} is not an NCCL data type (0 to 9: int8 … bfloat16)"))),
        })
    }

    pub fn size(self) -> u64 {
        use DataType::*;
        match self {
            I8 | U8 => 1,
            F16 | BF16 => 2,
            I32 | U32 | F32 => 4,
            I64 | U64 | F64 => 8,
        }
    }
}

/// `ncclRedOp_t`, by NCCL's own numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RedOp {
    Sum = 0,
    Prod = 1,
    Max = 2,
    Min = 3,
    Avg = 4,
}

impl RedOp {
    /// Each reduction's name, by its code: what the TS layer accepts for it.
    pub const NAMES: [&'static str; 5] = ["sum", "prod", "max", "min", "avg"];

    pub fn from_code(code: u32) -> Result<RedOp> {
        Ok(match code {
            0 => RedOp::Sum,
            1 => RedOp::Prod,
            2 => RedOp::Max,
            3 => RedOp::Min,
            4 => RedOp::Avg,
            _ => return Err(Error::range(format!("{code} is not an NCCL reduction (0 to 4: sum, prod, max, min, avg)"))),
        })
    }
}

/// One NCCL call on a communicator. Ranks and peers are checked against its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    AllReduce {
        op: RedOp,
    },
    Reduce {
        op: RedOp,
        root: usize,
    },
    Broadcast {
        root: usize,
    },
    /// `count` is what each rank sends.
    AllGather,
    /// `count` is what each rank receives.
    ReduceScatter {
        op: RedOp,
    },
    Send {
        peer: usize,
    },
    Recv {
        peer: usize,
    },
    /// `count` is what each rank sends to each peer (and receives from each).
    AllToAll,
}

impl Collective {
    /// Each call's name (the TS method), by its kind number: the number the binding's `ncclCall`
    /// takes and the simulator's wire format carries.
    pub const KINDS: [&'static str; 8] = ["allReduce", "reduce", "broadcast", "allGather", "reduceScatter", "send", "recv", "allToAll"];

    /// The call of kind number `kind` (see [`Collective::KINDS`]), with its reduction and its
    /// root or peer where it has them; `None` for no kind.
    pub fn from_kind(kind: u32, op: RedOp, rank: usize) -> Option<Collective> {
        Some(match kind {
            0 => Collective::AllReduce { op },
            1 => Collective::Reduce { op, root: rank },
            2 => Collective::Broadcast { root: rank },
            3 => Collective::AllGather,
            4 => Collective::ReduceScatter { op },
            5 => Collective::Send { peer: rank },
            6 => Collective::Recv { peer: rank },
            7 => Collective::AllToAll,
            _ => return None,
        })
    }

    /// Its kind number, reduction (`Sum` where it has none) and root or peer (0 where none):
    /// what [`Collective::from_kind`] takes back.
    pub fn kind(self) -> (u32, RedOp, usize) {
        match self {
            Collective::AllReduce { op } => (0, op, 0),
            Collective::Reduce { op, root } => (1, op, root),
            Collective::Broadcast { root } => (2, RedOp::Sum, root),
            Collective::AllGather => (3, RedOp::Sum, 0),
            Collective::ReduceScatter { op } => (4, op, 0),
            Collective::Send { peer } => (5, RedOp::Sum, peer),
            Collective::Recv { peer } => (6, RedOp::Sum, peer),
            Collective::AllToAll => (7, RedOp::Sum, 0),
        }
    }
}

/// A collective with its element count and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    pub coll: Collective,
    pub count: u64,
    pub dtype: DataType,
}

impl Call {
    /// Bytes the send and receive buffers must hold on `rank` of `nranks`; `None` where the
    /// call does not touch that buffer there (NCCL ignores it).
    pub fn extents(&self, rank: usize, nranks: usize) -> Result<(Option<u64>, Option<u64>)> {
        let too_large = || Error::range("the NCCL call is too large");
        let one = self.count.checked_mul(self.dtype.size()).ok_or_else(too_large)?;
        let all = one.checked_mul(nranks as u64).ok_or_else(too_large)?;
        Ok(match self.coll {
            Collective::AllReduce { .. } => (Some(one), Some(one)),
            Collective::Reduce { root, .. } => (Some(one), (rank == root).then_some(one)),
            Collective::Broadcast { root } => ((rank == root).then_some(one), Some(one)),
            Collective::AllGather => (Some(one), Some(all)),
            Collective::ReduceScatter { .. } => (Some(all), Some(one)),
            Collective::Send { .. } => (Some(one), None),
            Collective::Recv { .. } => (None, Some(one)),
            Collective::AllToAll => (Some(all), Some(all)),
        })
    }

    /// Checks the root or peer against the communicator's size.
    pub fn check_ranks(&self, nranks: usize) -> Result<()> {
        let (what, r) = match self.coll {
            Collective::Reduce { root, .. } | Collective::Broadcast { root } => ("root", root),
            Collective::Send { peer } | Collective::Recv { peer } => ("peer", peer),
            _ => return Ok(()),
        };
        if r >= nranks {
            return Err(Error::range(format!("{what} {r} is not a rank of this communicator of {nranks}")));
        }
        Ok(())
    }
}

/// A buffer of a call: an allocation and a byte offset into it.
pub type Buf<'a> = Option<(&'a dyn AllocOps, u64)>;

/// The `ncclConfig_t` fields a user may set; `None` leaves NCCL's default
/// (`NCCL_CONFIG_UNDEF_INT`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommConfig {
    /// `blocking = 0`: the init (and each later call) returns at once and is polled, so a
    /// stuck init can be aborted.
    pub blocking: bool,
    pub cga_cluster_size: Option<i32>,
    pub min_ctas: Option<i32>,
    pub max_ctas: Option<i32>,
    pub net_name: Option<String>,
    /// `splitShare`: children made by `split` share the parent's resources.
    pub split_share: Option<bool>,
}

impl Default for CommConfig {
    fn default() -> Self {
        CommConfig { blocking: true, cga_cluster_size: None, min_ctas: None, max_ctas: None, net_name: None, split_share: None }
    }
}

/// What `split` makes on one rank: the new communicator with this rank's place in it, or
/// nothing for a rank that passed no color (`NCCL_SPLIT_NOCOLOR`).
pub struct Split {
    pub comm: Box<dyn CommOps>,
    pub rank: usize,
    pub nranks: usize,
}

/// What a backend implements for NCCL.
pub trait NcclOps: Send + Sync + 'static {
    /// `ncclGetVersion`: 22304 for 2.23.4.
    fn version(&self) -> Result<i32>;
    /// A new id (`ncclGetUniqueId`); the process that makes it hosts the ranks' rendezvous.
    fn unique_id(&self) -> Result<UniqueId>;
    /// Joins as `rank` of `nranks` on `device` (`ncclCommInitRankConfig`); blocks until every
    /// rank has joined, so it is never called on the JS thread. When `cancel` turns true the
    /// join stops (a non-blocking init is aborted) and fails.
    fn init_rank(
        &self,
        device: usize,
        nranks: usize,
        id: &UniqueId,
        rank: usize,
        config: &CommConfig,
        cancel: &AtomicBool,
    ) -> Result<Box<dyn CommOps>>;
    /// One communicator per device, rank `i` on `devices[i]` (`ncclCommInitAll`).
    fn init_all(&self, devices: &[usize]) -> Result<Vec<Box<dyn CommOps>>>;
    fn group_start(&self) -> Result<()>;
    fn group_end(&self) -> Result<()>;
    /// Device memory from `ncclMemAlloc` (NCCL 2.19+: memory NCCL's transports and NVLS can
    /// use directly), freed with `ncclMemFree` when dropped; the simulator's is plain memory.
    fn mem_alloc(&self, device: usize, size: u64) -> Result<Box<dyn AllocOps>>;
}

/// One rank's communicator (`ncclComm_t`), destroyed when dropped unless aborted.
pub trait CommOps: Send + Sync + 'static {
    /// Enqueues `call` on `stream` (a stream of the communicator's device); buffers are checked.
    fn enqueue(&self, call: &Call, send: Buf, recv: Buf, stream: &dyn StreamOps) -> Result<()>;
    /// Stops pending work and frees the communicator (`ncclCommAbort`); dropping it then does nothing.
    fn abort(&self) -> Result<()>;
    /// An error that asynchronous work met (`ncclCommGetAsyncError`).
    fn async_error(&self) -> Result<()>;
    /// Splits the communicator (`ncclCommSplit`): every rank calls it; those of one `color`
    /// form a new communicator, ranked by `key` (then by their rank here); `None` for
    /// `NCCL_SPLIT_NOCOLOR`. Blocks until every rank has called it.
    fn split(&self, color: Option<u32>, key: i32, config: &CommConfig, cancel: &AtomicBool) -> Result<Option<Split>>;
    /// Registers `[ptr, ptr + len)` of this device's memory with the communicator
    /// (`ncclCommRegister`, NCCL 2.19+); the handle deregisters it.
    fn register(&self, ptr: u64, len: u64) -> Result<u64>;
    /// `ncclCommDeregister` of a handle `register` gave.
    fn deregister(&self, handle: u64) -> Result<()>;
}

/// The name of each `ncclResult_t` (CuPy's `NcclError` names).
pub fn result_name(code: i32) -> &'static str {
    match code {
        0 => "NCCL_SUCCESS",
        1 => "NCCL_ERROR_UNHANDLED_CUDA_ERROR",
        2 => "NCCL_ERROR_SYSTEM_ERROR",
        3 => "NCCL_ERROR_INTERNAL_ERROR",
        4 => "NCCL_ERROR_INVALID_ARGUMENT",
        5 => "NCCL_ERROR_INVALID_USAGE",
        6 => "NCCL_ERROR_REMOTE_ERROR",
        7 => "NCCL_IN_PROGRESS",
        _ => "NCCL_ERROR_UNKNOWN",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_follow_each_collective() {
        let c = |coll| Call { coll, count: 4, dtype: DataType::F32 };
        assert_eq!(c(Collective::AllReduce { op: RedOp::Sum }).extents(0, 3).unwrap(), (Some(16), Some(16)));
        assert_eq!(c(Collective::AllGather).extents(1, 3).unwrap(), (Some(16), Some(48)));
        assert_eq!(c(Collective::ReduceScatter { op: RedOp::Sum }).extents(1, 3).unwrap(), (Some(48), Some(16)));
        assert_eq!(c(Collective::Reduce { op: RedOp::Sum, root: 0 }).extents(1, 3).unwrap(), (Some(16), None));
        assert_eq!(c(Collective::Broadcast { root: 0 }).extents(1, 3).unwrap(), (None, Some(16)));
        assert!(c(Collective::Send { peer: 3 }).check_ranks(3).is_err());
        assert_eq!(c(Collective::AllToAll).extents(1, 3).unwrap(), (Some(48), Some(48)));
    }
}
