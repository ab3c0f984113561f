//! A rank: its join (the hello, then the hub's "everyone joined"), its posts, and the thread
//! that reads the hub's answers and hands each to the post waiting for it.

use super::wire::{
    encode_tag, nccl_error, read_frame, write_frame, Reader, Reply, Tag, INTERNAL, INVALID_ARGUMENT, INVALID_USAGE, MAGIC, REMOTE, SYSTEM,
};
use crate::error::{Error, Result};
use crate::ops::nccl::{Call, Collective, UniqueId};
use crate::sim::bytes::Buffer;
use crate::sim::lock;

/// Names the simulated node this process is on (`cuda-node run` sets it, one a launcher); unset,
/// every process is on the same node, and a device is the same GPU in each.
pub(super) const NODE_ENV: &str = "CUDA_NODE_SIM_NODE";
use std::collections::HashMap;
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};

#[derive(Default)]
struct Pending {
    waiting: HashMap<u64, mpsc::Sender<Reply>>,
    dead: Option<(i32, String)>,
}

pub(super) struct Rank {
    pub(super) rank: usize,
    pub(super) nranks: usize,
    device: usize,
    node: String,
    pub(super) writer: Mutex<TcpStream>,
    pending: Arc<Mutex<Pending>>,
    next_post: AtomicU64,
    coll_seq: AtomicU64,
    /// Per peer: sends to it and receives from it, counted as they run.
    p2p_seq: Mutex<(Vec<u64>, Vec<u64>)>,
    pub(super) async_error: Mutex<Option<Error>>,
    pub(super) aborted: AtomicBool,
    registrations: AtomicU64,
}

impl Drop for Rank {
    fn drop(&mut self) {
        let _ = lock(&self.writer).shutdown(Shutdown::Both);
    }
}

pub(super) fn join(device: usize, nranks: usize, id: &UniqueId, rank: usize, cancel: &AtomicBool) -> Result<Rank> {
    join_on(&std::env::var(NODE_ENV).unwrap_or_default(), device, nranks, id, rank, cancel)
}

/// What a join or split stopped by `cancel` (an abort) fails with.
pub(super) fn aborted() -> Error {
    nccl_error(INVALID_USAGE, "the communicator was aborted before it was ready")
}

/// Joins as `rank` on `device` of the simulated `node`; `cancel` stops the wait for the others.
pub(super) fn join_on(node: &str, device: usize, nranks: usize, id: &UniqueId, rank: usize, cancel: &AtomicBool) -> Result<Rank> {
    if &id[..10] != MAGIC {
        return Err(nccl_error(INVALID_ARGUMENT, "this is not a unique id from nccl.getUniqueId() of the simulator"));
    }
    let port = u16::from_le_bytes([id[10], id[11]]);
    let nonce = u64::from_le_bytes(id[12..20].try_into().unwrap());
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| {
        nccl_error(
            SYSTEM,
            format!(
                "could not reach the rendezvous of this unique id (the process that made it must still run, and the id must be new): {e}"
            ),
        )
    })?;
    let _ = s.set_nodelay(true);
    let mut hello = vec![1u8];
    hello.extend_from_slice(&nonce.to_le_bytes());
    hello.extend_from_slice(&(nranks as u32).to_le_bytes());
    hello.extend_from_slice(&(rank as u32).to_le_bytes());
    hello.extend_from_slice(&(device as u32).to_le_bytes());
    // The hub answers the ranks of its own process last (`Hub::answer`).
    hello.extend_from_slice(&std::process::id().to_le_bytes());
    // The node this process plays: each launcher's simulated devices are its own node's.
    hello.extend_from_slice(node.as_bytes());
    let io = |e: std::io::Error| nccl_error(SYSTEM, format!("the rendezvous failed: {e}"));
    write_frame(&mut s, &hello).map_err(io)?;
    // The hub answers once every rank has joined; an abort meanwhile closes the socket.
    let watch = s.try_clone().map_err(io)?;
    let done = AtomicBool::new(false);
    let answer = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Acquire) {
                if cancel.load(Ordering::Acquire) {
                    let _ = watch.shutdown(Shutdown::Both);
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        });
        let a = read_frame(&mut s);
        done.store(true, Ordering::Release);
        a
    });
    if cancel.load(Ordering::Acquire) {
        return Err(aborted());
    }
    let answer = answer
        .map_err(|_| nccl_error(SYSTEM, "the rendezvous closed before every rank joined (this id may be in use by a full communicator)"))?;
    match answer.first() {
        Some(1) => {}
        Some(2) if answer.len() >= 2 => return Err(nccl_error(answer[1] as i32, String::from_utf8_lossy(&answer[2..]).into_owned())),
        _ => return Err(nccl_error(SYSTEM, "the rendezvous answered with something unexpected")),
    }
    let pending = Arc::new(Mutex::new(Pending::default()));
    let mut rd = s.try_clone().map_err(io)?;
    let p = pending.clone();
    std::thread::Builder::new()
        .name("sim-nccl-reader".into())
        .spawn(move || {
            while let Ok(frame) = read_frame(&mut rd) {
                let mut r = Reader(&frame);
                let (Some(3), Some(post), Some(ok)) = (r.u8(), r.u64(), r.u8()) else { break };
                let res: Reply =
                    if ok == 1 { Ok(r.0.to_vec()) } else { Err((r.u8().unwrap_or(3) as i32, String::from_utf8_lossy(r.0).into_owned())) };
                if let Some(tx) = lock(&p).waiting.remove(&post) {
                    let _ = tx.send(res);
                }
            }
            let mut st = lock(&p);
            let why = (
                REMOTE,
                "the communicator's connection closed (the process that made the unique id exited, or this rank was destroyed)".to_string(),
            );
            for (_, tx) in st.waiting.drain() {
                let _ = tx.send(Err(why.clone()));
            }
            st.dead = Some(why);
        })
        .map_err(|e| nccl_error(SYSTEM, e.to_string()))?;
    Ok(Rank {
        rank,
        nranks,
        device,
        node: node.to_string(),
        writer: Mutex::new(s),
        pending,
        next_post: AtomicU64::new(0),
        coll_seq: AtomicU64::new(0),
        p2p_seq: Mutex::new((vec![0; nranks], vec![0; nranks])),
        async_error: Mutex::new(None),
        aborted: AtomicBool::new(false),
        registrations: AtomicU64::new(1),
    })
}

/// One call as it runs: the rank, what it posts, where its result goes.
pub(super) struct Item {
    pub(super) rank: Arc<Rank>,
    pub(super) call: Call,
    pub(super) send: Option<(Arc<Buffer>, usize, usize)>,
    pub(super) recv: Option<(Arc<Buffer>, usize, usize)>,
}

impl Rank {
    /// A new registration handle (never 0).
    pub(super) fn next_registration(&self) -> u64 {
        self.registrations.fetch_add(1, Ordering::Relaxed)
    }

    /// This rank's `split`: the hub answers once every rank has called it, with the new
    /// rendezvous and this rank's place there (nothing for no color); then it joins that.
    pub(super) fn split(&self, color: Option<u32>, key: i32, cancel: &AtomicBool) -> Result<Option<Rank>> {
        let (tx, rx) = mpsc::channel();
        let post = self.next_post.fetch_add(1, Ordering::Relaxed);
        {
            let mut p = lock(&self.pending);
            if let Some((code, msg)) = p.dead.clone() {
                return Err(nccl_error(code, msg));
            }
            p.waiting.insert(post, tx);
        }
        let mut body = vec![4u8];
        body.extend_from_slice(&post.to_le_bytes());
        body.extend_from_slice(&color.unwrap_or(u32::MAX).to_le_bytes());
        body.extend_from_slice(&(key as u32).to_le_bytes());
        if write_frame(&mut lock(&self.writer), &body).is_err() {
            lock(&self.pending).waiting.remove(&post);
            return Err(nccl_error(REMOTE, "the communicator's connection closed"));
        }
        let reply = loop {
            if cancel.load(Ordering::Acquire) {
                lock(&self.pending).waiting.remove(&post);
                return Err(aborted());
            }
            match rx.recv_timeout(std::time::Duration::from_millis(5)) {
                Ok(r) => break r,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break Err((REMOTE, "the communicator's connection closed".into())),
            }
        };
        let data = reply.map_err(|(code, msg)| nccl_error(code, format!("split: {msg}")))?;
        if data.is_empty() {
            return Ok(None);
        }
        let (Ok(id), Some(rank), Some(size)) = (
            UniqueId::try_from(&data[..data.len().min(128)]),
            data.get(128..132).map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize),
            data.get(132..136).map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize),
        ) else {
            return Err(nccl_error(SYSTEM, "the hub answered the split with something unexpected"));
        };
        join_on(&self.node, self.device, size, &id, rank, cancel).map(Some)
    }

    /// Posts `item`'s part; the receiver gets the hub's answer.
    fn post(&self, item: &Item) -> mpsc::Receiver<Reply> {
        let (tx, rx) = mpsc::channel();
        if self.aborted.load(Ordering::Acquire) {
            let _ = tx.send(Err((REMOTE, "this communicator was aborted".into())));
            return rx;
        }
        let (class, seq) = match item.call.coll {
            Collective::Send { peer } => {
                let mut q = lock(&self.p2p_seq);
                q.0[peer] += 1;
                (1, q.0[peer] - 1)
            }
            Collective::Recv { peer } => {
                let mut q = lock(&self.p2p_seq);
                q.1[peer] += 1;
                (2, q.1[peer] - 1)
            }
            _ => (0, self.coll_seq.fetch_add(1, Ordering::Relaxed)),
        };
        let post = self.next_post.fetch_add(1, Ordering::Relaxed);
        let mut body = vec![2u8];
        body.extend_from_slice(&post.to_le_bytes());
        encode_tag(&mut body, &Tag { class, seq, call: item.call });
        if let Some((buf, off, len)) = &item.send {
            body.extend_from_slice(&buf.lock()[*off..off + len]);
        }
        {
            let mut p = lock(&self.pending);
            if let Some(dead) = p.dead.clone() {
                let _ = tx.send(Err(dead));
                return rx;
            }
            p.waiting.insert(post, tx);
        }
        if write_frame(&mut lock(&self.writer), &body).is_err() {
            if let Some(tx) = lock(&self.pending).waiting.remove(&post) {
                let _ = tx.send(Err((REMOTE, "the communicator's connection closed".into())));
            }
        }
        rx
    }
}

/// Runs `items` as one operation of a stream: all post, then all wait (a group's semantics).
pub(super) fn run(items: &[Item]) {
    let waits: Vec<_> = items.iter().map(|i| i.rank.post(i)).collect();
    for (item, rx) in items.iter().zip(waits) {
        let res = rx.recv().unwrap_or_else(|_| Err((REMOTE, "the communicator's connection closed".into())));
        match res {
            Ok(data) => match &item.recv {
                Some((buf, off, len)) if data.len() == *len => buf.lock()[*off..off + len].copy_from_slice(&data),
                Some((_, _, len)) => fail(item, INTERNAL, format!("the hub answered {} bytes where {len} were due", data.len())),
                None => {}
            },
            Err((code, msg)) => fail(item, code, msg),
        }
    }
}

/// Keeps the first failure of `item`'s rank as its communicator's async error.
fn fail(item: &Item, code: i32, msg: String) {
    let mut e = lock(&item.rank.async_error);
    if e.is_none() {
        *e = Some(nccl_error(code, format!("rank {} of {}: {msg}", item.rank.rank, item.rank.nranks)));
    }
}
