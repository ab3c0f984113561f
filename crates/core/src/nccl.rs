//! NCCL (CuPy's `cupy.cuda.nccl`): unique ids, communicators and their collectives, written
//! once over [`NcclOps`], which each backend implements beside its own code — the real library
//! loaded at run time (`cuda/nccl.rs`), or the simulator's ranks over local sockets
//! (`sim/nccl.rs`). The checks live here.

use crate::error::{Error, Result};
use crate::memory::DeviceMemory;
use crate::ops::{AllocOps, StreamOps};
use crate::runtime;
use crate::stream::Stream;
use std::sync::{Arc, Mutex};

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
        })
    }

    fn check_ranks(&self, nranks: usize) -> Result<()> {
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

/// What a backend implements for NCCL.
pub trait NcclOps: Send + Sync + 'static {
    /// `ncclGetVersion`: 22304 for 2.23.4.
    fn version(&self) -> Result<i32>;
    /// A new id (`ncclGetUniqueId`); the process that makes it hosts the ranks' rendezvous.
    fn unique_id(&self) -> Result<UniqueId>;
    /// Joins as `rank` of `nranks` on `device` (`ncclCommInitRank`); blocks until every rank
    /// has joined, so it is never called on the JS thread.
    fn init_rank(&self, device: usize, nranks: usize, id: &UniqueId, rank: usize) -> Result<Box<dyn CommOps>>;
    /// One communicator per device, rank `i` on `devices[i]` (`ncclCommInitAll`).
    fn init_all(&self, devices: &[usize]) -> Result<Vec<Box<dyn CommOps>>>;
    fn group_start(&self) -> Result<()>;
    fn group_end(&self) -> Result<()>;
}

/// One rank's communicator (`ncclComm_t`), destroyed when dropped unless aborted.
pub trait CommOps: Send + Sync + 'static {
    /// Enqueues `call` on `stream` (a stream of the communicator's device); buffers are checked.
    fn enqueue(&self, call: &Call, send: Buf, recv: Buf, stream: &dyn StreamOps) -> Result<()>;
    /// Stops pending work and frees the communicator (`ncclCommAbort`); dropping it then does nothing.
    fn abort(&self) -> Result<()>;
    /// An error that asynchronous work met (`ncclCommGetAsyncError`).
    fn async_error(&self) -> Result<()>;
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
    nranks: usize,
    rank: usize,
    /// None for one made by `init_all`.
    id: Option<UniqueId>,
    state: Mutex<State>,
}

/// The error NCCL gives for misuse, named as CuPy names it.
pub fn invalid_usage(message: impl Into<String>) -> Error {
    Error::named("NCCL_ERROR_INVALID_USAGE", message)
}

pub fn invalid_argument(message: impl Into<String>) -> Error {
    Error::named("NCCL_ERROR_INVALID_ARGUMENT", message)
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

/// The version, as `ncclGetVersion` gives it.
pub fn version() -> Result<i32> {
    runtime()?.backend.nccl().version()
}

/// A new unique id (`ncclGetUniqueId`).
pub fn unique_id() -> Result<UniqueId> {
    runtime()?.backend.nccl().unique_id()
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
        Ok(Communicator { device, nranks, rank, id, state: Mutex::new(State::Pending) })
    }

    pub fn device(&self) -> usize {
        self.device
    }
    pub fn size(&self) -> usize {
        self.nranks
    }
    pub fn rank(&self) -> usize {
        self.rank
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
    pub fn join(&self) -> Result<()> {
        let Some(id) = self.id else {
            return Err(invalid_usage("a communicator of initAll joins with the others"));
        };
        if !matches!(*self.state(), State::Pending) {
            return Err(invalid_usage("this communicator has already joined"));
        }
        let ops = runtime()?.backend.nccl().init_rank(self.device, self.nranks, &id, self.rank)?;
        *self.state() = State::Live(Arc::from(ops));
        Ok(())
    }

    /// Joins communicators made for `initAll`: rank `i` of `comms.len()` on its own device.
    pub fn join_all(comms: &[Arc<Communicator>]) -> Result<()> {
        for (i, c) in comms.iter().enumerate() {
            if c.id.is_some() || c.rank != i || c.nranks != comms.len() || !matches!(*c.state(), State::Pending) {
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
        call.check_ranks(self.nranks)?;
        let (need_send, need_recv) = call.extents(self.rank, self.nranks)?;
        let s = self.buffer(send, need_send, "send")?;
        let r = self.buffer(recv, need_recv, "receive")?;
        stream.legacy_ok("an NCCL call")?;
        ops.enqueue(call, s, r, stream.ops())
    }

    /// A call's buffer, checked: on this device, large enough; `None` where the call needs none.
    fn buffer<'a>(&self, b: Option<(&'a DeviceMemory, u64)>, need: Option<u64>, what: &str) -> Result<Buf<'a>> {
        let (Some(n), Some((mem, at))) = (need, b) else {
            return match need {
                Some(n) if n > 0 => Err(Error::type_error(format!("this call needs a {what} buffer of {n} bytes on rank {}", self.rank))),
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
        let old = std::mem::replace(&mut *self.state(), State::Gone("destroyed"));
        if let State::Gone(why) = old {
            *self.state() = State::Gone(why);
        }
    }

    /// Stops the communicator's pending work and frees it (`ncclCommAbort`).
    pub fn abort(&self) -> Result<()> {
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

    /// Throws the error asynchronous work met, if any (CuPy's `check_async_error`).
    pub fn check_async_error(&self) -> Result<()> {
        self.live()?.async_error()
    }
}

/// Reduces `parts` (each `count` elements of `dtype`, little-endian) with `op` into one.
/// The simulator's reduction; also the reference its tests compare with.
pub fn host_reduce(dtype: DataType, op: RedOp, parts: &[&[u8]]) -> Vec<u8> {
    let n = parts.len();
    let mut out = parts[0].to_vec();
    macro_rules! ints {
        ($t:ty) => {{
            const W: usize = std::mem::size_of::<$t>();
            for (i, chunk) in out.chunks_exact_mut(W).enumerate() {
                let mut acc = <$t>::from_le_bytes(chunk.try_into().unwrap());
                for p in &parts[1..] {
                    let v = <$t>::from_le_bytes(p[i * W..i * W + W].try_into().unwrap());
                    acc = match op {
                        RedOp::Sum | RedOp::Avg => acc.wrapping_add(v),
                        RedOp::Prod => acc.wrapping_mul(v),
                        RedOp::Max => acc.max(v),
                        RedOp::Min => acc.min(v),
                    };
                }
                if op == RedOp::Avg {
                    acc /= n as $t;
                }
                chunk.copy_from_slice(&acc.to_le_bytes());
            }
        }};
    }
    macro_rules! floats {
        ($w:expr, $read:expr, $write:expr) => {{
            for (i, chunk) in out.chunks_exact_mut($w).enumerate() {
                let mut acc: f64 = $read(&*chunk);
                for p in &parts[1..] {
                    let v: f64 = $read(&p[i * $w..i * $w + $w]);
                    acc = match op {
                        RedOp::Sum | RedOp::Avg => acc + v,
                        RedOp::Prod => acc * v,
                        RedOp::Max => acc.max(v),
                        RedOp::Min => acc.min(v),
                    };
                }
                if op == RedOp::Avg {
                    acc /= n as f64;
                }
                chunk.copy_from_slice(&$write(acc));
            }
        }};
    }
    match dtype {
        DataType::I8 => ints!(i8),
        DataType::U8 => ints!(u8),
        DataType::I32 => ints!(i32),
        DataType::U32 => ints!(u32),
        DataType::I64 => ints!(i64),
        DataType::U64 => ints!(u64),
        DataType::F32 => floats!(4, |b: &[u8]| f32::from_le_bytes(b.try_into().unwrap()) as f64, |v: f64| (v as f32).to_le_bytes()),
        DataType::F64 => floats!(8, |b: &[u8]| f64::from_le_bytes(b.try_into().unwrap()), |v: f64| v.to_le_bytes()),
        DataType::F16 => {
            floats!(2, |b: &[u8]| f16_to_f32(u16::from_le_bytes(b.try_into().unwrap())) as f64, |v: f64| f32_to_f16(v as f32).to_le_bytes())
        }
        DataType::BF16 => floats!(
            2,
            |b: &[u8]| f32::from_bits((u16::from_le_bytes(b.try_into().unwrap()) as u32) << 16) as f64,
            |v: f64| f32_to_bf16(v as f32).to_le_bytes()
        ),
    }
    out
}

/// IEEE half to single (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: normalise.
            let shift = m.leading_zeros() - 21;
            sign | ((113 - shift) << 23) | (((m << shift) & 0x3ff) << 13)
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// Single to IEEE half, rounding to nearest even.
pub fn f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// Single to bfloat16, rounding to nearest even.
pub fn f32_to_bf16(f: f32) -> u16 {
    let x = f.to_bits();
    if f.is_nan() {
        return ((x >> 16) | 0x40) as u16;
    }
    ((x + 0x7fff + ((x >> 16) & 1)) >> 16) as u16
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
    }

    #[test]
    fn reductions_of_each_kind() {
        let a = [1i32, -2, 7].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
        let b = [3i32, 5, -1].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
        let read = |v: Vec<u8>| v.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Sum, &[&a, &b])), [4, 3, 6]);
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Max, &[&a, &b])), [3, 5, 7]);
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Prod, &[&a, &b])), [3, -10, -7]);
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Avg, &[&a, &b])), [2, 1, 3]);
        let h = |v: f32| f32_to_f16(v).to_le_bytes();
        let r = host_reduce(DataType::F16, RedOp::Sum, &[&h(1.5), &h(2.25)]);
        assert_eq!(f16_to_f32(u16::from_le_bytes([r[0], r[1]])), 3.75);
    }

    #[test]
    fn half_conversions_round_trip() {
        for v in [0.0f32, -0.0, 1.0, -2.5, 65504.0, 6.1035156e-5, 5.9604645e-8, 0.33325195] {
            assert_eq!(f16_to_f32(f32_to_f16(v)), v, "{v}");
        }
        assert_eq!(f32_to_f16(1e6), 0x7c00);
        assert_eq!(f32::from_bits((f32_to_bf16(1.5) as u32) << 16), 1.5);
    }
}
