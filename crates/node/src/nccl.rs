//! NCCL: unique ids, communicators (made at once, joined off the JS thread), collectives.

use crate::raw::{BigU64, Bytes, Count, NodeBuffer, Numbers, Owner};
use crate::task::Blocking;
use crate::{memory, stream};
use cuda_node_core::nccl::{self, Call, Collective, CommConfig, Communicator, DataType, RedOp};
use cuda_node_core::{runtime, Block, Error};
use std::sync::Arc;

crate::table!(COMMS: Arc<Communicator>, CUDA_ERROR_INVALID_HANDLE, "this NcclCommunicator was destroyed");

/// An `ncclConfig_t` from JS: `[blocking, cgaClusterSize, minCTAs, maxCTAs, splitShare]`, NaN
/// where unset, and the network's name.
fn config(fields: Option<Numbers>, net_name: Option<String>) -> cuda_node_core::Result<CommConfig> {
    let mut c = CommConfig { net_name, ..CommConfig::default() };
    let Some(f) = fields else { return Ok(c) };
    let f = f.0;
    if f.len() != 5 {
        return Err(Error::type_error(format!("an NCCL config is 5 numbers, got {}", f.len())));
    }
    let int = |name: &str, v: f64| -> cuda_node_core::Result<Option<i32>> {
        if v.is_nan() {
            return Ok(None);
        }
        if v.fract() != 0.0 || !(0.0..=i32::MAX as f64).contains(&v) {
            return Err(Error::range(format!("{name} must be a non-negative 32-bit integer, got {v}")));
        }
        Ok(Some(v as i32))
    };
    c.blocking = f[0].is_nan() || f[0] != 0.0;
    c.cga_cluster_size = int("cgaClusterSize", f[1])?;
    c.min_ctas = int("minCTAs", f[2])?;
    c.max_ctas = int("maxCTAs", f[3])?;
    c.split_share = (!f[4].is_nan()).then_some(f[4] != 0.0);
    Ok(c)
}

crate::exports! {
    /// NCCL's version as `ncclGetVersion` gives it (22304 for 2.23.4).
    c"ncclVersion" => fn nccl_version(_cx) -> f64 {
        Ok(nccl::version()? as f64)
    }

    /// A new 128-byte unique id (`ncclGetUniqueId`); this process hosts the ranks' rendezvous.
    c"ncclGetUniqueId" => fn nccl_get_unique_id(_cx) -> NodeBuffer {
        Ok(NodeBuffer(nccl::unique_id()?.to_vec()))
    }

    /// A communicator for `rank` of `nranks` on `device`, not yet joined: with `id`, join it with
    /// `ncclCommJoin`; without, with `ncclCommJoinAll`.
    c"ncclCommCreate" => fn nccl_comm_create(
        cx, owner: Owner, device: f64, nranks: f64, id: Option<Bytes>, rank: f64, fields: Option<Numbers>, net_name: Option<String>
    ) -> f64 {
        let device = runtime()?.ordinal(device)?;
        let (nranks, rank) = (crate::raw::numbers::uint32("nranks", nranks)? as usize, crate::raw::numbers::uint32("rank", rank)? as usize);
        let comm = Communicator::with_config(device, nranks, rank, id.map(|b| b.0), config(fields, net_name)?)?;
        insert(cx, &owner, Arc::new(comm))
    }

    /// A communicator to be split from `parent` (`ncclCommSplit`) when it joins (`ncclCommJoin`):
    /// `color` null for none (`NCCL_SPLIT_NOCOLOR`).
    c"ncclCommSplitCreate" => fn nccl_comm_split_create(
        cx, owner: Owner, parent: f64, color: Option<f64>, key: i32, fields: Option<Numbers>, net_name: Option<String>
    ) -> f64 {
        let color = color.map(|c| crate::raw::numbers::uint32("color", c)).transpose()?;
        let comm = with(parent, |p| Communicator::split(p, color, key, config(fields, net_name)?))?;
        insert(cx, &owner, Arc::new(comm))
    }

    /// `[rank, size]` of a joined communicator; null for a split that left this rank out.
    c"ncclCommInfo" => fn nccl_comm_info(_cx, comm: f64) -> Option<Vec<f64>> {
        with(comm, |c| Ok(c.is_live().then(|| vec![c.rank() as f64, c.size() as f64])))
    }

    /// Joins the other ranks (`ncclCommInitRank`) off the JS thread; resolves once all have.
    c"ncclCommJoin" => fn nccl_comm_join(_cx, comm: f64) -> Blocking {
        let c = get(comm)?;
        Ok(Blocking::new(move || c.join()))
    }

    /// Joins communicators made without an id as one clique, rank i on its device (`ncclCommInitAll`).
    c"ncclCommJoinAll" => fn nccl_comm_join_all(_cx, comms: Numbers) -> () {
        let all = comms.0.iter().map(|&h| get(h)).collect::<cuda_node_core::Result<Vec<_>>>()?;
        Communicator::join_all(&all)
    }

    /// Enqueues a collective on `stream`. `kind`: its number in `constants().nccl.kinds`
    /// (`Collective::KINDS`); `root` is the root or the peer; unused buffers are null.
    c"ncclCall" => fn nccl_call(
        _cx, comm: f64, kind: u32, send: Option<f64>, send_offset: Count, recv: Option<f64>, recv_offset: Count,
        count: Count, dtype: u32, op: u32, root: f64, stream: f64
    ) -> () {
        with(comm, |c| {
            let op = RedOp::from_code(op)?;
            let r = crate::raw::numbers::uint32("root", root)? as usize;
            let coll = Collective::from_kind(kind, op, r).ok_or_else(|| Error::range(format!("{kind} is not an NCCL call")))?;
            let call = Call { coll, count: count.0, dtype: DataType::from_code(dtype)? };
            let (need_send, need_recv) = call.extents(c.rank(), c.size())?;
            let blocks = (send.map(memory::get).transpose()?, recv.map(memory::get).transpose()?);
            let s = match (&blocks.0, need_send) {
                (Some(b), Some(n)) => Some(b.range(send_offset.0, n, "the send buffer")?),
                _ => None,
            };
            let r = match (&blocks.1, need_recv) {
                (Some(b), Some(n)) => Some(b.range(recv_offset.0, n, "the receive buffer")?),
                _ => None,
            };
            stream::with(stream, |st| c.enqueue(&call, s, r, st))
        })
    }

    /// `size` bytes on `device` from `ncclMemAlloc`, as a memory handle (freed with `ncclMemFree`).
    c"ncclMemAlloc" => fn nccl_mem_alloc(_cx, device: f64, size: Count) -> f64 {
        memory::adopt(Block::whole(nccl::mem_alloc(runtime()?.ordinal(device)?, size.0)?))
    }

    /// Registers `len` bytes of memory `mem` from `offset` with the communicator (`ncclCommRegister`).
    c"ncclCommRegister" => fn nccl_comm_register(_cx, comm: f64, mem: f64, offset: Count, len: Count) -> BigU64 {
        let block = memory::get(mem)?;
        let (m, at) = block.range(offset.0, len.0, "the registered range")?;
        with(comm, |c| c.register(m, at, len.0).map(BigU64))
    }

    /// Deregisters a handle of `ncclCommRegister` (`ncclCommDeregister`).
    c"ncclCommDeregister" => fn nccl_comm_deregister(_cx, comm: f64, handle: BigU64) -> () {
        with(comm, |c| c.deregister(handle.0))
    }

    /// Starts a group: calls until `ncclGroupEnd` are launched together (`ncclGroupStart`).
    c"ncclGroupStart" => fn nccl_group_start(_cx) -> () {
        nccl::group_start()
    }

    c"ncclGroupEnd" => fn nccl_group_end(_cx) -> () {
        nccl::group_end()
    }

    /// Throws the error asynchronous work met, if any (`ncclCommGetAsyncError`).
    c"ncclCommCheckAsyncError" => fn nccl_comm_check_async_error(_cx, comm: f64) -> () {
        with(comm, |c| c.check_async_error())
    }

    /// Stops pending work and frees the communicator (`ncclCommAbort`).
    c"ncclCommAbort" => fn nccl_comm_abort(_cx, comm: f64) -> () {
        let c = take(comm);
        match c {
            Ok(c) => c.abort(),
            Err(_) => Ok(()),
        }
    }

    /// Frees the communicator once its queued work is done (`ncclCommDestroy`). Twice is nothing.
    c"ncclCommDestroy" => fn nccl_comm_destroy(_cx, comm: f64) -> () {
        if let Ok(c) = take(comm) {
            c.destroy();
        }
        Ok(())
    }
}
