//! The simulator's NCCL: the same rendezvous and matching rules as the real library, over
//! local sockets, so ranks may be threads of one process, worker threads, or separate processes.
//!
//! As in NCCL, the process that calls `getUniqueId` hosts the rendezvous (a "hub" thread on a
//! loopback port named in the id). Each rank connects and says who it is; `init` returns once
//! all `nranks` have joined. A collective is an operation on the rank's stream: when the stream
//! reaches it, the rank sends its part to the hub and waits; the hub matches the k-th
//! collective of every rank (they must agree on kind, type, count, op and root: NCCL's rule),
//! computes the result on the host and sends each rank its part. `send`/`recv` match the k-th
//! send from a to b with the k-th receive at b from a. A call inside `groupStart`/`groupEnd`
//! is deferred to `groupEnd`, and a stream's grouped calls post together before waiting, so
//! paired sends and receives do not deadlock; outside a group they wait in turn, as NCCL's do.
//! A rank that leaves (destroy, abort, a process that exits) fails what is pending on the
//! others with `NCCL_ERROR_REMOTE_ERROR` instead of hanging them.
//!
//! The WebAssembly build has neither threads nor sockets: there every NCCL call is refused with
//! `CUDA_ERROR_NOT_SUPPORTED`, and the rest of this module is unused.
//!
//! Here: the seam's `NcclOps` and `CommOps` (a communicator is a rank) and `groupStart`/`groupEnd`.
//! Beside it: `wire` (the frames and result codes), `hub` (the rendezvous and matching), `rank`
//! (joining, posting, waiting), `reduce` (the host reductions), `half` (half floats).
#![cfg_attr(target_family = "wasm", allow(dead_code, unused_imports))]

use crate::ops::half;
mod hub;
mod rank;
mod reduce;
mod wire;

use super::engine::Queue;
use super::memory::sim_alloc;
use super::stream::SimStream;
use super::{lock, SimBackend, SimDevice};
use crate::error::Result;
use crate::ops::nccl::{Buf, Call, CommConfig, CommOps, NcclOps, Split, UniqueId};
use crate::ops::StreamOps;
use hub::unique_id;
#[cfg(test)]
use rank::join_on;
use rank::{join, run, Item, Rank};
use std::cell::RefCell;
use std::net::Shutdown;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use wire::{nccl_error, write_frame, INVALID_USAGE};

/// The NCCL version the simulator reports (2.23.4).
const VERSION: i32 = 22304;

/// Calls deferred by `groupStart` on this thread, and the group's depth.
struct Group {
    depth: usize,
    calls: Vec<(Arc<SimDevice>, Arc<Queue>, Item)>,
}

thread_local! {
    static GROUP: RefCell<Group> = const { RefCell::new(Group { depth: 0, calls: Vec::new() }) };
}

fn submit(dev: &Arc<SimDevice>, queue: &Arc<Queue>, items: Vec<Item>) -> Result<()> {
    let label = items.iter().map(|i| format!("{:?}", i.call.coll)).collect::<Vec<_>>().join(", ");
    let items = Arc::new(items);
    dev.scheduler.submit(queue, "nccl", label, vec![], Arc::new(move || run(&items))).map(|_| ())
}

struct SimComm(Arc<Rank>);

impl CommOps for SimComm {
    fn enqueue(&self, call: &Call, send: Buf, recv: Buf, stream: &dyn StreamOps) -> Result<()> {
        if let Some(e) = lock(&self.0.async_error).clone() {
            return Err(e);
        }
        let s = stream.as_any().downcast_ref::<SimStream>().expect("the simulator is given its own streams");
        let (need_send, need_recv) = call.extents(self.0.rank, self.0.nranks)?;
        let part = |b: Buf, need: Option<u64>| b.zip(need).map(|((a, at), n)| (sim_alloc(a).buffer.clone(), at as usize, n as usize));
        let item = Item { rank: self.0.clone(), call: *call, send: part(send, need_send), recv: part(recv, need_recv) };
        let deferred = GROUP.with(|g| {
            let mut g = g.borrow_mut();
            if g.depth > 0 {
                g.calls.push((s.dev.clone(), s.queue.clone(), item));
                None
            } else {
                Some(item)
            }
        });
        match deferred {
            Some(item) => submit(&s.dev, &s.queue, vec![item]),
            None => Ok(()),
        }
    }

    fn abort(&self) -> Result<()> {
        self.0.aborted.store(true, Ordering::Release);
        let _ = write_frame(&mut lock(&self.0.writer), &[3u8]);
        let _ = lock(&self.0.writer).shutdown(Shutdown::Both);
        Ok(())
    }

    fn async_error(&self) -> Result<()> {
        match lock(&self.0.async_error).clone() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn register(&self, _ptr: u64, _len: u64) -> Result<u64> {
        // The simulator's transports copy through the hub: registration changes nothing but is
        // modelled (a handle to deregister once).
        Ok(self.0.next_registration())
    }

    fn deregister(&self, _handle: u64) -> Result<()> {
        Ok(())
    }

    fn split(&self, color: Option<u32>, key: i32, _config: &CommConfig, cancel: &AtomicBool) -> Result<Option<Split>> {
        Ok(self.0.split(color, key, cancel)?.map(|r| Split { rank: r.rank, nranks: r.nranks, comm: Box::new(SimComm(Arc::new(r))) }))
    }
}

/// The WebAssembly build has no threads and no sockets, which the ranks' rendezvous needs: NCCL
/// is refused there, as where the library is missing, but typed.
#[cfg(target_family = "wasm")]
fn no_nccl() -> crate::error::Error {
    crate::error::Error::cuda(
        crate::error::Code::CUDA_ERROR_NOT_SUPPORTED,
        "NCCL is not available in the WebAssembly build: the simulator's ranks meet over threads and local sockets, which it has not; \
         use the native addon (the simulator included) for NCCL",
    )
}

#[cfg(target_family = "wasm")]
impl NcclOps for SimBackend {
    fn version(&self) -> Result<i32> {
        Err(no_nccl())
    }

    fn unique_id(&self) -> Result<UniqueId> {
        Err(no_nccl())
    }

    fn init_rank(
        &self,
        _device: usize,
        _nranks: usize,
        _id: &UniqueId,
        _rank: usize,
        _config: &CommConfig,
        _cancel: &AtomicBool,
    ) -> Result<Box<dyn CommOps>> {
        Err(no_nccl())
    }

    fn init_all(&self, _devices: &[usize]) -> Result<Vec<Box<dyn CommOps>>> {
        Err(no_nccl())
    }

    fn group_start(&self) -> Result<()> {
        Err(no_nccl())
    }

    fn group_end(&self) -> Result<()> {
        Err(no_nccl())
    }

    fn mem_alloc(&self, _device: usize, _size: u64) -> Result<Box<dyn crate::ops::AllocOps>> {
        Err(no_nccl())
    }
}

#[cfg(not(target_family = "wasm"))]
impl NcclOps for SimBackend {
    fn version(&self) -> Result<i32> {
        Ok(VERSION)
    }

    fn unique_id(&self) -> Result<UniqueId> {
        unique_id()
    }

    fn init_rank(
        &self,
        device: usize,
        nranks: usize,
        id: &UniqueId,
        rank: usize,
        _config: &CommConfig,
        cancel: &AtomicBool,
    ) -> Result<Box<dyn CommOps>> {
        Ok(Box::new(SimComm(Arc::new(join(device, nranks, id, rank, cancel)?))))
    }

    fn init_all(&self, devices: &[usize]) -> Result<Vec<Box<dyn CommOps>>> {
        let id = unique_id()?;
        let n = devices.len();
        let joins: Vec<_> =
            devices.iter().enumerate().map(|(r, &d)| std::thread::spawn(move || join(d, n, &id, r, &AtomicBool::new(false)))).collect();
        let mut out: Vec<Box<dyn CommOps>> = Vec::with_capacity(n);
        for j in joins {
            let rank = j.join().map_err(|_| nccl_error(3, "a rank's join panicked"))??;
            out.push(Box::new(SimComm(Arc::new(rank))));
        }
        Ok(out)
    }

    fn group_start(&self) -> Result<()> {
        GROUP.with(|g| g.borrow_mut().depth += 1);
        Ok(())
    }

    fn mem_alloc(&self, device: usize, size: u64) -> Result<Box<dyn crate::ops::AllocOps>> {
        use crate::backend::Backend;
        self.memory().alloc(device, size)
    }

    fn group_end(&self) -> Result<()> {
        let calls = GROUP.with(|g| {
            let mut g = g.borrow_mut();
            if g.depth == 0 {
                return Err(nccl_error(INVALID_USAGE, "groupEnd() without groupStart()"));
            }
            g.depth -= 1;
            Ok(if g.depth == 0 { std::mem::take(&mut g.calls) } else { Vec::new() })
        })?;
        // One operation per stream, in the order the calls were made.
        let mut by_queue: Vec<(Arc<SimDevice>, Arc<Queue>, Vec<Item>)> = Vec::new();
        for (dev, queue, item) in calls {
            match by_queue.iter_mut().find(|(_, q, _)| Arc::ptr_eq(q, &queue)) {
                Some((_, _, items)) => items.push(item),
                None => by_queue.push((dev, queue, vec![item])),
            }
        }
        for (dev, queue, items) in by_queue {
            submit(&dev, &queue, items)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::error::Error;
    use crate::ops::nccl::{Collective, DataType, RedOp, UNIQUE_ID_BYTES};

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn two_ranks_all_reduce_and_exchange_in_a_group() {
        let b = SimBackend::new(2, 1 << 20);
        let comms = b.init_all(&[0, 1]).unwrap();
        let streams: Vec<_> = (0..2).map(|d| b.streams().create(d, true, 0).unwrap()).collect();
        let bufs: Vec<_> = (0..2).map(|d| (b.memory().alloc(d, 8).unwrap(), b.memory().alloc(d, 8).unwrap())).collect();
        for (d, (send, _)) in bufs.iter().enumerate() {
            streams[d].copy_htod(&**send, 0, &f32s(&[d as f32 + 1.0, 10.0])).unwrap();
        }
        let call = Call { coll: Collective::AllReduce { op: RedOp::Sum }, count: 2, dtype: DataType::F32 };
        for d in 0..2 {
            comms[d].enqueue(&call, Some((&*bufs[d].0, 0)), Some((&*bufs[d].1, 0)), &*streams[d]).unwrap();
        }
        for d in 0..2 {
            let mut out = [0u8; 8];
            streams[d].copy_dtoh(&mut out, &*bufs[d].1, 0).unwrap();
            assert_eq!(out.to_vec(), f32s(&[3.0, 20.0]));
        }
        // Each rank sends its send buffer to the other, in one group: no deadlock.
        b.group_start().unwrap();
        for d in 0..2usize {
            let peer = 1 - d;
            let n = Call { coll: Collective::Send { peer }, count: 2, dtype: DataType::F32 };
            comms[d].enqueue(&n, Some((&*bufs[d].0, 0)), None, &*streams[d]).unwrap();
            let n = Call { coll: Collective::Recv { peer }, count: 2, dtype: DataType::F32 };
            comms[d].enqueue(&n, None, Some((&*bufs[d].1, 0)), &*streams[d]).unwrap();
        }
        b.group_end().unwrap();
        for d in 0..2 {
            let mut out = [0u8; 8];
            streams[d].copy_dtoh(&mut out, &*bufs[d].1, 0).unwrap();
            assert_eq!(out.to_vec(), f32s(&[(2 - d) as f32, 10.0]));
            comms[d].async_error().unwrap();
        }
    }

    #[test]
    fn ranks_that_disagree_get_invalid_usage() {
        let b = SimBackend::new(2, 1 << 20);
        let comms = b.init_all(&[0, 1]).unwrap();
        let s: Vec<_> = (0..2).map(|d| b.streams().create(d, true, 0).unwrap()).collect();
        let m: Vec<_> = (0..2).map(|d| b.memory().alloc(d, 16).unwrap()).collect();
        for d in 0..2usize {
            let call = Call { coll: Collective::AllReduce { op: RedOp::Sum }, count: 1 + d as u64, dtype: DataType::F32 };
            comms[d].enqueue(&call, Some((&*m[d], 0)), Some((&*m[d], 8)), &*s[d]).unwrap();
        }
        for d in 0..2 {
            s[d].synchronize().unwrap();
            let e = comms[d].async_error().unwrap_err();
            assert_eq!(e.code_name().as_deref(), Some("NCCL_ERROR_INVALID_USAGE"), "{e}");
        }
    }

    #[test]
    fn a_rank_that_leaves_fails_collectives_but_not_sends_between_the_others() {
        let b = SimBackend::new(3, 1 << 20);
        let mut comms = b.init_all(&[0, 1, 2]).unwrap();
        drop(comms.remove(0)); // rank 0 destroyed
        let s: Vec<_> = (1..3).map(|d| b.streams().create(d, true, 0).unwrap()).collect();
        let m: Vec<_> = (1..3).map(|d| b.memory().alloc(d, 8).unwrap()).collect();
        s[0].copy_htod(&*m[0], 0, &f32s(&[4.0, 5.0])).unwrap();
        b.group_start().unwrap();
        let send = Call { coll: Collective::Send { peer: 2 }, count: 2, dtype: DataType::F32 };
        comms[0].enqueue(&send, Some((&*m[0], 0)), None, &*s[0]).unwrap();
        let recv = Call { coll: Collective::Recv { peer: 1 }, count: 2, dtype: DataType::F32 };
        comms[1].enqueue(&recv, None, Some((&*m[1], 0)), &*s[1]).unwrap();
        b.group_end().unwrap();
        let mut out = [0u8; 8];
        s[1].copy_dtoh(&mut out, &*m[1], 0).unwrap();
        assert_eq!(out.to_vec(), f32s(&[4.0, 5.0]));
        comms[1].async_error().unwrap();
        let all = Call { coll: Collective::AllReduce { op: RedOp::Sum }, count: 2, dtype: DataType::F32 };
        comms[0].enqueue(&all, Some((&*m[0], 0)), Some((&*m[0], 0)), &*s[0]).unwrap();
        s[0].synchronize().unwrap();
        let e = comms[0].async_error().unwrap_err();
        assert_eq!(e.code_name().as_deref(), Some("NCCL_ERROR_REMOTE_ERROR"), "{e}");
    }

    #[test]
    fn all_to_all_gives_rank_i_the_i_th_part_of_each() {
        let b = SimBackend::new(2, 1 << 20);
        let comms = b.init_all(&[0, 1]).unwrap();
        let s: Vec<_> = (0..2).map(|d| b.streams().create(d, true, 0).unwrap()).collect();
        let m: Vec<_> = (0..2).map(|d| (b.memory().alloc(d, 8).unwrap(), b.memory().alloc(d, 8).unwrap())).collect();
        for d in 0..2 {
            s[d].copy_htod(&*m[d].0, 0, &f32s(&[10.0 * d as f32, 10.0 * d as f32 + 1.0])).unwrap();
        }
        let call = Call { coll: Collective::AllToAll, count: 1, dtype: DataType::F32 };
        b.group_start().unwrap();
        for d in 0..2 {
            comms[d].enqueue(&call, Some((&*m[d].0, 0)), Some((&*m[d].1, 0)), &*s[d]).unwrap();
        }
        b.group_end().unwrap();
        for d in 0..2 {
            let mut out = [0u8; 8];
            s[d].copy_dtoh(&mut out, &*m[d].1, 0).unwrap();
            assert_eq!(out.to_vec(), f32s(&[d as f32, 10.0 + d as f32]));
        }
    }

    #[test]
    fn split_groups_ranks_by_color_and_orders_them_by_key() {
        let b = SimBackend::new(4, 1 << 20);
        let comms: Vec<Arc<dyn CommOps>> = b.init_all(&[0, 1, 2, 3]).unwrap().into_iter().map(Arc::from).collect();
        // Colors: even ranks 0, odd ranks 1, rank 3 none; keys reverse the order.
        let colors = [Some(0), Some(1), Some(0), None];
        let splits: Vec<_> = comms
            .iter()
            .enumerate()
            .map(|(r, c)| {
                let c = c.clone();
                std::thread::spawn(move || {
                    c.split(colors[r], -(r as i32), &CommConfig::default(), &AtomicBool::new(false)).map(|s| s.map(|s| (s.rank, s.nranks)))
                })
            })
            .collect();
        let got: Vec<_> = splits.into_iter().map(|j| j.join().unwrap().unwrap()).collect();
        assert_eq!(got, vec![Some((1, 2)), Some((0, 1)), Some((0, 2)), None]);
    }

    #[test]
    fn an_abort_stops_a_join_that_waits_for_absent_ranks() {
        let b = SimBackend::new(1, 1 << 20);
        let id = b.unique_id().unwrap();
        let cancel = Arc::new(AtomicBool::new(false));
        let c = cancel.clone();
        let waiting = std::thread::spawn(move || join(0, 2, &id, 0, &c).map(|_| ()));
        std::thread::sleep(std::time::Duration::from_millis(50));
        cancel.store(true, Ordering::Release);
        let e = waiting.join().unwrap().unwrap_err();
        assert_eq!(e.code_name().as_deref(), Some("NCCL_ERROR_INVALID_USAGE"), "{e}");
        assert!(e.message().contains("aborted"), "{e}");
    }

    /// A rank of another process, spoken to through the wire by hand, that reads only when told.
    fn raw_rank(id: &UniqueId, nranks: u32, rank: u32) -> std::net::TcpStream {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", u16::from_le_bytes([id[10], id[11]]))).unwrap();
        let mut hello = vec![1u8];
        hello.extend_from_slice(&id[12..20]);
        for v in [nranks, rank, rank, 0] {
            // nranks, rank, device, and a process id that is not this one's (0 is no process's)
            hello.extend_from_slice(&v.to_le_bytes());
        }
        write_frame(&mut s, &hello).unwrap();
        s
    }

    #[test]
    fn the_hub_answers_its_own_process_last_so_its_exit_loses_no_answer() {
        // CI once read rank 2's all-reduce unwritten: the hub (in rank 0's process) answered rank
        // 0 first, rank 0 finished and its process exited, and the hub's thread went with it
        // before it had written rank 2's answer. Here the other process's rank does not read its
        // answer (16 MiB, more than the sockets hold), so the hub cannot finish writing it: this
        // process's rank must not be answered until it has.
        use super::wire::{encode_tag, read_frame, Reader, Tag};
        use crate::sim::bytes::Buffer;
        let b = SimBackend::new(1, 1 << 20);
        let id = b.unique_id().unwrap();
        let len = 16 << 20;
        let call = Call { coll: Collective::AllReduce { op: RedOp::Sum }, count: len as u64, dtype: DataType::U8 };
        let mut other = raw_rank(&id, 2, 1);
        let mine = std::thread::spawn(move || join_on("", 0, 2, &id, 0, &AtomicBool::new(false)).unwrap());
        assert_eq!(read_frame(&mut other).unwrap(), vec![1u8], "everyone joined");
        let rank = Arc::new(mine.join().unwrap());
        let mut post = vec![2u8];
        post.extend_from_slice(&7u64.to_le_bytes());
        encode_tag(&mut post, &Tag { class: 0, seq: 0, call });
        post.extend(std::iter::repeat_n(2u8, len));
        write_frame(&mut other, &post).unwrap();
        let send = Arc::new(Buffer { bytes: std::sync::Mutex::new(vec![1u8; len]) });
        let recv = Arc::new(Buffer { bytes: std::sync::Mutex::new(vec![0u8; len]) });
        let (done_tx, done) = std::sync::mpsc::channel();
        let item = Item { rank: rank.clone(), call, send: Some((send, 0, len)), recv: Some((recv.clone(), 0, len)) };
        std::thread::spawn(move || {
            run(&[item]);
            let _ = done_tx.send(());
        });
        assert!(
            done.recv_timeout(std::time::Duration::from_millis(1500)).is_err(),
            "this process's rank had its answer while the other's was still being written"
        );
        let answer = read_frame(&mut other).unwrap();
        let mut r = Reader(&answer);
        assert_eq!((r.u8(), r.u64(), r.u8()), (Some(3), Some(7), Some(1)));
        assert!(r.0.len() == len && r.0.iter().all(|&v| v == 3), "the other rank's answer is the sum");
        done.recv_timeout(std::time::Duration::from_secs(60)).expect("this process's rank is answered once the other's is written");
        assert!(recv.lock().iter().all(|&v| v == 3));
        assert!(lock(&rank.async_error).is_none());
    }

    #[test]
    fn an_answer_of_the_wrong_length_is_the_communicators_async_error() {
        // A hub of the test's own, over the wire, that answers an all-reduce of 16 bytes with 8:
        // the receive buffer keeps what it held, and the rank says why.
        use super::wire::{read_frame, Reader, MAGIC};
        use crate::sim::bytes::Buffer;
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let mut id = [0u8; UNIQUE_ID_BYTES];
        id[..10].copy_from_slice(MAGIC);
        id[10..12].copy_from_slice(&listener.local_addr().unwrap().port().to_le_bytes());
        let hub = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            read_frame(&mut s).unwrap(); // the hello
            write_frame(&mut s, &[1u8]).unwrap();
            let post = read_frame(&mut s).unwrap();
            let mut r = Reader(&post);
            assert_eq!(r.u8(), Some(2));
            let mut out = vec![3u8];
            out.extend_from_slice(&r.u64().unwrap().to_le_bytes());
            out.push(1);
            out.extend_from_slice(&[9u8; 8]);
            write_frame(&mut s, &out).unwrap();
            s
        });
        let rank = Arc::new(join_on("", 0, 1, &id, 0, &AtomicBool::new(false)).unwrap());
        let call = Call { coll: Collective::AllReduce { op: RedOp::Sum }, count: 4, dtype: DataType::F32 };
        let buf = Arc::new(Buffer { bytes: std::sync::Mutex::new(vec![7u8; 16]) });
        run(&[Item { rank: rank.clone(), call, send: Some((buf.clone(), 0, 16)), recv: Some((buf.clone(), 0, 16)) }]);
        let _hub_side = hub.join().unwrap();
        assert_eq!(*buf.lock(), vec![7u8; 16], "nothing written");
        let e = lock(&rank.async_error).clone().expect("an async error");
        assert_eq!(e.code_name().as_deref(), Some("NCCL_ERROR_INTERNAL_ERROR"), "{e}");
        assert!(e.message().contains("8 bytes where 16 were due"), "{e}");
    }

    #[test]
    fn a_bad_id_is_an_invalid_argument() {
        let b = SimBackend::new(1, 1 << 20);
        let e = b.init_rank(0, 1, &[0u8; UNIQUE_ID_BYTES], 0, &CommConfig::default(), &AtomicBool::new(false)).err().unwrap();
        assert_eq!(e.code_name().as_deref(), Some("NCCL_ERROR_INVALID_ARGUMENT"));
    }

    #[test]
    fn device_0_of_two_nodes_is_two_gpus() {
        let b = SimBackend::new(1, 1 << 20);
        let id = b.unique_id().unwrap();
        let other = std::thread::spawn(move || join_on("node-b", 0, 2, &id, 1, &AtomicBool::new(false)).map(|_| ()));
        join_on("node-a", 0, 2, &id, 0, &AtomicBool::new(false)).unwrap();
        other.join().unwrap().unwrap();
    }

    #[test]
    fn two_ranks_on_one_device_are_refused_as_nccl_refuses_them() {
        let b = SimBackend::new(1, 1 << 20);
        let id = b.unique_id().unwrap();
        let other = std::thread::spawn(move || join(0, 2, &id, 1, &AtomicBool::new(false)));
        let mine = join(0, 2, &id, 0, &AtomicBool::new(false));
        let errs: Vec<Error> = [mine.err(), other.join().unwrap().err()].into_iter().flatten().collect();
        assert_eq!(errs.len(), 2, "both ranks' init fails");
        for e in errs {
            assert!(e.message().contains("Duplicate GPU"), "{e}");
            assert_eq!(e.code_name().as_deref(), Some("NCCL_ERROR_INVALID_USAGE"));
        }
    }
}
